"""The package's layout is its architecture: the import-linter contracts of pyproject.toml
(layers, and independence of the engine's users) hold, and no module imports itself
through others."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]


def test_import_linter_contracts_are_kept():
    result = subprocess.run([sys.executable, "-c", "from importlinter.cli import lint_imports_command; "
                             "lint_imports_command()"], cwd=ROOT, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_no_import_cycles():
    # Every import counts, also those inside functions and under TYPE_CHECKING: each
    # ties two modules together as much as one at the top of a file.
    graph = grimp.build_graph("gomoku_engine", cache_dir=None)
    cycles = []
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            if importer.startswith(imported + "."):
                continue  # a module importing its own package's __init__
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back is not None:
                cycles.append((importer, *back))
    assert not cycles, "\n".join(" -> ".join(c) for c in cycles)
