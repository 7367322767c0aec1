"""The noise's tail: ``P[|X| ≥ t] ≤ 2 exp(−t²/(2v))`` for a ``v``-sub-Gaussian ``X``, in ball arithmetic.

A discrete Gaussian of scale σ is σ²-sub-Gaussian (Canonne, Kamath, Steinke
2020), so the sum of ``n`` independent shares is ``n σ²``-sub-Gaussian; a sum
of independent sub-Gaussian terms (rotated data, stochastic rounding's error
by Hoeffding's lemma) has the sum of their proxies. Every wrap and carry bound
of itsa that uses this tail calls :func:`subgaussian_tail`.

Examples
--------
>>> from fractions import Fraction
>>> from itsa._util.certified import Certified, Direction
>>> ball = subgaussian_tail(3, Fraction(1))          # 2 exp(-9/2)
>>> Certified.from_arb("tail", ball, Direction.UPPER, SUBGAUSSIAN_TAIL).decimal(4)
'0.02222'
"""

from __future__ import annotations

import flint

from itsa._util.certified import PRECISION, precision, to_arb

__all__ = ["subgaussian_tail", "SUBGAUSSIAN_TAIL"]

#: The bound, as a method says it.
SUBGAUSSIAN_TAIL = "P[|X| >= t] <= 2 exp(-t^2/(2 v)) (X v-sub-Gaussian)"


def subgaussian_tail(threshold, proxy) -> flint.arb:
    """``2 exp(−t²/(2v))``, a ball: an upper bound on ``P[|X| ≥ t]`` for ``X`` ``v``-sub-Gaussian.

    Parameters
    ----------
    threshold : int, Fraction or arb
        ``t``.
    proxy : int, Fraction or arb
        ``v > 0``, the variance proxy.

    Returns
    -------
    flint.arb
        The bound (it may exceed 1; the caller caps it and says so), computed at
        :data:`~itsa._util.certified.PRECISION` bits or the caller's finer precision.
    """
    with precision(max(PRECISION, flint.ctx.prec)):      # the working precision, or the caller's if finer
        t = to_arb(threshold)
        return 2 * (-(t * t) / (2 * to_arb(proxy))).exp()
