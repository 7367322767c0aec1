"""Poisson(λ) and Skellam (the difference of two Poisson(V/2)), exactly, vectorised, at any rational λ or V.

Two engines, by the mean:

- **inversion** (``λ ≤`` :data:`INVERSION_MAX`): the draw is the least ``k``
  with ``U < F(k)``, ``F`` the Poisson cdf, by comparing the word ``W`` with
  the whole numbers ``L_k = ⌊2⁶⁴ F(k)⌋`` (computed once per law from arb
  balls); a word equal to some ``L_k`` (or 0 below the table) is decided by
  refining ``U`` against arb's regularised incomplete gamma ``Q(k+1, λ) = F(k)``;
- **rejection** (larger ``λ``): a discrete Laplace proposal ``k = c ± (u + t v)``
  (``c = ⌊λ⌋``, ``t = ⌊√λ⌋ + 1``, ``u`` uniform below ``t``, ``P(v) ∝ e^(−v)``,
  the discrete Gaussian's proposal), accepted with probability
  ``e^(−x)``, ``x = A − log p(k) − v``. ``log p`` is concave, so
  ``log p(k) + |k − c|/t`` peaks at ``⌊λe^(±1/t)⌋``: ``A`` (a rational just
  above that peak) makes ``x ≥ 0`` for every ``k``. With Stirling's form
  ``log p(k) = −½ log(2πλ) − λh(u) − ½ log(1+u) − μ(k)``,
  ``u = (k − λ)/λ``, ``h(u) = (1+u) log(1+u) − u``, the fast path evaluates
  ``x`` by two alternating series and ``1/(12k)``, with a remainder bound
  per law, and decides by :func:`~itsa.privacy.samplers.bracket`; the words
  inside the bracket, and the far rows, are decided in arb (``lgamma``).

A Skellam draw of block ``b`` is ``X_{2i} − X_{2i+1}`` of the block's Poisson(``V/2``) draws.
The proof is in the samplers docs.

Examples
--------
>>> a = skellam("5/2", 6, seed=7)
>>> a.dtype.name, a.tolist() == skellam(2.5, 6, seed=7).tolist()
('int64', True)
>>> skellam("5/2", 4, seed=7, start=2).tolist() == a[2:].tolist()
True
>>> b = poisson(10**13, 3, seed=1)
>>> bool((abs(b - 10**13) < 10**8).all())
True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import flint
import numpy as np

from itsa._util.certified import arb_to_fractions, precision, safe_decimal, to_arb
from itsa._util.checks import fraction, whole_number
from itsa._util.deadline import Deadline
from itsa.exceptions import InvalidOption
from itsa.privacy.samplers._dgauss import MAX_DRAWS, geometric
from itsa.privacy.samplers._exact import LazyUniform, bracket
from itsa.privacy.samplers._stream import BlockStream, draw_blocks, fill

__all__ = ["poisson", "skellam", "PoissonLaw", "SkellamLaw", "MAX_MEAN", "MIN_MEAN", "INVERSION_MAX"]

#: Largest mean: ``c + j`` stays far inside int64 and ``t ≤ 2³⁰ + 1``.
MAX_MEAN = Fraction(2**60)
#: Smallest mean.
MIN_MEAN = Fraction(1, 10**300)
#: Up to this mean a draw is an inversion of the cdf (a table of about ``20√λ`` whole numbers).
INVERSION_MAX = Fraction(2**16)
#: Tags of the streams: Poisson draws alone, and Skellam's pairs.
TAG_POISSON, TAG_SKELLAM = b"pois", b"skel"
#: Words (inversion) or proposals (rejection) per round inside a block: fixed sizes (determinism).
ROUNDS = (4096, 16384, 32768)
#: The fast path takes proposals with ``v ≤`` this (``|k − c| < 16 t``); farther ones are decided in arb.
V_FAST = 15
#: Allowance for the float evaluation of ``x̂`` (proved below ``2⁻³⁹`` in the docs), and the series' target.
FLOAT_ERR, SERIES_ERR = 2.0**-32, Fraction(1, 2**24)
_TOP = 2**64 - 1


@dataclass(frozen=True)
class PoissonLaw:
    """Poisson(``λ``), ``λ`` rational in ``[10⁻³⁰⁰, 2⁶⁰]``, read exactly (:func:`~itsa._util.checks.fraction`:
    ``"5/2"``, ``2.5``; a float is the decimal it prints, so ``0.1`` is ``1/10``, the law drawn and reported).

    >>> PoissonLaw("5/2").mean, PoissonLaw(0.1).to_dict()["mean"]
    (Fraction(5, 2), '1/10')
    """

    mean: Fraction

    def __post_init__(self):
        object.__setattr__(self, "mean", fraction("mean", self.mean, low=0))
        if not MIN_MEAN <= self.mean <= MAX_MEAN:
            raise InvalidOption(f"mean: the exact Poisson sampler takes [1e-300, 2^60], not "
                                f"{safe_decimal(self.mean, 4)}")

    def to_dict(self) -> dict:
        return {"law": "Poisson(lambda)", "mean": str(self.mean)}


@dataclass(frozen=True)
class SkellamLaw:
    """Skellam(``V/2``, ``V/2``): the difference of two independent Poisson(``V/2``), variance ``V``, rational
    in ``[2·10⁻³⁰⁰, 2⁶¹]``, read exactly as :class:`PoissonLaw`'s mean.

    >>> SkellamLaw("5/2").poisson.mean, SkellamLaw(0.3).variance
    (Fraction(5, 4), Fraction(3, 10))
    """

    variance: Fraction

    def __post_init__(self):
        object.__setattr__(self, "variance", fraction("variance", self.variance, low=0))
        if not 2 * MIN_MEAN <= self.variance <= 2 * MAX_MEAN:
            raise InvalidOption(f"variance: the exact Skellam sampler takes [2e-300, 2^61], not "
                                f"{safe_decimal(self.variance, 4)}")

    @property
    def poisson(self) -> PoissonLaw:
        return PoissonLaw(self.variance / 2)

    def to_dict(self) -> dict:
        return {"law": "Skellam: Poisson(V/2) - Poisson(V/2)", "variance": str(self.variance)}


def skellam_law(variance) -> SkellamLaw:
    """``variance`` (an int, a Fraction, a text ``"5/2"``, or a :class:`SkellamLaw`) as the law, checked."""
    return variance if isinstance(variance, SkellamLaw) else SkellamLaw(variance)


# -- inversion: small means ------------------------------------------------------------------------

def cdf_ball(lam: Fraction, k: int, prec: int) -> flint.arb:
    """An arb ball of ``F(k) = P(X ≤ k) = Q(k + 1, λ)`` at ``prec`` bits."""
    with precision(prec):
        return to_arb(lam).gamma_upper(k + 1, regularized=1)


def _floor_2_64(lam: Fraction, k: int, ball: flint.arb) -> int:
    """``⌊2⁶⁴ F(k)⌋`` from ``ball``, recomputed finer until the floor is unique (``2⁶⁴ F(k)`` is never whole:
    ``e^(−λ)`` times a positive rational is transcendental)."""
    prec = 256
    while True:
        with precision(prec):
            v = (ball * flint.arb(2) ** 64).floor().unique_fmpz()
        if v is not None:
            return int(v)
        prec *= 2
        if prec > 1 << 16:
            raise ArithmeticError("a cdf threshold straddles an integer at 65,536 bits")
        ball = cdf_ball(lam, k, prec)


@lru_cache(maxsize=32)
def inversion_table(lam: Fraction) -> tuple[int, np.ndarray]:
    """``(K, L)``: ``L[i] = ⌊2⁶⁴ F(K + i)⌋`` up to the first equal to ``2⁶⁴ − 1``, and ``F(k) < 2⁻⁶⁴`` (so
    ``⌊2⁶⁴ F(k)⌋ = 0``) for every ``k < K``."""
    start = max(0, math.floor(lam - 10 * math.isqrt(math.ceil(lam)) - 10))
    with precision(256):
        if start > 0 and not cdf_ball(lam, start - 1, 256) < flint.arb(2) ** -64:
            start = 0
        lam_b = to_arb(lam)
        pmf = (start * lam_b.log() - lam_b - flint.arb(start + 1).lgamma()).exp()
        cdf, k, out = cdf_ball(lam, start, 256), start, []
        while True:
            out.append(_floor_2_64(lam, k, cdf))
            if out[-1] == _TOP:
                break
            k += 1
            pmf = pmf * lam_b / k
            cdf = cdf + pmf
    return start, np.array(out, dtype=np.uint64)


def _search(lam: Fraction, lazy: LazyUniform, low: int, high: int | None) -> int:
    """The least ``k`` in ``[low, high]`` with ``U < F(k)`` (``U ≥ F(k)`` below ``low``; ``U < F(high)``, or no
    ``high`` known), by bisection with exact comparisons."""
    less = lambda k: lazy.less(lambda prec: cdf_ball(lam, k, prec))     # noqa: E731
    if high is None:
        step = 1
        while not less(low + step):
            low, step = low + step + 1, 2 * step
        high = low + step
    while low < high:
        mid = (low + high) // 2
        if less(mid):
            high = mid
        else:
            low = mid + 1
    return low


def _inversion_round(lam: Fraction, stream: BlockStream, m: int) -> np.ndarray:
    """``m`` Poisson draws from ``m`` words, then the exact searches of the undecided ones in order."""
    start, table = inversion_table(lam)
    w = stream.words(m)
    left, right = np.searchsorted(table, w, side="left"), np.searchsorted(table, w, side="right")
    x = start + left.astype(np.int64)
    open_rows = (left != right) | ((w == 0) & (start > 0))
    for i in np.flatnonzero(open_rows):
        low = 0 if w[i] == 0 else start + int(left[i])
        high = start + int(right[i]) if right[i] < len(table) else None
        x[i] = _search(lam, LazyUniform(int(w[i]), stream.word), low, high)
    return x


# -- rejection: large means ------------------------------------------------------------------------

@dataclass(frozen=True)
class Envelope:
    """The rejection engine's constants for one ``λ`` (:func:`envelope`)."""

    lam: Fraction
    c: int                  # ⌊λ⌋, the proposal's centre
    t: int                  # ⌊√λ⌋ + 1, the proposal's scale
    a: Fraction             # A ≥ max_k log p(k) + |k − c|/t, λ + A not whole
    k0: float               # A + ½ log(2πλ), rounded
    phi: float              # λ − c, rounded
    inverse: float          # 1/λ, rounded
    h_coefficients: tuple[float, ...]       # of P(u) = Σ_{n=2..N} (−1)ⁿ u^(n−2)/(n(n−1)), highest first
    log_coefficients: tuple[float, ...]     # of ½ log(1+u) / u = ½ Σ_{n=1..N₂} (−1)^(n+1) u^(n−1)/n, highest first
    err: float              # the series' remainders, μ's and the floats' allowance


