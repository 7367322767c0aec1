"""The table engine's law, exactly, and its certified distance from the discrete Gaussian.

The table sampler (:func:`itsa.privacy.sampler.sample_table`) turns a stream
word ``w``, uniform on ``0 … 2⁶⁴ − 1``, into ``u = fl(w)/2⁶⁴`` (NumPy's
uint64 → float64 cast rounds to nearest, ties to even; ``float(2⁶⁴ − 1)`` is
``2⁶⁴``, so the division is exact) and then into the first entry ``i`` with
``cdf[i] ≥ u`` (the last entry takes what is left). Entry ``i`` therefore
receives exactly ``N(cdf[i]) − N(cdf[i−1])`` words, where
``N(c) = #{w : fl(w) ≤ c·2⁶⁴}`` is a whole number computed exactly
(:func:`words_at_most`): the law of one draw is a rational distribution.

Its total-variation distance from ``N_Z(0, σ²)`` is bounded in ball
arithmetic (:func:`table_distance`):
``TV = ½ (Σ_i |count_i/2⁶⁴ − p(k_i)| + P(|X| > K))``, each ``p(k)`` a ball of
the exact pmf. This distance, not only the truncated tail, is what the float
table and the 53-bit uniforms move the law by.

Examples
--------
>>> tv = table_distance(3)
>>> Fraction(7, 10**16) < tv.upper() < Fraction(8, 10**16)
True
>>> words_at_most(0.5) == 2**63 + 1024 + 1, words_at_most(1.0) == 2**64   # ulp 2048 at 2^63: ties to even
(True, True)
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import flint
import numpy as np

from itsa.privacy.certified import Certified, Direction, precision, to_arb
from itsa.privacy.discrete_gaussian import normaliser, tail_mass
from itsa.privacy.rdp import number

__all__ = ["words_at_most", "word_counts", "table_distance", "WORDS"]

#: The number of 64-bit words.
WORDS = 1 << 64
#: Floats below this are integers or fractions that every word at most their floor stays below.
EXACT_INTEGERS = 1 << 53


def words_at_most(c: float) -> int:
    """``#{w ∈ [0, 2⁶⁴) : fl(w)/2⁶⁴ ≤ c}`` exactly, for a float ``c`` (``fl``: round to nearest, ties to even)."""
    if c >= 1.0:
        return WORDS
    if c < 0:
        return 0
    X = c * 2.0**64                 # exact: a power-of-two scaling of a float in [0, 1)
    if X < EXACT_INTEGERS:          # every word up to 2^53 is a float: fl(w) = w
        return math.floor(X) + 1
    top = int(X)                    # a float this large is a whole number
    ulp = 1 << (top.bit_length() - 53)
    even = (top // ulp) % 2 == 0    # the tie w = top + ulp/2 rounds down to top only for an even mantissa
    return min(top + ulp // 2 - (0 if even else 1), WORDS - 1) + 1


def word_counts(cdf: np.ndarray) -> list[int]:
    """The exact number of words each table entry receives (they add to ``2⁶⁴``)."""
    counts, before = [], 0
    for c in cdf[:-1].tolist():
        upto = words_at_most(c)
        counts.append(upto - before)
        before = upto
    counts.append(WORDS - before)
    return counts


@functools.lru_cache(maxsize=8)
def _distance(sigma: Fraction) -> tuple[Fraction, Fraction, int]:
    from itsa.privacy.sampler import table

    support, cdf = table(sigma)
    K = int(support[-1])
    counts = word_counts(cdf)
    with precision():
        s2 = to_arb(sigma) ** 2
        ratio, ratio2 = (-1 / (2 * s2)).exp(), (-1 / s2).exp()
        weights, e, step = [flint.arb(1)], flint.arb(1), ratio       # e^(-k^2/2s^2) = prod of ratio^(2j-1)
        for _ in range(K):
            e, step = e * step, step * ratio2
            weights.append(e)
        inverse_z, scale = 1 / normaliser(sigma), flint.arb(2) ** -64
        total = flint.arb(0)
        for k, n in zip(support.tolist(), counts):
            total += abs(n * scale - weights[abs(k)] * inverse_z)
        ball = (total + tail_mass(sigma, K).arb()) / 2
    c = Certified.from_arb("tv", ball, Direction.UPPER, "")
    return c.low, c.high, K


def table_distance(sigma) -> Certified:
    """A certified upper bound on the total-variation distance of one table draw from ``N_Z(0, σ²)``.

    Notes
    -----
    The table is the page's ``noise_commit.py`` reading (see
    :mod:`itsa.privacy.sampler`); the pmf is :func:`itsa.privacy.discrete_gaussian.pmf`'s
    (the normaliser by Poisson summation). The work is one pass over the
    ``2K + 1`` entries (about 15σ), cached per σ.
    """
    s = Fraction(number("sigma", sigma))
    low, high, K = _distance(s)
    return Certified("table distance", low, high, Direction.UPPER,
                     f"TV(table law, N_Z(0, sigma^2)): exact word counts of the {2 * K + 1} entries over 2^64 "
                     f"against balls of the pmf, plus P(|X| > {K})")
