"""A certified converse written out as a proof a person can check by hand.

The proof opens with the scope of the bound and states in full every lemma
it cites, the functional dependencies and the symmetry it relies on; then one
numbered step per row of the certificate: its weight, the inequality as
stated (``I(A; B | C) >= 0``, or the constraint of the problem with its
reason, naming the security and collusion sets by their users), and its
expansion in the entropies *of the very sets the statement names*. Where
symmetry identifies two of those entropies (``h(A) = h(πA)``), a list after
the steps names the permutation ``π`` for each pair. The weighted expansions,
so identified, add up to the objective, which gives the bound.

Sets are named by a smallest set of variables with the same closure, so
``h(ΣW, X(1,1), Y2, Y3)`` is written instead of every variable it determines.
"""

from __future__ import annotations

from fractions import Fraction

from itsa._util.bitset import members
from itsa.exceptions import InvalidInput
from itsa.keys.converse.certificate import Certificate, origin_form
from itsa.keys.converse.lp import Origin, ReducedLP
from itsa.keys.converse.symmetry import permute_mask

#: One step of a proof: ``(weight, statement, reason, expansion)``.
Step = tuple[Fraction, str, str, str]


def _generator(rlp: ReducedLP, closed: int) -> int:
    """A smallest-found subset of ``closed`` with the same closure (greedy)."""
    out = closed
    for i in reversed(members(closed)):
        if rlp.closure(out & ~(1 << i)) == closed:
            out &= ~(1 << i)
    return out


def _h(rlp: ReducedLP, closed: int) -> str:
    return f"h({rlp.problem.set_name(_generator(rlp, closed))})"


def _terms(pairs, name) -> str:
    """``a·h(A) + h(B) − h(C)``: positive terms first, then negative ones."""
    pairs = sorted(pairs, key=lambda t: t[1] < 0)
    out = ""
    for key, c in pairs:
        mag = abs(c)
        term = ("" if mag == 1 else f"{mag}·") + name(key)
        out += (" + " if out else "") + term if c > 0 else (" − " if out else "−") + term
    return out or "0"


def _closed_form(rlp: ReducedLP, form) -> dict[int, Fraction]:
    """A form over sets of variables, each set replaced by its closure (constants dropped)."""
    out: dict[int, Fraction] = {}
    empty = rlp.closure(0)
    for s, w in form:
        c = rlp.closure(s)
        if c != empty:
            out[c] = out.get(c, Fraction(0)) + Fraction(w)
    return {c: w for c, w in sorted(out.items()) if w}


def _statement(rlp: ReducedLP, origin) -> tuple[str, str]:
    p = rlp.problem
    if origin[0] == Origin.NONNEG:
        return f"h({p.set_name(_generator(rlp, origin[1]))}) ≥ 0", "Shannon: entropy is non-negative"
    if origin[0] == Origin.SHANNON:
        _, C, i, j = origin
        cond = p.set_name(_generator(rlp, C)) if C else ""
        if j < 0:
            return f"H({p.names[i]} | {cond}) ≥ 0", "Shannon: conditional entropy is non-negative"
        bar = f" | {cond}" if cond else ""
        return f"I({p.names[i]}; {p.names[j]}{bar}) ≥ 0", "Shannon: conditional mutual information is non-negative"
    if origin[0] == Origin.INGLETON:
        a, b, c, d = (p.set_name(m) for m in origin[1:])
        return (f"I({a}; {b} | {c}) + I({a}; {b} | {d}) + I({c}; {d}) − I({a}; {b}) ≥ 0",
                "Ingleton's inequality (linear keys)")
    c = p.constraints[origin[1]]
    sense = "=" if c.sense == "=" else "≥"
    return f"{_terms(c.form, lambda m: f'h({p.set_name(m)})')} {sense} {c.rhs}", c.reason


def proof_steps(rlp: ReducedLP, cert: Certificate) -> list[Step]:
    """``(weight, statement, reason, expansion)`` for every row of the certificate.

    The expansion is written in the entropies of the sets the statement
    names (each set by its closure), never in another member of their orbit.
    """
    out: list[Step] = []
    for r, w in cert.weights:
        row = rlp.rows[r]
        stmt, reason = _statement(rlp, row.origin)
        rel = "=" if row.sense == "=" else "≥"
        form = _closed_form(rlp, origin_form(rlp, row))
        out.append((w, stmt, reason, f"{_terms(form.items(), lambda c: _h(rlp, c))} {rel} {row.rhs}"))
    return out


