"""The discrete Gaussian ``N_Z(0, σ²)``, exactly, vectorised: Canonne–Kamath–Steinke with bracketed decisions.

One proposal takes three stream words and one sign bit:

- ``u = w₁ mod t``, uniform on ``0 … t−1`` (the proposal is dropped when
  ``w₁ ≥ ⌊2⁶⁴/t⌋ t``, an event independent of everything else);
- ``v``, geometric with ``P(v ≥ k) = e^(−k)``, by comparing ``w₂`` with the
  integers ``⌊2⁶⁴ e^(−k)⌋`` (:func:`~itsa.privacy.samplers._exact.geometric_thresholds`);
- a sign ``s``; ``y = ±(u + t v)``, dropped when ``s`` is negative and ``y = 0``;
- accepted with probability ``e^(−x)``, ``x = u/t + (|y| − σ²/t)²/(2σ²)``, by
  comparing ``w₃`` with :func:`~itsa.privacy.samplers._exact.bracket`.

That is CKS's Algorithms 2 and 3 with their two acceptance steps merged
into one (a product of independent Bernoulli trials): an accepted ``y`` has
probability proportional to ``e^(−|y|/t) e^(−(|y| − σ²/t)²/(2σ²))``, which
is ``e^(−y²/(2σ²))`` times a constant. ``t = ⌊σ⌋ + 1``.

Proposals come in rounds of fixed sizes (:data:`ROUNDS`), each followed by
the exact fallbacks of its undecided words in index order; a block's
``n``-th draw is its ``n``-th accepted proposal, so every prefix of a
block is drawn the same way whatever the count asked.

Examples
--------
>>> from fractions import Fraction
>>> a = discrete_gaussian(Fraction(5, 2), 6, seed=7)
>>> a.tolist() == discrete_gaussian("5/2", 6, seed=7).tolist(), a.dtype.name
(True, 'int64')
>>> b = discrete_gaussian("5/2", 4, seed=7, start=2)      # draws 2..5 of the same stream
>>> b.tolist() == a[2:].tolist()
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from itsa._util.certified import safe_decimal
from itsa._util.checks import fraction, whole_number
from itsa._util.deadline import Deadline
from itsa.exceptions import InvalidOption
from itsa.privacy.samplers._exact import LazyUniform, bracket, exp_neg_ball, geometric_thresholds
from itsa.privacy.samplers._stream import BlockStream, draw_blocks, fill

__all__ = ["discrete_gaussian", "geometric", "DiscreteGaussianLaw", "MAX_SIGMA_SQUARED", "MIN_SIGMA_SQUARED", "MAX_DRAWS"]

#: Largest σ² drawn: ``t = ⌊σ⌋ + 1 ≤ 2⁴⁶`` keeps every ``u``, ``t`` and ``|y| ≤ 47 t`` exact in float64.
MAX_SIGMA_SQUARED = Fraction((2**46 - 1) ** 2)
#: Smallest σ² drawn (``1/(2σ²)`` must be a finite float64).
MIN_SIGMA_SQUARED = Fraction(1, 10**300)
#: Most draws of one call.
MAX_DRAWS = 1 << 40
#: Tag of the discrete Gaussian's streams.
TAG = b"dgau"
#: Proposals per round inside a block: fixed sizes, so a block's draws never depend on how many were asked.
ROUNDS = (4096, 16384, 32768)
#: The geometric part's thresholds ``⌊2⁶⁴ e^(−k)⌋``, ascending.
THRESHOLDS = geometric_thresholds()
_K = len(THRESHOLDS)


@dataclass(frozen=True)
class DiscreteGaussianLaw:
    """``N_Z(0, σ²)`` with its proposal's constant ``t = ⌊σ⌋ + 1``.

    Parameters
    ----------
    sigma_squared : Fraction
        ``σ²``, exactly, in ``[10⁻³⁰⁰, (2⁴⁶ − 1)²]`` (an int, a Fraction, a text ``"5/2"``, or a float read as the
        decimal it prints: :func:`~itsa._util.checks.fraction`).

    >>> DiscreteGaussianLaw("5/2").t, DiscreteGaussianLaw(0.1).sigma_squared
    (2, Fraction(1, 10))
    """

    sigma_squared: Fraction

    def __post_init__(self):
        object.__setattr__(self, "sigma_squared", fraction("sigma squared", self.sigma_squared, low=0))
        s2 = self.sigma_squared
        if not MIN_SIGMA_SQUARED <= s2 <= MAX_SIGMA_SQUARED:
            raise InvalidOption(f"sigma squared: the exact sampler takes [1e-300, (2^46 - 1)^2], not "
                                f"{safe_decimal(s2, 4)}")

    @property
    def t(self) -> int:
        s2 = self.sigma_squared
        return math.isqrt(s2.numerator // s2.denominator) + 1

    def to_dict(self) -> dict:
        return {"law": "discrete Gaussian N_Z(0, sigma^2)", "sigma_squared": str(self.sigma_squared)}


def _law(sigma_squared) -> DiscreteGaussianLaw:
    if isinstance(sigma_squared, DiscreteGaussianLaw):
        return sigma_squared
    return DiscreteGaussianLaw(sigma_squared)


def _exact_x(law: DiscreteGaussianLaw, u: int, y: int) -> Fraction:
    s2, t = law.sigma_squared, law.t
    return Fraction(u, t) + (abs(y) - s2 / t) ** 2 / (2 * s2)


def geometric(words: np.ndarray, more, rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``v`` with ``P(v ≥ k) = e^(−k)`` from each word (its uniform's first 64 bits), and the rows past the table.

    ``v`` counts the ``k`` with ``W < ⌊2⁶⁴ e^(−k)⌋``; a word equal to a
    threshold, or 0, is refined with ``more()`` (in row order; only the
    ``rows`` asked, default all) until each comparison ``U < e^(−k)`` is decided.
    """
    idx = np.searchsorted(THRESHOLDS, words, side="right")
    v = (_K - idx).astype(np.int64)
    open_v = (words == 0) | ((idx > 0) & (THRESHOLDS[np.maximum(idx - 1, 0)] == words))
    beyond = np.zeros(len(words), dtype=bool)
    for i in np.flatnonzero(open_v if rows is None else open_v & rows):
        lazy, k = LazyUniform(int(words[i]), more), 1
        while lazy.less(exp_neg_ball(Fraction(k))):
            k += 1
        v[i] = k - 1
        beyond[i] = k - 1 >= _K                   # beyond the float range: the caller decides this row exactly
    return v, beyond


