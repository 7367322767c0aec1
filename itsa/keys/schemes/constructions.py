"""Explicit linear key schemes over F_q for every regime (docs/model.md §4).

Each construction draws seeded random ("generic") coefficients and keeps the
first draw that its own verifier accepts; nothing unverified is returned.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from math import comb, lcm
from typing import Any

import numpy as np

from itsa._util import display
from itsa._util.bitset import members
from itsa._util.checks import choice
from itsa._util.display import Displayable
from itsa._util.plain import frac, plain
from itsa._util.progress import counting
from itsa.exceptions import Infeasible, VerificationError
from itsa.keys.bounds.analysis import REGIMES, Analysis, Regime
from itsa.keys.schemes.linalg import check_field, field_problem
from itsa.keys.schemes.scheme import Scheme, scheme_to_dict
from itsa.keys.schemes.verifier import Verdict, check_verifiable, verify

#: One construction per regime, named after it (the same tuple as :data:`itsa.keys.bounds.analysis.REGIMES`).
CONSTRUCTIONS = REGIMES


@dataclass(kw_only=True, frozen=True, repr=False)
class Build(Displayable):
    """A verified scheme with the evidence of how it was found.

    ``required_field`` is the Schwartz-Zippel size the construction asks for
    (``q > required_field``), ``None`` where the paper prints none.
    """

    scheme: Scheme
    verdict: Verdict
    construction: str
    tries: int
    required_field: int | None
    note: str = ""

    def headline(self) -> str:
        return f"{self.construction} scheme over F_{self.scheme.field}, rate {self.scheme.rate}, verified"

    @property
    def field_size(self) -> str:
        """The Schwartz-Zippel field size in words: ``"q > 16"``, or that the paper gives none."""
        if self.required_field is None:
            return "none (the paper gives no field size for this construction)"
        return f"q > {self.required_field}"

    def rows(self) -> list[tuple[str, str]]:
        sch, used = self.scheme, self.scheme.trimmed()
        on_used = f"; rate {used.rate} on the {used.key_symbols} its keys use" if used is not sch else ""
        rows = [("scheme", f"rate {sch.rate} ({sch.key_symbols} key symbols, L = {sch.L}{on_used}) over F_{sch.field}"),
                ("verified", f"by the {self.verdict.engine} engine after {self.tries} draw(s), the first that verified"),
                ("Schwartz-Zippel field size", self.field_size)]
        rows += [("note", self.note)] if self.note else []
        inst = self.verdict.instance
        return rows + ([] if inst is None else [(f"F{label}", text) for label, text in sch.key_rows(inst)])

    def to_dict(self) -> dict[str, Any]:
        """The ``itsa build --json`` object."""
        inst = self.verdict.instance
        return plain({
            "instance": None if inst is None else inst.name,
            "construction": self.construction, "note": self.note, "rate": frac(self.scheme.rate),
            "field": self.scheme.field, "required_field": self.required_field, "tries": self.tries,
            "verified": self.verdict.ok, "engine": self.verdict.engine,
            "scheme": None if inst is None else scheme_to_dict(inst, self.scheme),
        })


def required_field(a: Analysis, construction: str) -> int | None:
    """The Schwartz-Zippel threshold: generic coefficients work w.h.p. for ``q >`` this.

    Notes
    -----
    docs/model.md §6.4 (a reading): the printed ``q > e*(e* |S|)`` read as
    ``e* · C(|S̄|, e*)`` (Condition 2) and ``e* · C(|S̄|+1, e*)`` (Condition 3).
    """
    e, sb = a.e_star, a.S_bar.bit_count()
    if construction == Regime.CONDITION_2:
        return e * comb(sb, e)
    if construction == Regime.CONDITION_3:
        return e * comb(sb + 1, e)
    if construction == Regime.CONDITION_1:
        return 1
    return None


def build_scheme(a: Analysis, field: int, seed: int = 0, max_tries: int = 200,
                 construction: str | None = None, engine: str = "rank",
                 extra_user: int | None = None, progress=None,
                 enum_budget: int | None = None) -> Build:
    """Build the regime's scheme over ``F_field`` and verify it.

    Parameters
    ----------
    a : Analysis
    field : int
        A prime ``q``.
    seed : int
        Try ``t`` draws its coefficients from ``random.Random(f"{seed}:{t}")``,
        so the result is a function of ``(instance, field, seed)``.
    max_tries : int
        Draws to attempt before giving up.
    construction : str, optional
        Defaults to the analysis' regime.
    engine : {"rank", "enumerate", "auto"}
        Verification engine that must accept the scheme.
    extra_user : int, optional
        Condition 3 only: the user ``x`` (bit index) added to ``S̄``. By
        default every user outside ``Q`` is tried in turn (under the
        intersection reading such a user may lie in ``S̄``); the audit fixes
        ``x`` to test each reading of ``Q``.
    progress : callable(Event), optional
        Called with an :class:`itsa._util.progress.Event` after each draw:
        ``done`` draws of ``total`` = ``max_tries``.
    enum_budget : int, optional
        Passed to :func:`itsa.keys.schemes.verifier.verify` (``engine="enumerate"``).

    Raises
    ------
    InvalidOption
        A field that is not a prime below ``2^63``, or an unknown construction.
    InvalidScheme
        When the scheme would exceed the verifier's size limit (checked before
        any draw, :func:`itsa.keys.schemes.verifier.check_verifiable`).
    Infeasible
        When the construction cannot apply (an infeasible LP, no user to add...).
    VerificationError
        When no draw within ``max_tries`` passes the verifier.

    Notes
    -----
    Keys are computed in exact integers, so every prime below ``2^63`` works.
    See :func:`field_warning` for fields at or below the Schwartz-Zippel size.

    Examples
    --------
    >>> from itsa import analyze, examples
    >>> b = build_scheme(analyze(examples.load("example-1")), 7)
    >>> b.verdict.ok, b.scheme.rate
    (True, Fraction(2, 1))
    """
    check_field(field)
    construction = construction or a.regime
    choice("construction", construction, CONSTRUCTIONS)
    size = _planned_size(a, construction)
    if size is not None:
        check_verifiable(a.instance, *size)     # before any key is drawn
    draw = _DRAWS[Regime(construction)]
    last_fail = None
    tick = counting(progress, "build")
    for t in range(max_tries):
        rng = random.Random(f"{seed}:{t}")
        L, d, keys, note = draw(a, field, rng, t, extra_user)
        scheme = Scheme(field=field, L=L, key_symbols=d, keys=keys, construction=construction, seed=seed)
        verdict = verify(a.instance, scheme, engine=engine, enum_budget=enum_budget)
        if tick:
            tick(t + 1, max_tries)
        if verdict.ok:
            used = scheme.trimmed().key_symbols
            if used < d:
                note += (f"; the keys use {used} of the {d} key symbols "
                         f"(rate {Fraction(used, L)} on those)")
            return Build(scheme=scheme, verdict=verdict, construction=construction, tries=t + 1, required_field=required_field(a, construction), note=note)
        last_fail = verdict
        if construction == Regime.CONDITION_1:
            break   # deterministic: another try draws the same scheme
    need = required_field(a, construction)
    hint = f"; the Schwartz-Zippel bound asks q > {need}" if need else ""
    bad = len(last_fail.leaks) if last_fail else 0
    raise VerificationError(f"no {construction} scheme over F_{field} verified within {max_tries} tries "
                     f"(last try: {bad} leaking configurations){hint}")


# Key arithmetic uses exact Python integers (object arrays): sums of entries near a
# 63-bit q would overflow int64.
_EXACT = object


def _planned_size(a: Analysis, construction: str) -> tuple[int, int] | None:
    """``(L, key_symbols)`` the construction will draw, or ``None`` if it cannot apply."""
    if construction == Regime.CONDITION_1:
        return 1, a.instance.K - 1
    if construction in (Regime.CONDITION_2, Regime.CONDITION_3):
        return 1, a.e_star
    if a.lp is None or not a.lp.feasible:
        return None
    L, p, shared = _theorem2_sizes(a)
    return L, sum(p.values()) + shared


def _theorem2_sizes(a: Analysis) -> tuple[int, dict[int, int], int]:
    """``L`` (common denominator of ``b``), private symbols ``p = b·L`` and shared ``e*·L``."""
    lp = a.lp
    if lp is None or lp.b is None:
        raise Infeasible("the Theorem-2 construction needs a feasible LP")
    b = lp.b
    L = lcm(1, *(Fraction(v).denominator for v in b.values()))
    return L, {i: int(b[i] * L) for i in lp.variables}, a.e_star * L


def _rand(rng: random.Random, q: int, rows: int, cols: int) -> np.ndarray:
    return np.array([[rng.randrange(q) for _ in range(cols)] for _ in range(rows)],
                    dtype=_EXACT).reshape(rows, cols)   # reshape keeps the shape when cols = 0


def _zeros(rows: int, cols: int) -> np.ndarray:
    return np.zeros((rows, cols), dtype=np.int64).astype(_EXACT)


def _sum_zero(keys: dict[int, np.ndarray], absorber: int, q: int) -> None:
    """Set ``keys[absorber] = -Σ`` of the others, so that ``Σ Z = 0`` (exact integers)."""
    first = next(iter(keys.values()))
    total = sum((k for i, k in keys.items() if i != absorber), start=_zeros(*first.shape))
    keys[absorber] = (-total) % q


def _condition1(a: Analysis, q: int, rng, t: int, extra_user=None):
    """``Z_{u,v} = N_{u,v}``, the last user ``-Σ N`` (paper Sec. IV-D1; docs/model.md §4)."""
    K = a.instance.K
    keys = {i: np.eye(1, K - 1, i, dtype=np.int64).astype(_EXACT) for i in range(K - 1)}
    if K > 1:
        keys[K - 1] = _zeros(1, K - 1)
        _sum_zero(keys, K - 1, q)
    return 1, K - 1, _as_rows(keys), "Z_i = N_i for all but the last user, which takes -Σ N"


def _generic_over(support: list[int], d: int, q: int, rng) -> dict[int, np.ndarray]:
    keys = {i: _rand(rng, q, 1, d) for i in support}
    _sum_zero(keys, support[-1], q)
    return keys


def _condition2(a: Analysis, q: int, rng, t: int, extra_user=None):
    """Generic ``h`` over ``S̄`` with ``Σh = 0`` (paper Sec. IV-D2; docs/model.md §4)."""
    support = members(a.S_bar)
    if not support:
        raise Infeasible("the Condition-2 construction needs S̄ ≠ ∅")
    keys = _generic_over(support, a.e_star, q, rng)
    return 1, a.e_star, _as_rows(keys), "generic h over S̄ with Σ h = 0"


def _condition3(a: Analysis, q: int, rng, t: int, extra_user=None):
    """Generic ``h`` over ``S̄ ∪ {x}`` for a user ``x ∉ Q`` (paper Sec. IV-D3); ``x`` may lie in ``S̄``."""
    inst = a.instance
    if extra_user is not None:
        x = extra_user
    else:
        outside = members(inst.full_mask & ~a.Q)
        if not outside:
            raise Infeasible(f"the Condition-3 construction needs a user outside Q ({a.sets.q_rule} rule)")
        x = outside[t % len(outside)]
    support = members(a.S_bar | 1 << x)
    keys = _generic_over(support, a.e_star, q, rng)
    x_text = display.user(*inst.label(x))
    return 1, a.e_star, _as_rows(keys), f"generic h over S̄ ∪ {{{x_text}}}, {x_text} ∉ Q, Σ h = 0"


def _theorem2(a: Analysis, q: int, rng, t: int, extra_user=None):
    """Private symbols outside ``S̄``, shared ones inside (paper Sec. V-B, Example 2 of Sec. V-A).

    A reading of the garbled Sec. V-B: docs/model.md §4 and §6.5.
    """
    lp = a.lp
    if lp is None or not lp.feasible:
        raise Infeasible("the Theorem-2 construction needs a feasible LP; "
                         f"upper bound: {a.key_rate_upper.reason}")
    sbar = members(a.S_bar)
    if not sbar and not lp.variables:
        raise Infeasible("the Theorem-2 construction needs at least one user")
    L, p, shared = _theorem2_sizes(a)
    d = sum(p.values()) + shared
    keys: dict[int, np.ndarray] = {}
    col = shared
    for i in lp.variables:
        if p[i]:
            block = _zeros(L, d)
            block[:, col:col + p[i]] = _rand(rng, q, L, p[i])
            keys[i] = block
            col += p[i]
    for i in sbar[1:]:
        block = _zeros(L, d)
        block[:, :shared] = _rand(rng, q, L, shared)
        keys[i] = block
    # One user of S̄ absorbs -Σ (paper); with S̄ = ∅ the first user outside it does (ours).
    absorber = sbar[0] if sbar else lp.variables[0]
    keys[absorber] = _zeros(L, d)
    _sum_zero(keys, absorber, q)
    who = display.user(*a.instance.label(absorber))
    return L, d, _as_rows(keys), (f"L = {L}; private symbols p = b·L for users outside S̄, "
                                  f"{shared} shared symbols for S̄, {who} absorbs -Σ")


def _as_rows(keys: dict[int, np.ndarray]) -> dict[int, tuple[tuple[int, ...], ...]]:
    return {i: tuple(tuple(int(x) for x in row) for row in k) for i, k in sorted(keys.items())}


_DRAWS = {Regime.CONDITION_1: _condition1, Regime.CONDITION_2: _condition2,
          Regime.CONDITION_3: _condition3, Regime.THEOREM_2: _theorem2}


def field_warning(a: Analysis, field: int, construction: str | None = None) -> str | None:
    """Why ``field`` may need many draws: at or below the Schwartz-Zippel size, else ``None``.

    Generic coefficients fail with probability at most ``required / q`` per
    draw (Schwartz-Zippel); at ``q <= required`` the bound guarantees nothing.

    >>> from itsa import examples, analyze
    >>> a = analyze(examples.load("example-1"))
    >>> field_warning(a, 5)[:73]
    'F_5 is not above the Schwartz-Zippel size of the condition-2 construction'
    >>> field_warning(a, 7) is None
    True
    """
    construction = construction or a.regime
    need = required_field(a, construction)
    if need is None or field_problem(field) or field > need:
        return None
    return (f"F_{field} is not above the Schwartz-Zippel size of the {construction} construction "
            f"(q > {need}): the bound allows a failure probability of {Fraction(need, field)} per draw "
            f"(>= 1: no guarantee); draws may keep failing. The default field is "
            f"{default_field(a)}.")


def default_field(a: Analysis, floor: int = 101) -> int:
    """The smallest prime above the regime's Schwartz-Zippel threshold and ``floor``.

    >>> from itsa import analyze, examples
    >>> default_field(analyze(examples.load("example-1")))
    101
    """
    from sympy import nextprime

    need = required_field(a, a.regime) or 0
    return int(nextprime(max(need, floor - 1)))
