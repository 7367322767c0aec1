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

Past :data:`EXACT_PASS_ENTRIES` entries (σ above about 16,600) the same sum
is taken in float64 over slices of the table, the word counts in whole
``uint64`` arithmetic (:func:`word_count_array`) and the pmf from a few
balls per block of :data:`BLOCK` entries (:func:`_pmf_floats`); every float
rounding is bounded and added, which raises the bound by about ``3·BLOCK·u``
(``≈ 10⁻¹⁴``). A table of 10⁷ entries then takes about a second, not
minutes and gigabytes.

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

from itsa._util.certified import Certified, Direction, precision, to_arb
from itsa.privacy.discrete_gaussian import normaliser, tail_mass
from itsa.privacy.rdp import number

__all__ = ["words_at_most", "word_counts", "word_count_array", "table_distance", "WORDS"]

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


def words_below(cdf: np.ndarray) -> np.ndarray:
    """``N(c) − 1`` for each float ``c`` of a sorted slice of running totals, in ``uint64`` (:func:`words_at_most`).

    Below ``2⁻¹¹`` (``X = c·2⁶⁴ < 2⁵³``) it is ``⌊X⌋``; up to 1, the float's
    whole ``X`` plus half its ulp, less one for an odd mantissa; from 1 on,
    every word. The slice being sorted, each case is a contiguous range.
    """
    c = np.asarray(cdf, dtype=np.float64)
    small, below_one = np.searchsorted(c, [2.0**-11, 1.0], side="left")
    M = np.full(len(c), np.iinfo(np.uint64).max, dtype=np.uint64)
    M[:small] = np.floor(c[:small] * 2.0**64).astype(np.uint64)
    X = c[small:below_one] * 2.0**64
    top = X.astype(np.uint64)                       # exact: a float this large is a whole number below 2^64
    shift = (np.frexp(X)[1] - 53).astype(np.uint64)     # frexp's exponent is top's bit length
    M[small:below_one] = top + ((np.uint64(1) << shift) >> np.uint64(1)) - ((top >> shift) & np.uint64(1))
    return M


def word_count_array(cdf: np.ndarray, start: int = 0, stop: int | None = None) -> np.ndarray:
    """:func:`word_counts` of the entries ``start:stop``, vectorised, as ``uint64``.

    (A lone entry holding all ``2⁶⁴`` words does not fit: the table has ``2K + 1 ≥ 3``.)
    """
    n = len(cdf)
    stop = n if stop is None else min(stop, n)
    M = words_below(cdf[max(start - 1, 0):stop])
    if stop == n:
        M[-1] = np.iinfo(np.uint64).max             # the last entry takes what is left
    if start == 0:
        return np.concatenate(([M[0] + np.uint64(1)], np.diff(M))).astype(np.uint64)
    return np.diff(M)


#: Tables with more entries than this take the vectorised bound (:func:`_distance_fast`).
EXACT_PASS_ENTRIES = 250_000
#: Block length of the vectorised pass: ``e^(−(qB + r)²/2σ²) = A_q C_q^r D_r`` within a block.
BLOCK = 64
#: Entries per slice of the vectorised pass (bounds its memory).
CHUNK = 1 << 20
#: The unit roundoff of float64.
UNIT = Fraction(1, 2**53)


@functools.lru_cache(maxsize=8)
def _distance(sigma: Fraction) -> tuple[Fraction, Fraction, int]:
    from itsa.privacy.sampler import table

    support, cdf = table(sigma)
    K = int(support[-1])
    del support
    if len(cdf) > EXACT_PASS_ENTRIES:
        return _distance_fast(sigma, cdf, K)
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
        for k, n in zip(range(-K, K + 1), counts):
            total += abs(n * scale - weights[abs(k)] * inverse_z)
        ball = (total + tail_mass(sigma, K).arb()) / 2
    c = Certified.from_arb("tv", ball, Direction.UPPER, "")
    return c.low, c.high, K


def _as_float(x: flint.arb) -> float:
    """The float nearest the ball's midpoint: within ``2u`` of every point of a ball this narrow."""
    if not (x > 0 and x.rel_accuracy_bits() >= 60):          # a check, not an assertion: python -O keeps it
        from itsa.exceptions import VerificationError

        raise VerificationError("table distance: a ball too wide for its float enclosure; the bound is not certified")
    return float(x.mid())


