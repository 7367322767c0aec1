"""A certified converse written out as a proof a person can check by hand.

The proof lists the reductions it relies on (functional dependencies,
symmetry), then one numbered step per row of the certificate: its weight, the
inequality as stated (``I(A; B | C) >= 0``, or the constraint of the problem
with its reason), and its expansion in the entropies of the reduced LP. The
weighted expansions add up to the objective, which gives the bound.

Sets are named by a smallest set of variables with the same closure, so
``h(ΣW, X(1,1), Y2, Y3)`` is written instead of every variable it determines.
"""

from __future__ import annotations

from fractions import Fraction

from ..bitset import members
from .lp import ReducedLP
from .certificate import Certificate, row_form

SCOPES = {
    "general": "every scheme of the model (any encoders and keys)",
    "additive": "every scheme with X = W + Z and Y_u = Σ_v X_(u,v) (any keys, linear or not)",
}


def _generator(rlp: ReducedLP, closed: int) -> int:
    """A smallest-found subset of ``closed`` with the same closure (greedy)."""
    out = closed
    for i in reversed(members(closed)):
        if rlp.closure(out & ~(1 << i)) == closed:
            out &= ~(1 << i)
    return out


def _h(rlp: ReducedLP, orbit: int) -> str:
    return f"h({rlp.problem.set_name(_generator(rlp, rlp.representatives[orbit]))})"


def _terms(pairs, name) -> str:
    """``a·h(A) + h(B) − h(C)``: positive terms first, then negative ones."""
    pairs = sorted(pairs, key=lambda t: t[1] < 0)
    out = ""
    for key, c in pairs:
        mag = abs(c)
        term = ("" if mag == 1 else f"{mag}·") + name(key)
        out += (" + " if out else "") + term if c > 0 else (" − " if out else "−") + term
    return out or "0"


def _linear(rlp: ReducedLP, form: dict[int, Fraction]) -> str:
    return _terms(sorted(form.items()), lambda o: _h(rlp, o))


def _statement(rlp: ReducedLP, origin) -> tuple[str, str]:
    p = rlp.problem
    if origin[0] == "nonneg":
        return f"h({p.set_name(_generator(rlp, origin[1]))}) ≥ 0", "Shannon: entropy is non-negative"
    if origin[0] == "shannon":
        _, C, i, j = origin
        cond = p.set_name(_generator(rlp, C)) if C else ""
        if j < 0:
            return f"H({p.names[i]} | {cond}) ≥ 0", "Shannon: conditional entropy is non-negative"
        bar = f" | {cond}" if cond else ""
        return f"I({p.names[i]}; {p.names[j]}{bar}) ≥ 0", "Shannon: conditional mutual information is non-negative"
    c = p.constraints[origin[1]]
    sense = "=" if c.sense == "=" else "≥"
    return f"{_linear_raw(p, c.form)} {sense} {c.rhs}", c.reason


def _linear_raw(p, form) -> str:
    return _terms(form, lambda m: f"h({p.set_name(m)})")


def _preamble(rlp: ReducedLP, cert: Certificate) -> list[str]:
    p = rlp.problem
    out = [f"For {SCOPES.get(p.scheme_class, p.scheme_class)}: R_ZΣ ≥ H(Z_Σ)/L ≥ "
           f"h({p.set_name(p.objective[0][0])}) ≥ {cert.value}. Entropies are in units of "
           "L symbols: h(A) = H(A)/L."]
    if p.dependencies:
        out.append("Functional dependencies (so h(A) = h(cl A), the closure of A under them): "
                   + "; ".join(f"{p.set_name(d.rhs)} from {p.set_name(d.lhs)} ({d.reason})"
                               for d in p.dependencies) + ".")
    if p.generators:
        out.append(f"Symmetry: the instance's symmetry group (user permutations that map "
                   "servers, security sets and collusion sets to themselves) has "
                   f"{len(p.generators)} generator{'s' if len(p.generators) > 1 else ''}. Averaging an allowed entropy vector over the group "
                   "gives an allowed vector with the same h(Z), so it suffices to prove "
                   "the claim for symmetric vectors, where h(A) = h(πA); each h below stands "
                   "for its whole orbit.")
    return out


def proof_steps(rlp: ReducedLP, cert: Certificate) -> list[tuple[Fraction, str, str, str]]:
    """``(weight, statement, reason, expansion)`` for every row of the certificate."""
    out = []
    for r, w in cert.weights:
        row = rlp.rows[r]
        stmt, reason = _statement(rlp, row.origin)
        rel = "=" if row.sense == "=" else "≥"
        out.append((w, stmt, reason, f"{_linear(rlp, row_form(rlp, row))} {rel} {row.rhs}"))
    return out


def _conclusion(rlp: ReducedLP, cert: Certificate) -> str:
    return (f"The weighted expansions add up to {_linear(rlp, rlp.coords(rlp.problem.objective))} "
            f"on the left and {cert.value} on the right, exactly (checked in rational arithmetic).")


def proof_markdown(rlp: ReducedLP, cert: Certificate, title: str) -> str:
    """The proof as a Markdown document."""
    lines = [f"# {title}", ""] + [x + "\n" for x in _preamble(rlp, cert)]
    lines += ["**Steps** (weight × statement — reason; then its expansion):", ""]
    for k, (w, stmt, reason, exp) in enumerate(proof_steps(rlp, cert), 1):
        lines += [f"{k}. {w} × [{stmt}] — {reason}.  ", f"   {exp}"]
    lines += ["", f"**Sum.** {_conclusion(rlp, cert)} ∎", ""]
    return "\n".join(lines)


def proof_latex(rlp: ReducedLP, cert: Certificate, title: str) -> str:
    """The proof as a LaTeX fragment (weights typeset by sympy)."""
    import sympy

    def tex(text: str) -> str:
        for a, b in (("\\", "\\textbackslash{}"), ("_", "\\_"), ("#", "\\#"),
                     ("&", "\\&"), ("%", "\\%")):
            text = text.replace(a, b)
        return text
    out = ["\\section*{" + tex(title) + "}"] + [tex(x) + "\\par" for x in _preamble(rlp, cert)]
    out.append("\\begin{enumerate}")
    for w, stmt, reason, exp in proof_steps(rlp, cert):
        out.append(f"\\item ${sympy.latex(sympy.Rational(w.numerator, w.denominator))} \\times$ "
                   f"[{tex(stmt)}] --- {tex(reason)}.\\\\ {tex(exp)}")
    out += ["\\end{enumerate}", tex(_conclusion(rlp, cert)) + " $\\square$", ""]
    return "\n".join(out)


def write_proof(bound, instance, path) -> None:
    """Write ``bound``'s proof to ``path`` (``.tex``: LaTeX, otherwise Markdown), atomically."""
    from .._files import atomic_writer

    title = f"Converse for {instance.name or 'the instance'}: R_ZΣ ≥ {bound.value} ({bound.scheme_class})"
    render = proof_latex if str(path).endswith(".tex") else proof_markdown
    with atomic_writer(path) as fh:
        fh.write(render(bound.lp, bound.certificate, title))


def certificate_dict(bound) -> dict:
    """The certificate as plain data: each step's exact weight, statement, reason and expansion."""
    return {"class": bound.scheme_class, "value": str(bound.value), "scope": SCOPES[bound.scheme_class],
            "steps": [{"weight": str(w), "statement": st, "reason": why, "expansion": exp}
                      for w, st, why, exp in proof_steps(bound.lp, bound.certificate)]}
