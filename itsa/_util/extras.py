"""The optional parts of itsa and the extra that installs each: one home for the mapping.

A plain ``pip install .`` runs analyze, build, verify, converse, audit and
solve. The other parts import their packages lazily through :func:`require`,
which turns a missing package into one line naming the extra to install.

>>> extra_for("pyarrow")
'census'
>>> require("json").dumps([1])
'[1]'
"""

from __future__ import annotations

import importlib
import re
from types import ModuleType

from itsa.exceptions import MissingExtra

__all__ = ["EXTRAS", "extra_for", "require", "missing_message", "install_advice", "source_folder"]

#: Top-level package -> (extra, what needs it).
EXTRAS: dict[str, tuple[str, str]] = {
    "dask": ("census", "the census (itsa census)"),
    "distributed": ("census", "the census (itsa census)"),
    "pyarrow": ("census", "the census results table (itsa census)"),
    "matplotlib": ("draw", "figures (itsa draw, itsa census report)"),
    "networkx": ("draw", "the topology layouts (itsa draw)"),
    "galois": ("crosscheck", "the galois rank backend (rank_backend='galois')"),
    "pulp": ("crosscheck", "the CBC LP solver (lp_solver='cbc')"),
    "dp_accounting": ("crosscheck", "the dp-accounting cross-check (itsa privacy account --crosscheck)"),
    "flwr": ("flower", "Flower's client mod and fit workflow (itsa.frameworks.flower_dp)"),
    "hypothesis": ("testing", "the hypothesis strategies (itsa.testing)"),
}


def extra_for(package: str) -> str | None:
    """The extra that installs ``package`` (a module path is cut to its top level), if any."""
    entry = EXTRAS.get(package.split(".")[0])
    return entry[0] if entry else None


def missing_message(package: str) -> str | None:
    """The one line for a missing optional ``package``, or ``None`` if it belongs to no extra.

    The advice is the command that works from itsa's source folder (itsa is
    installed from its source, not from a package index), naming the folder
    when this copy of itsa runs from one.

    >>> missing_message("galois").split(": pip")[0]
    "galois is not installed (the galois rank backend (rank_backend='galois'))"
    >>> missing_message("galois").split(": ")[1].startswith("pip install '.[crosscheck]' in ")
    True
    """
    top = package.split(".")[0]
    if top not in EXTRAS:
        return None
    extra, what = EXTRAS[top]
    return f"{top} is not installed ({what}): {install_advice(extra)}"


def install_advice(extra: str) -> str:
    """The command that installs ``extra``: ``pip install '.[EXTRA]'`` in itsa's source folder.

    >>> install_advice("draw").startswith("pip install '.[draw]' in ")
    True
    """
    source = source_folder()
    where = f"{source} (itsa's source folder)" if source is not None else "itsa's source folder"
    return f"pip install '.[{extra}]' in {where}"


def source_folder() -> str | None:
    """The folder of itsa's source this copy runs from (its ``pyproject.toml`` names itsa), if any."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    try:
        project = (root / "pyproject.toml").read_text(encoding="utf-8")
    except OSError:
        return None
    return str(root) if re.search(r'^name\s*=\s*"itsa"', project, re.M) else None


def require(module: str) -> ModuleType:
    """Import ``module``; if its package is a missing optional one, raise :class:`MissingExtra`.

    Raises
    ------
    MissingExtra
        One line naming the extra that installs the package.
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        message = missing_message(exc.name or module)
        if message is None or (exc.name or "").split(".")[0] != module.split(".")[0]:
            raise
        raise MissingExtra(message) from None
