"""The law of a sum of K i.i.d. digits: exact integers, or certified fixed-point bounds.

Two engines share one interface (:meth:`ExactSum.carry`, the probability that
the sum leaves a centred window):

- ``exact``: the counts of ``(Σ w_v x^v)^K`` as integers (python-flint's
  ``fmpz_poly`` power); every probability is a :class:`~fractions.Fraction`.
- ``certified``: for deployment scale (``K`` = 10⁴ … 10⁷), the same power on
  a window around the mean, in fixed point with every product rounded *down*
  to a multiple of ``2^-P``. Each stored value is then a lower bound on the
  true probability, and the mass lost (window cut-off and rounding together)
  is known exactly as ``1 - Σ q``, since the true law sums to 1. A tail
  probability is thus certified inside ``[lost-free tail, tail + lost mass]``.

Examples
--------
>>> from itsa.modular.laws import DigitLaw
>>> s = sum_law(DigitLaw.uniform(3), 2)
>>> s.counts, s.denominator
((1, 2, 3, 2, 1), 9)
>>> s.carry(0).high        # P[|S| > 0] for K = 2
Fraction(2, 3)
>>> c = sum_law(DigitLaw.uniform(3), 2, method="certified").carry(0)
>>> c.low <= Fraction(2, 3) <= c.high, c.exact
(True, False)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from itertools import accumulate

from itsa._util.checks import choice, whole_number
from itsa.exceptions import InvalidOption
from itsa.modular.laws import DigitLaw

__all__ = ["Method", "CarryBound", "ExactSum", "CertifiedSum", "sum_law", "exact_bytes", "MAX_EXACT_BYTES", "AUTO_EXACT_BYTES",
           "DEFAULT_PRECISION", "MAX_PRECISION", "MAX_CERTIFIED_BYTES", "certified_bytes", "engine",
           "check_size"]

#: Largest estimated size of the exact counts (bytes) before ``auto`` switches to ``certified``.
AUTO_EXACT_BYTES = 16 * 2**20
#: Largest estimated size of the exact counts (bytes) that ``exact`` accepts at all.
MAX_EXACT_BYTES = 256 * 2**20
#: Longest window (coefficients) of the certified engine.
MAX_WINDOW = 4 * 10**6
#: Largest K accepted (the certified engine decides 10⁷ in about a second).
MAX_CLIENTS = 10**8
#: Fixed-point bits of the certified engine (its stored values are multiples of 2^-P).
DEFAULT_PRECISION = 128
#: Most fixed-point bits of the certified engine (it resolves probabilities down to about 2^-MAX_PRECISION).
MAX_PRECISION = 4096
#: Largest estimated working memory of the certified engine (bytes).
MAX_CERTIFIED_BYTES = 2**30


class Method(StrEnum):
    """How the law of the sum is computed."""

    AUTO = "auto"
    EXACT = "exact"
    CERTIFIED = "certified"


@dataclass(frozen=True)
class CarryBound:
    """A probability known exactly (``low == high``) or certified to lie in ``[low, high]``."""

    low: Fraction
    high: Fraction
    method: str

    @property
    def exact(self) -> bool:
        return self.low == self.high

    def at_most(self, target: Fraction) -> bool | None:
        """Whether the probability is ``<= target``; ``None`` when the interval straddles it."""
        if self.high <= target:
            return True
        if self.low > target:
            return False
        return None

    def map(self, f) -> CarryBound:
        """The image under an increasing function ``f`` of Fractions."""
        return CarryBound(f(self.low), f(self.high), self.method)

    def text(self, digits: int = 4) -> str:
        """``9.751e-06 (exact)`` or ``[2.1e-05, 2.2e-05] (certified)``, rounded outward."""
        from itsa.modular.numbers import round_down, round_up

        if self.exact:
            return "0 (exact)" if self.high == 0 else f"{round_up(self.high, digits)} (exact, rounded up)"
        return f"[{round_down(self.low, digits)}, {round_up(self.high, digits)}] (certified, {self.method})"

    def to_json(self):
        """An exact fraction string, or ``{"low", "high", "method"}`` with decimals rounded outward."""
        from itsa.modular.numbers import fraction_text, round_down, round_up

        if self.exact:
            return fraction_text(self.high)
        return {"low": round_down(self.low, 6), "high": round_up(self.high, 6), "method": self.method}


def exact_bytes(law: DigitLaw, clients: int) -> int:
    """Estimated size in bytes of the exact counts of the sum of ``clients`` digits."""
    whole_number("K (clients)", clients, minimum=1, maximum=MAX_CLIENTS)
    _, d = law.integer_weights()
    bits = clients * max(1.0, math.log2(d)) if d > 1 else 1.0
    return int((clients * (len(law.weights) - 1) + 1) * bits / 8) + 1


def _half_window(law: DigitLaw, clients: int, precision: int) -> int:
    """Half-width of the certified engine's window (Hoeffding: outside it the mass is below ``2^-P``)."""
    spread = max(1, law.high - law.low)
    return math.ceil(spread * math.sqrt(clients * (precision + 2) * math.log(2) / 2)) + len(law.weights)


