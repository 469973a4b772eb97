"""The match runner of a command's ``--cluster SPEC`` option, shared by ``match`` and
``tune`` (each command keeps its own option and help text)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from ..arena.match import EngineSpec, Runner


@contextmanager
def cluster_runner_or_none(spec: str | None, specs: list[EngineSpec], settings: dict
                           ) -> Iterator[Runner | None]:
    """The runner of ``--cluster SPEC`` (None without it), its workers' checks added to
    ``settings`` as ``cluster`` and a slow worker named on stderr."""
    if spec is None:
        yield None
        return
    from ..arena.cluster import ClusterError, cluster_runner

    with ExitStack() as stack:
        try:
            runner, summary = stack.enter_context(cluster_runner(spec, specs))
        except (ValueError, ClusterError) as exc:
            raise click.ClickException(str(exc)) from exc
        settings["cluster"] = summary
        for worker in summary["slow_workers"]:
            report = summary["workers"][worker]
            click.echo(f"warning: worker {report['name']} ({worker}) is much slower than the "
                       f"others (bench {report['nodes_per_second']} nodes/s)", err=True)
        yield runner


__all__ = ["cluster_runner_or_none"]
