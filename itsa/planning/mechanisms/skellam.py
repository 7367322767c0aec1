"""The Skellam mechanism (``skellam``): shares of ``Sk(σ²/2, σ²/2)``, the difference of two Poissons.

A sum of Skellam shares is Skellam (variance ``n σ²`` over ``n`` shares; no τ
term), so one round is :class:`~itsa.privacy.events.SkellamEvent` (Agarwal,
Kairouz, Liu 2021) whether the noise is distributed or central. In the wrap
bound its noise is not sub-Gaussian: the Chernoff bound with its moment
generating function (:func:`itsa.privacy.tails.certified_tail`'s Poisson part).
A share's variance is exactly ``σ²`` and its mean 0.

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
from itsa.planning.mechanisms.base import DRAW_CHUNK, NoiseMechanism, Premises
from itsa.privacy.events import Event, SkellamEvent
from itsa.privacy.sampler import ByteStream

__all__ = ["Skellam", "MAX_POISSON"]

#: Largest Poisson mean drawn for a Skellam share (numpy's Poisson sampler refuses means near 2^63).
MAX_POISSON = 10**18


class Skellam(NoiseMechanism):
    name = "skellam"
    title = "Skellam"
    auto = True
    renyi = True
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
        if Fraction(sigma) ** 2 / 2 > MAX_POISSON:
            raise InvalidOption(f"sigma_client: Skellam shares are simulated up to variance {2 * MAX_POISSON:.0e} "
                                f"(numpy's Poisson sampler), not sigma {safe_decimal(Fraction(sigma), 6)}")

    def simulated_variance_how(self, *, distributed):
        return ("the Skellam shares' exact variance" if distributed
                else "the central Skellam noise's exact variance")

    def draws(self, sigma: Fraction, count: int, seed_text: str, clock: Deadline | None = None) -> np.ndarray:
        """Symmetric Skellam draws of variance ``σ²``: the difference of two Poisson draws of mean ``σ²/2``.

        Drawn by numpy's Poisson sampler (a float sampler: the law of a simulation, not a certified one) from a
        generator seeded by ``seed_text``'s stream, :data:`DRAW_CHUNK` at a time with a look at ``clock``
        before each."""
        rng = np.random.default_rng(int.from_bytes(ByteStream(seed_text).read(32), "big"))
        mean, parts = float(sigma) ** 2 / 2, []
        for start in range(0, count, DRAW_CHUNK):
            if clock is not None:
                clock.check(f"a round's noise ({start:,} of {count:,} draws)")
            n = min(DRAW_CHUNK, count - start)
            parts.append(rng.poisson(mean, n) - rng.poisson(mean, n))
        return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, dtype=np.int64)
