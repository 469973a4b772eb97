"""The ``gomoku-engine`` click group, the protocol without a subcommand, and the options
its commands share (``--rule``, ``--algorithm``, ``--param``).

With no subcommand ``gomoku-engine`` serves the Gomocup protocol on stdin/stdout, exactly
like ``pbrain-gomoku-engine`` (the name managers look for; :mod:`gomoku_engine.pbrain`
serves it without importing this package).
"""

from __future__ import annotations

import click

from ..core.constants import COMMAND_RULES

#: ``--rule`` names (:data:`gomoku_engine.core.constants.COMMAND_RULES`)
RULES = COMMAND_RULES
#: ``INFO rule`` codes ``--rule`` also accepts (docs/protocol.md section 4.1; 2 is
#: Yixin-Board's code for renju)
RULE_CODES = {"0": "freestyle", "1": "standard", "2": "renju", "4": "renju", "8": "caro",
              "9": "caro5"}


class RuleChoice(click.Choice):
    """``--rule``: a rule's name or its protocol code (``0`` is ``freestyle``, ...);
    the value is always the name, a key of :data:`RULES`."""

    def __init__(self) -> None:
        super().__init__(sorted(RULES))

    def convert(self, value, param, ctx):  # noqa: ANN001 (click's signature)
        return super().convert(RULE_CODES.get(str(value).strip(), value), param, ctx)

    def get_metavar(self, param, *args, **kwargs):  # noqa: ANN001
        return "[" + "|".join(sorted(RULES)) + "|" + "|".join(RULE_CODES) + "]"


RULE_CHOICE = RuleChoice()

def _param_settings(ctx: click.Context, option: click.Parameter,
                    texts: tuple[str, ...]) -> dict[str, float]:
    """``--param NAME=VALUE`` (repeatable) as checked tunables' settings."""
    from ..search.params import parse_assignments  # numpy: only when the option is used

    if not texts:
        return {}
    try:
        return parse_assignments(texts)
    except ValueError as problem:
        raise click.BadParameter(str(problem), ctx, option) from None


#: ``--param NAME=VALUE``: one of the search's tunables (``gomoku-engine tune --list``)
PARAM_OPTION = click.option(
    "--param", "params", multiple=True, metavar="NAME=VALUE", callback=_param_settings,
    help="Set one of the search's tunables (repeatable; `gomoku-engine tune --list` names "
         "them), as INFO param does; no recompiling.")

#: the ``--evaluation`` names of every command: one owner, so all take the same names
#: (:data:`gomoku_engine.eval.EVALUATIONS`, spelled out here: importing the evaluation
#: loads numba, which every command would then pay for at start-up; a test checks they
#: agree)
EVALUATION_CHOICE = click.Choice(["classical", "network", "spatial", "handset"])
#: ``--evaluation`` of the group and of ``serve`` (``serve``'s overrides the group's)
EVALUATION_OPTION = click.option(
    "--evaluation", type=EVALUATION_CHOICE, default=None,
    help="Static evaluation when serving the protocol, as INFO evaluation sets it (which "
         "overrides it) [default: the engine's default].")

ALGORITHM_CHOICE = click.Choice(["alphabeta", "ga"])
ALGORITHM_HELP = "Search: alpha-beta, or the genetic algorithm of Wang and Huang (2014)."


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="gomoku-engine")
@click.option("--level", type=click.IntRange(1, 10), default=None, metavar="1..10",
              help="Strength level when serving the protocol (10 = full strength) "
                   "[default: 10].")
@PARAM_OPTION
@EVALUATION_OPTION
@click.pass_context
def main(ctx: click.Context, level: int | None, params: dict[str, float],
         evaluation: str | None) -> None:
    """Gomoku engine speaking the Gomocup (pbrain) protocol.

    Without a subcommand, serve the protocol on stdin/stdout (like ``serve``).
    ``gomoku-engine --level 3`` serves it at strength level 3.
    """
    ctx.ensure_object(dict)  # {"started_at": ...} from the entry point, if it set one
    if ctx.invoked_subcommand is None:
        serve(ctx, level or 10, params=params, evaluation=evaluation)
    else:
        if level is not None:
            ctx.obj["level"] = level  # read by ``serve``
        ctx.obj["params"] = params  # read by ``serve``
        ctx.obj["evaluation"] = evaluation  # read by ``serve``


LEVEL_HELP = ("Strength level 1..10 by search depth and nodes (10 = full strength); "
              "INFO strength 0..100 changes it.")


def serve(ctx: click.Context, level: int, algorithm: str = "alphabeta", seed: int = 0,
          max_depth: int | None = None, threads: int = 1,
          params: dict[str, float] | None = None, evaluation: str | None = None) -> None:
    """The protocol loop on stdin/stdout at these settings (``params``: tunables by name;
    ``evaluation``: a name of :data:`gomoku_engine.eval.EVALUATIONS`, None the default);
    its clock starts when the process started (``ctx.obj["started_at"]``, set by
    :mod:`gomoku_engine.pbrain`)."""
    from ..protocol.stdio import serve as serve_stdio

    serve_stdio(level, algorithm, seed, max_depth, threads, started_at=ctx.obj.get("started_at"),
                params=params, evaluation=evaluation or ctx.obj.get("evaluation"))
