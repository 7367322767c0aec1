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
from itsa.keys.bounds.analysis import Analysis
from itsa.keys.bounds.lp import LPResult
from itsa.keys.model.instance import Instance

__all__ = ["SCHEMA_VERSION", "lp_to_dict", "configurations_to_list", "analysis_to_dict", "leak_to_dict",
           "verdict_to_dict", "build_to_dict", "audit_to_dict", "drawn_to_dict", "analysis_summary_rows",
           "named_set_rows", "LP_COLUMNS", "lp_rows", "lp_text", "LP_NOTE", "CONFIGURATION_COLUMNS",
           "configuration_text_rows"]

def lp_to_dict(instance: Instance, lp: LPResult) -> dict[str, Any]:
    """The Theorem-2 LP as plain data (:meth:`itsa.keys.bounds.lp.LPResult.to_dict`)."""
    return dataclasses.replace(lp, instance=instance).to_dict()


def configurations_to_list(a: Analysis) -> list[dict[str, Any]]:
    """One object per configuration ``(u, m, n)``, 1-based, in index order.

    For large instances stream them instead: :func:`itsa.keys.output.detail.iter_rows`.
    """
    from itsa.keys.output.detail import iter_rows

    return list(iter_rows(a))


def analysis_to_dict(a: Analysis, detail: bool = False) -> dict[str, Any]:
    """The ``itsa analyze --json`` object."""
    d = a.to_dict()
    if detail:
        d["configurations"] = configurations_to_list(a)
    return d


def leak_to_dict(leak) -> dict[str, Any]:
    """One leak as plain data (:meth:`itsa.keys.schemes.verifier.Leak.to_dict`)."""
    return leak.to_dict()


def verdict_to_dict(instance: Instance, verdict, include_all: bool = False) -> dict[str, Any]:
    """The ``itsa verify --json`` object (:meth:`itsa.keys.schemes.verifier.Verdict.to_dict`)."""
    return dataclasses.replace(verdict, instance=instance).to_dict(include_all)


def build_to_dict(instance: Instance, build) -> dict[str, Any]:
    """The ``itsa build --json`` object (:meth:`itsa.keys.schemes.constructions.Build.to_dict`)."""
    verdict = dataclasses.replace(build.verdict, instance=instance)
    return dataclasses.replace(build, verdict=verdict).to_dict()


def audit_to_dict(result) -> dict[str, Any]:
    """The ``itsa audit --json`` object (:meth:`itsa.keys.auditor.Audit.to_dict`)."""
    return result.to_dict()


def drawn_to_dict(instance: Instance, drawn) -> dict[str, Any]:
    """The ``itsa draw --json`` object (:meth:`itsa.keys.output.draw.DrawnFigure.to_dict`)."""
    return dataclasses.replace(drawn, instance=instance).to_dict()


# -- the tables of ``itsa analyze`` (text): rows here, the command line lays them out ----------------
def _opt(x) -> str:
    return "unknown" if x is None else str(x)


def analysis_summary_rows(a: Analysis) -> list[tuple[str, str]]:
    """The summary table of ``itsa analyze``: ``(quantity, value)``."""
    from itsa._util.display import config

    inst, s = a.instance, a.sets
    rows = [
        ("servers V_u", str(list(inst.servers))),
        ("U, K, M, N", f"{inst.U}, {inst.K}, {inst.M}, {inst.N}"),
        ("|S̄|", str(s.S_bar.bit_count())),
        ("a*", str(s.a_star)),
        ("e*", f"{s.e_star}, attained first at (u,m,n) = {config(a.e_star_configuration)}"),
        ("critical (u,m,n)", f"{int(a.configurations.critical.sum())} with |A_(u,m,n)| = |S̄|"),
        ("regime", f"{a.regime}: {a.regime_reason}"),
        ("R_X, R_Y", ">= 1, optimal (Theorem 1)"),
        ("key rate lower (paper)", f"{a.key_rate_lower_printed.value}  ({a.key_rate_lower_printed.reason})"),
        ("key rate lower (itsa)", f"{_opt(a.key_rate_lower.value)}  ({a.key_rate_lower.reason})"),
        ("key rate upper", f"{_opt(a.key_rate_upper.value)}  ({a.key_rate_upper.reason})"),
    ]
    if a.key_rate_upper_used is not None:
        rows.append(("key rate upper (itsa)", f"{a.key_rate_upper_used.value}  ({a.key_rate_upper_used.reason})"))
    return rows