def _log_p(lam_b: flint.arb, k: int) -> flint.arb:
    return k * lam_b.log() - lam_b - flint.arb(k + 1).lgamma()


def _peak(lam: Fraction, c: int, t: int) -> Fraction:
    """A rational ``A ≥ max_k (log p(k) + |k − c|/t)``, on the grid ``2⁻⁶⁴``, with ``λ + A`` not whole."""
    with precision(256):
        lam_b, step = to_arb(lam), flint.arb(1) / t
        right = math.floor(arb_to_fractions(lam_b * step.exp())[0])
        left = math.floor(arb_to_fractions(lam_b * (-step).exp())[0])
        ks = {c} | {k for k in (right - 1, right, right + 1) if k >= c} | {k for k in (left - 1, left, left + 1)
                                                                         if 0 <= k <= c}
        high = max(arb_to_fractions(_log_p(lam_b, k) + flint.arb(abs(k - c)) / t)[1] for k in ks)
    a = Fraction(math.floor(high * 2**64) + 1, 2**64)
    return a + Fraction(1, 2**64) if (lam + a).denominator == 1 else a


def _degree(remainder) -> int:
    n = 2
    while remainder(n) > SERIES_ERR:
        n += 1
    return n


@lru_cache(maxsize=32)
def envelope(lam: Fraction) -> Envelope:
    """The constants of the rejection engine at ``λ > INVERSION_MAX`` (proof of each bound in the docs)."""
    c = lam.numerator // lam.denominator
    t = math.isqrt(c) + 1
    a = _peak(lam, c, t)
    u_max = Fraction(16 * t + 1) / lam
    if u_max > Fraction(1, 8):
        raise InvalidOption("mean: the rejection engine needs a mean past 2^16")
    n_h = _degree(lambda n: lam * u_max ** (n + 1) / ((n + 1) * n * (1 - u_max)))
    n_l = _degree(lambda n: u_max ** (n + 1) / (2 * (n + 1) * (1 - u_max)))
    k_min = lam - 16 * t - 1
    series = (lam * u_max ** (n_h + 1) / ((n_h + 1) * n_h * (1 - u_max))
              + u_max ** (n_l + 1) / (2 * (n_l + 1) * (1 - u_max)) + 1 / (360 * k_min ** 3))
    with precision(256):
        k0_ball = to_arb(a) + (2 * flint.arb.pi() * to_arb(lam)).log() / 2
        k0 = float(k0_ball.mid())
        if not k0_ball.rad() < flint.arb(2) ** -100:
            raise ArithmeticError("the envelope's constant is not known to 100 bits")
    h = tuple(float(Fraction((-1) ** n, n * (n - 1))) for n in range(n_h, 1, -1))
    lg = tuple(float(Fraction((-1) ** (n + 1), 2 * n)) for n in range(n_l, 0, -1))
    return Envelope(lam=lam, c=c, t=t, a=a, k0=k0, phi=float(lam - c), inverse=float(1 / lam), h_coefficients=h,
                    log_coefficients=lg, err=float(series) * (1 + 2.0**-40) + FLOAT_ERR)