def certified_bytes(law: DigitLaw, clients: int, precision: int = DEFAULT_PRECISION) -> int:
    """Estimated peak working memory (bytes) of the certified engine: a few products of the window.

    Measured (peak of the whole process): 190 MB at K = 10⁸ and 128 bits, 740 MB at K = 10⁷ and
    1045 bits; the estimates are 130 and 780 MB.
    """
    window = 2 * _half_window(law, clients, precision) + 1
    return 12 * window * (2 * precision + 64) // 8


def engine(law: DigitLaw, clients: int, method: Method | str = Method.AUTO) -> Method:
    """The engine ``method`` runs at this size: ``exact`` or ``certified`` (``auto`` picks by :func:`exact_bytes`)."""
    how: Method = choice("method", method, Method)
    if how is Method.AUTO:
        return Method.EXACT if exact_bytes(law, clients) <= AUTO_EXACT_BYTES else Method.CERTIFIED
    return how


@dataclass(frozen=True)
class ExactSum:
    """``P[S = low + i] = counts[i] / denominator`` exactly."""

    law: DigitLaw
    clients: int
    low: int
    counts: tuple[int, ...]
    denominator: int
    method: str = "exact (fmpz_poly power)"

    def _prefix(self) -> list[int]:
        cache = self.__dict__.get("_prefix_cache")
        if cache is None:
            cache = [0, *accumulate(self.counts)]
            object.__setattr__(self, "_prefix_cache", cache)
        return cache

    def mass(self, lo: int, hi: int) -> int:
        """The count of ``lo <= S <= hi`` (numerator over :attr:`denominator`)."""
        prefix = self._prefix()
        i = max(0, lo - self.low)
        j = min(len(self.counts), hi - self.low + 1)
        return prefix[j] - prefix[i] if j > i else 0

    def carry(self, half: int) -> CarryBound:
        """``P[|S| > half]``: the sum leaves the centred window ``[-half, half]``."""
        p = Fraction(self.denominator - self.mass(-half, half), self.denominator)
        return CarryBound(p, p, self.method)

    def probability(self, s: int) -> Fraction:
        i = s - self.low
        return Fraction(self.counts[i], self.denominator) if 0 <= i < len(self.counts) else Fraction(0)


@dataclass(frozen=True)
class CertifiedSum:
    """Lower bounds ``q[i] / 2^P <= P[S = low + i]`` on a window, and the exact lost mass."""

    law: DigitLaw
    clients: int
    low: int
    counts: tuple[int, ...]
    precision: int

    @property
    def method(self) -> str:
        return f"fixed point 2^-{self.precision}, rounded down, lost mass counted"

    @property
    def scale(self) -> int:
        return 1 << self.precision

    @property
    def lost(self) -> Fraction:
        """Probability not represented (outside the window or lost to rounding), exactly."""
        return Fraction(self.scale - sum(self.counts), self.scale)

    def carry(self, half: int) -> CarryBound:
        i = max(0, -half - self.low)
        j = min(len(self.counts), half - self.low + 1)
        inside = sum(self.counts[i:j]) if j > i else 0
        outside = Fraction(sum(self.counts) - inside, self.scale)
        return CarryBound(outside, outside + self.lost, self.method)


