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
import scipy

from itsa._util.deadline import Deadline
from itsa.planning.mechanisms.base import DRAW_CHUNK, NoiseMechanism, Premises
from itsa.privacy.discrete_gaussian import variance
from itsa.privacy.events import DdgBound, DiscreteGaussianEvent, DistributedDiscreteGaussianEvent, Event
from itsa.privacy.sampler import ByteStream, table, table_words

__all__ = ["DiscreteGaussian", "TABLE_SIGMA"]

#: Largest σ drawn from the sampler's table (its table has about 15 σ entries); a larger σ is the rounding of
#: a continuous Gaussian, whose law differs from the discrete Gaussian's by O(1/σ²) in total variation.
TABLE_SIGMA = 10**4


class DiscreteGaussian(NoiseMechanism):
    name = "dgauss"
    title = "discrete Gaussian"
    auto = True
    classic_wrap = True
    renyi = gaussian_pair = True
    minimum_share = Fraction(1, 2)      # the distributed bound's tau term needs sigma >= 1/2
    #: DistributedDpSumFactory(mechanism=...) and TF Privacy's module of its query
    frameworks = {"tff": "distributed_dgauss", "tf_privacy": "distributed_discrete_gaussian_query.py"}
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
        """``N_Z(0, σ²)`` draws: the table engine's law (:mod:`itsa.privacy.sampler`) up to :data:`TABLE_SIGMA`,
        beyond it ``round(σ N(0, 1))`` (within ``O(1/σ²)`` of it in total variation).

        The uniform 64-bit words are numpy's PCG64 seeded by the first 32 bytes of ``seed_text``'s byte
        stream, mapped to draws as the table engine maps its words (:func:`~itsa.privacy.sampler.table_words`),
        so the law is the table engine's, whose distance from ``N_Z(0, σ²)`` the table's certificate bounds.
        The words come about a hundred times faster than the HMAC stream's; the draws, the table's lookup
        included, about fourteen times. Read :data:`DRAW_CHUNK` words at a time (the same draws as one
        read), with a look at ``clock`` before each."""
        rng = np.random.default_rng(int.from_bytes(ByteStream(seed_text).read(32), "big"))
        tabled = None if sigma > TABLE_SIGMA else table(sigma)
        out = np.empty(count, dtype=np.int64)
        for start in range(0, count, DRAW_CHUNK):
            if clock is not None:
                clock.check(f"a round's noise ({start:,} of {count:,} draws)")
            words = rng.bit_generator.random_raw(min(DRAW_CHUNK, count - start))
            if tabled is not None:
                out[start:start + len(words)] = table_words(tabled, words)
                continue
            u = words.astype(np.float64) / float(2**64 - 1)
            out[start:start + len(words)] = np.rint(float(sigma) * scipy.special.ndtri(
                np.clip(u, 2.0**-60, 1 - 2.0**-53))).astype(np.int64)
        return out
