"""The noise mechanism of a flat plan: which event the accountant composes, at which sensitivity.

- ``dgauss``, ``distributed``: each of the ``K_eff`` fewest survivors adds a
  discrete Gaussian share of scale ``σ`` per coordinate; one round is the
  distributed discrete Gaussian with the full bound of its paper, the minimum
  of its three branches
  (:class:`~itsa.privacy.events.DistributedDiscreteGaussianEvent`,
  ``bound="sharp"``);
- ``dgauss``, ``central``: one discrete Gaussian of scale ``σ``
  (:class:`~itsa.privacy.events.DiscreteGaussianEvent`, the curve
  ``itsa privacy account`` uses);
- ``skellam``: Skellam shares of variance ``σ²`` each (``distributed``: a sum
  of Skellam is Skellam, variance ``K_eff σ²``; ``central``: one of variance
  ``σ²``), :class:`~itsa.privacy.events.SkellamEvent`.

``σ`` is always the standard deviation of one share (integer units), so the
aggregate's is ``σ √K_eff`` (distributed) or ``σ`` (central) whatever the
mechanism. The sensitivity is the privacy part's one
(:func:`~itsa.privacy.neighbours.sensitivity_ball`) in the dimension the
update is rounded in (the rotation's ``d'``), with the deployment's rounding
(the tight bound for rounding to nearest).

Every mechanism's Rényi bound is at least the Gaussian's at the same ratio of
aggregate noise to sensitivity (each has ``q Δ²/(2 σ_agg²)`` as a term), so the
Gaussian's calibrated multiplier is a lower bound on each one's:
:func:`gaussian_floor` starts their calibration there.

Examples
--------
>>> from fractions import Fraction
>>> from itsa.planning.deployment import parse_deployment
>>> d = parse_deployment({"clients": 100, "dimension": 10, "clip": 1, "privacy": {"epsilon": 2},
...                       "noise": {"mechanism": "skellam"}})
>>> round_event(d, sensitivity(d, Fraction(64)))(Fraction(40)).label
'Skellam'
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from fractions import Fraction

import flint

from itsa._util.certified import Certified, Direction, precision, to_arb
from itsa.planning.deployment import Deployment, Mechanism, NoiseKind
from itsa.planning.rotation import rotated_dimension
from itsa.privacy.calibration import calibrate
from itsa.privacy.events import (
    DdgBound,
    DiscreteGaussianEvent,
    DistributedDiscreteGaussianEvent,
    Event,
    SkellamEvent,
)
from itsa.privacy.neighbours import Rounding, sensitivity_ball

__all__ = ["mechanism_of", "sensitivity", "sensitivity_text", "round_event", "gaussian_multiplier", "gaussian_floor",
           "gaussian_limit", "describe"]


def mechanism_of(deployment: Deployment) -> Mechanism:
    """The deployment's mechanism (``dgauss`` when the file leaves it to the plan and none was picked yet)."""
    return deployment.noise.mechanism or Mechanism.DGAUSS


def sensitivity(deployment: Deployment, gamma: Fraction) -> flint.arb:
    """The integer sum's l2 sensitivity at scale ``γ``: the privacy part's, in the rotated dimension ``d'``,
    with the deployment's rounding (tight for rounding to nearest) and ``β``."""
    e = deployment.encoding
    return sensitivity_ball(gamma=gamma, clip=deployment.clip,
                            dimension=rotated_dimension(deployment.dimension, e.rotation),
                            adjacency=deployment.adjacency, rounding=e.rounding,
                            tight=e.rounding is Rounding.NEAREST, beta=e.beta)


