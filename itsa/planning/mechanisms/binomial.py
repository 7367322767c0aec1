"""The binomial mechanism (``binomial``): each share is ``Bin(N, ½) − N/2``, ``N = 2⌈2σ²⌉`` fair coins.

A share is centred (``N`` even: an integer, mean 0) with variance exactly
``N/4 ≥ σ²`` and support ``[−N/2, N/2]``: a word that holds the data's exact
bound plus every share's ``N/2`` never wraps (probability exactly 0), and the
coins are ``¼``-sub-Gaussian each (Hoeffding) where the word is smaller. It is
what secure computation makes cheaply (the binomial draft for PPM/DAP,
draft-case-ppm-binomial-dp: shared fair coins, summed).

Its Rényi divergence is infinite (``Bin(M, ½)`` shifted has an output its
neighbour cannot produce), so one round is
:class:`~itsa.privacy.binomial_count.BinomialSharesEvent`: a Rényi bound
that holds outside a slack ``δ₀ ≤ 2^−80`` (the accountant takes ``T δ₀`` off
δ), on the ``M`` coins of the fewest survivors' shares together (a sum of
independent ``Bin(N, ½)`` is ``Bin(Σ N, ½)``; more survivors add coins, which
is post-processing). For one count its exact privacy profile is
:func:`itsa.privacy.binomial` (``itsa privacy binomial``).

Examples
--------
>>> from fractions import Fraction
>>> room = Binomial()
>>> room.coins(Fraction(3)), room.variance_bound(Fraction(3)), room.largest_share(Fraction(3))
(36, Fraction(9, 1), 18)
>>> room.event(Fraction(3), survivors=10, sensitivity=2, dimension=5, central=False, layered=False).coins
360
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from itsa._util.deadline import Deadline
from itsa.exceptions import InvalidOption
from itsa.planning.mechanisms.base import NoiseMechanism, Premises
from itsa.privacy.binomial_count import BinomialSharesEvent
from itsa.privacy.events import Event
from itsa.privacy.samplers import fair_coins

__all__ = ["Binomial", "MAX_COINS"]

#: Most coins in one share a simulation draws (the exact sampler's draws are int64).
MAX_COINS = 10**18


class Binomial(NoiseMechanism):
    name = "binomial"
    title = "binomial (centred fair coins)"
    exact_draws = True
    frameworks = {"dap": "draft-case-ppm-binomial-dp: Bin(N, 1/2) from shared fair coins in MPC"}
    premises = Premises(rdp_at_least_gaussian=False, variance_at_most_sigma2=False, unbiased=True,
                        why="a share Bin(N, 1/2) - N/2 with N = 2 ceil(2 sigma^2) even is an integer of mean 0 and "
                            "variance N/4 >= sigma^2; its Renyi divergences are infinite (bounded support): its "
                            "bound holds outside a delta slack, not at least the Gaussian's")

    @staticmethod
    def coins(sigma: Fraction) -> int:
        """``N = 2⌈2σ²⌉``: the fewest even number of coins whose share's variance ``N/4`` is at least ``σ²``."""
        return 2 * math.ceil(2 * Fraction(sigma) ** 2)

    def event(self, sigma, *, survivors, sensitivity, dimension, central, layered) -> Event:
        if layered:
            raise InvalidOption("noise.mechanism: binomial shares are planned on a flat word, not a layering")
        return BinomialSharesEvent(coins=self.coins(sigma) * survivors, sensitivity=sensitivity,
                                   dimension=dimension)     # central: one share (survivors = 1)

    def wrap_noise(self, sigma, shares):
        return Fraction(shares * self.coins(sigma), 4), Fraction(0)

    def wrap_how(self, *, distributed):
        who = "binomial shares of all K clients" if distributed else "the central binomial noise"
        return f"{who}, each coin 1/4-sub-Gaussian (Hoeffding), |share| <= N/2"

    def variance_bound(self, sigma):
        return Fraction(self.coins(sigma), 4)

    def share_variance(self, sigma):
        return self.coins(sigma) / 4

    def largest_share(self, sigma):
        return self.coins(sigma) // 2

    def check_simulated(self, sigma):
        if self.coins(sigma) > MAX_COINS:
            raise InvalidOption(f"sigma_client: binomial shares are simulated up to {MAX_COINS:.0e} coins")

    def draws(self, sigma: Fraction, count: int, seed_text: str, clock: Deadline | None = None) -> np.ndarray:
        """``Bin(N, ½) − N/2`` draws, exactly: :func:`itsa.privacy.samplers.fair_coins` on the stream of
        ``seed_text``, with a look at ``clock`` before each block of draws."""
        n = self.coins(sigma)
        return fair_coins(n, count, seed_text, time_limit=clock) - n // 2