def sum_law(law: DigitLaw, clients: int, method: Method | str = Method.AUTO,
            precision: int = DEFAULT_PRECISION, deadline=None, tick=None) -> ExactSum | CertifiedSum:
    """The law of the sum of ``clients`` i.i.d. digits of ``law``.

    ``auto`` is exact while the counts fit in :data:`AUTO_EXACT_BYTES`, certified
    beyond; ``exact`` beyond :data:`MAX_EXACT_BYTES` is refused in one line, and
    ``certified`` beyond :data:`MAX_CERTIFIED_BYTES` (:func:`certified_bytes`).
    The certified engine checks ``deadline`` (an :class:`~itsa._util.deadline.Deadline`)
    and calls ``tick(done, total)`` at each of its products.

    Notes
    -----
    The exact counts are the coefficients of the generating polynomial's K-th
    power, the "exact polynomial convolution" of Azimi-Abarghouyi,
    arXiv 2610.00695, §IX-A.
    """
    method = check_size(law, clients, method, precision)
    if method is Method.EXACT:
        return _exact(law, clients)
    return _certified(law, clients, precision, deadline, tick)


def check_size(law: DigitLaw, clients: int, method: Method | str = Method.AUTO,
               precision: int = DEFAULT_PRECISION) -> Method:
    """The engine :func:`sum_law` would run, after refusing (in one line) a size past its limit.

    >>> check_size(DigitLaw.uniform(3), 10**8, "certified", 2048)
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOption: method certified: K = 100000000 at 2^-2048 would take about 6344 MiB (limit 1024 MiB); ask for fewer clients, a narrower law or a larger target
    """
    clients = whole_number("K (clients)", clients, minimum=1)
    method = engine(law, clients, method)
    if method is Method.EXACT:
        size = exact_bytes(law, clients)
        if size > MAX_EXACT_BYTES:
            raise InvalidOption(f"method exact: the counts for K = {clients} would take about {size // 2**20} MiB "
                                f"(limit {MAX_EXACT_BYTES // 2**20} MiB); use method certified")
        return method
    whole_number("precision", precision, minimum=16, maximum=MAX_PRECISION)
    need = certified_bytes(law, clients, precision)
    if need > MAX_CERTIFIED_BYTES:
        raise InvalidOption(f"method certified: K = {clients} at 2^-{precision} would take about {need // 2**20} MiB "
                            f"(limit {MAX_CERTIFIED_BYTES // 2**20} MiB); ask for fewer clients, a narrower law "
                            "or a larger target")
    return method


def _exact(law: DigitLaw, clients: int) -> ExactSum:
    import flint

    weights, d = law.integer_weights()
    counts = [int(c) for c in (flint.fmpz_poly(list(weights)) ** clients).coeffs()]
    return ExactSum(law, clients, clients * law.low, tuple(counts), d ** clients)


def _certified(law: DigitLaw, clients: int, precision: int, deadline=None, tick=None) -> CertifiedSum:
    import flint

    scale = 1 << precision
    weights = [w.numerator * scale // w.denominator for w in law.weights]
    half = _half_window(law, clients, precision)
    if 2 * half + 1 > MAX_WINDOW:
        raise InvalidOption(f"method certified: K = {clients} with {len(weights)} digit values needs a window of "
                            f"{2 * half + 1} coefficients (limit {MAX_WINDOW}); use fewer clients or a narrower law")
    mean = law.mean

    def clip(poly, lo, k):
        centre = round(k * mean)
        start = centre - half
        if lo < start:
            poly, lo = poly.right_shift(start - lo), start
        return poly.truncate(centre + half - lo + 1), lo

    steps = 2 * clients.bit_length() - 1
    done = 0

    def times(x, y):
        nonlocal done
        if deadline is not None:
            deadline.check(f"K = {clients} (certified power, step {done + 1} of at most {steps})")
        out = (x * y) // scale
        done += 1
        if tick is not None:
            tick(done, steps)
        return out

    base, base_lo, base_k = flint.fmpz_poly(weights), law.low, 1
    result, result_lo, result_k = None, 0, 0
    k = clients
    while k:
        if k & 1:
            if result is None:
                result, result_lo, result_k = base, base_lo, base_k
            else:
                result_k += base_k
                result, result_lo = clip(times(result, base), result_lo + base_lo, result_k)
        k >>= 1
        if k:
            base_k *= 2
            base, base_lo = clip(times(base, base), 2 * base_lo, base_k)
    assert result is not None
    counts = [int(c) for c in result.coeffs()]
    return CertifiedSum(law, clients, result_lo, tuple(counts), precision)
