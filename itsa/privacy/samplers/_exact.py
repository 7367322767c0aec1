"""Exact decisions from random words: float brackets with a proven error, and the rare exact fallback.

A Bernoulli(``p``) trial compares a uniform real ``U ∈ [0, 1)`` with ``p``:
``U``'s first 64 bits are a stream word ``W`` (``U ∈ [W/2⁶⁴, (W+1)/2⁶⁴)``),
its later bits are drawn only when needed (:class:`LazyUniform`). The fast
path computes, in float64, a value ``p̂`` with ``|p − p̂| ≤ 2⁻³³ p̂`` (proved
in the privacy docs, section "Exact samplers") and the integers
``lo ≤ 2⁶⁴ p ≤ hi`` (:func:`bracket`): ``W < lo`` accepts, ``W ≥ hi``
rejects, and only a word in ``[lo, hi)`` (a chance below ``2⁻³⁰``) goes to
:meth:`LazyUniform.less`, which refines ``U`` against arb balls of ``p`` until
they separate. No float decides an outcome: each decision is a comparison of
whole numbers with bounds proven to enclose the threshold.

Examples
--------
>>> import numpy as np
>>> x = np.array([0.0, 0.5, 3.25, 800.0])
>>> p = exp_neg(x)
>>> [round(float(v), 12) for v in p[:3]], float(p[3])
([1.0, 0.606530659713, 0.038774207832], 0.0)
>>> lo, hi, unbounded = bracket(x)
>>> bool(lo[0] > 2**63 and unbounded[0]), int(lo[3]), int(hi[3])     # p = 1: every word accepts; p < 2^-64: W = 0 alone is open
(True, 0, 1)
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import flint
import numpy as np

from itsa._util.certified import precision, to_arb

__all__ = ["MAX_X", "MARGIN", "exp_neg", "bracket", "LazyUniform", "geometric_thresholds", "exp_neg_ball"]

#: Past this ``x̂``, ``e^(−x) < 2⁻¹⁰⁰⁰``: the bracket is ``[0, 1]`` (only ``W = 0`` is undecided).
MAX_X = 700.0
#: The bracket's relative half-width: the proof bounds ``|p − p̂|/p̂`` by ``2⁻³⁸``; the bracket takes ``2⁻³²``.
MARGIN = 2.0**-32
#: ``e^(−j/256)``, ``0 ≤ j < 256``, and ``e^(−n)``, ``0 ≤ n ≤ 700``, each the float nearest an arb ball of 128 bits.
_STEPS = 256


def _table(values) -> np.ndarray:
    with precision():
        return np.array([float(v.mid()) for v in values])


with precision():
    _FRAC = _table([(-flint.arb(j) / _STEPS).exp() for j in range(_STEPS)])
    _INT = _table([(-flint.arb(n)).exp() for n in range(int(MAX_X) + 1)])
#: Taylor coefficients of ``e^(−r)`` to degree 5 (``r < 2⁻⁸``: the remainder is below ``2⁻⁵⁷``).
_C5, _C4, _C3, _C2 = -1.0 / 120, 1.0 / 24, -1.0 / 6, 0.5
#: ``T_k = fl(e^(−⌊k/256⌋)·e^(−(k mod 256)/256))`` for ``0 ≤ k < 256·701``: within ``3u`` of ``e^(−k/256)``.
_TABLE = (_INT[:, None] * _FRAC[None, :]).ravel()


def exp_neg(x: np.ndarray) -> np.ndarray:
    """``p̂ ≈ e^(−x)`` for float ``x ≥ 0``, relative error at most ``32u`` (``u = 2⁻⁵³``); 0 past :data:`MAX_X`.

    ``x = k/256 + r`` with ``k = ⌊256 x⌋`` and ``0 ≤ r < 2⁻⁸`` (both exact in
    binary floating point), ``e^(−x) = T_k · P(r)``: ``T_k`` the float product
    of the table floats of ``e^(−⌊k/256⌋)`` and ``e^(−(k mod 256)/256)``,
    ``P`` the Horner form of the degree-5 Taylor polynomial. Basic float
    operations only (IEEE 754, correctly rounded): no library ``exp``.
    """
    x = np.asarray(x, dtype=np.float64)
    big = ~(x <= MAX_X)                   # nan would be caught here too
    xs = np.where(big, 0.0, x)
    k = np.floor(xs * _STEPS)
    r = xs - k * (1.0 / _STEPS)
    poly = ((((_C5 * r + _C4) * r + _C3) * r + _C2) * r - 1.0) * r + 1.0
    out = _TABLE[k.astype(np.intp)] * poly
    out[big] = 0.0
    return out


#: Words at or above this are left to the exact path on the accept side (a float near 2^64 cannot be a uint64).
_TOP = float(2**64 - 2**12)


def bracket(x_hat: np.ndarray, err: np.ndarray | float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Integers ``lo ≤ 2⁶⁴ e^(−x) ≤ hi`` for every real ``x ≥ 0`` with ``|x − x̂| ≤ 2⁻³⁹ + err`` (proof in the docs).

    ``err`` (optional, per element or one for all, at most 1/8) widens the bracket for an
    ``x̂`` known less well: ``e^(±err) − 1`` is below ``2 err`` there. Returns
    ``(lo, hi, unbounded)`` (uint64, uint64, bool): where ``unbounded``,
    ``hi`` is ``2⁶⁴`` (no word rejects on the fast path).
    """
    p = exp_neg(x_hat) * 2.0**64
    widen = MARGIN if err is None else MARGIN + 2.0 * np.asarray(err, dtype=np.float64)
    lo = np.floor(np.clip(p * (1.0 - widen), 0.0, _TOP)).astype(np.uint64)
    hi_f = np.ceil(p * (1.0 + widen) + 1.0)
    unbounded = hi_f >= _TOP
    hi = np.where(unbounded, 0.0, hi_f).astype(np.uint64)
    return lo, hi, unbounded


