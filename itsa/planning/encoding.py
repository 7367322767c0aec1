"""The encoding of a plan: the scale γ, the word, and the certified probability that the sum wraps.

A flat modular sum adds the clients' integer vectors in a ``b``-bit word,
``M = 2^b``, centred: a coordinate of the sum is recovered exactly while it
lies in ``[−2^(b−1), 2^(b−1) − 1]`` and wraps otherwise.

The modular part's exact margins assume the full product domain (every digit
free); a clipped update lives in the ``ℓ2`` ball, so the range of the sum is
bounded here from the clip instead:

- the data: each encoded coordinate is ``round(γ x)`` with ``|x| ≤ S``, so
  ``|e| ≤ c = ⌊γ S + 1/2⌋`` and ``|Σ e| ≤ K c`` (exact, whatever the data);
- the noise: the sum ``Z`` of ``n`` independent discrete Gaussian shares of
  scale σ is ``n σ²``-subgaussian (each share is σ²-subgaussian, Canonne,
  Kamath, Steinke 2020), so ``P[|Z| ≥ t] ≤ 2 exp(−t²/(2 n σ²))``, with ``n = K``
  (every client's share) for ``distributed`` noise and ``n = 1`` for ``central``.

A coordinate wraps only if ``|Z| ≥ t = 2^(b−1) − K c``; a round (``d``
coordinates) only if one of them does: the union bound ``d P[|Z| ≥ t]``. The
probability is an upper bound computed in ball arithmetic (``1`` when
``t ≤ 0``: then the data alone can reach the modulus).

The client's encoding itself, on arrays (the rotation, the rounding at
``γ``, the centred residue of the sum), is the run wing's
(:mod:`itsa.planning.run.transforms`).

Examples
--------
>>> from fractions import Fraction

import numpy as np
>>> data_bound(1000, Fraction(2**10), Fraction(1))
1024000
>>> wrap_probability(word_bits=32, clients=1000, bound=1024000, sigma=Fraction(1000), shares=1000,
...                  coordinates=1).upper() < Fraction(1, 10**100)
True
>>> wrap_probability(word_bits=16, clients=1000, bound=1024000, sigma=Fraction(1000), shares=1000,
...                  coordinates=1).decimal()
'1'
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from itsa._util.certified import Certified, Direction, safe_decimal
from itsa._util.deadline import Deadline
from itsa._util.display import Displayable
from itsa._util.plain import frac
from itsa.exceptions import InvalidOption, excerpt
from itsa.privacy.tails import certified_tail

__all__ = ["EncodingPlan", "data_bound", "wrap_probability", "smallest_word", "gamma_candidates", "WRAP_METHOD"]

WRAP_METHOD = ("data |sum| <= K floor(gamma S + 1/2) per coordinate (from the clip: exact); noise sum "
               "n sigma^2-subgaussian: P[|Z| >= t] <= 2 exp(-t^2/(2 n sigma^2)); union bound over the coordinates")
#: Largest power of two tried as γ (``2^MAX_GAMMA_EXPONENT``).
MAX_GAMMA_EXPONENT = 256


def data_bound(clients: int, gamma: Fraction, clip: Fraction) -> int:
    """``K ⌊γ S + 1/2⌋``: the most any coordinate of the sum of ``K`` encoded clipped updates reaches (exact)."""
    return clients * math.floor(gamma * clip + Fraction(1, 2))


def wrap_probability(*, word_bits: int, clients: int, bound: int, sigma: Fraction, shares: int,
                     coordinates: int) -> Certified:
    """An upper bound on the probability that one of ``coordinates`` sums wraps a ``word_bits``-bit word.

    ``bound`` is the data's range (:func:`data_bound`), ``sigma`` the noise
    share's scale and ``shares`` how many shares are summed.
    """
    room = 2 ** (word_bits - 1) - bound          # the noise must reach |Z| >= room to wrap
    return certified_tail(room=room, proxy=shares * sigma**2, coordinates=coordinates, method=WRAP_METHOD)


def smallest_word(*, clients: int, bound: int, sigma: Fraction, shares: int, coordinates: int, target: Fraction,
                  widest: int, deadline: Deadline | None = None) -> int | None:
    """The fewest bits whose wrap bound meets ``target`` (``None`` when even ``widest`` bits do not);
    ``deadline`` is looked at for each word tried."""
    low = max(2, bound.bit_length() + 1)
    for bits in range(low, widest + 1):
        if deadline is not None:
            deadline.check(f"the smallest word, {bits} bits")
        if wrap_probability(word_bits=bits, clients=clients, bound=bound, sigma=sigma, shares=shares,
                            coordinates=coordinates).upper() <= target:
            return bits
    return None


def gamma_candidates(clip: Fraction, clients: int, word_bits: int | None, *,
                     deadline: Deadline | None = None) -> list[Fraction]:
    """Powers of two ``γ`` from the smallest at which the clip encodes to at least 1 (``γ S ≥ 1``) up to
    the largest whose data range fits the word (all up to ``2^MAX_GAMMA_EXPONENT`` without a word).

    Every loop is bounded by ``±MAX_GAMMA_EXPONENT`` and looks at ``deadline``; a clip that is not a
    positive number is refused (:class:`~itsa.exceptions.InvalidOption`).

    >>> gamma_candidates(Fraction(0), 10, None)
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOption: clip: must be a number > 0 (gamma S >= 1 needs one), not Fraction(0, 1)
    """
    if not isinstance(clip, (int, Fraction)) or isinstance(clip, bool) or not clip > 0:
        raise InvalidOption(f"clip: must be a number > 0 (gamma S >= 1 needs one), not {excerpt(clip)}")
    first = 0
    while Fraction(2) ** first * clip < 1:
        if deadline is not None:
            deadline.check("the smallest scale gamma")
        if first >= MAX_GAMMA_EXPONENT:
            return []
        first += 1
    while first > -MAX_GAMMA_EXPONENT and Fraction(2) ** (first - 1) * clip >= 1:
        if deadline is not None:
            deadline.check("the smallest scale gamma")
        first -= 1
    out = []
    for e in range(first, MAX_GAMMA_EXPONENT + 1):
        if deadline is not None:
            deadline.check(f"the scale gamma = 2^{e}")
        gamma = Fraction(2) ** e
        if word_bits is not None and data_bound(clients, gamma, clip) >= 2 ** (word_bits - 1):
            break
        out.append(gamma)
    return out


@dataclass(frozen=True, kw_only=True, repr=False)
class EncodingPlan(Displayable):
    """γ, the word, the data's range, the quantization error and the certified wrap probability."""

    gamma: Fraction
    word_bits: int
    data_range: int
    wrap_probability: Certified
    overflow_target: Fraction
    per: str
    chosen: str
    quantization_bound: Fraction
    #: the rotation before rounding, the rounding, and the length rotated (``d'``; ``None``: no rotation)
    rotation: str = "none"
    rounding: str = "nearest"
    rotated_dimension: int | None = None
    #: conditional rounding's ``β`` and how it was chosen (``None``: another rounding)
    beta: str | None = None

    @property
    def modulus(self) -> int:
        return 2 ** self.word_bits

    @property
    def meets_target(self) -> bool:
        return self.wrap_probability.upper() <= self.overflow_target

    def headline(self) -> str:
        w = self.wrap_probability
        wrap = f"wrap {w.decimal()} (exact)" if w.direction is Direction.EXACT else f"wrap <= {w.decimal()}"
        return f"gamma {frac(self.gamma)}, {self.word_bits}-bit word: {wrap} per {self.per}"

    def rows(self) -> list[tuple[str, str]]:
        if self.rotation == "none" and self.rounding == "nearest":
            coded = [("quantization", f"each coordinate of the released mean off by at most "
                                      f"{safe_decimal(self.quantization_bound, 6)} (exact bound; rounding to nearest)"),
                     ("modulus", f"2^{self.word_bits} (a flat {self.word_bits}-bit word)"),
                     ("data range", f"|sum| <= {self.data_range} per coordinate (exact, from the clip)")]
        else:
            coded = [("rotation", f"{self.rotation}, from public randomness: {self.rotated_dimension} words per "
                                  "client" if self.rotation != "none" else "none"),
                     ("rounding", f"{self.rounding}" + ("" if self.beta is None else f" at beta = {self.beta}")
                                  + " (its error is in the error section)"),
                     ("modulus", f"2^{self.word_bits} (a flat {self.word_bits}-bit word)"),
                     ("sure range", f"|sum| <= {self.data_range} per coordinate before the sub-Gaussian part "
                                    "(exact; see the wrap method)")]
        return [("scale gamma", f"{safe_decimal(self.gamma, 8)} (exact {frac(self.gamma)}; {self.chosen})"
                 if self.gamma.denominator != 1 else f"{frac(self.gamma)} (exact; {self.chosen})"), *coded,
                ("wrap probability", f"{self.wrap_probability.decimal(6)} per {self.per} "
                                     f"({self.wrap_probability.direction}; target {safe_decimal(self.overflow_target, 6)})"),
                ("wrap method", str(self.wrap_probability.method))]

    def to_dict(self) -> dict:
        return {"kind": "flat", "gamma": frac(self.gamma), "word_bits": self.word_bits, "modulus": str(self.modulus),
                "data_range": self.data_range, "quantization_bound": frac(self.quantization_bound),
                "wrap_probability": self.wrap_probability.to_dict(), "overflow_target": frac(self.overflow_target),
                "per": self.per, "meets_target": self.meets_target, "chosen": self.chosen,
                "rotation": self.rotation, "rounding": self.rounding, "rotated_dimension": self.rotated_dimension,
                "beta": self.beta}