def _round(law: DiscreteGaussianLaw, stream: BlockStream, m: int) -> np.ndarray:
    """One round of ``m`` proposals: the accepted ``y`` in proposal order (int64)."""
    t = law.t
    words = stream.words(3 * m + -(-m // 64))
    w1, w2, w3 = words[:m], words[m:2 * m], words[2 * m:3 * m]
    negative = np.unpackbits(words[3 * m:].view(np.uint8), bitorder="little")[:m].astype(bool)
    limit = (2**64 // t) * t
    valid = w1 < np.uint64(limit) if limit < 2**64 else np.ones(m, dtype=bool)
    u = w1 % np.uint64(t)
    v, exact_rows = geometric(w2, stream.word, valid)
    y_abs = u.astype(np.int64) + np.int64(t) * v
    valid &= ~(negative & (y_abs == 0))
    c, half_inverse = float(law.sigma_squared / t), float(1 / (2 * law.sigma_squared))
    with np.errstate(over="ignore", under="ignore"):
        e = y_abs.astype(np.float64) - c
        x_hat = u.astype(np.float64) / float(t) + e * e * half_inverse
    lo, hi, unbounded = bracket(x_hat)
    accept = valid & (w3 < lo) & ~exact_rows
    decided = accept | ~valid | ((w3 >= hi) & ~unbounded & ~exact_rows)
    for i in np.flatnonzero(~decided):
        lazy = LazyUniform(int(w3[i]), stream.word)
        accept[i] = lazy.less(exp_neg_ball(_exact_x(law, int(u[i]), int(y_abs[i]))))
    y = np.where(negative, -y_abs, y_abs)
    return y[accept]


def _block(law: DiscreteGaussianLaw, key: bytes, block: int, n: int) -> np.ndarray:
    """The first ``n`` draws of ``block`` (``n ≤ BLOCK``)."""
    stream = BlockStream(key, TAG, block)
    return fill(n, lambda size: _round(law, stream, size), ROUNDS)


def discrete_gaussian(sigma_squared, count: int, seed, *, start: int = 0, workers: int = 1,
                      time_limit: float | Deadline | None = None, out: np.ndarray | None = None) -> np.ndarray:
    """Draws ``start … start+count−1`` of ``N_Z(0, σ²)`` from the stream of ``seed``, exactly (int64).

    Parameters
    ----------
    sigma_squared : int, Fraction, str or DiscreteGaussianLaw
        ``σ²``, any rational in ``[10⁻³⁰⁰, (2⁴⁶ − 1)²]`` (``"5/2"``, ``"0.3"`` and ``3`` are exact).
    count : int
        Number of draws.
    seed : int or str
        The stream's key (:func:`~itsa.privacy.samplers.stream_key`).
    start : int
        Index of the first draw: draw ``i`` depends only on ``(seed, i)``.
    workers : int
        Threads drawing blocks at once (the draws are the same for any number).
    time_limit : float or Deadline, optional
        Seconds; checked before each block of :data:`~itsa.privacy.samplers.BLOCK` draws
        (:class:`~itsa.exceptions.TimeLimitReached`, nothing returned).
    out : numpy.ndarray, optional
        Where the draws go (int64, ``count`` long), such as :func:`~itsa.privacy.samplers.npy_draws`' file; by
        default a new array, refused before any draw when it would not fit in the memory available.

    Notes
    -----
    Canonne, Kamath, Steinke, "The Discrete Gaussian for Differential
    Privacy", NeurIPS 2020, Algorithms 1-3; the proof of exactness of the
    bracketed decisions is in the privacy docs. Not constant-time.
    """
    law = _law(sigma_squared)
    whole_number("count", count, minimum=0, maximum=MAX_DRAWS)
    whole_number("start", start, minimum=0, maximum=MAX_DRAWS)
    whole_number("workers", workers, minimum=1, maximum=64)
    return draw_blocks(lambda key, index, size: _block(law, key, index, size), count=count, start=start, seed=seed,
                       workers=workers, time_limit=time_limit, what="exact draws", out=out)
