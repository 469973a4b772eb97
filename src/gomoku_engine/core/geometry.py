"""Board geometry and line tables: the padded flat layout, directions and five-cell windows.

A board of ``width`` x ``height`` points is stored as a flat ``int8`` array of
``(height + 2*PAD) * stride`` cells with ``stride = width + 2*PAD``; the border cells hold
``WALL`` so that scans and line-key updates can step up to five cells in any direction
without a bounds check (the padded-board idea of sunfish and rapfi's ``BOARD_BOUNDARY``).

The *line tables* list every five-cell window of the board (572 on 15x15) and, for every
cell, the windows that contain it, in CSR form.  Stone counts per window are kept
incrementally by :mod:`gomoku_engine.game.position`, which makes "did this move make five?" a
look at the at most 20 windows through the move.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from .constants import MAX_SIZE, MIN_SIZE, PAD


@dataclass(frozen=True)
class Geometry:
    """Layout of one board size.

    :param width: number of columns (``x`` runs over ``0 .. width-1``).
    :param height: number of rows (``y`` runs over ``0 .. height-1``).
    :raises ValueError: if a side is outside ``MIN_SIZE .. MAX_SIZE`` (5 .. 32).
    """

    width: int
    height: int
    stride: int = field(init=False)
    n_cells: int = field(init=False)
    #: int32[4]: flat offsets of the four line directions: horizontal, vertical, the two diagonals
    directions: npt.NDArray[np.int32] = field(init=False, repr=False)
    #: int32[width*height]: flat index of every playable point, row by row
    points: npt.NDArray[np.int32] = field(init=False, repr=False)
    #: int32[n_windows, 5]: the flat cells of every five-cell window
    windows: npt.NDArray[np.int32] = field(init=False, repr=False)
    #: int32[n_windows]: direction index (0..3) of each window
    window_dir: npt.NDArray[np.int32] = field(init=False, repr=False)
    #: int32[n_cells+1], int32[...]: CSR lists of the windows through each cell
    cell_window_start: npt.NDArray[np.int32] = field(init=False, repr=False)
    cell_window_list: npt.NDArray[np.int32] = field(init=False, repr=False)
    #: int32[24]: offsets of the 5x5 square around a point (the local-search neighbourhood)
    neighbourhood: npt.NDArray[np.int32] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        for side in (self.width, self.height):
            if not MIN_SIZE <= side <= MAX_SIZE:
                raise ValueError(f"board side {side} outside {MIN_SIZE}..{MAX_SIZE}")
        stride = self.width + 2 * PAD
        n_cells = (self.height + 2 * PAD) * stride
        set_ = object.__setattr__  # frozen dataclass: derived fields are set once here
        set_(self, "stride", stride)
        set_(self, "n_cells", n_cells)
        set_(self, "directions", np.array([1, stride, stride + 1, stride - 1], np.int32))
        points = [self.index(x, y) for y in range(self.height) for x in range(self.width)]
        set_(self, "points", np.array(points, np.int32))
        self._build_windows()
        hood = [dy * stride + dx for dy in range(-2, 3) for dx in range(-2, 3) if dx or dy]
        set_(self, "neighbourhood", np.array(hood, np.int32))

    def _build_windows(self) -> None:
        steps = ((1, 0), (0, 1), (1, 1), (-1, 1))  # same order as ``directions``
        cells: list[list[int]] = []
        dirs: list[int] = []
        for d, (dx, dy) in enumerate(steps):
            for y in range(self.height):
                for x in range(self.width):
                    ex, ey = x + 4 * dx, y + 4 * dy
                    if 0 <= ex < self.width and 0 <= ey < self.height:
                        cells.append([self.index(x + k * dx, y + k * dy) for k in range(5)])
                        dirs.append(d)
        windows = np.array(cells, np.int32).reshape(-1, 5)
        per_cell: list[list[int]] = [[] for _ in range(self.n_cells)]
        for w, row in enumerate(cells):
            for c in row:
                per_cell[c].append(w)
        start = np.zeros(self.n_cells + 1, np.int32)
        start[1:] = np.cumsum([len(p) for p in per_cell])
        flat = np.array([w for p in per_cell for w in p], np.int32)
        object.__setattr__(self, "windows", windows)
        object.__setattr__(self, "window_dir", np.array(dirs, np.int32))
        object.__setattr__(self, "cell_window_start", start)
        object.__setattr__(self, "cell_window_list", flat)

    @property
    def n_windows(self) -> int:
        """Number of five-cell windows (572 on 15x15, 1152 on 20x20)."""
        return int(self.windows.shape[0])

    @property
    def centre(self) -> tuple[int, int]:
        """The central point ``(x, y)``."""
        return self.width // 2, self.height // 2

    def index(self, x: int, y: int) -> int:
        """Flat cell index of the point ``(x, y)`` (column, row; 0-based)."""
        return (y + PAD) * self.stride + x + PAD

    def xy(self, cell: int) -> tuple[int, int]:
        """Inverse of :meth:`index`: ``(x, y)`` of a flat cell index."""
        y, x = divmod(int(cell), self.stride)
        return x - PAD, y - PAD

    def on_board(self, x: int, y: int) -> bool:
        """True if ``(x, y)`` is a playable point."""
        return 0 <= x < self.width and 0 <= y < self.height
