"""The package's layout is its architecture: the import-linter contracts of pyproject.toml
(layers, and independence of the engine's users) hold, no module imports itself
through others, no private table is left unused, and classes and functions stay small."""

from __future__ import annotations

import ast
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


PACKAGE = ROOT / "src" / "gomoku_engine"


def _modules() -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text())) for path in sorted(PACKAGE.rglob("*.py"))]


def test_no_private_table_is_left_unused():
    """A module-level private name nothing in its module reads is dead (two such command
    tables outlived their use in the protocol loop)."""
    dead = []
    for path, tree in _modules():
        assigned = [target.id for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
                    for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
                    if isinstance(target, ast.Name) and target.id.startswith("_")
                    and not target.id.startswith("__")]
        read = {node.id for node in ast.walk(tree)
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
        dead += [f"{path.relative_to(PACKAGE)}: {name}" for name in assigned if name not in read]
    assert not dead, dead


def _is_kernel(node: ast.FunctionDef) -> bool:
    return any("njit" in ast.unparse(decorator) for decorator in node.decorator_list)


def test_classes_and_python_functions_stay_small():
    """No class over 300 lines and no Python function over 80 (jitted kernels aside: a
    kernel's length buys speed, a function's does not)."""
    large = []
    for path, tree in _modules():
        for node in ast.walk(tree):
            length = getattr(node, "end_lineno", 0) - getattr(node, "lineno", 0) + 1
            if isinstance(node, ast.ClassDef) and length > 300:
                large.append(f"class {path.relative_to(PACKAGE)}:{node.name} {length} lines")
            if isinstance(node, ast.FunctionDef) and not _is_kernel(node) and length > 80:
                large.append(f"def {path.relative_to(PACKAGE)}:{node.name} {length} lines")
    assert not large, large


def test_the_architecture_table_names_every_module():
    """docs/development.md's architecture names each module, or the folder holding it."""
    text = (ROOT / "docs" / "development.md").read_text()
    table = text[text.index("## Architecture"):text.index("### Three walks")]
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        folder = relative.rsplit("/", 1)[0] + "/" if "/" in relative else None
        if path.name == "__init__.py" and folder is not None:
            continue  # a package is named by its folder
        if f"`{relative}`" not in table and (folder is None or f"`{folder}`" not in table):
            missing.append(relative)
    assert not missing, missing