def _orbit(rlp: ReducedLP, closed: int) -> int:
    return next(iter(rlp.coords(((closed, Fraction(1)),))), 0)


def _carrier(rlp: ReducedLP, src: int, dst: int, limit: int = 50_000) -> tuple[int, ...] | None:
    """A product of the symmetry generators mapping the closed set ``src`` to ``dst`` (breadth first)."""
    gens = rlp.problem.generators
    start = tuple(range(rlp.problem.n))
    seen, frontier = {src: start}, [src]
    while frontier and len(seen) < limit:
        nxt = []
        for mask in frontier:
            for g in gens:
                image = rlp.closure(permute_mask(mask, g))
                if image not in seen:
                    seen[image] = tuple(g[i] for i in seen[mask])
                    if image == dst:
                        return seen[image]
                    nxt.append(image)
        frontier = nxt
    return seen.get(dst)


def _cycles(rlp: ReducedLP, perm: tuple[int, ...]) -> str:
    """``π`` in cycle notation on the key variables, e.g. ``(Z(1,1) Z(1,2))``."""
    names, keys, done, out = rlp.problem.names, rlp.problem.keys, set(), []
    for start in keys:
        if start in done or perm[start] == start:
            continue
        cycle, i = [], start
        while i not in done:
            done.add(i)
            cycle.append(names[i])
            i = perm[i]
        out.append("(" + " ".join(cycle) + ")")
    return "".join(out) or "the identity on the keys"


def identifications(rlp: ReducedLP, cert: Certificate) -> list[str]:
    """``h(A) = h(B)`` with the permutation mapping ``A`` to ``B``, for every pair the sum needs.

    Sets named in the steps (and the objective) that lie in one orbit of the
    symmetry group are listed against the first of them.
    """
    used: dict[int, set[int]] = {}
    forms = [origin_form(rlp, rlp.rows[r]) for r, _ in cert.weights] + [rlp.problem.objective]
    for form in forms:
        for c in _closed_form(rlp, form):
            used.setdefault(_orbit(rlp, c), set()).add(c)
    out = []
    for sets in used.values():
        anchor, *others = sorted(sets, key=lambda c: (c.bit_count(), c))
        for c in others:
            perm = _carrier(rlp, anchor, c)
            how = f"π = {_cycles(rlp, perm)}" if perm else "one orbit of the symmetry group"
            out.append(f"{_h(rlp, anchor)} = {_h(rlp, c)}, with {how} mapping the first set to the second")
    return out


def _preamble(rlp: ReducedLP, cert: Certificate) -> list[tuple[str, list[str]]]:
    """The proof's opening sections: claim and scope, lemmas, dependencies, symmetry."""
    p = rlp.problem
    entry = p.kind
    if entry is None:
        raise InvalidInput("a proof cites its LP's scope and lemmas; this problem was built without a converse class")
    out = [("Claim", [f"For {entry.scope}: R_ZΣ ≥ H(Z_Σ)/L ≥ h({p.set_name(p.objective[0][0])}) ≥ "
                      f"{cert.value}. Entropies are in units of L symbols: h(A) = H(A)/L. The "
                      f"proof is a weighted sum of inequalities of the {entry.name} LP "
                      f"({entry.description})."])]
    out.append(("Lemmas cited", [f"{lem.name} ({lem.where}). {lem.statement}" for lem in entry.lemmas]
                + ["Shannon inequalities: every entropy and every conditional mutual information "
                   "is non-negative."]))
    if p.dependencies:
        out.append(("Functional dependencies", [
            "So h(A) = h(cl A), the closure of A under them: "
            + "; ".join(f"{p.set_name(d.rhs)} from {p.set_name(d.lhs)} ({d.reason})"
                        for d in p.dependencies) + "."]))
    if p.generators and identifications(rlp, cert):
        out.append(("Symmetry", [
            "The instance's symmetry group (user permutations that map servers, security sets "
            "and collusion sets to themselves) maps the problem to itself. Averaging an allowed "
            "entropy vector over the group gives an allowed vector with the same h(Z), so it "
            "suffices to prove the claim for symmetric vectors, where h(A) = h(πA) for every "
            "permutation π of the group. The pairs the sum uses are listed after the steps."]))
    return out


def _conclusion(rlp: ReducedLP, cert: Certificate) -> str:
    objective = _closed_form(rlp, rlp.problem.objective)
    return (f"The weighted expansions add up to {_terms(objective.items(), lambda c: _h(rlp, c))} "
            f"on the left and {cert.value} on the right, exactly (checked in rational arithmetic"
            + (", with the identifications above)." if identifications(rlp, cert) else ")."))


