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
from itsa.privacy.conversion import check_delta
from itsa.privacy.coupled import CoupledShift
from itsa.privacy.events import DiscreteGaussianEvent, DistributedDiscreteGaussianEvent, Event
from itsa.privacy.lattice import dominating_epsilon, dominating_pair, mixture_epsilon
from itsa.privacy.pld import pair_epsilon
from itsa.privacy.sampled_cohort import CohortEvent, cohort_epsilon
from itsa.privacy.sampled_pair import sampled_gaussian_epsilon
from itsa.privacy.subsampled import PoissonSampledEvent

__all__ = ["pld_epsilon", "sampled_epsilon", "calibrate_tightest", "PLD_METHOD_KEYS", "SAMPLED_KEY", "COHORT_KEY"]

#: Significant digits of a calibrated scale (rounded up and certified there), as :mod:`itsa.privacy.calibration`'s.
DIGITS = 6
#: The method key of a Poisson-sampled round's bound (:func:`sampled_epsilon`): the dominating pair, sampled.
SAMPLED_KEY = "dominating-sampled"
#: The method key of a round of distributed shares over a sampled cohort (:mod:`itsa.privacy.sampled_cohort`).
COHORT_KEY = "dominating-cohort"
#: The method keys :func:`pld_epsilon` answers with: the worst pair's own (``d = 1``), the dominating pair's, a
#: Bin(T, q) mixture of dominating pairs' (conditional rounding coupled, its mismatch composed), or the dominating
#: pair's Poisson sample's.
PLD_METHOD_KEYS = ("pld", "dominating", "mixture", SAMPLED_KEY, COHORT_KEY)


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
    if isinstance(event, CohortEvent):
        return cohort_epsilon(event, rounds=rounds, delta=delta, dimension=dimension, shift=shift)
    if isinstance(event, PoissonSampledEvent):
        return sampled_epsilon(event, rounds=rounds, delta=delta, dimension=dimension, shift=shift)
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


def sampled_epsilon(event: PoissonSampledEvent, *, rounds: int, delta, dimension: int | None = None,
                    shift: CoupledShift | None = None) -> Certified | None:
    """The privacy-loss bound of ``rounds`` Poisson-sampled rounds of central discrete Gaussian noise, or ``None``.

    The full round is dominated by the Gaussian pair of ``μ''`` with a slack ``δ₀`` per round
    (:func:`itsa.privacy.lattice.dominating_pair`, in both orders, every shift of norm at most the
    sensitivity, or stochastic rounding's coupled shift with its failure in ``δ₀``); its Poisson sample at
    rate ``q`` by the sampled pair of ``μ''`` with the same slack (sampling a mixture samples each part), whose
    ``T`` rounds :func:`itsa.privacy.sampled_pair.sampled_gaussian_epsilon` bounds at ``δ − T δ₀``.

    Parameters
    ----------
    event : PoissonSampledEvent
        The sampled round; ``None`` unless its mechanism is a central :class:`DiscreteGaussianEvent`.
    rounds, delta, dimension, shift
        As in :func:`pld_epsilon` (``dimension`` is required).
    """
    inner = event.event
    if not isinstance(inner, DiscreteGaussianEvent) or dimension is None:
        return None
    sens = to_arb(inner.sensitivity)
    failure: Fraction | int = 0
    coupled_note = ""
    if shift is not None and not shift.mixture and shift.norm.arb() < sens:    # a mixture's mismatch: the worst case
        sens, failure = shift.norm.arb(), shift.failure
        coupled_note = (f"; Delta the coupled shift {shift.norm.decimal(6)} (failure {safe_decimal(shift.failure, 3)} "
                        "per round, in the slack)")
    pair = dominating_pair(sigma=fraction("sigma", inner.sigma, low=0), sensitivity=sens, dimension=dimension,
                           failure=failure, slack_limit=check_delta(delta) / rounds)
    if pair is None or not rounds * pair[1] < check_delta(delta):
        return None
    mu, slack = pair
    try:
        found = sampled_gaussian_epsilon(mu=mu, rate=event.rate, rounds=rounds, delta=delta, slack=rounds * slack)
    except InvalidOption:           # a pair the grid cannot hold
        return None
    if found is None:
        return None
    how = ("(Delta + 2)/sigma", "lattice smoothing") if pair.form == "smoothing" else (
        "(Delta + 2 sqrt(d'))/sigma", "coordinate by coordinate")
    return replace(found, method=f"{found.method}; mu = {how[0]} = {safe_decimal(mu, 8)}, the Gaussian "
                                 f"pair dominating every shift ({how[1]}), rate {event.rate}{coupled_note}")


