"""The tightest certified ε of a discrete Gaussian round, and the noise calibrated on it.

One round's event of the discrete Gaussian (central,
:class:`~itsa.privacy.events.DiscreteGaussianEvent`, or as a sum of shares,
:class:`~itsa.privacy.events.DistributedDiscreteGaussianEvent`) has two
certified upper bounds on its composed ε: the Rényi accountant's, and a
privacy-loss-distribution one (:func:`pld_epsilon`): in one dimension the
worst integer shift's own pair (:func:`itsa.privacy.pld.pair_epsilon`, the
pair is the worst there), in more the Gaussian pair that dominates every
shift of norm at most ``Δ`` (:func:`itsa.privacy.lattice.dominating_epsilon`).
The privacy-loss bound is the tighter by 5-10 % in ε at the targets plans
meet; :func:`calibrate_tightest` finds the smallest scale at which it meets
the target, below the Rényi-calibrated one.

Examples
--------
>>> from fractions import Fraction
>>> from itsa.privacy.events import DiscreteGaussianEvent
>>> def event(s):
...     return DiscreteGaussianEvent(sigma=s, sensitivity=100)
>>> renyi = Fraction(2000)         # a scale at which the Renyi bound meets eps 1.2 over 10 rounds
>>> s = calibrate_tightest(event, epsilon=Fraction(6, 5), delta=Fraction(1, 10**5), rounds=10, high=renyi,
...                        low=Fraction(500), dimension=1000)
>>> s < renyi, pld_epsilon(event(s), rounds=10, delta=Fraction(1, 10**5), dimension=1000).upper() <= Fraction(6, 5)
(True, True)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction

from itsa._util.certified import Certified, Direction, safe_decimal, to_arb
from itsa._util.checks import fraction
from itsa.exceptions import InvalidOption
from itsa.privacy.coupled import CoupledShift
from itsa.privacy.events import DiscreteGaussianEvent, DistributedDiscreteGaussianEvent, Event
from itsa.privacy.lattice import dominating_epsilon, mixture_epsilon
from itsa.privacy.pld import pair_epsilon

__all__ = ["pld_epsilon", "calibrate_tightest", "PLD_METHOD_KEYS"]

#: Significant digits of a calibrated scale (rounded up and certified there), as :mod:`itsa.privacy.calibration`'s.
DIGITS = 6
#: The method keys :func:`pld_epsilon` answers with: the worst pair's own (``d = 1``), the dominating pair's, or
#: a Bin(T, q) mixture of dominating pairs' (conditional rounding coupled, its mismatch composed).
PLD_METHOD_KEYS = ("pld", "dominating", "mixture")


def pld_epsilon(event: Event, *, rounds: int, delta, dimension: int | None = None,
                shift: CoupledShift | None = None) -> Certified | None:
    """The privacy-loss-distribution upper bound on the ε of ``rounds`` rounds of ``event``, or ``None``.

    Parameters
    ----------
    event : Event
        One round: a :class:`~itsa.privacy.events.DiscreteGaussianEvent` or a
        :class:`~itsa.privacy.events.DistributedDiscreteGaussianEvent`; any other event has no such bound here.
    rounds : int
        ``T``.
    delta : number
        δ in ``(0, 1)``.
    dimension : int, optional
        Where the noise lives; the distributed event's own when ``None`` (a central event needs it).
    shift : CoupledShift, optional
        A bound on the round's (random) shift that holds outside a failure probability per round
        (:func:`itsa.privacy.coupled.coupled_shift`): in place of the event's sensitivity, in more than one
        dimension, where it is the smaller.

    Returns
    -------
    Certified or None
        An upper bound (its method names the pair); ``None`` where no bound applies (another event, a
        smoothing condition that fails, a sensitivity below one step).
    """
    dim: int | None
    if isinstance(event, DistributedDiscreteGaussianEvent):
        sigma, survivors, dim = event.scale, event.survivors, event.dimension if dimension is None else dimension
    elif isinstance(event, DiscreteGaussianEvent):
        sigma, survivors, dim = event.sigma, 1, dimension
    else:
        return None
    if dim is None:
        return None
    sens = to_arb(event.sensitivity)
    s = fraction("sigma", sigma, low=0)
    if dim == 1:
        top = math.floor(Certified.from_arb("sensitivity", sens, Direction.UPPER, "").upper())
        if top < 1:
            return None
        try:
            high = pair_epsilon(delta, sigma=s, shift=top, survivors=survivors, rounds=rounds, side="upper")
        except InvalidOption:           # the enclosure finds no bracket at this noise
            return None
        return Certified("epsilon", high, high, Direction.UPPER, "the worst pair's PLD, from above")
    if shift is None or not shift.norm.arb() < sens:
        return dominating_epsilon(sigma=s, sensitivity=sens, rounds=rounds, delta=delta, survivors=survivors,
                                  dimension=dim)
    if shift.mixture:               # conditional rounding's mismatch: a Bin(T, q) mixture with the worst case
        found = mixture_epsilon(sigma=s, near=shift.norm.arb(), far=sens, weight=shift.mismatch, rounds=rounds,
                                delta=delta, survivors=survivors, dimension=dim, failure=shift.failure)
        if found is None:
            return dominating_epsilon(sigma=s, sensitivity=sens, rounds=rounds, delta=delta, survivors=survivors,
                                      dimension=dim)
        return replace(found, method=f"{found.method}; B the coupled shift {shift.norm.decimal(6)}, W the "
                                     f"sensitivity, q {safe_decimal(shift.mismatch, 3)} per round: "
                                     f"{shift.norm.method} (failure {safe_decimal(shift.failure, 3)} per round, "
                                     "in the slack)")
    found = dominating_epsilon(sigma=s, sensitivity=shift.norm.arb(), rounds=rounds, delta=delta,
                               survivors=survivors, dimension=dim, failure=shift.failure)
    if found is None:
        return None
    return replace(found, method=f"{found.method}; Delta the coupled shift {shift.norm.decimal(6)}: "
                                 f"{shift.norm.method} (failure {safe_decimal(shift.failure, 3)} per round, in the slack)")


def calibrate_tightest(event_for: Callable[[Fraction], Event], *, epsilon: Fraction, delta, rounds: int,
                       high: Fraction, low: Fraction, dimension: int | None = None,
                       relative_tolerance: Fraction = Fraction(1, 10**6), shift: CoupledShift | None = None
                       ) -> Fraction:
    """The smallest scale in ``[low, high]`` (to ``relative_tolerance``) whose :func:`pld_epsilon` meets ``ε``.

    Bisection on exact rationals, each step certified; the scale found is rounded up to :data:`DIGITS`
    digits and certified there. ``high`` is returned where the privacy-loss bound does not meet the target
    at it, or does not apply (the caller's other bound, calibrated to ``high``, stands).

    Parameters
    ----------
    event_for : callable
        One round's event at a scale (decreasing in privacy loss as the scale grows).
    epsilon, delta : Fraction
        The target.
    rounds : int
        ``T``.
    high, low : Fraction
        The bracket: ``high`` a scale meeting the target by another bound, ``low`` one below which no bound
        can meet it (a lower start; halved while it still meets).
    dimension, shift : optional
        As in :func:`pld_epsilon`.
    """
    def meets(scale: Fraction) -> bool:
        found = pld_epsilon(event_for(scale), rounds=rounds, delta=delta, dimension=dimension, shift=shift)
        return found is not None and found.upper() <= epsilon

    if not meets(high):
        return high
    low = min(low, high)
    for _ in range(64):
        if low <= 0 or not meets(low):
            break
        high, low = low, low / 2
    else:
        return high
    while high - low > relative_tolerance * high:
        mid = (low + high) / 2
        if meets(mid):
            high = mid
        else:
            low = mid
    printed = Fraction(safe_decimal(high, DIGITS, up=True))
    return printed if meets(printed) else high
