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
>>> c = compare(1000, radix=3, layers=4, target=Fraction(1, 1000))          # per layer: δ_w = 4/1000
>>> c.exact.margin, c.worst_case, c.concentration, c.excess_concentration
(4, 7, 4, 0)
>>> compare(1000, radix=3, layers=4, target=Fraction(1, 1000), reading="union").concentration
5
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from itsa._util.checks import choice, fraction, whole_number
from itsa._util.display import Displayable
from itsa.exceptions import InvalidOption, VerificationError
from itsa.modular.laws import check_radix
from itsa.modular.margins import Margin, Reading, smallest_margin
from itsa.modular.numbers import Certified, certified, fraction_text, working_precision
from itsa.modular.sums import Method

__all__ = ["noise_tail", "worst_case_margin", "concentration_margin", "RuleComparison", "compare"]

#: Largest margin a rule may ask for before the search stops (ρ^200 is far beyond any K).
MAX_RULE_MARGIN = 200


def _check_noise(noise_scale) -> Fraction:
    s = fraction("noise scale s̃", noise_scale, low=0, high=None, closed=True)
    if 0 < s < Fraction(1, 2):
        raise InvalidOption(f"noise scale s̃: eq. 19 needs s̃ >= 1/2 (or 0 for no noise), not {fraction_text(s)}")
    return s


def _noise_ball(clients, layers, noise_scale, delta_z, block_dimension):
    import flint

    s = _check_noise(noise_scale)
    if s == 0:
        return flint.arb(0)
    dz = fraction("δ_z", delta_z, low=0, high=1)
    inside = flint.arb(2 * block_dimension * layers) * dz.denominator / dz.numerator
    return (flint.arb(s.numerator) / s.denominator) * (2 * clients * block_dimension * inside.log()).sqrt()


def noise_tail(clients: int, layers: int, noise_scale, delta_z, block_dimension: int = 1) -> Certified:
    """``u = s̃ √(2 K n_b ln(2 n_b L / δ_z))`` (eq. 19), certified.

    >>> noise_tail(1000, 4, Fraction(1, 2), Fraction(1, 1000)).text(3)
    '[67.034, 67.035]'
    """
    with working_precision():
        return certified(_noise_ball(clients, layers, noise_scale, delta_z, block_dimension))


def _smallest(radix: int, width: int, rhs) -> int:
    """The smallest ``m >= 0`` with ``ρ^(width+m)/2 > rhs`` (``rhs`` an arb ball), decided."""
    import flint

    for m in range(MAX_RULE_MARGIN):
        lhs = flint.arb(radix) ** (width + m) / 2
        if lhs > rhs:
            return m
        if not lhs <= rhs:
            raise VerificationError(f"ball arithmetic could not decide the rule at margin {m}")
    raise InvalidOption(f"the rule asks for a margin above {MAX_RULE_MARGIN} (a noise scale or K too large)")


def _check(clients, radix, layers, width, block_dimension):
    check_radix(radix)
    whole_number("K (clients)", clients, minimum=1)
    whole_number("L (layers)", layers, minimum=1)
    whole_number("width", width, minimum=1)
    whole_number("block dimension", block_dimension, minimum=1)


def worst_case_margin(clients: int, radix: int = 3, layers: int = 4, width: int = 1, block_dimension: int = 1,
                      noise_scale=0, delta_z=Fraction(1, 1000)) -> int:
    """Theorem 1(a): the smallest margin with ``ρ^(b+m)/2 > K ρ^b √n_b / 2 + u`` (eq. 20)."""
    import flint

    _check(clients, radix, layers, width, block_dimension)
    with working_precision():
        r = flint.arb(radix) ** width * flint.arb(block_dimension).sqrt() / 2
        u = _noise_ball(clients, layers, noise_scale, delta_z, block_dimension)
        return _smallest(radix, width, clients * r + u)


def concentration_margin(clients: int, radix: int = 3, layers: int = 4, delta_w=Fraction(1, 1000), width: int = 1,
                         block_dimension: int = 1, noise_scale=0, delta_z=Fraction(1, 1000)) -> int:
    """Theorem 1(b): the smallest margin meeting eq. 21 under uniform digits (``V = K n_b (ρ^(2b)-1)/12``)."""
    import flint

    _check(clients, radix, layers, width, block_dimension)
    dw = fraction("δ_w", delta_w, low=0, high=1)
    with working_precision():
        r = flint.arb(radix) ** width * flint.arb(block_dimension).sqrt() / 2
        variance = flint.arb(clients * block_dimension * (radix ** (2 * width) - 1)) / 12
        log = (flint.arb(4 * layers) * dw.denominator / dw.numerator).log()
        u = _noise_ball(clients, layers, noise_scale, delta_z, block_dimension)
        rhs = (2 * variance * log).sqrt() + 2 * r / 3 * log + u
        return _smallest(radix, width, rhs)


