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

from itsa._util.plain import frac
from itsa._util.schema import SCHEMA_VERSION
from itsa.bounds.analysis import Analysis
from itsa.bounds.lp import LPResult
from itsa.model.instance import Instance


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
    """The ``itsa audit --json`` object."""
    inst = result.instance
    search = result.search
    return {
        "schema_version": SCHEMA_VERSION,
        "instance": inst.name,
        "field": result.field,
        "seed": result.seed,
        "regimes": {rule: a.regime for rule, a in result.analyses.items()},
        "e_star": result.analyses["union"].e_star,
        "key_rate_lower_printed": frac(result.printed_lower),
        "key_rate_lower": frac(result.corrected.value),
        "key_rate_lower_reason": result.corrected.reason,
        "converse_lower": None if result.converse is None else result.converse.to_dict(),
        "claimed": {rule: {"regime": a.regime, "key_rate_upper": frac(a.key_rate_upper.value),
                           "reason": a.key_rate_upper.reason}
                    for rule, a in result.analyses.items()},
        "constructions": [
            {"q_rule": c.q_rule, "construction": c.construction, "field": c.field,
             "x": None if c.extra_user is None else list(inst.label(c.extra_user)),
             "allowed": c.allowed, "verified": c.verified,
             "rate": frac(c.build.scheme.rate) if c.verified else None,
             "rate_on_symbols_used": frac(c.rate) if c.verified else None,
             "failure": c.failure, "scheme_file": c.scheme_file}
            for c in result.checks
        ],
        "search": {
            "rate": frac(search.rate), "shape": search.shape, "field": search.field,
            "candidates": search.candidates, "verified": search.verified,
            "complete": search.complete, "limit": search.limit, "exhaustive": search.exhaustive,
            "scheme_file": result.search_file,
        },
        "best_verified_rate": frac(result.best_verified_rate),
        "external": None if result.external is None else {
            "family": result.external.family, "parameters": result.external.parameters,
            "value": frac(result.external.value), "source": result.external.source},
        "findings": [
            {"kind": f.kind, "message": f.message, "printed": f.printed, "verified": f.verified,
             "configuration": None if f.configuration is None else list(f.configuration),
             "scheme_file": f.scheme_file}
            for f in result.findings
        ],
        "notes": list(result.notes),
    }


def drawn_to_dict(instance: Instance, drawn) -> dict[str, Any]:
    """The ``itsa draw --json`` object."""
    return {
        "schema_version": SCHEMA_VERSION,
        "instance": instance.name,
        "path": str(drawn.path),
        "format": drawn.format,
        "layout": drawn.layout,
        "configuration": list(drawn.config),
        "default": drawn.default,
        "c": drawn.c,
        "e_star": drawn.e_star,
        "critical": drawn.critical,
    }
