"""The optional parts of itsa and the extra that installs each: one home for the mapping.

A plain ``pip install itsa`` runs analyze, build, verify, converse, audit and
solve. The other parts import their packages lazily through :func:`require`,
which turns a missing package into one line naming the extra to install.

>>> extra_for("pyarrow")
'census'
>>> require("json").dumps([1])
'[1]'
"""

from __future__ import annotations

import importlib
from types import ModuleType

from itsa.exceptions import MissingExtra

__all__ = ["EXTRAS", "extra_for", "require", "missing_message"]

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
    "hypothesis": ("testing", "the hypothesis strategies (itsa.testing)"),
}


def extra_for(package: str) -> str | None:
    """The extra that installs ``package`` (a module path is cut to its top level), if any."""
    entry = EXTRAS.get(package.split(".")[0])
    return entry[0] if entry else None


def missing_message(package: str) -> str | None:
    """The one line for a missing optional ``package``, or ``None`` if it belongs to no extra.

    >>> missing_message("galois")
    "galois is not installed (the galois rank backend (rank_backend='galois')): pip install 'itsa[crosscheck]'"
    """
    top = package.split(".")[0]
    if top not in EXTRAS:
        return None
    extra, what = EXTRAS[top]
    return f"{top} is not installed ({what}): pip install 'itsa[{extra}]'"


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
