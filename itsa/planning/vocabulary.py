"""The planner's words: who adds the noise, how a round is sampled, what the overflow target bounds, the widest word.

The deployment file's reader (:mod:`itsa.planning.deployment`) parses into
these, and every section takes them from here, not from the reader; the
noise mechanisms' words are their registry's
(:data:`itsa.planning.mechanisms.Mechanism`), the neighbours' and the
rounding's the privacy part's (:mod:`itsa.privacy.neighbours`).

Examples
--------
>>> NoiseKind("central") is NoiseKind.CENTRAL, str(Overflow.ROUND)
(True, 'round')
"""

from __future__ import annotations

from enum import StrEnum

from itsa.planning.mechanisms import Mechanism

__all__ = ["NoiseKind", "Sampling", "Overflow", "Mechanism", "MAX_WORD_BITS", "MAX_MODULUS"]

#: Widest word (bits) of a flat modular sum.
MAX_WORD_BITS = 256
#: Largest modulus an array run sums in (int64 arithmetic with room for one addition): the simulation's
#: bound, and the k-standard-deviations rule's widest word.
MAX_MODULUS = 2**62


class NoiseKind(StrEnum):
    """Who adds the noise."""

    DISTRIBUTED = "distributed"     # every client adds a share; privacy counts the fewest survivors' shares
    CENTRAL = "central"             # added once, to the sum


class Sampling(StrEnum):
    """How a round's clients are drawn from the population."""

    POISSON = "poisson"             # each client in with probability K/N (K expected): amplification certified
    FIXED = "fixed"                 # exactly K of N: no certified bound here (refused)


class Overflow(StrEnum):
    """What the overflow target bounds."""

    ROUND = "round"                 # any coordinate (and any layer) of a round's sum wraps
    COORDINATE = "coordinate"       # one coordinate of one layer wraps
