"""pytest hooks for the library's own doctests (``python -m pytest --pyargs itsa --doctest-modules``).

After a plain ``pip install .`` some optional extras are missing. A module that
cannot be imported without one is then not collected, and a doctest that uses a
package of a missing extra (such as ``backend="galois"``) is skipped, so the
doctests run everywhere; with every extra installed, nothing is skipped.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from pathlib import Path

import pytest

from itsa._util.extras import EXTRAS

#: The optional packages (of :data:`itsa._util.extras.EXTRAS`) that are not installed.
MISSING = {package for package in EXTRAS if importlib.util.find_spec(package) is None}
_ROOT = Path(__file__).resolve().parent


def _module_name(path: Path) -> str | None:
    try:
        rel = path.resolve().relative_to(_ROOT.parent).with_suffix("")
    except ValueError:
        return None
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def pytest_ignore_collect(collection_path: Path, config) -> bool | None:
    """Skip a module of itsa that needs a missing extra (its import raises for it)."""
    if not MISSING or collection_path.suffix != ".py":
        return None
    name = _module_name(collection_path)
    if name is None or name == "itsa.conftest":
        return None
    try:
        importlib.import_module(name)
    except ImportError as exc:                       # MissingExtra is an ImportError too
        missing = getattr(exc, "name", None) or ""
        if missing.split(".")[0] in MISSING or any(p in str(exc) for p in MISSING):
            return True
        raise
    return None


def pytest_collection_modifyitems(config, items) -> None:
    """Skip a doctest whose examples use a package of a missing extra."""
    if not MISSING:
        return
    uses = re.compile(r"\b(" + "|".join(map(re.escape, sorted(MISSING))) + r")\b")
    for item in items:
        test = getattr(item, "dtest", None)
        if test is None:
            continue
        found = {m[1] for ex in test.examples for m in uses.finditer(ex.source)}
        if found:
            item.add_marker(pytest.mark.skip(reason=f"needs {', '.join(sorted(found))} (an optional extra)"))
