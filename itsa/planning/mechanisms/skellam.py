"""The Skellam mechanism (``skellam``): shares of ``Sk(σ²/2, σ²/2)``, the difference of two Poissons.

A sum of Skellam shares is Skellam (variance ``n σ²`` over ``n`` shares; no τ
term), so one round is :class:`~itsa.privacy.events.SkellamEvent` (Agarwal,
Kairouz, Liu 2021) whether the noise is distributed or central. In the wrap
bound its noise is not sub-Gaussian: the Chernoff bound with its moment
generating function (:func:`itsa.privacy.tails.certified_tail`'s Poisson part).
A share's variance is exactly ``σ²`` and its mean 0; it is drawn exactly
(:func:`itsa.privacy.samplers.skellam`), so a client may add it where ε is claimed.

Examples
--------
>>> from fractions import Fraction
>>> Skellam().event(Fraction(40), survivors=4, sensitivity=1, dimension=3, central=False, layered=False).label
'Skellam'
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from itsa._util.certified import safe_decimal
from itsa._util.deadline import Deadline
from itsa.exceptions import InvalidOption
from itsa.planning.mechanisms.base import NoiseMechanism, Premises
from itsa.privacy.events import Event, SkellamEvent
from itsa.privacy.samplers import MAX_MEAN, skellam

__all__ = ["Skellam"]


class Skellam(NoiseMechanism):
    name = "skellam"
    title = "Skellam"
    auto = True
    renyi = True
    exact_draws = True
    layering_refusal = ("the layering's epsilon adds its layers' linear (zCDP) Renyi curves, and Skellam's curve "
                        "is not linear; give mechanism: dgauss, or a flat word (encoding.word_bits)")
    premises = Premises(rdp_at_least_gaussian=True, variance_at_most_sigma2=True, unbiased=True,
                        why="its Renyi bound has q D2^2/(2 mu) as a term (Agarwal, Kairouz, Liu 2021); a share's "
                            "variance is sigma^2 exactly and it is symmetric; its tail (Poisson-type) and its "
                            "epsilon are each at least the discrete Gaussian's at equal sigma",
                        no_better_than_default_at_equal_sigma=True)

    def event(self, sigma, *, survivors, sensitivity, dimension, central, layered) -> Event:
        return SkellamEvent(variance=Fraction(sigma) ** 2 * survivors, sensitivity=sensitivity, dimension=dimension)

    def wrap_noise(self, sigma, shares):
        return Fraction(0), shares * Fraction(sigma) ** 2

    def wrap_how(self, *, distributed):
        return "Skellam shares of all K clients" if distributed else "the central Skellam noise"

    def share_variance(self, sigma):
        return float(sigma) ** 2

    def check_simulated(self, sigma):
        if Fraction(sigma) ** 2 / 2 > MAX_MEAN:
            raise InvalidOption(f"sigma_client: Skellam shares are drawn up to variance 2^61 (the exact sampler), "
                                f"not sigma {safe_decimal(Fraction(sigma), 6)}")

    def simulated_variance_how(self, *, distributed):
        return ("the Skellam shares' exact variance" if distributed
                else "the central Skellam noise's exact variance")

    def draws(self, sigma: Fraction, count: int, seed_text: str, clock: Deadline | None = None) -> np.ndarray:
        """Skellam draws of variance ``σ²``, exactly: :func:`itsa.privacy.samplers.skellam` (the difference of two
        exact Poisson(``σ²/2``) draws) on the stream of ``seed_text``, with a look at ``clock`` before each block
        of draws."""
        return skellam(Fraction(sigma) ** 2, count, seed_text, time_limit=clock)
