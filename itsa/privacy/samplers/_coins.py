"""``Bin(N, ½)`` (the heads of ``N`` fair coins), exactly, vectorised: popcounts for small ``N``, a discrete
Gaussian envelope beyond.

Small ``N`` (at most :data:`POPCOUNT_COINS`): the number of ones among ``N``
stream bits. Larger ``N = 2n + b`` (``b ∈ {0, 1}``): ``n + J + (a fair bit if
b = 1)`` where ``J`` has ``P(J = j) ∝ r_j = C(2n, n+j)/C(2n, n)``, drawn by
rejection from the discrete Gaussian of ``σ² = s/4``, ``s = 2n + 1``
(:func:`~itsa.privacy.samplers.discrete_gaussian`'s rounds), accepted with
probability ``r_j e^(2j²/s) = e^(−Φ(j))``. With ``x_i = (2i − 1)/s``,
``−log r_j = Σ_(i ≤ |j|) 2 atanh(x_i)``, and the power sums of odd numbers give

``Φ(j) = (2/3) j²(2j² − 1)/s³ + (2/15) j²(16j⁴ − 20j² + 7)/s⁵ + R``,
``0 ≤ R ≤ (2/7) |j| x_|j|⁷ / (1 − x_|j|²)``,

so ``Φ ≥ 0`` (the envelope dominates) and the acceptance is decided by the
bracket of ``Φ̂`` widened by ``R``'s bound and the float error, or exactly
(arb ``lgamma``) where that is wide. The proof is in the samplers docs.

Examples
--------
>>> a = fair_coins(10**10, 5, seed=1)
>>> a.dtype.name, bool((abs(a - 5 * 10**9) < 10**6).all())
('int64', True)
>>> fair_coins(3, 4, seed=2).tolist() == fair_coins(3, 4, seed=2).tolist()
True
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np

from itsa._util.certified import precision
from itsa._util.checks import read_whole, whole_number
from itsa._util.deadline import Deadline
from itsa.exceptions import InvalidOption
from itsa.privacy.samplers._dgauss import MAX_DRAWS, DiscreteGaussianLaw, _round
from itsa.privacy.samplers._exact import LazyUniform, bracket
from itsa.privacy.samplers._stream import BlockStream, draw_blocks, fill

__all__ = ["fair_coins", "CoinsLaw", "POPCOUNT_COINS", "MAX_COINS"]

#: Up to this many coins a draw is a popcount of stream bits (at most 8 words a draw).
POPCOUNT_COINS = 512
#: Most coins: ``n + J`` must fit int64 with room.
MAX_COINS = 1 << 62
#: Tag of the streams of ``Bin(N, ½)``.
TAG = b"bino"
#: Proposals per round (as the discrete Gaussian's).
ROUNDS = (4096, 16384, 32768)
#: Rows whose widening passes this go to the exact path (the bracket's lemma takes ``err ≤ 1/8``).
MAX_ERR = 2.0**-10
_U = 2.0**-53


@dataclass(frozen=True)
class CoinsLaw:
    """``Bin(N, ½)``: the number of heads among ``N`` fair coins.

    Parameters
    ----------
    coins : int
        ``N``, from 1 to ``2⁶²`` (or its text, read by :func:`~itsa._util.checks.read_whole`: ``"4e9"``).

    >>> CoinsLaw("4e9").coins
    4000000000
    """

    coins: int

    def __post_init__(self):
        if isinstance(self.coins, str):
            object.__setattr__(self, "coins", read_whole("coins", self.coins, minimum=1, maximum=MAX_COINS))
        whole_number("coins", self.coins, minimum=1, maximum=MAX_COINS)

    def to_dict(self) -> dict:
        return {"law": "Bin(N, 1/2), the number of heads of N fair coins", "coins": self.coins}


def _phi(j: np.ndarray, s: float) -> tuple[np.ndarray, np.ndarray]:
    """``Φ̂(j)`` and the bound on ``|Φ̂ − Φ|`` (R's bound plus the float error) for ``|j| ≥ 0`` (floats)."""
    j2 = j * j
    t1 = (2.0 / 3.0) * j2 * (2.0 * j2 - 1.0) / (s * s * s)
    t2 = (2.0 / 15.0) * j2 * ((16.0 * j2 - 20.0) * j2 + 7.0) / (s * s * s * s * s)
    x = (2.0 * j - 1.0) / s
    x2 = x * x
    with np.errstate(divide="ignore", invalid="ignore"):
        r = (2.0 / 7.0) * j * (x2 * x2 * x2 * x) / (1.0 - x2)
    phi = t1 + t2 + 0.5 * r
    err = 0.5 * r * 1.01 + 64.0 * _U * (t1 + t2 + 1.0)
    return phi, np.where(j == 0, 0.0, err)


def _exact_accept(n: int, j: int, lazy: LazyUniform) -> bool:
    """``U < C(2n, n+j)/C(2n, n) · e^(2j²/(2n+1))`` in arb (``lgamma``), refined as needed."""
    s = 2 * n + 1

    def ball(prec: int) -> flint.arb:
        with precision(prec + 2 * (2 * n + 2).bit_length() + 64):
            log_r = 2 * flint.arb(n + 1).lgamma() - flint.arb(n + j + 1).lgamma() - flint.arb(n - j + 1).lgamma()
            return (log_r + flint.arb(2 * j * j) / s).exp()
    return lazy.less(ball)


def _popcount_block(coins: int, stream: BlockStream, n: int) -> np.ndarray:
    per = -(-coins // 64)
    words = stream.words(n * per).reshape(n, per).copy()
    if coins % 64:
        words[:, -1] &= np.uint64((1 << (coins % 64)) - 1)
    return np.bitwise_count(words).sum(axis=1, dtype=np.int64)


def _envelope_round(coins: int, stream: BlockStream, m: int) -> np.ndarray:
    n, odd = divmod(coins, 2)
    y = _round(DiscreteGaussianLaw(Fraction(2 * n + 1, 4)), stream, m)
    L = len(y)
    words = stream.words(L + -(-L // 64))
    w, bits = words[:L], np.unpackbits(words[L:].view(np.uint8), bitorder="little")[:L].astype(np.int64)
    j = np.abs(y)
    inside = j <= n
    phi, err = _phi(j.astype(np.float64), float(2 * n + 1))
    hard = ~(err <= MAX_ERR) & inside
    lo, hi, unbounded = bracket(np.where(hard, 0.0, phi), np.where(hard, 0.0, err))
    accept = inside & ~hard & (w < lo)
    decided = accept | ~inside | (~hard & (w >= hi) & ~unbounded)
    for i in np.flatnonzero(~decided):
        accept[i] = _exact_accept(n, int(y[i]), LazyUniform(int(w[i]), stream.word))
    return (n + y + (bits if odd else 0))[accept]


def _block(coins: int, key: bytes, block: int, n: int) -> np.ndarray:
    stream = BlockStream(key, TAG, block)
    if coins <= POPCOUNT_COINS:
        return _popcount_block(coins, stream, n)
    return fill(n, lambda size: _envelope_round(coins, stream, size), ROUNDS)


def fair_coins(coins: int, count: int, seed, *, start: int = 0, workers: int = 1,
               time_limit: float | Deadline | None = None, out: np.ndarray | None = None) -> np.ndarray:
    """Draws ``start … start+count−1`` of ``Bin(N, ½)`` (the number of heads, int64) from the stream of ``seed``.

    Parameters
    ----------
    coins : int
        ``N``, from 1 to ``2⁶²``.
    count, seed, start, workers, time_limit, out
        As :func:`~itsa.privacy.samplers.discrete_gaussian`'s.

    Notes
    -----
    Exact: popcounts up to :data:`POPCOUNT_COINS` coins; beyond, rejection
    from the discrete Gaussian of ``σ² = (2⌊N/2⌋ + 1)/4``, which dominates
    the coefficients ``C(2n, n+j)`` (the bound ``C(2n, n+j) ≤ C(2n, n)
    e^(−2j²/(2n+1))`` is the ``Φ ≥ 0`` of the module's series). Not constant-time.
    """
    coins = (coins if isinstance(coins, CoinsLaw) else CoinsLaw(coins)).coins
    whole_number("count", count, minimum=0, maximum=MAX_DRAWS)
    whole_number("start", start, minimum=0, maximum=MAX_DRAWS)
    whole_number("workers", workers, minimum=1, maximum=64)

    def checked(key: bytes, index: int, size: int) -> np.ndarray:
        heads = _block(coins, key, index, size)
        if len(heads) and not (0 <= int(heads.min()) and int(heads.max()) <= coins):
            raise InvalidOption("fair coins: a draw outside 0..N (a bug: please report it)")
        return heads

    return draw_blocks(checked, count=count, start=start, seed=seed, workers=workers, time_limit=time_limit,
                       what="exact Bin(N, 1/2) draws", out=out)