def _document(rlp: ReducedLP, cert: Certificate) -> list[tuple[str, list[str], list[Step]]]:
    """The proof as sections ``(heading, paragraphs, steps)``: preamble, steps, identifications, sum.

    Only the ``"Steps"`` section has steps (and no paragraphs).
    """
    doc: list[tuple[str, list[str], list[Step]]] = [(h, body, []) for h, body in _preamble(rlp, cert)]
    doc.append(("Steps", [], proof_steps(rlp, cert)))
    same = identifications(rlp, cert)
    if same:
        doc.append(("Identifications by symmetry", same, []))
    doc.append(("Sum", [_conclusion(rlp, cert) + " ∎"], []))
    return doc


def proof_markdown(rlp: ReducedLP, cert: Certificate, title: str) -> str:
    """The proof as a Markdown document."""
    lines = [f"# {title}", ""]
    for heading, body, steps in _document(rlp, cert):
        lines += [f"## {heading}", ""]
        if heading == "Steps":
            lines += ["Each step: weight × [statement] — reason; then its expansion.", ""]
            for k, (w, stmt, reason, exp) in enumerate(steps, 1):
                lines += [f"{k}. {w} × [{stmt}] — {reason}.  ", f"   {exp}"]
            lines.append("")
        elif heading == "Identifications by symmetry":
            lines += [f"- {x}" for x in body] + [""]
        else:
            lines += [x + "\n" for x in body]
    return "\n".join(lines)


#: The LaTeX preamble of a proof: standard packages only (in every TeX distribution).
_TEX_PREAMBLE = (r"\documentclass[11pt]{article}", r"\usepackage{amsmath,amssymb}", r"\usepackage[margin=2cm]{geometry}", r"\sloppy")


def proof_latex(rlp: ReducedLP, cert: Certificate, title: str) -> str:
    """The proof as a complete LaTeX document in ASCII, its mathematics in math mode.

    Statements and expansions are set as formulas (:func:`itsa.keys.converse.latex.math`), the
    prose around them with its mathematics in math mode (:func:`itsa.keys.converse.latex.prose`):
    subscripts, ``\\Sigma``, sets as ``\\{(1,1), (2,1)\\}``; weights typeset by sympy.
    """
    import sympy

    from itsa.keys.converse.latex import math, prose

    body = []
    for heading, content, steps in _document(rlp, cert):
        body.append(r"\section*{" + prose(heading) + "}")
        if heading == "Steps":
            body.append(r"\begin{enumerate}")
            for w, stmt, reason, exp in steps:
                weight = sympy.latex(sympy.Rational(w.numerator, w.denominator))
                body.append(rf"\item ${weight} \times \bigl[{math(stmt)}\bigr]$ --- {prose(reason)}.\\"
                            + "\n" + rf"${math(exp)}$")
            body.append(r"\end{enumerate}")
        elif heading == "Identifications by symmetry":
            body += [r"\begin{itemize}"] + [rf"\item {prose(x)}" for x in content] + [r"\end{itemize}"]
        else:
            body += [prose(x) + r"\par" for x in content]
    return "\n".join([*_TEX_PREAMBLE, r"\begin{document}", r"\title{" + prose(title) + "}",
                      r"\author{itsa}", r"\date{}", r"\maketitle", *body, r"\end{document}", ""])


def write_proof(bound, instance, path) -> None:
    """Write ``bound``'s proof to ``path`` (``.tex``: LaTeX, otherwise Markdown), atomically."""
    from itsa._util.files import atomic_writer

    title = f"Converse for {instance.name or 'the instance'}: R_ZΣ ≥ {bound.value} ({bound.method} LP)"
    render = proof_latex if str(path).endswith(".tex") else proof_markdown
    with atomic_writer(path) as fh:
        fh.write(render(bound.lp, bound.certificate, title))


def certificate_dict(bound) -> dict:
    """The certificate as plain data: each step's exact weight, statement, reason and expansion."""
    return {"class": bound.scheme_class, "method": bound.method, "value": str(bound.value),
            "scope": bound.scope,
            "lemmas": [{"name": lem.name, "statement": lem.statement}
                       for lem in bound.lp.problem.lemmas],
            "steps": [{"weight": str(w), "statement": st, "reason": why, "expansion": exp}
                      for w, st, why, exp in proof_steps(bound.lp, bound.certificate)],
            "identifications": identifications(bound.lp, bound.certificate)}
