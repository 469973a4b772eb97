"""Scoring training positions with a Gomocup engine, and fitting the table to the scores."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from click.testing import CliRunner

from gomoku_engine.training import labelling, selfplay, tuning
from gomoku_engine.game.board import Board
from gomoku_engine.cli import main
from gomoku_engine.core.constants import Rule
from gomoku_engine.eval.classical import N_CANON
from gomoku_engine.core.constants import MATE
from gomoku_engine.core.rules import RENJU_DRAW_EMPTY
from gomoku_engine.protocol.messages import iteration_line, result_line, swap2_line
from gomoku_engine.search.limits import SearchInfo, SearchResult

ENGINE_COMMAND = [sys.executable, "-m", "gomoku_engine"]


@pytest.mark.parametrize("line, expected", [
    ("MESSAGE Depth 13-19 | Eval -112 | Time 14ms | H7 I7 G9", (-112, 0)),  # rapfi
    ("MESSAGE Speed 740K | Depth 13-38 | Eval 163 | Node 52K | Time 71ms", (163, 0)),
    ("MESSAGE Speed 1M | Depth 9-21 | Eval +M15 | Node 9K | Time 3ms", (0, 1)),
    ("MESSAGE Depth 4-9 | Eval -M8 | Time 1ms | H10", (0, -1)),
    # this engine, as it prints them (a game move, a mate; an iteration with show_detail)
    ("MESSAGE depth 6-7 ev 13497 n 1547 tm 12 pv i8 h7", (13497, 0)),
    ("MESSAGE depth 0-0 ev 0 n 0 tm 339 pv h8", (0, 0)),
    ("MESSAGE depth 5-9 ev win in 7 n 2210 tm 41 pv h8 i9 h9", (0, 1)),
    ("MESSAGE depth 3-5 ev loss in 4 n 90 n/ms 45 tm 2 pv a1 b2", (0, -1)),
    ("MESSAGE depth 5-9 ev +M7 n 2210 n/ms 53 tm 41 pv h8 i9 h9", (0, 1)),
    ("MESSAGE depth 3-5 ev -M4 n 90 n/ms 45 tm 2 pv a1 b2", (0, -1)),
    ("MESSAGE depth 4-6 multipv 2 ev -35 n 900 n/ms 45 tm 20 pv a1 b2", (-35, 0)),
    ("MESSAGE multipv 2 depth 4-6 ev -35 n 900 tm 20 pv a1 b2", (-35, 0)),
    ("MESSAGE swap2 ev 35 (white to move)", None),
    ("MESSAGE ignored INFO seed 'abc': not an integer", None),
    ("MESSAGE OptiTime 4473ms | MaxTime 4970ms", None),
    ("DEBUG Eval 5", None),
    ("7,9", None),
])
def test_parse_score(line, expected):
    assert labelling.parse_score(line) == expected


@pytest.mark.parametrize("score, expected", [
    (-163, (-163, 0)), (0, (0, 0)), (MATE - 1, (0, 1)), (MATE - 15, (0, 1)),
    (-(MATE - 4), (0, -1)), (-(MATE - 2), (0, -1)),
])
def test_parse_score_reads_what_the_engine_prints(score, expected):
    """Every search line the engine writes (the formatter of its MESSAGE lines) is read
    back with its score, forced wins and losses included."""
    result = SearchResult((7, 7), score, 5, 9, 1234, 12.4, [(7, 7), (8, 8)])
    info = SearchInfo(5, 9, score, 1234, 12.4, [(7, 7), (8, 8)])
    assert labelling.parse_score(result_line(result)) == expected
    assert labelling.parse_score(iteration_line(info)) == expected
    assert labelling.parse_score(swap2_line(score)) is None


def test_label_keeps_the_positions_the_engine_scores_as_decided():
    """This engine as the scorer: a position with an open four on the board is a forced
    win for the side to move when it is the four's owner, a forced loss for the other side
    (the engine prints ``ev win in N`` / ``ev loss in N``); both are kept."""
    size = 15
    black = [(7, 7), (8, 7), (9, 7), (10, 7)]  # an open four on row 8
    white = [(0, 0), (0, 2), (0, 4), (14, 14)]
    cells = [x + y * size for pair in zip(black, white) for x, y in pair]
    engine = labelling.open_engine(ENGINE_COMMAND, size, 0, 2)
    try:
        won, reply = labelling.ask_position(engine, cells, size)  # black to move
        assert won == (0, 1), reply
        assert reply in ("6,7", "11,7")
        lost, _ = labelling.ask_position(engine, cells[:-1], size)  # white to move
        assert lost == (0, -1)
    finally:
        engine.close()


def test_label_and_fit_end_to_end(tmp_path):
    """selfplay -> label (this engine as the scorer, depth 2) -> fit --labels: every
    training position is scored once (but for those it answers at once) and the fit runs
    on the mixed target."""
    games, labels_file, fitted = (tmp_path / name for name in
                                  ("games.npz", "labels.npz", "eval.npz"))
    runner = CliRunner()
    out = runner.invoke(main, ["selfplay", "--games", "12", "--nodes", "400", "--size", "11",
                               "--seed", "4", "--out", str(games)])
    assert out.exit_code == 0, out.output
    command = " ".join(ENGINE_COMMAND)
    out = runner.invoke(main, ["label", str(games), "--engine", command, "--depth", "2",
                               "--out", str(labels_file)])
    assert out.exit_code == 0, out.output
    records = selfplay.load([games])
    labels = labelling.load_labels(labels_file)
    by_results = tuning.build_dataset(records)
    # every training position scored once, but for the few this engine plays at once
    assert 0.8 * len(by_results.target) <= len(labels.game) <= len(by_results.target)
    assert set(labels.game) == set(by_results.game)
    assert len(set(zip(labels.game, labels.ply))) == len(labels.game)
    assert (labels.score != 0).any()
    assert np.all(labels.score[labels.mate != 0] == 0)

    data, scale = tuning.build_labelled_dataset(records, labels, mix=0.5)
    assert scale > 0 and data.features.shape == (len(labels.game), N_CANON)
    # each labelled row is the feature row of a quiet position of its own game
    labelled, plain = data.features.toarray(), by_results.features.toarray()
    for i, g in enumerate(labels.game):
        assert (plain[by_results.game == g] == labelled[i]).all(axis=1).any()
    assert set(np.unique(data.result)) <= {0.0, 0.5, 1.0}
    assert np.all((data.target >= 0) & (data.target <= 1))
    assert not np.array_equal(data.target, data.result)  # the scores moved the target
    out = runner.invoke(main, ["fit", str(games), "--labels", str(labels_file), "--mix", "0.5",
                               "--l2", "0.01", "--out", str(fitted)])
    assert out.exit_code == 0, out.output
    with np.load(fitted) as table:
        assert table["values"].shape == (N_CANON,) and table["values"].dtype == np.int32


def test_a_label_off_the_games_is_refused():
    records = {"size": 9, "rule": 0, "moves": np.array([[40, 41, 30, -1]], np.int16),
               "length": np.array([3], np.int16), "opening": np.array([2], np.int8),
               "result": np.array([0], np.int8)}
    labels = labelling.Labels(np.array([0], np.int32), np.array([7], np.int16),
                              np.array([5], np.int32), np.array([0], np.int8))
    with pytest.raises(ValueError, match="no ply 7"):
        tuning.build_labelled_dataset(records, labels)


def test_games_of_another_engine(tmp_path):
    """selfplay --engine: the openings of the seed's own self-play games, then every move
    the outside engine's (this engine over the protocol here, depth 2), each legal, the
    result the board's; the file says which engine played, and fit reads it."""
    games = tmp_path / "external.npz"
    command = f"{sys.executable} -m gomoku_engine"
    out = CliRunner().invoke(main, ["selfplay", "--engine", command, "--depth", "2",
                                    "--games", "3", "--size", "9", "--seed", "6",
                                    "--out", str(games)])
    assert out.exit_code == 0, out.output
    records = selfplay.load([games])
    with np.load(games) as f:
        assert str(f["engine"]) == command and int(f["depth"]) == 2 and int(f["nodes"]) == 0
    assert len(records["length"]) == 3
    for g in range(3):
        board = Board(9)  # the opening selfplay --seed 6 draws for game g
        opening = selfplay.random_opening(board, np.random.default_rng([6, g]))
        moves = records["moves"][g, : records["length"][g]]
        assert records["opening"][g] == opening
        assert list(moves[:opening]) == [x + 9 * y for x, y in board.moves()]
        board = Board(9)
        for cell in moves:
            assert board.is_legal(cell % 9, cell // 9) and not board.winner
            board.play(cell % 9, cell // 9)
        assert board.winner or board.is_full
        assert records["result"][g] == board.winner
    assert len(tuning.build_dataset(records).target) > 0


def test_an_illegal_answer_is_refused(tmp_path):
    """An engine that answers a move onto a stone stops the games with an error."""
    script = tmp_path / "bad_engine.py"
    script.write_text(
        "import sys\n"
        "for line in sys.stdin:\n"
        "    word = line.strip().upper()\n"
        "    if word.startswith('START'): print('OK', flush=True)\n"
        "    elif word == 'DONE': print('4,4', flush=True)\n"
        "    elif word == 'END': break\n")
    with pytest.raises(RuntimeError, match="not a legal move"):
        selfplay.generate_external([sys.executable, str(script)], Rule.FREESTYLE, 2, seed=1,
                                   depth=2, size=9)


@pytest.mark.parametrize("rule, empty, over", [
    (Rule.RENJU, RENJU_DRAW_EMPTY, True), (Rule.RENJU, RENJU_DRAW_EMPTY + 1, False),
    (Rule.FREESTYLE, RENJU_DRAW_EMPTY, False), (Rule.FREESTYLE, 0, True)])
def test_a_selfplay_game_stops_at_the_renju_cut_off(rule, empty, over):
    """Self-play games end where the match referee ends them: under renju with
    RENJU_DRAW_EMPTY points left (past it black may have only fouls, which an outside
    engine then plays), under the other rules at a five or a full board."""
    board = Board(15, rule=rule)
    # period 4 along rows, columns and both diagonals: no line holds more than two in a row
    stones = [(x, y, 1 + ((x + 2 * y) % 4 >= 2)) for y in range(15) for x in range(15)]
    board.set_stones(stones[: 225 - empty], to_move=1)
    assert not board.winner and 225 - board.ply == empty
    assert selfplay.finished(board) is over


def test_labels_do_not_depend_on_where_the_batches_ran(tmp_path, monkeypatch):
    """Batches of 3 games, each scored by a fresh engine: one after the other here, or on
    two threads (``label --workers 2``), the same labels."""
    from concurrent.futures import ThreadPoolExecutor

    games = tmp_path / "games.npz"
    selfplay.save(games, selfplay.generate(Rule.FREESTYLE, 7, seed=2, nodes=300, size=9),
                  9, Rule.FREESTYLE, 300, 2)
    records = selfplay.load([games])
    monkeypatch.setattr(labelling, "BATCH_GAMES", 3)
    here = labelling.label_games(records, ENGINE_COMMAND, 2)
    with ThreadPoolExecutor(2) as threads:
        there = labelling.label_games(records, ENGINE_COMMAND, 2, executor=threads, window=2)
    assert len(here.game) > 20 and set(here.game) == set(range(7))
    for name in ("game", "ply", "score", "mate"):
        assert np.array_equal(getattr(here, name), getattr(there, name)), name


@pytest.mark.parametrize("line", [
    "MESSAGE depth 5-9 ev +M7 n 2210 n/ms 53 tm 41 pv h8 i9 h9",   # since the n/ms change
    "MESSAGE depth 5-9 ev win in 7 n 2210 tm 41 pv h8 i9 h9",       # before it
    "MESSAGE depth 5-9 multipv 3 ev +M7 n 2210 n/ms 53 tm 41 pv h8 i9 h9",
    "MESSAGE multipv 3 depth 5-9 ev win in 7 n 2210 tm 41 pv h8 i9 h9",
])
def test_the_search_line_parser_reads_the_old_and_the_new_form(line):
    from gomoku_engine.core.constants import MATE
    from gomoku_engine.protocol.messages import parse_search_line

    read = parse_search_line(line)
    assert read is not None
    assert (read.depth, read.seldepth, read.score, read.nodes, read.time_ms) == (
        5, 9, MATE - 7, 2210, 41)
    assert read.pv == [(7, 7), (8, 8), (7, 8)]
    assert read.multipv == (3 if "multipv" in line else 1)
