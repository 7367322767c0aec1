"""The layer contract: every import of the library goes down the diagram of ``docs/architecture.md``.

The page's ``layers`` block names each room (a subpackage, or a module
directly under ``itsa/``) and the rooms it may import; a room may import
what those may too. The import graph is the house test's (every import,
inside functions too).
"""

import ast
import re

import networkx as nx
import pytest

from tests.test_house import PACKAGE, ROOT, _modules, import_graph

PAGE = ROOT / "docs" / "architecture.md"
#: Packages the library never imports: the command line and its display.
FRONT_END = ("click", "rich", "itsa_cli", "cli")


def contract() -> nx.DiGraph:
    """The page's ``layers`` block as a graph room -> room it may import directly."""
    block = re.search(r"```layers\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    assert block, "docs/architecture.md has no ```layers block"
    graph = nx.DiGraph()
    for line in block.group(1).splitlines():
        room, _, below = line.partition("->")
        graph.add_node(room.strip())
        graph.add_edges_from((room.strip(), b) for b in below.split())
    return graph


#: Rooms named within a part: every room of the key-rate part and every module and wing of the planner (so the
#: page draws the planner's floors too); ``frameworks`` is one room, above the planner.
SUBROOMS: dict[str, set[str] | None] = {"keys": None, "planning": None}


def room(module: str) -> str:
    """``itsa.privacy.rdp -> privacy``; a key-rate room is named within ``keys``
    (``itsa.keys.converse.lp -> keys.converse``, ``itsa.keys.optimum -> keys.optimum``), and so is a room of the planner (``itsa.planning.run.shard ->
    planning.run``, ``itsa.planning.planner -> planning.planner``); the package itself is ``itsa``."""
    parts = module.split(".")
    if len(parts) > 2 and parts[1] in SUBROOMS and (SUBROOMS[parts[1]] is None or parts[2] in SUBROOMS[parts[1]]):
        return f"{parts[1]}.{parts[2]}"
    return parts[1] if len(parts) > 1 else "itsa"


def rooms() -> set[str]:
    return {room(m) for m in _modules()} - {"itsa", "__main__"}


def test_the_contract_is_a_layering():
    graph = contract()
    assert nx.is_directed_acyclic_graph(graph), list(nx.simple_cycles(graph))[:3]
    assert set(graph) == rooms(), "rooms the page does not name, or names that are not rooms: " + str(
        set(graph) ^ rooms())


def test_every_import_goes_down_the_diagram():
    allowed = nx.transitive_closure_dag(contract())
    wrong = sorted({(a, b) for a, b in import_graph().edges()
                    if room(a) not in ("itsa", "__main__") and room(b) != room(a)
                    and not allowed.has_edge(room(a), room(b))})
    assert not wrong, "imports against docs/architecture.md's layers: " + str(wrong[:10])


def test_the_planner_imports_nothing_of_the_frameworks():
    """The frameworks sit above the planner: no module of ``itsa.planning`` imports ``itsa.frameworks``."""
    back = sorted((a, b) for a, b in import_graph().edges()
                  if a.startswith("itsa.planning") and (b == "itsa.frameworks" or b.startswith("itsa.frameworks.")))
    assert not back, f"the planner imports the frameworks: {back}"


def test_the_library_never_imports_the_front_end():
    wrong = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "__main__.py":          # ``python -m itsa`` runs the command line
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            wrong += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] in FRONT_END]
    assert not wrong, wrong


@pytest.mark.parametrize("edge", [("privacy", "keys.model"), ("keys.model", "keys.bounds"), ("modular", "keys.optimum"),
                                  ("planning.run", "planning.drivers"), ("planning.rule", "planning.run"),
                                  ("planning.encoding", "planning.run"), ("planning.planner", "planning.run")])
def test_the_contract_refuses_what_the_page_does_not_draw(edge):
    assert not nx.transitive_closure_dag(contract()).has_edge(*edge)
