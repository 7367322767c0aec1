"""The ``--json`` objects of the command line, from the results' own ``to_dict()``.

Every result type has a ``to_dict()`` built from the helpers of
:mod:`itsa._util.plain` (fractions as strings such as ``"7/2"``, user sets as
sorted lists of ``[u, v]``). The functions here are kept for callers of the
earlier interface and add what a result alone does not know (the
per-configuration rows of ``analyze --json --detail``, the audit's files).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from itsa._util.schema import SCHEMA_VERSION
from itsa.bounds.analysis import Analysis
from itsa.bounds.lp import LPResult
from itsa.model.instance import Instance

__all__ = ["SCHEMA_VERSION", "lp_to_dict", "configurations_to_list", "analysis_to_dict", "leak_to_dict",
           "verdict_to_dict", "build_to_dict", "audit_to_dict", "drawn_to_dict"]

def lp_to_dict(instance: Instance, lp: LPResult) -> dict[str, Any]:
    """The Theorem-2 LP as plain data (:meth:`itsa.bounds.lp.LPResult.to_dict`)."""
    return dataclasses.replace(lp, instance=instance).to_dict()


def configurations_to_list(a: Analysis) -> list[dict[str, Any]]:
    """One object per configuration ``(u, m, n)``, 1-based, in index order.

    For large instances stream them instead: :func:`itsa.output.detail.iter_rows`.
    """
    from itsa.output.detail import iter_rows

    return list(iter_rows(a))


def analysis_to_dict(a: Analysis, detail: bool = False) -> dict[str, Any]:
    """The ``itsa analyze --json`` object."""
    d = a.to_dict()
    if detail:
        d["configurations"] = configurations_to_list(a)
    return d


def leak_to_dict(leak) -> dict[str, Any]:
    """One leak as plain data (:meth:`itsa.schemes.verifier.Leak.to_dict`)."""
    return leak.to_dict()


def verdict_to_dict(instance: Instance, verdict, include_all: bool = False) -> dict[str, Any]:
    """The ``itsa verify --json`` object (:meth:`itsa.schemes.verifier.Verdict.to_dict`)."""
    return dataclasses.replace(verdict, instance=instance).to_dict(include_all)


def build_to_dict(instance: Instance, build) -> dict[str, Any]:
    """The ``itsa build --json`` object (:meth:`itsa.schemes.constructions.Build.to_dict`)."""
    verdict = dataclasses.replace(build.verdict, instance=instance)
    return dataclasses.replace(build, verdict=verdict).to_dict()


def audit_to_dict(result) -> dict[str, Any]:
    """The ``itsa audit --json`` object (:meth:`itsa.auditor.Audit.to_dict`)."""
    return result.to_dict()


def drawn_to_dict(instance: Instance, drawn) -> dict[str, Any]:
    """The ``itsa draw --json`` object (:meth:`itsa.output.draw.DrawnFigure.to_dict`)."""
    return dataclasses.replace(drawn, instance=instance).to_dict()
