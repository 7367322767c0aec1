"""The discrete Gaussian mechanism (``dgauss``): shares of ``N_Z(0, σ²)``.

Distributed: each of the fewest survivors adds a share; one round is the
distributed discrete Gaussian with the full bound of its paper, the minimum of
its three branches (:class:`~itsa.privacy.events.DistributedDiscreteGaussianEvent`,
``bound="sharp"``; a layering keeps the linear conservative bound its layers
compose with). Central: one discrete Gaussian of scale ``σ``
(:class:`~itsa.privacy.events.DiscreteGaussianEvent`). A share is
``σ²``-sub-Gaussian with variance below ``σ²`` and mean 0 (Canonne, Kamath,
Steinke 2020).

Examples
--------
>>> from fractions import Fraction
>>> type(DiscreteGaussian().event(Fraction(40), survivors=1, sensitivity=1, dimension=3, central=True,
...                               layered=False)).__name__
'DiscreteGaussianEvent'
>>> DiscreteGaussian().describe(central=False)
'discrete Gaussian (sharp bound)'
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from itsa._util.deadline import Deadline
from itsa.planning.mechanisms.base import NoiseMechanism, Premises
from itsa.privacy.discrete_gaussian import variance
from itsa.privacy.events import DdgBound, DiscreteGaussianEvent, DistributedDiscreteGaussianEvent, Event
from itsa.privacy.samplers import discrete_gaussian

__all__ = ["DiscreteGaussian"]


class DiscreteGaussian(NoiseMechanism):
    name = "dgauss"
    title = "discrete Gaussian"
    auto = True
    classic_wrap = True
    renyi = gaussian_pair = True
    minimum_share = Fraction(1, 2)      # the distributed bound's tau term needs sigma >= 1/2
    exact_draws = True
    premises = Premises(rdp_at_least_gaussian=True, variance_at_most_sigma2=True, unbiased=True,
                        why="its Renyi bound has q D^2/(2 sigma_agg^2) as a term; its variance is below sigma^2 "
                            "and it is symmetric (Canonne, Kamath, Steinke 2020)")

    def describe(self, *, central: bool) -> str:
        return "discrete Gaussian" if central else "discrete Gaussian (sharp bound)"

    def event(self, sigma, *, survivors, sensitivity, dimension, central, layered) -> Event:
        if central:
            return DiscreteGaussianEvent(sigma=sigma, sensitivity=sensitivity)
        return DistributedDiscreteGaussianEvent(sensitivity=sensitivity, scale=sigma, survivors=survivors,
                                                dimension=dimension,
                                                bound=DdgBound.CONSERVATIVE if layered else DdgBound.SHARP)

    def wrap_noise(self, sigma, shares):
        return shares * Fraction(sigma) ** 2, Fraction(0)

    def wrap_how(self, *, distributed):
        return ("discrete Gaussian shares of all K clients, K sigma^2-sub-Gaussian" if distributed
                else "the central noise")

    def share_variance(self, sigma):
        return float(variance(sigma).mid())

    def draws(self, sigma: Fraction, count: int, seed_text: str, clock: Deadline | None = None) -> np.ndarray:
        """``N_Z(0, σ²)`` draws, exactly: :func:`itsa.privacy.samplers.discrete_gaussian` on the stream of
        ``seed_text``, with a look at ``clock`` before each block of draws."""
        return discrete_gaussian(Fraction(sigma) ** 2, count, seed_text, time_limit=clock)