def exp_neg_ball(x: Fraction) -> Callable[[int], flint.arb]:
    """``prec ↦`` an arb ball of ``e^(−x)`` at ``prec`` bits (for :meth:`LazyUniform.less`)."""
    def ball(prec: int) -> flint.arb:
        with precision(prec):
            return (-to_arb(x)).exp()
    return ball


class LazyUniform:
    """A uniform real ``U ∈ [0, 1)`` known to its first ``bits`` bits, refined with words of ``more()``.

    Parameters
    ----------
    word : int
        The first 64 bits of ``U``.
    more : callable
        Returns the next 64-bit word (the block's stream, in a fixed order).
    """

    def __init__(self, word: int, more: Callable[[], int]):
        self.value, self.bits, self.more = int(word), 64, more

    def less(self, ball: Callable[[int], flint.arb]) -> bool:
        """Whether ``U < p`` for the real ``p`` that ``ball(prec)`` encloses at every precision.

        Refines ``U`` 64 bits at a time until its interval ``[v/2^k, (v+1)/2^k)``
        and the ball of ``p`` separate. It ends with probability one unless
        ``p`` is a dyadic rational in ``(0, 1)`` (``e^(−x)`` for rational
        ``x > 0`` is transcendental, Lindemann 1882; ``x = 0`` gives ``p = 1``,
        decided at once).
        """
        while True:
            p = ball(self.bits + 64)
            with precision(self.bits + 64):
                scale = flint.arb(2) ** -self.bits
                if p >= (self.value + 1) * scale:
                    return True
                if p <= self.value * scale:
                    return False
            self.value = (self.value << 64) | self.more()
            self.bits += 64


def geometric_thresholds() -> np.ndarray:
    """``L_k = ⌊2⁶⁴ e^(−k)⌋`` for ``k = 1, 2, …`` while ``L_k ≥ 1``, ascending (uint64).

    ``U < e^(−k)`` exactly when ``W < L_k`` and ``U > e^(−k)`` when ``W > L_k``
    (``2⁶⁴ e^(−k)`` is never a whole number); ``W = L_k`` or ``W = 0`` is undecided.
    """
    out, k = [], 1
    with precision(256):
        while True:
            v = ((-flint.arb(k)).exp() * flint.arb(2) ** 64).floor().unique_fmpz()
            if v is None:
                raise ArithmeticError("a threshold ball straddles an integer")    # not at 256 bits
            if int(v) < 1:
                break
            out.append(int(v))
            k += 1
    return np.array(out[::-1], dtype=np.uint64)
