"""Theorem 1's margin rules, decided in ball arithmetic, beside the exact smallest margin.

In units of the layer's digit (``h ρ^(ℓ-1)``), for a stage of ``b`` layers
(``b = 1``: one layer) the modulus lattice has packing radius ``ρ^(b+m)/2``,
a client symbol has norm at most ``r = ρ^b √n_b / 2`` (the covering radius of
the next lattice) and total second moment ``V = K n_b (ρ^(2b)-1)/12`` under
uniform digits. With the noise tail ``u = s̃ √(2 K n_b ln(2 n_b L/δ_z))``
(eq. 19, ``s̃ >= 1/2``; ``u = 0`` without noise):

- (a) worst case: ``ρ^(b+m)/2 > K r + u`` gives ``P[carry] <= δ_z/L`` (eq. 20);
- (b) concentration: ``ρ^(b+m)/2 > √(2V ln(4L/δ_w)) + (2r/3) ln(4L/δ_w) + u``
  gives ``P[carry] <= (δ_w + δ_z)/L`` (eq. 21).

Examples
--------
>>> worst_case_margin(1000, radix=3, layers=4)
7
>>> concentration_margin(1000, radix=3, layers=4, delta_w=Fraction(1, 1000))
5
>>> c = compare_rules(1000, radix=3, layers=4, carry=Fraction(1, 1000))          # per layer: δ_w = 4/1000
>>> c.exact.margin, c.worst_case, c.concentration, c.excess_concentration
(4, 7, 4, 0)
>>> compare_rules(1000, radix=3, layers=4, carry=Fraction(1, 1000), reading="union").concentration
5
>>> [r.exact.margin for r in rules("10,1000").comparisons]
[2, 4]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from itsa._util.certified import Certified, fraction_text, precision, to_arb
from itsa._util.checks import choice, fraction, whole_number
from itsa._util.deadline import Deadline
from itsa._util.display import Displayable
from itsa._util.progress import Callback, counting
from itsa.exceptions import InvalidOption, VerificationError
from itsa.modular._certify import enclose, shown
from itsa.modular._laws import check_radix
from itsa.modular._margins import DEFAULT_CARRY, Margin, Reading, client_list, smallest_margin
from itsa.modular._sums import Arithmetic

__all__ = ["noise_tail", "worst_case_margin", "concentration_margin", "RuleComparison", "compare_rules", "compare",
           "Rules", "rules"]

#: Largest margin a rule may ask for before the search stops (ρ^200 is far beyond any K).
MAX_RULE_MARGIN = 200


def _check_noise(scaled_scale) -> Fraction:
    s = fraction("scaled scale s̃", scaled_scale, low=0, high=None, closed=True)
    if 0 < s < Fraction(1, 2):
        raise InvalidOption(f"scaled scale s̃: eq. 19 needs s̃ >= 1/2 (or 0 for no noise), not {fraction_text(s)}")
    return s


def _noise_ball(clients, layers, scaled_scale, delta_z, block_dimension):
    s = _check_noise(scaled_scale)
    if s == 0:
        return to_arb(0)
    dz = fraction("δ_z", delta_z, low=0, high=1)
    inside = to_arb(2 * block_dimension * layers) * dz.denominator / dz.numerator
    return (to_arb(s.numerator) / s.denominator) * (2 * clients * block_dimension * inside.log()).sqrt()


def noise_tail(clients: int, layers: int, scaled_scale, delta_z, block_dimension: int = 1) -> Certified:
    """``u = s̃ √(2 K n_b ln(2 n_b L / δ_z))`` (eq. 19), certified.

    The sub-Gaussian tail inverted: the ``u`` at which ``n_b L`` tails of :func:`itsa.privacy.tails.subgaussian_tail`
    (proxy ``K n_b s̃²``) sum to ``δ_z`` (the paper's closed form, a threshold, not a probability).

    Parameters
    ----------
    clients : int
        ``K``.
    layers : int
        ``L``.
    scaled_scale : Fraction or str
        ``s̃ >= 1/2``, or 0 for no noise.
    delta_z : Fraction or str
        The noise budget ``δ_z``.
    block_dimension : int
        ``n_b``.

    Examples
    --------
    >>> from itsa.modular._certify import interval
    >>> interval(noise_tail(1000, 4, Fraction(1, 2), Fraction(1, 1000)), 5)
    '[67.034, 67.035]'
    """
    with precision():
        return enclose("noise tail u", _noise_ball(clients, layers, scaled_scale, delta_z, block_dimension))


def _smallest(radix: int, width: int, rhs) -> int:
    """The smallest ``m >= 0`` with ``ρ^(width+m)/2 > rhs`` (``rhs`` an arb ball), decided."""
    for m in range(MAX_RULE_MARGIN):
        lhs = to_arb(radix) ** (width + m) / 2
        if lhs > rhs:
            return m
        if not lhs <= rhs:
            raise VerificationError(f"ball arithmetic could not decide the rule at margin {m}")
    raise InvalidOption(f"the rule asks for a margin above {MAX_RULE_MARGIN} (a scaled scale s̃ or K too large)")


def _check(clients, radix, layers, width, block_dimension):
    check_radix(radix)
    whole_number("K (clients)", clients, minimum=1)
    whole_number("L (layers)", layers, minimum=1)
    whole_number("width", width, minimum=1)
    whole_number("block dimension", block_dimension, minimum=1)


def worst_case_margin(clients: int, radix: int = 3, layers: int = 4, width: int = 1, block_dimension: int = 1,
                      scaled_scale=0, delta_z=Fraction(1, 1000)) -> int:
    """Theorem 1(a): the smallest margin with ``ρ^(b+m)/2 > K ρ^b √n_b / 2 + u`` (eq. 20).

    Parameters
    ----------
    clients, radix, layers, width, block_dimension : int
        ``K``, ``ρ``, ``L``, ``b`` and ``n_b``.
    scaled_scale : Fraction or str
        ``s̃ >= 1/2``, or 0 for no noise.
    delta_z : Fraction or str
        The noise budget ``δ_z``.
    """
    _check(clients, radix, layers, width, block_dimension)
    with precision():
        r = to_arb(radix) ** width * to_arb(block_dimension).sqrt() / 2
        u = _noise_ball(clients, layers, scaled_scale, delta_z, block_dimension)
        return _smallest(radix, width, clients * r + u)


def concentration_margin(clients: int, radix: int = 3, layers: int = 4, delta_w=Fraction(1, 1000), width: int = 1,
                         block_dimension: int = 1, scaled_scale=0, delta_z=Fraction(1, 1000)) -> int:
    """Theorem 1(b): the smallest margin meeting eq. 21 under uniform digits (``V = K n_b (ρ^(2b)-1)/12``).

    Parameters
    ----------
    clients, radix, layers : int
        ``K``, ``ρ`` and ``L``.
    delta_w : Fraction or str
        The data budget ``δ_w``.
    width, block_dimension : int
        ``b`` and ``n_b``.
    scaled_scale : Fraction or str
        ``s̃ >= 1/2``, or 0 for no noise.
    delta_z : Fraction or str
        The noise budget ``δ_z``.
    """
    _check(clients, radix, layers, width, block_dimension)
    dw = fraction("δ_w", delta_w, low=0, high=1)
    with precision():
        r = to_arb(radix) ** width * to_arb(block_dimension).sqrt() / 2
        variance = to_arb(clients * block_dimension * (radix ** (2 * width) - 1)) / 12
        log = (to_arb(4 * layers) * dw.denominator / dw.numerator).log()
        u = _noise_ball(clients, layers, scaled_scale, delta_z, block_dimension)
        rhs = (2 * variance * log).sqrt() + 2 * r / 3 * log + u
        return _smallest(radix, width, rhs)


@dataclass(frozen=True, repr=False, kw_only=True)
class RuleComparison(Displayable):
    """Theorem 1(a) and (b) beside the exact smallest margin at one K (noise-free data sum).

    ``delta_z_worst_case`` is rule (a)'s noise budget (its whole budget: (a)
    spends nothing on the data); ``delta_w`` and ``delta_z`` are rule (b)'s.

    Parameters
    ----------
    exact : Margin
        The exact smallest margin of the noise-free data sum.
    worst_case, concentration : int
        Theorem 1(a)'s and 1(b)'s margins.
    delta_w, delta_z : Fraction
        Rule (b)'s budgets.
    delta_z_worst_case : Fraction
        Rule (a)'s budget.
    scaled_scale : Fraction
        ``s̃`` (0: no noise).
    """

    exact: Margin
    worst_case: int
    concentration: int
    delta_w: Fraction
    delta_z: Fraction
    delta_z_worst_case: Fraction
    scaled_scale: Fraction

    @property
    def excess_worst_case(self) -> int:
        return self.worst_case - self.exact.margin

    @property
    def excess_concentration(self) -> int:
        return self.concentration - self.exact.margin

    def headline(self) -> str:
        return (f"K = {self.exact.clients}: exact {self.exact.margin}, Theorem 1(a) {self.worst_case}, "
                f"Theorem 1(b) {self.concentration}")

    def budgets(self) -> tuple[str, str]:
        """The budgets each rule was given, as text: rule (a)'s, rule (b)'s."""
        if self.scaled_scale == 0:
            return "no noise (zero carry)", f"δ_w = {fraction_text(self.delta_w)}"
        return (f"δ_z = {fraction_text(self.delta_z_worst_case)}",
                f"δ_w = {fraction_text(self.delta_w)}, δ_z = {fraction_text(self.delta_z)}")

    def rows(self) -> list[tuple[str, str]]:
        a, b = self.budgets()
        return [("exact margin", f"{self.exact.margin} (carry {shown(self.exact.carry_probability)})"),
                ("Theorem 1(a)", f"{self.worst_case} ({self.excess_worst_case:+d} radix steps, {a})"),
                ("Theorem 1(b)", f"{self.concentration} ({self.excess_concentration:+d} radix steps, {b})"),
                ("scaled scale s̃", fraction_text(self.scaled_scale))]

    def to_dict(self) -> dict:
        noisy = self.scaled_scale != 0
        return {"clients": self.exact.clients, "exact_margin": self.exact.margin,
                "exact_carry_probability": self.exact.carry_probability.to_dict(), "theorem1a_margin": self.worst_case,
                "theorem1b_margin": self.concentration, "theorem1a_excess": self.excess_worst_case,
                "theorem1b_excess": self.excess_concentration, "delta_w": fraction_text(self.delta_w),
                "delta_z": fraction_text(self.delta_z) if noisy else None,
                "theorem1a_delta_z": fraction_text(self.delta_z_worst_case) if noisy else None,
                "scaled_scale": fraction_text(self.scaled_scale), "method": self.exact.method}


def compare_rules(clients: int, radix: int = 3, layers: int = 4, carry=DEFAULT_CARRY,
                  reading: Reading | str = Reading.PER_LAYER, width: int = 1, scaled_scale=0, delta_z=None,
                  arithmetic: Arithmetic | str = Arithmetic.AUTO, time_limit=None) -> RuleComparison:
    """The rules against the exact margin for the same carry target, at one K.

    A per-layer target ``p`` is a total budget ``L p`` (each rule's per-layer
    bound is its budget over ``L``); a total target ``δ`` (``all-layers`` or
    ``union``) is the budget ``δ``. Without noise rule (b) spends it all on
    ``δ_w``. With noise (``s̃ >= 1/2``) rule (a), which guarantees ``δ_z/L``
    and spends nothing on the data, gets ``δ_z`` = the whole budget; rule (b),
    which guarantees ``(δ_w + δ_z)/L``, splits it ``δ_w = δ_z`` in halves, or
    ``δ_w`` = budget − ``delta_z`` when ``delta_z`` is given (then both rules
    use that ``δ_z``). The exact margin is always that of the noise-free data sum.

    Parameters
    ----------
    clients, radix, layers, width : int
        ``K``, ``ρ``, ``L`` and ``b``.
    carry : Fraction or str
        The carry target.
    reading : Reading
        How the target is read.
    scaled_scale : Fraction or str
        ``s̃ >= 1/2``, or 0 for no noise.
    delta_z : Fraction or str, optional
        Rule (b)'s noise budget (default: half the budget).
    arithmetic : Arithmetic
        Of the exact margin: ``auto``, ``exact`` or ``certified``.
    time_limit : float or Deadline, optional
        Seconds.
    """
    reading = choice("reading", reading, Reading)
    carry = fraction("carry target", carry, low=0, high=1)
    exact = smallest_margin(clients, radix, layers, carry, reading, width=width, arithmetic=arithmetic,
                            time_limit=time_limit)
    total = layers * carry if reading is Reading.PER_LAYER else carry
    if total >= 1:
        raise InvalidOption(f"carry target: L × target = {fraction_text(total)} must be below 1 for Theorem 1(b)")
    noise = _check_noise(scaled_scale)
    dz_a, dz_b, dw = _budgets(total, noise, delta_z)
    a = worst_case_margin(clients, radix, layers, width, scaled_scale=noise, delta_z=dz_a)
    b = concentration_margin(clients, radix, layers, dw, width, scaled_scale=noise, delta_z=dz_b)
    return RuleComparison(exact=exact, worst_case=a, concentration=b, delta_w=dw, delta_z=dz_b,
                          delta_z_worst_case=dz_a, scaled_scale=noise)


#: The former name of :func:`compare_rules`.
compare = compare_rules


@dataclass(frozen=True, repr=False)
class Rules(Displayable):
    """Theorem 1(a) and (b) against the exact smallest margin over a list of K.

    Parameters
    ----------
    comparisons : tuple of RuleComparison
        One per K, in the order given.
    radix, layers : int
        ``ρ`` and ``L``.
    carry : Fraction
        The carry target.
    reading : Reading
        How it is read.
    arithmetic : Arithmetic
        The arithmetic asked for the exact margins.
    """

    comparisons: tuple[RuleComparison, ...]
    radix: int
    layers: int
    carry: Fraction
    reading: Reading
    arithmetic: Arithmetic

    def headline(self) -> str:
        return (f"ρ = {self.radix}, L = {self.layers}, carry target {fraction_text(self.carry)} ({self.reading}), "
                f"{len(self.comparisons)} values of K")

    def rows(self) -> list[tuple[str, str]]:
        rows = [(f"K = {c.exact.clients}", f"exact {c.exact.margin}; Theorem 1(a) {c.worst_case} "
                 f"({c.excess_worst_case:+d}); Theorem 1(b) {c.concentration} ({c.excess_concentration:+d}); "
                 f"p per layer at the exact margin {shown(c.exact.carry_probability)}") for c in self.comparisons]
        a, b = self.comparisons[0].budgets()
        rows.append(("budgets", f"Theorem 1(a) {a}; Theorem 1(b) {b} (each rule's per-layer carry bound is its "
                     "budget / L)"))
        return rows

    def to_dict(self) -> dict:
        first = self.comparisons[0]
        return {"clients": [c.exact.clients for c in self.comparisons], "radix": self.radix, "layers": self.layers,
                "carry": fraction_text(self.carry), "reading": str(self.reading),
                "scaled_scale": fraction_text(first.scaled_scale), "arithmetic": str(self.arithmetic),
                "rows": [c.to_dict() for c in self.comparisons]}


def rules(clients: Sequence[int] | str, radix: int = 3, layers: int = 4, carry=DEFAULT_CARRY,
          reading: Reading | str = Reading.PER_LAYER, scaled_scale=0, arithmetic: Arithmetic | str = Arithmetic.AUTO,
          progress: Callback | None = None, time_limit: float | Deadline | None = None) -> Rules:
    """:func:`compare_rules` for every K of a list.

    Parameters
    ----------
    clients : sequence of int or str
        The values of K, or a text ``"8,16,32"``, ``"8..4096x2"``.
    radix, layers : int
        ``ρ`` and ``L``.
    carry : Fraction or str
        The carry target.
    reading : Reading
        How the target is read.
    scaled_scale : Fraction or str
        ``s̃ >= 1/2`` of the DP noise, or 0 for none.
    arithmetic : Arithmetic
        Of the exact margins.
    progress : callable, optional
        Receives :class:`~itsa._util.progress.Event` s, one per K done.
    time_limit : float or Deadline, optional
        Seconds for the whole list.
    """
    ks = client_list(clients)
    how: Arithmetic = choice("arithmetic", arithmetic, Arithmetic)
    read: Reading = choice("reading", reading, Reading)
    carry = fraction("carry target", carry, low=0, high=1)
    clock, tick, out = Deadline.of(time_limit), counting(progress, "rules"), []
    for i, k in enumerate(ks):
        clock.check(f"K = {k}, {i} of {len(ks)} done")
        out.append(compare_rules(k, radix, layers, carry, read, scaled_scale=scaled_scale, arithmetic=how,
                                 time_limit=clock))
        if tick is not None:
            tick(i + 1, len(ks))
    return Rules(tuple(out), radix, layers, carry, read, how)


def _budgets(total: Fraction, noise: Fraction, delta_z) -> tuple[Fraction, Fraction, Fraction]:
    """``(δ_z of rule (a), δ_z of rule (b), δ_w of rule (b))`` for the total budget ``total``."""
    if noise == 0:
        return total, total, total           # no noise: δ_z is not used (u = 0)
    if delta_z is None:
        return total, total / 2, total / 2
    dz = fraction("δ_z", delta_z, low=0, high=1)
    if dz >= total:
        raise InvalidOption(f"δ_z: must be below the total budget {total}, not {dz}")
    return dz, dz, total - dz
