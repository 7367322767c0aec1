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
>>> from itsa.modular._laws import DigitLaw
>>> s = sum_law(DigitLaw.uniform(3), 2)
>>> s.counts, s.denominator
((1, 2, 3, 2, 1), 9)
>>> s.carry(0).high        # P[|S| > 0] for K = 2
Fraction(2, 3)
>>> c = sum_law(DigitLaw.uniform(3), 2, arithmetic="certified").carry(0)
>>> c.low <= Fraction(2, 3) <= c.high, str(c.direction)
(True, 'upper bound')
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from itertools import accumulate

from itsa._util.certified import Certified
from itsa._util.checks import choice, whole_number
from itsa.exceptions import InvalidOption
from itsa.modular._certify import carry
from itsa.modular._laws import DigitLaw

__all__ = ["Arithmetic", "Method", "ExactSum", "CertifiedSum", "sum_law", "exact_bytes", "MAX_EXACT_BYTES", "AUTO_EXACT_BYTES",
           "DEFAULT_PRECISION", "MAX_PRECISION", "MAX_CERTIFIED_BYTES", "certified_bytes", "engine",
           "check_size"]

#: Largest estimated size of the exact counts (bytes) before ``auto`` switches to ``certified``.
AUTO_EXACT_BYTES = 16 * 2**20
#: Largest estimated size of the exact counts (bytes) that ``exact`` accepts at all.
MAX_EXACT_BYTES = 256 * 2**20
#: Largest K accepted (the certified engine decides 10⁷ in about a second).
MAX_CLIENTS = 10**8
#: Fixed-point bits of the certified engine (its stored values are multiples of 2^-P).
DEFAULT_PRECISION = 128
#: Most fixed-point bits of the certified engine (it resolves probabilities down to about 2^-MAX_PRECISION).
MAX_PRECISION = 4096
#: Largest estimated working memory of the certified engine (bytes).
MAX_CERTIFIED_BYTES = 2**30


class Arithmetic(StrEnum):
    """How the law of the sum is computed: exact integers, certified fixed point, or whichever fits."""

    AUTO = "auto"
    EXACT = "exact"
    CERTIFIED = "certified"


#: The former name of :class:`Arithmetic`.
Method = Arithmetic