def sensitivity_text(deployment: Deployment) -> str:
    """How :func:`sensitivity` is bounded, in words."""
    e = deployment.encoding
    d_rot = rotated_dimension(deployment.dimension, e.rotation)
    where = "" if d_rot == deployment.dimension else f" in the rotated dimension d' = {d_rot}"
    how = {Rounding.NEAREST: "min(gamma S + sqrt(d)/2, 2 gamma S), rounding to nearest",
           Rounding.STOCHASTIC: "gamma S + sqrt(d), stochastic rounding",
           Rounding.CONDITIONAL: f"min(gamma S + sqrt(d), sqrt(gamma^2 S^2 + d/4 + sqrt(2 ln(1/beta)) (gamma S + "
                                 f"sqrt(d)/2))), conditional rounding at beta = {e.beta} (retried: holds surely)"}
    return "factor x " + how[e.rounding] + where


def round_event(deployment: Deployment, delta_int, *, layered: bool = False) -> Callable[[Fraction], Event]:
    """One round's event as a function of the share's ``σ`` (a layering keeps the linear conservative bound
    its layers compose with)."""
    central = deployment.noise.kind is NoiseKind.CENTRAL
    n = deployment.survivors
    d_rot = deployment.dimension if layered else rotated_dimension(deployment.dimension, deployment.encoding.rotation)
    if mechanism_of(deployment) is Mechanism.SKELLAM:
        def skellam(sigma: Fraction) -> Event:
            return SkellamEvent(variance=sigma**2 * (1 if central else n), sensitivity=delta_int, dimension=d_rot)
        return skellam
    if central:
        def dgauss(sigma: Fraction) -> Event:
            return DiscreteGaussianEvent(sigma=sigma, sensitivity=delta_int)
        return dgauss

    def distributed(sigma: Fraction) -> Event:
        return DistributedDiscreteGaussianEvent(sensitivity=delta_int, scale=sigma, survivors=n, dimension=d_rot,
                                                bound=DdgBound.CONSERVATIVE if layered else DdgBound.SHARP)
    return distributed


@functools.lru_cache(maxsize=64)
def gaussian_multiplier(epsilon: Fraction, delta: Fraction, rounds: int) -> Fraction:
    """The Gaussian mechanism's calibrated multiplier (``cks``, rounded up to 6 digits) at the targets."""
    return calibrate(epsilon, delta, rounds=rounds, conversion="cks",
                     relative_tolerance=Fraction(1, 10**6)).noise_multiplier.upper()


def gaussian_floor(deployment: Deployment, delta_int) -> Fraction:
    """A share ``σ`` below which no mechanism meets the target ε: the Gaussian's calibrated multiplier
    (lowered by one part in 10⁴, below its printed rounding up) times ``Δ``, per share."""
    p = deployment.privacy
    z = gaussian_multiplier(p.epsilon, p.delta, p.rounds) * Fraction(9999, 10000)
    delta = Certified.from_arb("sensitivity", to_arb(delta_int), Direction.LOWER, "").lower()
    share = z * delta
    if deployment.noise.kind is NoiseKind.DISTRIBUTED:
        with precision():
            root = flint.arb(deployment.survivors).sqrt()
        share = share / Certified.from_arb("root", root, Direction.UPPER, "").upper()
    return share


def describe(deployment: Deployment) -> str:
    """The mechanism in words, as the noise section names it."""
    mech = mechanism_of(deployment)
    if mech is Mechanism.SKELLAM:
        return "Skellam"
    if deployment.noise.kind is NoiseKind.CENTRAL:
        return "discrete Gaussian"
    return "discrete Gaussian (sharp bound)"


def gaussian_limit(deployment: Deployment) -> tuple[Fraction, Fraction]:
    """``(z, MSE)``: the tight continuous Gaussian mechanism's multiplier at the targets (the accountant's
    :class:`~itsa.privacy.events.GaussianEvent`, calibrated) and its error summed over the ``d`` coordinates,
    ``d (z c S/K_eff)²`` (the fewest survivors' noise, no rounding; ``c`` 2 for replace-one, 1 add-remove)."""
    from itsa.planning.deployment import Adjacency

    p = deployment.privacy
    z = gaussian_multiplier(p.epsilon, p.delta, p.rounds)
    c = 2 if deployment.adjacency is Adjacency.REPLACE_ONE else 1
    return z, deployment.dimension * (z * c * deployment.clip / deployment.survivors) ** 2

