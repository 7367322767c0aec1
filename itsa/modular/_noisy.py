"""The noise a margin search adds to the clients' sum: a sub-Gaussian term, or an exact law.

A layer (or a stage of ``b`` layers) carries when ``|S + N| > c = (M − 1)/2``,
``S`` the sum of the clients' symbols (its law from :func:`~itsa.modular.sum_law`)
and ``N`` the noise, independent of it. The one margin search
(:func:`~itsa.modular.smallest_margin`) takes the noise as a parameter:

- ``None``: no noise, the carry is the law of ``S`` alone (Lemma 1);
- :class:`SubGaussianNoise`: ``N`` is ``v``-sub-Gaussian (the sum of ``n``
  discrete Gaussian shares of scale ``s̃`` in digit units is ``n s̃²``-sub-Gaussian;
  a stage of ``b`` layers sums ``Σ_(j<b) ρ^j N_j``, proxy ``n s̃² Σ_j ρ^(2j)``).
  For every ``t``, ``P[|S + N| > c] ≤ P[|S| > c − t] + P[|N| ≥ t + 1]``: the
  first term is the law of ``S``, the second the tail
  :func:`itsa.privacy.tails.subgaussian_tail`. ``t`` is picked from a grid (a
  float search only chooses where to look) and the bound certified there: an
  upper bound, so the search takes the smallest margin whose bound meets the target;
- :class:`ExactNoise`: ``N`` has an exact finite law (a :class:`DigitLaw`);
  ``P[|S + N| > c] = Σ_n P[N = n] P[|S + n| > c]``, exact with the exact engine,
  certified with the fixed-point one.

Examples
--------
>>> from fractions import Fraction
>>> from itsa.modular._laws import DigitLaw
>>> from itsa.modular._sums import sum_law
>>> law = sum_law(DigitLaw.uniform(3), 8)
>>> SubGaussianNoise(proxy=Fraction(0)).carry(law, 13).high == law.carry(13).high   # no noise: the exact carry
True
>>> SubGaussianNoise(proxy=Fraction(2)).carry(law, 13).high > law.carry(13).high
True
>>> c = ExactNoise(law=DigitLaw.parse("1")).carry(law, 3)           # a point mass at 0: the law's own carry
>>> (c.low, c.high) == (law.carry(3).low, law.carry(3).high), str(c.direction)
(True, 'exact')
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from itsa._util.certified import Certified, Direction, fraction_text, to_arb
from itsa._util.checks import fraction
from itsa.modular._certify import carry as carry_probability
from itsa.modular._laws import DigitLaw
from itsa.modular._sums import CertifiedSum, ExactSum
from itsa.privacy.tails import subgaussian_tail

__all__ = ["SubGaussianNoise", "ExactNoise", "Noise", "SPLIT_GRID", "CARRY_METHOD", "ANY_DATA_METHOD"]

#: Multiples of the noise's standard deviation tried as the split point ``t``.
SPLIT_GRID = tuple(k / 4 for k in range(0, 81))
#: How a carry with sub-Gaussian noise is bounded.
CARRY_METHOD = ("P[|S| > c - t] (the modular part's law of the noise-free sum, uniform digits) + "
                "P[|N| >= t + 1] <= 2 exp(-(t+1)^2/(2 v)) (N v-subgaussian)")
#: How a carry with sub-Gaussian noise is bounded for any data (no digit prior).
ANY_DATA_METHOD = ("|S| <= K (rho^w - 1)/2 for any digits; P[|N| >= c - K (rho^w - 1)/2 + 1] <= "
                   "2 exp(-u^2/(2 v)) (N v-subgaussian); 1 when the data alone reach the window")


@dataclass(frozen=True, kw_only=True)
class SubGaussianNoise:
    """Noise ``N`` with variance proxy ``proxy``: ``P[|N| ≥ u] ≤ 2 exp(−u²/(2 v))``.

    Parameters
    ----------
    proxy : Fraction
        ``v ≥ 0`` in the sum's units (``0``: no noise, the carry is the law's).
    """

    proxy: Fraction

    def __post_init__(self):
        object.__setattr__(self, "proxy", fraction("variance proxy", self.proxy, low=0, high=None, closed=True))

    #: the carry is an upper bound (its lower end is 0, not a bound): the search decides on the upper end
    bounds_only = True
    #: how its carry is bounded
    carry_method = CARRY_METHOD

    def carry(self, law: ExactSum | CertifiedSum, half: int) -> Certified:
        """An upper bound on ``P[|S + N| > half]`` for the sum law ``law``."""
        proxy = self.proxy
        if proxy == 0:
            c = law.carry(half)
            return Certified("carry", c.low, c.high, c.direction, "the modular part's law of the sum (no noise)")
        std = math.sqrt(float(proxy))

        def estimate(t: int) -> float:      # a float of subgaussian_tail's value, only to choose t (certified below)
            noise = 2 * math.exp(-((t + 1) ** 2) / (2 * float(proxy)))
            return float(law.carry(half - t).high) + noise
        candidates = sorted({min(half, int(k * std)) for k in SPLIT_GRID} | {half})
        best = min(candidates, key=estimate)
        data = law.carry(half - best)
        # the sum at the ambient precision, as the plan has always printed it (the tail at the working one)
        ball = Certified.from_arb("carry", to_arb(data.high) + subgaussian_tail(best + 1, proxy), Direction.UPPER, "")
        return Certified("carry", Fraction(0), min(ball.high, Fraction(1)), Direction.UPPER,
                         f"{CARRY_METHOD}, t = {best}")

    def any_data(self, largest: int, half: int) -> Certified:
        """An upper bound on ``P[|S + N| > half]`` for any sum ``|S| ≤ largest`` (no digit prior)."""
        room = half - largest
        if room < 0:
            return Certified("carry", Fraction(0), Fraction(1), Direction.UPPER, ANY_DATA_METHOD)
        if self.proxy == 0:
            return Certified.exact("carry", 0, ANY_DATA_METHOD)
        ball = Certified.from_arb("carry", subgaussian_tail(room + 1, self.proxy), Direction.UPPER, "")
        return Certified("carry", Fraction(0), min(ball.high, Fraction(1)), Direction.UPPER, ANY_DATA_METHOD)

    def text(self) -> str:
        return f"{fraction_text(self.proxy)}-sub-Gaussian"

    def to_dict(self) -> dict:
        return {"kind": "sub-gaussian", "variance_proxy": fraction_text(self.proxy)}


@dataclass(frozen=True, kw_only=True)
class ExactNoise:
    """Noise ``N`` with an exact finite law on consecutive integers, independent of the sum.

    Parameters
    ----------
    law : DigitLaw
        The law of ``N`` (its values ``low, low + 1, …`` and exact weights).
    """

    law: DigitLaw

    #: the carry is exact, or a certified interval the search may refine
    bounds_only = False

    def carry(self, law: ExactSum | CertifiedSum, half: int) -> Certified:
        """``P[|S + N| > half] = Σ_n P[N = n] P[|S + n| > half]``: exact, or certified inside its interval."""
        low = high = Fraction(0)
        for n, w in zip(self.law.values, self.law.weights):
            if w:
                a, b = _outside(law, -half - n, half - n)
                low, high = low + w * a, high + w * b
        return carry_probability(low, high, f"{law.method}; noise {self.law.headline()} convolved exactly")

    def text(self) -> str:
        return f"exact law {self.law.headline()}"

    def to_dict(self) -> dict:
        return {"kind": "exact", "law": self.law.to_dict()}


#: The noise a margin search may add (``None``: none).
Noise = SubGaussianNoise | ExactNoise


def _outside(law: ExactSum | CertifiedSum, lo: int, hi: int) -> tuple[Fraction, Fraction]:
    """``P[S ∉ [lo, hi]]``: exact (twice the same) or certified ``[stored outside, stored outside + lost]``."""
    if isinstance(law, ExactSum):
        p = Fraction(law.denominator - law.mass(lo, hi), law.denominator)
        return p, p
    i, j = max(0, lo - law.low), min(len(law.counts), hi - law.low + 1)
    inside = sum(law.counts[i:j]) if j > i else 0
    outside = Fraction(sum(law.counts) - inside, law.scale)
    return outside, outside + law.lost
