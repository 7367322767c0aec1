"""Plain-data (JSON-ready) forms of itsa's results.

Exact numbers become strings of fractions (``"7/2"``), user sets sorted lists
of ``[u, v]``; nothing here formats for a terminal.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from itsa._util.schema import SCHEMA_VERSION
from itsa.bounds.analysis import Analysis
from itsa.bounds.lp import LPResult
from itsa.model.instance import Instance


def frac(x: Fraction | int | None) -> str | None:
    """``Fraction(7, 2) -> "7/2"``, ``2 -> "2"``, ``None -> None``."""
    return None if x is None else str(Fraction(x))


def users(instance: Instance, mask: int) -> list[list[int]]:
    """A bitmask as a sorted list of ``[u, v]``."""
    return [list(p) for p in instance.labels(mask)]


def lp_to_dict(instance: Instance, lp: LPResult) -> dict[str, Any]:
    return {
        "feasible": lp.feasible,
        "b_star": frac(lp.b_star),
        "b": None if lp.b is None else [{"user": list(instance.label(i)), "value": frac(v)}
                                         for i, v in lp.b.items()],
        "dual": None if not lp.feasible else {
            "objective": frac(lp.dual_objective),
            "y": [frac(c.dual) for c in lp.constraints],
        },
        "empty_constraint": None if lp.empty_constraint is None else list(lp.empty_constraint),
        "solver": lp.solver,
        "constraints": [
            {
                "users": users(instance, c.users),
                "configurations": [list(x) for x in c.configurations],
                "dual": frac(c.dual),
                "slack": frac(c.slack),
                "dominated": c.dominated,
                "binding": c.binding,
            }
            for c in lp.constraints
        ],
    }


def configurations_to_list(a: Analysis) -> list[dict[str, Any]]:
    """One object per configuration ``(u, m, n)``, 1-based, in index order.

    For large instances stream them instead: :func:`itsa.output.detail.iter_rows`.
    """
    from itsa.output.detail import iter_rows

    return list(iter_rows(a))


def analysis_to_dict(a: Analysis, detail: bool = False) -> dict[str, Any]:
    """The ``itsa analyze --json`` object."""
    inst, s = a.instance, a.sets
    d: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "instance": inst.name,
        "U": inst.U, "K": inst.K, "M": inst.M, "N": inst.N,
        "servers": list(inst.servers),
        "S_bar": users(inst, s.S_bar),
        "S_I": users(inst, s.S_I),
        "a_star": s.a_star,
        "e_star": s.e_star,
        "e_star_configuration": list(a.e_star_configuration),
        "critical_configurations": int(a.configurations.critical.sum()),
        "Q1": users(inst, s.Q1),
        "Q2": users(inst, s.Q2),
        "Q": users(inst, s.Q),
        "q_rule": s.q_rule,
        "regime": a.regime,
        "regime_reason": a.regime_reason,
        "R_X": frac(a.R_X.value),
        "R_Y": frac(a.R_Y.value),
        "key_rate_lower_printed": frac(a.key_rate_lower_printed.value),
        "key_rate_lower_printed_reason": a.key_rate_lower_printed.reason,
        "key_rate_lower": frac(a.key_rate_lower.value),
        "key_rate_lower_reason": a.key_rate_lower.reason,
        "key_rate_upper": frac(a.key_rate_upper.value),
        "key_rate_upper_reason": a.key_rate_upper.reason,
        "key_rate_upper_used": None if a.key_rate_upper_used is None else frac(a.key_rate_upper_used.value),
        "key_rate_upper_used_reason": None if a.key_rate_upper_used is None else a.key_rate_upper_used.reason,
        "lp": None if a.lp is None else lp_to_dict(inst, a.lp),
        "outside_assumptions": inst.outside_assumptions(),
        "warnings": list(inst.warnings),
    }
    if detail:
        d["configurations"] = configurations_to_list(a)
    return d


def leak_to_dict(leak) -> dict[str, Any]:
    return {"k": leak.k, "m": leak.m, "n": leak.n,
            "leak": frac(leak.symbols), "exact": leak.exact,
            "approx": None if leak.exact else leak.approx}


def verdict_to_dict(instance: Instance, verdict, include_all: bool = False) -> dict[str, Any]:
    """The ``itsa verify --json`` object (leaks in exact q-ary units)."""
    from itsa.schemes.scheme import scheme_to_dict

    shown = verdict.measured if include_all else verdict.leaks
    return {
        "schema_version": SCHEMA_VERSION,
        "instance": instance.name,
        "ok": verdict.ok,
        "engine": verdict.engine,
        "fallback": verdict.fallback,
        "source_dim": verdict.source_dim,
        "scheme": scheme_to_dict(instance, verdict.scheme),
        "rate": frac(verdict.scheme.rate),
        "correct": {str(k): v for k, v in verdict.correct.items()},
        "configurations": verdict.total,
        "checked": verdict.checked,
        "trivial": verdict.trivial,
        "nonzero_leaks": len(verdict.leaks),
        "leaks": [leak_to_dict(lk) for lk in shown],
    }


def build_to_dict(instance: Instance, build) -> dict[str, Any]:
    """The ``itsa build --json`` object."""
    from itsa.schemes.scheme import scheme_to_dict

    return {
        "schema_version": SCHEMA_VERSION,
        "instance": instance.name,
        "construction": build.construction,
        "note": build.note,
        "rate": frac(build.scheme.rate),
        "field": build.scheme.field,
        "required_field": build.required_field,
        "tries": build.tries,
        "verified": build.verdict.ok,
        "engine": build.verdict.engine,
        "scheme": scheme_to_dict(instance, build.scheme),
    }


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