def named_set_rows(a: Analysis) -> list[tuple[str, str]]:
    """``(set, users)`` of ``S_I, S̄, Q_1, Q_2, Q``."""
    inst, s = a.instance, a.sets
    return [(key, inst.describe(mask)) for key, mask in
            [("S_I", s.S_I), ("S̄", s.S_bar), ("Q_1", s.Q1), ("Q_2", s.Q2), (f"Q ({s.q_rule})", s.Q)]]


#: The columns of the Theorem-2 LP table.
LP_COLUMNS = ("constraint Σ b >= 1 over", "configurations (u,m,n)", "slack", "dual", "binding")

#: Why the dual column can look odd; printed under every LP table.
LP_NOTE = ("binding: tight and not dominated by a smaller constraint; dominated: another "
           "constraint's users are a proper subset of these, so this one is implied. "
           "The LP is often degenerate (several optimal duals), so the "
           "dual shown is one certificate among several: a binding row may carry dual 0 and a "
           "dominated row a positive dual (Example 2 has both). The certificate is exact either way.")


def lp_rows(a: Analysis, shown: int = 6) -> list[tuple[str, ...]]:
    """One row of :data:`LP_COLUMNS` per constraint of the (feasible) Theorem-2 LP."""
    from itsa._util.display import config

    inst, rows = a.instance, list[tuple[str, ...]]()
    for c in a.lp.constraints if a.lp is not None else ():
        cfgs = ", ".join(config(x) for x in c.configurations[:shown])
        if len(c.configurations) > shown:
            cfgs += f", … ({len(c.configurations)} in all)"
        rows.append((inst.describe(c.users), cfgs, str(c.slack), str(c.dual),
                     "yes" if c.binding else ("dominated" if c.dominated else "")))
    return rows


def lp_text(a: Analysis) -> tuple[str, str]:
    """The LP table's title and the line of its solution ``b``; an infeasible LP: why, and ``""``."""
    from itsa._util.display import config, user

    inst, lp = a.instance, a.lp
    if lp is None:
        return "", ""
    if not lp.feasible:
        return (f"Theorem-2 LP infeasible: configuration {config(lp.empty_constraint)} gives a constraint "
                "with no variable (D = K); b* and the upper bound are unknown.", "")
    title = (f"Theorem-2 LP: b* = {lp.b_star} (certified: primal and dual feasible, "
             f"both objectives {lp.dual_objective})")
    return title, "b = " + ", ".join(f"b{user(*inst.label(i))} = {v}" for i, v in (lp.b or {}).items())


#: The columns of ``itsa analyze --detail``.
CONFIGURATION_COLUMNS = ("u", "m", "n", "U^(m,n)", "F^(m,n)", "D", "|A|", "c", "critical")


def configuration_text_rows(a: Analysis, keep) -> Any:
    """The rows of :data:`CONFIGURATION_COLUMNS` as text, streamed (:func:`itsa.keys.output.detail.iter_rows`)."""
    from itsa._util.display import users
    from itsa.keys.output.detail import iter_rows

    for row in iter_rows(a, keep):
        yield (str(row["u"]), str(row["m"]), str(row["n"]), str(row["U_mn"]), str(row["F_mn"]), users(row["D"]),
               str(len(row["A"])), str(row["c"]), "yes" if row["critical"] else "")