@dataclass(frozen=True, repr=False, kw_only=True)
class RuleComparison(Displayable):
    """Theorem 1(a) and (b) beside the exact smallest margin at one K (noise-free data sum).

    ``delta_z_worst_case`` is rule (a)'s noise budget (its whole budget: (a)
    spends nothing on the data); ``delta_w`` and ``delta_z`` are rule (b)'s.
    """

    exact: Margin
    worst_case: int
    concentration: int
    delta_w: Fraction
    delta_z: Fraction
    delta_z_worst_case: Fraction
    noise_scale: Fraction

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
        if self.noise_scale == 0:
            return "no noise (zero carry)", f"δ_w = {fraction_text(self.delta_w)}"
        return (f"δ_z = {fraction_text(self.delta_z_worst_case)}",
                f"δ_w = {fraction_text(self.delta_w)}, δ_z = {fraction_text(self.delta_z)}")

    def rows(self) -> list[tuple[str, str]]:
        a, b = self.budgets()
        return [("exact margin", f"{self.exact.margin} (carry {self.exact.carry.text()})"),
                ("Theorem 1(a)", f"{self.worst_case} ({self.excess_worst_case:+d} radix steps, {a})"),
                ("Theorem 1(b)", f"{self.concentration} ({self.excess_concentration:+d} radix steps, {b})"),
                ("noise scale s̃", fraction_text(self.noise_scale))]

    def to_json(self) -> dict:
        noisy = self.noise_scale != 0
        return {"clients": self.exact.clients, "exact_margin": self.exact.margin,
                "exact_carry_probability": self.exact.carry.to_json(), "theorem1a_margin": self.worst_case,
                "theorem1b_margin": self.concentration, "theorem1a_excess": self.excess_worst_case,
                "theorem1b_excess": self.excess_concentration, "delta_w": fraction_text(self.delta_w),
                "delta_z": fraction_text(self.delta_z) if noisy else None,
                "theorem1a_delta_z": fraction_text(self.delta_z_worst_case) if noisy else None,
                "noise_scale": fraction_text(self.noise_scale), "method": self.exact.method}


def compare(clients: int, radix: int = 3, layers: int = 4, target=Fraction(1, 1000),
            reading: Reading | str = Reading.PER_LAYER, width: int = 1, noise_scale=0, delta_z=None,
            method: Method | str = Method.AUTO, time_limit=None) -> RuleComparison:
    """The rules against the exact margin for the same carry target.

    A per-layer target ``p`` is a total budget ``L p`` (each rule's per-layer
    bound is its budget over ``L``); a total target ``δ`` (``all-layers`` or
    ``union``) is the budget ``δ``. Without noise rule (b) spends it all on
    ``δ_w``. With noise (``s̃ >= 1/2``) rule (a), which guarantees ``δ_z/L``
    and spends nothing on the data, gets ``δ_z`` = the whole budget; rule (b),
    which guarantees ``(δ_w + δ_z)/L``, splits it ``δ_w = δ_z`` in halves, or
    ``δ_w`` = budget − ``delta_z`` when ``delta_z`` is given (then both rules
    use that ``δ_z``). The exact margin is always that of the noise-free data sum.
    """
    reading = choice("reading", reading, Reading)
    target = fraction("carry target", target, low=0, high=1)
    exact = smallest_margin(clients, radix, layers, target, reading, width=width, method=method, time_limit=time_limit)
    total = layers * target if reading is Reading.PER_LAYER else target
    if total >= 1:
        raise InvalidOption(f"carry target: L × target = {fraction_text(total)} must be below 1 for Theorem 1(b)")
    noise = _check_noise(noise_scale)
    dz_a, dz_b, dw = _budgets(total, noise, delta_z)
    a = worst_case_margin(clients, radix, layers, width, noise_scale=noise, delta_z=dz_a)
    b = concentration_margin(clients, radix, layers, dw, width, noise_scale=noise, delta_z=dz_b)
    return RuleComparison(exact=exact, worst_case=a, concentration=b, delta_w=dw, delta_z=dz_b,
                          delta_z_worst_case=dz_a, noise_scale=noise)


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