def _horner(coefficients: tuple[float, ...], u: np.ndarray) -> np.ndarray:
    out = np.full_like(u, coefficients[0])
    for a in coefficients[1:]:
        out = out * u + a
    return out


def x_hat(env: Envelope, j: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``x̂ ≈ K₀ + λh(u) + ½ log(1+u) + 1/(12k) − v`` for offsets ``j = k − c`` with ``|j| < 16t`` (floats),
    within ``env.err`` of ``x = A − log p(k) − v``."""
    e = j.astype(np.float64) - env.phi
    u = e * env.inverse
    big = (e * e) * env.inverse * _horner(env.h_coefficients, u)
    small = u * _horner(env.log_coefficients, u)
    k = (j + env.c).astype(np.float64)
    return ((env.k0 + big) + small + 1.0 / (12.0 * k)) - v.astype(np.float64)


def acceptance(env: Envelope, k: int, v: int) -> Callable[[int], flint.arb]:
    """``prec ↦`` an arb ball of the acceptance probability ``e^(−x) = p(k) e^(v − A)`` (``lgamma``)."""
    def ball(prec: int) -> flint.arb:
        with precision(prec + 2 * (k + 2).bit_length() + 2 * env.t.bit_length() + 64):
            return (_log_p(to_arb(env.lam), k) + v - to_arb(env.a)).exp()
    return ball


def _rejection_round(env: Envelope, stream: BlockStream, m: int) -> np.ndarray:
    """One round of ``m`` proposals: the accepted ``k`` in proposal order (int64)."""
    t = env.t
    words = stream.words(3 * m + -(-m // 64))
    w1, w2, w3 = words[:m], words[m:2 * m], words[2 * m:3 * m]
    negative = np.unpackbits(words[3 * m:].view(np.uint8), bitorder="little")[:m].astype(bool)
    limit = (2**64 // t) * t                   # 2^64 when t is a power of two: every word is valid
    valid = w1 < np.uint64(limit) if limit < 2**64 else np.ones(m, dtype=bool)
    u = w1 % np.uint64(t)
    v, exact_rows = geometric(w2, stream.word, valid)
    y = u.astype(np.int64) + np.int64(t) * v
    valid &= ~(negative & (y == 0))
    j = np.where(negative, -y, y)
    k = j + np.int64(env.c)
    valid &= k >= 0
    hard = exact_rows | (v > V_FAST)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        xs = np.where(hard, 0.0, np.maximum(x_hat(env, np.where(hard, 0, j), np.where(hard, 0, v)), 0.0))
    lo, hi, unbounded = bracket(xs, env.err)
    accept = valid & ~hard & (w3 < lo)
    decided = accept | ~valid | (~hard & (w3 >= hi) & ~unbounded)
    for i in np.flatnonzero(~decided):
        accept[i] = LazyUniform(int(w3[i]), stream.word).less(acceptance(env, int(k[i]), int(v[i])))
    return k[accept]


# -- blocks and the public samplers ----------------------------------------------------------------

def _round_of(lam: Fraction, stream: BlockStream):
    if lam <= INVERSION_MAX:
        return lambda size: _inversion_round(lam, stream, size)
    env = envelope(lam)
    return lambda size: _rejection_round(env, stream, size)


def _checked(count, start, workers) -> None:
    whole_number("count", count, minimum=0, maximum=MAX_DRAWS)
    whole_number("start", start, minimum=0, maximum=MAX_DRAWS)
    whole_number("workers", workers, minimum=1, maximum=64)


def poisson(mean, count: int, seed, *, start: int = 0, workers: int = 1,
            time_limit: float | Deadline | None = None, out: np.ndarray | None = None) -> np.ndarray:
    """Draws ``start … start+count−1`` of Poisson(``λ``) from the stream of ``seed``, exactly (int64).

    Parameters
    ----------
    mean : int, Fraction, str or PoissonLaw
        ``λ``, any rational in ``[10⁻³⁰⁰, 2⁶⁰]``.
    count, seed, start, workers, time_limit, out
        As :func:`~itsa.privacy.samplers.discrete_gaussian`'s.

    Notes
    -----
    Inversion of the cdf below ``2¹⁶``; beyond, rejection from a discrete
    Laplace proposal (Canonne, Kamath, Steinke, NeurIPS 2020, Algorithm 2)
    dominating the log-concave Poisson pmf (Devroye, *Non-Uniform Random
    Variate Generation*, 1986, §X.1 on log-concave laws), with Stirling's
    series (DLMF 5.11.10) for the log-ratio. Not constant-time.
    """
    law = mean if isinstance(mean, PoissonLaw) else PoissonLaw(mean)
    _checked(count, start, workers)

    def block(key: bytes, index: int, size: int) -> np.ndarray:
        stream = BlockStream(key, TAG_POISSON, index)
        return fill(size, _round_of(law.mean, stream), ROUNDS)

    return draw_blocks(block, count=count, start=start, seed=seed, workers=workers, time_limit=time_limit,
                       what="exact Poisson draws", out=out)


def skellam(variance, count: int, seed, *, start: int = 0, workers: int = 1,
            time_limit: float | Deadline | None = None, out: np.ndarray | None = None) -> np.ndarray:
    """Draws ``start … start+count−1`` of Skellam(``V/2``, ``V/2``) (variance ``V``, mean 0) from the stream of
    ``seed``, exactly (int64).

    Parameters
    ----------
    variance : int, Fraction, str or SkellamLaw
        ``V``, any rational in ``[2·10⁻³⁰⁰, 2⁶¹]`` (``"5/2"``, ``"2.5"`` and ``3`` are exact).
    count, seed, start, workers, time_limit, out
        As :func:`~itsa.privacy.samplers.discrete_gaussian`'s.

    Notes
    -----
    Draw ``i`` of a block is ``X_{2i} − X_{2i+1}``, two exact Poisson(``V/2``)
    draws (:func:`poisson`'s engines on the Skellam's own stream). Skellam:
    Agarwal, Kairouz, Liu, "The Skellam Mechanism for Differentially Private
    Federated Learning", NeurIPS 2021. Not constant-time.
    """
    law = skellam_law(variance)
    _checked(count, start, workers)
    lam = law.poisson.mean

    def block(key: bytes, index: int, size: int) -> np.ndarray:
        stream = BlockStream(key, TAG_SKELLAM, index)
        pairs = fill(2 * size, _round_of(lam, stream), ROUNDS)
        return pairs[0::2] - pairs[1::2]

    return draw_blocks(block, count=count, start=start, seed=seed, workers=workers, time_limit=time_limit,
                       what="exact Skellam draws", out=out)