def _pmf_floats(sigma: Fraction, K: int) -> tuple[np.ndarray, Fraction]:
    """Floats ``p̂_j`` of ``p(j)``, ``0 ≤ j ≤ K``, and ``ρ`` with ``|p̂_j − p(j)| ≤ ρ p(j)`` for every ``j``.

    ``j = qB + r``: ``A_q = e^(−(qB)²/2σ²)``, ``C_q = e^(−qB/σ²)`` and
    ``D_r = e^(−r²/2σ²)`` are balls rounded to floats (relative error below
    ``2u``); ``C_q^r`` is a running product (``r − 1`` roundings); two more
    products and ``1/Z``. Every product of floats rounds once by at most
    ``u``, and no value comes near the subnormals (``p(j) ≥ e^(−32)/Z``).
    """
    blocks = K // BLOCK + 1
    with precision():
        s2 = to_arb(sigma) ** 2
        c1, h = (-BLOCK / s2).exp(), (-(BLOCK * BLOCK) / s2).exp()
        a, c, g = flint.arb(1), flint.arb(1), (-(BLOCK * BLOCK) / (2 * s2)).exp()
        A, C = [], []
        for _ in range(blocks):         # A_{q+1} = A_q g_q, g_q = e^(-(2q+1)B^2/2s^2); C_{q+1} = C_q e^(-B/s^2)
            A.append(_as_float(a))
            C.append(_as_float(c))
            a, g, c = a * g, g * h, c * c1
        D = [_as_float((-(r * r) / (2 * s2)).exp()) for r in range(BLOCK)]
        inverse_z = _as_float(1 / normaliser(sigma))
    powers = np.empty((blocks, BLOCK))
    powers[:, 0] = 1.0
    powers[:, 1:] = np.array(C)[:, None]
    np.multiply.accumulate(powers, axis=1, out=powers)
    values = ((np.array(A)[:, None] * np.array(D)[None, :]) * powers).ravel()[:K + 1] * inverse_z
    two_u = 2 * UNIT        # the floats' own error, then one rounding per product
    rho = (1 + two_u) ** (BLOCK + 2) * (1 + UNIT) ** (BLOCK + 1) - 1
    return values, rho


def _distance_fast(sigma: Fraction, cdf: np.ndarray, K: int) -> tuple[Fraction, Fraction, int]:
    """The bound of :func:`_distance` in float64 with every rounding error bounded and added.

    ``Σ|a_i − p_i| ≤ Ŝ/((1 − u)(1 − γ_(n−1))) + u + ρ``: ``Ŝ`` the float sum
    of the float ``|â_i − p̂_i|`` (any summation order is within
    ``γ_(n−1) = (n−1)u/(1 − (n−1)u)`` of the exact sum of its terms), ``â_i``
    the count over ``2⁶⁴`` (relative error ``u``, and ``Σ a_i = 1``), ``p̂_i``
    within ``ρ p_i`` (:func:`_pmf_floats`, ``Σ p_i ≤ 1``).
    """
    assert sigma >= 1000, "the vectorised pass is for large tables"
    values, rho = _pmf_floats(sigma, K)
    n, total = len(cdf), 0.0
    for start in range(0, n, CHUNK):
        a = word_count_array(cdf, start, start + CHUNK).astype(np.float64) * 2.0**-64
        total += float(np.abs(a - values[np.abs(np.arange(start - K, start - K + len(a)))]).sum())
    gamma = Fraction(n, 2**53) / (1 - Fraction(n, 2**53))       # covers the n - 1 additions of any order
    bound = Fraction(total) / ((1 - UNIT) * (1 - gamma)) + UNIT + rho
    with precision():
        ball = (to_arb(bound) + tail_mass(sigma, K).arb()) / 2
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
    how = ("against balls of the pmf" if 2 * K + 1 <= EXACT_PASS_ENTRIES else
           "against float64 pmf values, every rounding error bounded and added")
    return Certified("table distance", low, high, Direction.UPPER,
                     f"TV(table law, N_Z(0, sigma^2)): exact word counts of the {2 * K + 1} entries over 2^64 "
                     f"{how}, plus P(|X| > {K})")