def calibrate_tightest(event_for: Callable[[Fraction], Event], *, epsilon: Fraction, delta, rounds: int,
                       high: Fraction, low: Fraction, dimension: int | None = None,
                       relative_tolerance: Fraction = Fraction(1, 10**6), shift: CoupledShift | None = None,
                       interpolate: bool = False) -> Fraction:
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
    interpolate : bool
        Place each step where ``ln ε`` interpolated linearly in ``ln σ`` between the bracket's ends meets the
        target (the Illinois variant of false position), not at the middle: fewer steps where each is costly
        (a Poisson-sampled round's grid). Every step is still certified; only where the steps fall changes.
    """
    found: dict[Fraction, Fraction | None] = {}

    def value(scale: Fraction) -> Fraction | None:
        if scale not in found:
            bound = pld_epsilon(event_for(scale), rounds=rounds, delta=delta, dimension=dimension, shift=shift)
            found[scale] = None if bound is None else bound.upper()
        return found[scale]

    def meets(scale: Fraction) -> bool:
        eps = value(scale)
        return eps is not None and eps <= epsilon

    if not meets(high):
        return high
    low = min(low, high)
    if interpolate:
        low, high = _false_position(value, epsilon, low, high, relative_tolerance)
    else:
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


#: Most steps of the false position before the bisection takes over.
FALSE_POSITION_STEPS = 40


def _false_position(value: Callable[[Fraction], Fraction | None], epsilon: Fraction, low: Fraction, high: Fraction,
                    tolerance: Fraction) -> tuple[Fraction, Fraction]:
    """A bracket (``high`` meets the target, ``low`` does not, or is 0) narrowed by the Illinois false position
    on ``g(σ) = ln ε(σ) − ln ε_target`` against ``ln σ``, started from ``high`` alone with the slope −1 (ε about
    inversely proportional to σ; ``low`` is not used); a step whose ``ε`` is missing bisects. Floats choose the
    points; ``value`` certifies each."""
    def g(scale: Fraction) -> float | None:
        eps = value(scale)
        return None if eps is None or eps <= 0 else math.log(eps) - math.log(epsilon)

    g_high = g(high)
    g_low: float | None = None
    if g_high is None:
        return low, high
    known_low = False                  # whether low is a point evaluated (and failing)
    side = 0
    for _ in range(FALSE_POSITION_STEPS):
        if known_low and high - low <= tolerance * high:
            break
        if not known_low:
            # one point: the slope -1 from high, a little below (to bracket), never past low / 2
            guess = Fraction(math.exp(math.log(high) + g_high * 1.02)) if g_high < 0 else high / 2
            guess = max(min(guess, high * (1 - tolerance)), high / 2**20)
        elif g_low is None:             # no bound at low: bisect in ln(sigma)
            guess = Fraction(math.sqrt(low * high))
        else:
            a, b = math.log(low), math.log(high)
            guess = Fraction(math.exp(b - g_high * (b - a) / (g_high - g_low)))
            margin = tolerance * high / 4
            guess = min(max(guess, low + margin), high - margin)
        g_mid = g(guess)
        eps = value(guess)
        if eps is not None and eps <= epsilon:
            if not known_low and g_mid is not None:
                g_high = g_mid
            elif g_mid is not None:
                if side == 1 and g_low is not None:
                    g_low /= 2
                g_high = g_mid
            high, side = guess, 1
        else:
            low, g_low, known_low = guess, g_mid, True
            if side == -1 and g_high is not None:
                g_high /= 2
            side = -1
    if not known_low:
        low = Fraction(0)
    return low, high
