"""The planner's imports are at the top of its modules: the few inside functions say why.

An import inside a function hides what a module depends on from its reader
(the import graph of ``tests/test_house.py`` sees it, a reader of the first
lines does not). ``itsa.planning`` keeps at most :data:`MOST_INSIDE` of them,
each with a comment on its line or the line above giving the reason (an
optional extra a plain install lacks, a module that would slow ``import
itsa.planning`` down).
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PLANNING = ROOT / "itsa" / "planning"
#: Most imports inside functions that ``itsa.planning`` may keep.
MOST_INSIDE = 5
#: Fewest characters of a reason (a lint directive alone is none).
SHORTEST_REASON = 12


def inside_functions(source: str) -> list[int]:
    """The line of each import statement nested in a function (at any depth) of ``source``."""
    lines: list[int] = []

    def walk(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if in_function and isinstance(child, (ast.Import, ast.ImportFrom)):
                lines.append(child.lineno)
            walk(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    walk(ast.parse(source), False)
    return lines


def reason(lines: list[str], lineno: int) -> str:
    """The comment on line ``lineno`` (1-based) of ``lines``, else the comment line just above it ("" if none)."""
    own = lines[lineno - 1].partition("#")[2].strip()
    above = lines[lineno - 2].strip() if lineno > 1 else ""
    text = own or (above[1:].strip() if above.startswith("#") else "")
    return "" if text.startswith("noqa") else text


def imports_inside() -> dict[str, str]:
    """``path:line -> reason`` for every import inside a function of ``itsa.planning``."""
    found = {}
    for path in sorted(PLANNING.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for lineno in inside_functions(text):
            found[f"{path.relative_to(ROOT)}:{lineno}"] = reason(lines, lineno)
    return found


def test_the_counter_sees_nested_imports_and_their_reasons():
    source = ("import os\n\ndef f():\n    # scipy.special loads slowly\n    import scipy\n\n"
              "    def g():\n        from math import pi  # noqa: PLC0415\n\nclass C:\n    import sys\n")
    assert inside_functions(source) == [5, 8]
    lines = source.splitlines()
    assert reason(lines, 5) == "scipy.special loads slowly"
    assert reason(lines, 8) == ""


def test_few_imports_inside_functions_each_with_its_reason():
    found = imports_inside()
    assert len(found) <= MOST_INSIDE, f"{len(found)} imports inside functions of itsa.planning: {sorted(found)}"
    unexplained = sorted(where for where, why in found.items() if len(why) < SHORTEST_REASON)
    assert not unexplained, "imports inside functions without a comment saying why: " + str(unexplained)
