"""What ``INFO`` sets, kept across games, and the parsing of ``INFO`` lines.

Managers send ``INFO <key> <value>`` at any time, in any order, before or after
``START`` (docs/protocol.md section 4).  :func:`apply_info` reads one line into a
:class:`Settings` and says what else must follow (the engine's settings, the kernels a move
may call); unknown keys are ignored silently, bad values are reported by a ``MESSAGE``
or ``ERROR`` line (:attr:`Settings.pending_lines`), which the protocol loop writes as soon
as the ``INFO`` line is applied (after ``OK`` for the lines that came with ``START``).

Yixin-Board's ``INFO hash_size`` (KiB) sizes the transposition table with ``max_memory``
(:meth:`Settings.hash_mb`).  Writing a new table takes 1-2 ms a MiB (120-290 ms for the
120 MiB of Gomocup's ``max_memory``), so the protocol loop resizes it where no move waits:
before ``START``'s ``OK``, or at its next idle point (:attr:`Settings.table_held`).

This engine's extensions: ``INFO algorithm``, ``INFO evaluation``, ``INFO opening`` (the
opening rule of black's first stone), ``INFO seed``, ``INFO threats`` (a sum of the
``THREATS_*`` bits below) and ``INFO param NAME VALUE`` (one of the search's tunables).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field

from ..core.constants import Rule
from ..core.opening_rules import OPENING_RULES
from ..engine import ALGORITHMS, DEFAULT_ALGORITHM, Engine
from ..eval import DEFAULT_EVALUATION, EVALUATIONS, network_available
from ..eval.network import VARIANTS
from ..search.levels import MAX_LEVEL, level_for_strength
from ..search.params import check_param
from ..search.timeman import TimeControl
from ..kernels import kernel_groups
from .messages import ignored_info_line, network_fallback_line, unknown_name_line
from .reader import split_word

# ``INFO threats`` bits: which parts of the threat-space search a game move uses.
THREATS_VCF = 1  #: our VCF and the opponent's (root move filter) at the root
THREATS_HORIZON = 2  #: a short VCF at the horizon of the alpha-beta search
THREATS_VCT = 4  #: our VCT at the root
DEFAULT_THREATS = THREATS_VCF

# ``INFO show_detail`` bits (Yixin-Board's, as Rapfi reads them: 0 none, 3 both).
SHOW_REALTIME = 1  #: lines while searching: each iteration's MESSAGE, the REALTIME marks
SHOW_DETAIL = 2  #: the INFO lines of every searched line (protocol.analysis)

#: MiB of INFO max_memory kept for Python, numba and the tables; the rest is hash
#: (numba and llvmlite alone take ~150 MiB, docs/protocol.md section 5).
MEMORY_RESERVE_MB = 230
#: Largest transposition table ``INFO max_memory`` or ``INFO hash_size`` can ask for, MiB
#: (``YXSHOWINFO`` reports it).
MAX_HASH_MB = 256


@dataclass
class Settings:
    """Everything ``INFO`` can set; kept across START (managers send INFO in any order)."""

    time: TimeControl = field(default_factory=TimeControl)
    max_memory: int = 0  #: ``INFO max_memory``, bytes (0: no limit)
    #: ``INFO hash_size`` (Yixin-Board), the transposition table in KiB (0: the engine's own)
    hash_size_kb: int = 0
    rule_code: int = 0  #: a :class:`Rule` value
    swap1: bool = False  #: ``INFO rule 5`` (Rapfi): SWAP2BOARD case 2 without two stones
    max_depth: int | None = None  #: ``INFO max_depth``, plies
    max_nodes: int | None = None  #: ``INFO max_node``
    level: int = MAX_LEVEL  #: strength level 1..10 (``INFO strength`` or ``--level``)
    #: ``INFO show_detail``: a sum of the ``SHOW_*`` bits (other bits are ignored)
    show_detail: int = 0
    #: ``INFO algorithm``: a name of :data:`gomoku_engine.engine.ALGORITHMS`
    algorithm: str = DEFAULT_ALGORITHM
    #: ``INFO seed``: seed of the genetic algorithm's random numbers
    seed: int = 0
    #: ``INFO evaluation``: a name of :data:`gomoku_engine.eval.EVALUATIONS`
    evaluation: str = DEFAULT_EVALUATION
    #: the evaluation was named (``INFO evaluation`` or ``--evaluation``), not the default:
    #: only a named network that falls back to the classical table is told in a MESSAGE
    evaluation_named: bool = False
    #: ``INFO threats``: threat-space search in the game search, a sum of THREATS_* bits
    threats: int = DEFAULT_THREATS
    #: ``INFO opening``: the opening rule of black's first stone (``none`` or ``lin``)
    opening_rule: str = "none"
    #: ``INFO thread_num``: search threads (lazy SMP, :meth:`Engine.set_threads`)
    threads: int = 1
    #: ``INFO pondering 1``: search on the opponent's time (:mod:`.ponder`)
    pondering: bool = False
    #: ``INFO param NAME VALUE`` (and ``--param``): the search's tunables set away from
    #: their defaults (:data:`gomoku_engine.search.params.TUNABLES`), by name
    params: dict[str, float] = field(default_factory=dict)
    #: MESSAGE/ERROR lines of the INFO lines applied and not yet written, by topic: the
    #: loop writes them at once (after OK for those that came with START)
    pending_lines: dict[str, str] = field(default_factory=dict)
    #: ``INFO max_memory`` or ``hash_size`` changed the table's size and the engine's table
    #: is not resized yet: :meth:`apply_to` leaves it until the protocol loop resizes it
    #: where no move waits (``START``, or when no command is queued)
    table_held: bool = False
    #: ``INFO`` changed the engine's settings before the core kernels were in (the
    #: kernel loader's thread may be building the engine): they are given to it once
    #: built, rather than the ``INFO`` line waiting for the build while a move's clock runs
    engine_stale: bool = False

    @property
    def rule(self) -> Rule:
        """The game rule ``INFO rule`` chose."""
        return Rule(self.rule_code)

    def kernel_groups(self) -> tuple[str, ...]:
        """The kernel groups (:func:`gomoku_engine.kernels.kernel_groups`) a move can call."""
        bits = self.threats  # the root VCT runs only with the root VCF (Limits.vct)
        return kernel_groups(self.algorithm, vct=bool(bits & THREATS_VCF and bits & THREATS_VCT))

    def threat_flags(self) -> dict[str, bool]:
        """The ``threats``, ``vct`` and ``horizon_vcf`` flags of
        :class:`gomoku_engine.search.limits.Limits` for :attr:`threats` (the search reads
        the last two only with the first)."""
        bits = self.threats
        return {"threats": bool(bits & THREATS_VCF), "vct": bool(bits & THREATS_VCT),
                "horizon_vcf": bool(bits & THREATS_HORIZON)}

    def apply_to(self, engine: Engine) -> None:
        """Set the engine's rule, algorithm, evaluation, seed, opening rule, threads and
        transposition table (:meth:`hash_mb`, else the size it was built with; the table
        is left as it is while :attr:`table_held`)."""
        engine.set_rule(self.rule)
        engine.set_algorithm(self.algorithm)
        engine.set_evaluation(self.evaluation)
        board = engine.board
        if (self.evaluation in VARIANTS and self.evaluation_named
                and not network_available(self.rule, board.width, board.height,
                                          self.evaluation)):
            self.pending_lines["evaluation fallback"] = network_fallback_line(
                self.evaluation, self.rule.name, board.width, board.height)
        engine.seed = self.seed
        engine.set_opening_rule(self.opening_rule)
        engine.set_threads(self.threads)
        engine.set_params(self.params)
        if not self.table_held:
            hash_mb = self.hash_mb()
            engine.set_hash_size(engine.default_hash_mb if hash_mb is None else hash_mb)

    def hash_mb(self) -> float | None:
        """The transposition table (MiB) for :attr:`max_memory` and :attr:`hash_size_kb`,
        or None (both 0) to keep the engine's own.

        ``max_memory`` allows the memory less :data:`MEMORY_RESERVE_MB` (at least 1 MiB),
        ``hash_size`` its KiB; with both the smaller wins (Rapfi lets the last one sent
        win; the smaller keeps a manager's memory limit whatever the GUI's slider says),
        and never more than :data:`MAX_HASH_MB`."""
        sizes = []
        if self.max_memory > 0:
            sizes.append(float(max(1, (self.max_memory >> 20) - MEMORY_RESERVE_MB)))
        if self.hash_size_kb > 0:
            sizes.append(self.hash_size_kb / 1024)
        return min(float(MAX_HASH_MB), *sizes) if sizes else None


class Changed(enum.Flag):
    """What an ``INFO`` line changed beyond :class:`Settings` itself."""

    NOTHING = 0
    ENGINE = enum.auto()  #: the engine's settings: apply them to the engine
    KERNELS = enum.auto()  #: the kernel groups a move may call: load them
    TABLE = enum.auto()  #: the transposition table's size: resize it where no move waits


#: ``INFO`` keys whose value is one of a few names, the :class:`Settings` field each sets
#: and the names.
NAMED_SETTINGS: dict[str, tuple[str, tuple[str, ...]]] = {
    "algorithm": ("algorithm", ALGORITHMS),
    # "learned": the classical evaluation's earlier name, still read
    "evaluation": ("evaluation", EVALUATIONS + ("learned",)),
    "opening": ("opening_rule", OPENING_RULES)}


def _set_match(s: Settings, n: int) -> Changed:
    s.time.set_match(n)
    return Changed.NOTHING


def _set_rule(s: Settings, code: int) -> Changed:
    rule, s.swap1, problem = rule_from_info(code)
    s.rule_code = int(rule)
    s.pending_lines.pop("rule", None)
    if problem:
        s.pending_lines["rule"] = f"ERROR {problem}"
    return Changed.ENGINE


def _setter(name: str, convert: Callable[[int], object], changed: Changed
            ) -> Callable[[Settings, int], Changed]:
    def set_field(s: Settings, n: int) -> Changed:
        setattr(s, name, convert(n))
        return changed
    return set_field


def _set_time(name: str, convert: Callable[[int], int]) -> Callable[[Settings, int], Changed]:
    def set_field(s: Settings, n: int) -> Changed:
        setattr(s.time, name, convert(n))
        return Changed.NOTHING
    return set_field


def _positive_or_none(n: int) -> int | None:
    return n if n > 0 else None


def _at_least_0(n: int) -> int:
    return max(0, n)


#: ``INFO`` keys with an integer value, and how each is stored.
_NUMBER_SETTINGS: dict[str, Callable[[Settings, int], Changed]] = {
    "timeout_turn": _set_time("turn_ms", _at_least_0),
    "timeout_match": _set_match,
    "time_left": _set_time("left_ms", int),  # may be negative after an overrun
    "time_increment": _set_time("increment_ms", _at_least_0),
    "max_memory": _setter("max_memory", _at_least_0, Changed.TABLE),
    "hash_size": _setter("hash_size_kb", _at_least_0, Changed.TABLE),
    "rule": _set_rule,
    "max_depth": _setter("max_depth", _positive_or_none, Changed.NOTHING),
    "max_node": _setter("max_nodes", _positive_or_none, Changed.NOTHING),
    "show_detail": _setter("show_detail", int, Changed.NOTHING),
    "strength": _setter("level", level_for_strength, Changed.NOTHING),
    "seed": _setter("seed", int, Changed.ENGINE),
    "thread_num": _setter("threads", int, Changed.ENGINE),  # the engine clamps it
    "threats": _setter("threats", int, Changed.KERNELS),
    "pondering": _setter("pondering", lambda n: n == 1, Changed.NOTHING),  # Rapfi: 1 only
}


def apply_info(settings: Settings, rest: str) -> Changed:
    """Read ``INFO <key> <value>`` (``rest`` is the text after ``INFO``) into ``settings``.

    Unknown keys (``game_type``, ``folder``, ``evaluate``, other engines' extensions) are
    ignored; a value that is not an integer leaves the setting as it was and puts a
    ``MESSAGE`` into :attr:`Settings.pending_lines`, a name that is not one of a key's
    names (``INFO evaluation nosuch``) an ``ERROR``.  Never raises.
    """
    key, value = split_word(rest)
    key = key.lower()
    if key in NAMED_SETTINGS:
        return _set_name(settings, key, value)
    if key == "param":
        return _set_param(settings, value)
    store = _NUMBER_SETTINGS.get(key)
    if store is None:
        return Changed.NOTHING
    try:
        number = int(value)
    except ValueError:
        settings.pending_lines[key] = ignored_info_line(key, value, "not an integer")
        return Changed.NOTHING
    return store(settings, number)


def evaluation_setting(name: str | None) -> dict[str, str | bool]:
    """The :class:`Settings` fields for an evaluation named on the command line
    (``--evaluation``), or none (None: the default, not named)."""
    return {} if name is None else {"evaluation": name, "evaluation_named": True}


def _set_name(settings: Settings, key: str, name: str) -> Changed:
    """``INFO algorithm alphabeta|ga``, ``INFO evaluation classical|network|spatial|handset``
    or ``INFO opening none|lin``; an unknown name answers an ``ERROR`` line (as ``INFO param``
    does) and changes nothing."""
    attribute, choices = NAMED_SETTINGS[key]
    settings.pending_lines.pop(key, None)
    name = name.lower()
    if name not in choices:
        settings.pending_lines[key] = unknown_name_line(key, name, choices)
        return Changed.NOTHING
    setattr(settings, attribute, name)
    if attribute == "evaluation":
        settings.evaluation_named = True
    return Changed.ENGINE | Changed.KERNELS


def _set_param(settings: Settings, text: str) -> Changed:
    """``INFO param NAME VALUE``: one of the search's tunables for the next searches (no
    recompiling); an unknown name, a missing or bad value, or one outside the tunable's
    range answers an ``ERROR`` line and changes nothing.  Each name has its own pending
    line: a later good value of the same name takes its error back, another name's error
    stays."""
    name, value = split_word(text)
    topic = f"param {name.lower()}"
    settings.pending_lines.pop(topic, None)
    try:
        key, number = check_param(name, value.strip())
    except ValueError as problem:
        settings.pending_lines[topic] = f"ERROR INFO param {text.strip()}: {problem}"
        return Changed.NOTHING
    settings.params[key] = number
    return Changed.ENGINE


def rule_from_info(code: int) -> tuple[Rule, bool, str | None]:
    """Decode ``INFO rule``: ``(rule, swap1, message or None)``.

    The bitmask of the protocol (1 exactly five, 2 continuous, 4 renju, 8 caro), plus
    Yixin-Board's 2 for renju and Rapfi's 5 for freestyle with the swap1 opening
    (docs/protocol.md section 4.1).  Continuous games are not supported: the
    rule is played without bit 2 and the message (sent as an ERROR line) says so.
    """
    if code == 5:
        return Rule.FREESTYLE, True, None
    if code == 2:
        return Rule.RENJU, False, None
    problem = None
    if code < 0 or code & ~15:
        problem = f"rule {code} is unknown; playing freestyle"
        return Rule.FREESTYLE, False, problem
    if code & 2:
        problem = (f"rule {code}: continuous games (bit 2) are not supported; playing rule "
                   f"{code & ~2}")
    if code & 4:
        rule = Rule.RENJU
    elif code & 8:
        rule = Rule.CARO_STANDARD if code & 1 else Rule.CARO
    else:
        rule = Rule.STANDARD if code & 1 else Rule.FREESTYLE
    return rule, False, problem


__all__ = ["Changed", "DEFAULT_THREATS", "MAX_HASH_MB", "MEMORY_RESERVE_MB", "NAMED_SETTINGS",
           "Settings", "THREATS_HORIZON", "THREATS_VCF", "THREATS_VCT", "apply_info",
           "evaluation_setting", "rule_from_info"]
