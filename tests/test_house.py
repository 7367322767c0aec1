"""The house keeps its shape: lint and types clean, no import cycle, small modules, few top-level ones.

Run by the default suite, so ``.ci/run`` checks them on every submission:
ruff and mypy with the configuration in ``pyproject.toml``; the import graph
of ``itsa`` (every import, inside functions and type-checking blocks too)
without a cycle; no module over 600 lines; at most 10 modules directly
under ``itsa/``.
"""

import ast
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "itsa"


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _targets(module: str, path: Path, node, modules) -> list[str]:
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        base = node.module or ""
        if node.level:
            pkg = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
            pkg = pkg[:len(pkg) - node.level + 1]
            base = ".".join(pkg + ([base] if base else []))
        names = [base] + [f"{base}.{a.name}" for a in node.names]
    found = []
    for name in names:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        if name and name != module:
            found.append(name)
    return found


def import_graph() -> nx.DiGraph:
    """Module -> module it imports; a package's edges to its own submodules (re-exports) are left out."""
    modules = _modules()
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for module, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _targets(module, path, node, modules):
                    if not target.startswith(module + "."):
                        graph.add_edge(module, target)
    return graph


def test_no_import_cycle():
    cycles = list(nx.simple_cycles(import_graph()))
    assert not cycles, cycles[:5]


def test_modules_are_small_and_the_top_level_is_short():
    lines = {m: len(p.read_text(encoding="utf-8").splitlines()) for m, p in _modules().items()}
    assert max(lines.values()) <= 600, sorted(lines.items(), key=lambda kv: -kv[1])[:3]
    top = [p for p in PACKAGE.glob("*.py") if p.name not in ("__init__.py", "__main__.py")]
    assert len(top) <= 10, sorted(p.name for p in top)


def test_the_graph_sees_every_kind_of_import():
    graph = import_graph()
    assert graph.has_edge("itsa.keys.converse.pipeline", "itsa.keys.converse.certificate")    # top of the module
    assert graph.has_edge("itsa.keys.census.work", "itsa.keys.optimum")                       # inside a function
    assert not graph.has_edge("itsa.keys.converse", "itsa.keys.converse.pipeline")            # a package's re-export


def _run(*cmd: str) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_is_clean():
    pytest.importorskip("ruff", reason="ruff is not installed (the test extra installs it)")
    out = _run(sys.executable, "-m", "ruff", "check", ".")        # the whole tree: tests, benchmarks, scripts too
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-1000:]


def test_mypy_is_clean():
    pytest.importorskip("mypy", reason="mypy is not installed (the test extra installs it)")
    out = _run(sys.executable, "-m", "mypy")
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-1000:]