def exact_bytes(law: DigitLaw, clients: int) -> int:
    """Estimated size in bytes of the exact counts of the sum of ``clients`` digits.

    Parameters
    ----------
    law : DigitLaw
        The law of one digit.
    clients : int
        ``K``.
    """
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
    1045 bits; the estimates are 130 and 780 MB. This is the certified engine's one size check.

    Parameters
    ----------
    law : DigitLaw
        The law of one digit.
    clients : int
        ``K``.
    precision : int
        Fixed-point bits ``P``.
    """
    window = 2 * _half_window(law, clients, precision) + 1
    return 12 * window * (2 * precision + 64) // 8


def engine(law: DigitLaw, clients: int, arithmetic: Arithmetic | str = Arithmetic.AUTO) -> Arithmetic:
    """The engine ``arithmetic`` runs at this size: ``exact`` or ``certified`` (``auto`` picks by :func:`exact_bytes`).

    Parameters
    ----------
    law : DigitLaw
        The law of one digit.
    clients : int
        ``K``.
    arithmetic : Arithmetic or str
        ``auto``, ``exact`` or ``certified``.
    """
    how: Arithmetic = choice("arithmetic", arithmetic, Arithmetic)
    if how is Arithmetic.AUTO:
        return Arithmetic.EXACT if exact_bytes(law, clients) <= AUTO_EXACT_BYTES else Arithmetic.CERTIFIED
    return how


@dataclass(frozen=True)
class ExactSum:
    """``P[S = low + i] = counts[i] / denominator`` exactly.

    Parameters
    ----------
    law : DigitLaw
        The law of one digit.
    clients : int
        ``K``.
    low : int
        The smallest value of ``S``.
    counts : tuple of int
        The counts of ``S = low, low + 1, …``.
    denominator : int
        Their common denominator (the counts sum to it).
    method : str
        How the counts were computed.
    """

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

    def carry(self, half: int) -> Certified:
        """``P[|S| > half]``: the sum leaves the centred window ``[-half, half]`` (exact)."""
        p = Fraction(self.denominator - self.mass(-half, half), self.denominator)
        return carry(p, p, self.method)

    def probability(self, s: int) -> Fraction:
        i = s - self.low
        return Fraction(self.counts[i], self.denominator) if 0 <= i < len(self.counts) else Fraction(0)


@dataclass(frozen=True)
class CertifiedSum:
    """Lower bounds ``q[i] / 2^P <= P[S = low + i]`` on a window, and the exact lost mass.

    Parameters
    ----------
    law : DigitLaw
        The law of one digit.
    clients : int
        ``K``.
    low : int
        The value of ``S`` at the window's first coefficient.
    counts : tuple of int
        The numerators ``q[i]`` over ``2^precision``.
    precision : int
        Fixed-point bits ``P``.
    """

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

    def carry(self, half: int) -> Certified:
        """``P[|S| > half]``, certified inside ``[outside mass, outside mass + lost mass]``."""
        i = max(0, -half - self.low)
        j = min(len(self.counts), half - self.low + 1)
        inside = sum(self.counts[i:j]) if j > i else 0
        outside = Fraction(sum(self.counts) - inside, self.scale)
        return carry(outside, outside + self.lost, self.method)


def sum_law(law: DigitLaw, clients: int, arithmetic: Arithmetic | str = Arithmetic.AUTO,
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

    Parameters
    ----------
    law : DigitLaw
        The law of one digit.
    clients : int
        ``K``, the number of digits summed.
    arithmetic : Arithmetic or str
        ``auto``, ``exact`` or ``certified``.
    precision : int
        Fixed-point bits of the certified engine.
    deadline : Deadline, optional
        Checked at each product of the certified engine.
    tick : callable, optional
        ``tick(done, total)`` at each product of the certified engine.
    """
    how = check_size(law, clients, arithmetic, precision)
    if how is Arithmetic.EXACT:
        return _exact(law, clients)
    return _certified(law, clients, precision, deadline, tick)


def check_size(law: DigitLaw, clients: int, arithmetic: Arithmetic | str = Arithmetic.AUTO,
               precision: int = DEFAULT_PRECISION) -> Arithmetic:
    """The engine :func:`sum_law` would run, after refusing (in one line) a size past its limit.

    Parameters
    ----------
    law : DigitLaw
        The law of one digit.
    clients : int
        ``K``.
    arithmetic : Arithmetic or str
        ``auto``, ``exact`` or ``certified``.
    precision : int
        Fixed-point bits of the certified engine.

    >>> check_size(DigitLaw.uniform(3), 10**8, "certified", 2048)
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOption: arithmetic certified: K = 100000000 at 2^-2048 would take about 6344 MiB (limit 1024 MiB); ask for fewer clients, a narrower law or a larger carry target
    """
    clients = whole_number("K (clients)", clients, minimum=1)
    how = engine(law, clients, arithmetic)
    if how is Arithmetic.EXACT:
        size = exact_bytes(law, clients)
        if size > MAX_EXACT_BYTES:
            raise InvalidOption(f"arithmetic exact: the counts for K = {clients} would take about {size // 2**20} MiB "
                                f"(limit {MAX_EXACT_BYTES // 2**20} MiB); use arithmetic certified")
        return how
    whole_number("precision", precision, minimum=16, maximum=MAX_PRECISION)
    need = certified_bytes(law, clients, precision)
    if need > MAX_CERTIFIED_BYTES:
        raise InvalidOption(f"arithmetic certified: K = {clients} at 2^-{precision} would take about {need // 2**20} MiB "
                            f"(limit {MAX_CERTIFIED_BYTES // 2**20} MiB); ask for fewer clients, a narrower law "
                            "or a larger carry target")
    return how


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
