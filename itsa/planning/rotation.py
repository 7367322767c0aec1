"""A rotated, rounded encoding: its padding, its certified wrap bound for any clipped data, its rounding error.

Before rounding, an update ``γ x`` (``‖x‖ ≤ S``) may be rotated by a random
orthogonal map drawn from public randomness, so that no coordinate carries
more than its share of the norm:

- ``none``: no rotation (``d' = d``);
- ``hadamard``: ``H D`` with ``D`` independent random signs and ``H`` the
  normalised Walsh–Hadamard matrix (entries ``±1/√d'``); the vector is padded
  with zeros to ``d'``, the next power of two;
- ``dft``: the real randomized DFT: the vector is padded to even ``d'``,
  multiplied by independent random signs, read as ``d'/2`` complex numbers
  (the first half real parts, the second half imaginary parts), transformed
  by the unitary DFT of size ``d'/2`` and read back as ``d'`` reals.

Every client sends ``d'`` words (the padding costs payload); the server rounds
nothing, sums, and undoes the rotation, keeping the first ``d`` coordinates.

**Wrap bound, for any data within the clip** (chosen independently of the
rotation's signs). One rotation is shared by every client, so a coordinate of
the rotated sum is a coordinate of the rotation of the sum ``Σ γ x_i``, of
norm at most ``K γ S``. Over the random signs it is sub-Gaussian with
variance proxy ``ρ (K γ S)²/d'`` (Hoeffding's lemma for a Rademacher sum): a
Hadamard row has entries ``±1/√d'`` (``ρ = 1``); a DFT coordinate's real or
imaginary part has coefficients at most ``√(2/d')`` in size over
``d'`` signs, whose squares sum to at most ``2‖x‖²/d'`` (``ρ = 2``). The
rounding adds, per client and coordinate, at most ``1/2`` (``nearest``) or
less than 1 (``conditional``: its retries make it neither independent nor
mean-zero, so only its size is used), or a mean-zero error in an interval of
length 1 (``stochastic``: variance proxy ``1/4``, Hoeffding), independent
across clients. Without a rotation the data's part is the exact bound
``K ⌊γ S + 1/2⌋`` (``nearest``), ``K γ S`` (``stochastic``) or ``K ⌈γ S⌉``
(``conditional``). The noise of all ``K`` clients (dropouts are not relied
on for the wrap) is, as its mechanism says
(:meth:`~itsa.planning.mechanisms.NoiseMechanism.wrap_noise`), sub-Gaussian
with proxy ``K σ²`` or of Poisson type, with moment generating function
``exp(m (cosh λ − 1))``, ``m`` its variance. The sum ``X`` of the random parts
then has ``P[|X| ≥ t] ≤ 2 exp(−(λ t − v λ²/2 − m (cosh λ − 1)))`` at any
``λ > 0`` (Chernoff; ``λ = t/v`` gives ``2 exp(−t²/(2v))`` when ``m = 0``), and a round the union bound over its ``d'`` coordinates: the
noise part's one tail, :func:`itsa.privacy.tails.certified_tail`.

**Rounding error of the released mean** (summed over the ``d`` coordinates,
in the data's units, for ``n ≥ K_eff`` survivors): undoing the rotation is
orthogonal and keeping ``d`` coordinates a contraction, so

- ``nearest``: a bias of at most ``1/2`` per rotated coordinate and client:
  ``d'/(4γ²)``;
- ``stochastic``: unbiased, independent across coordinates with variance at
  most ``1/4``: ``d/(4γ² n)`` (the rotation maps that diagonal covariance to
  one of trace at most ``d/4`` on the kept coordinates);
- ``conditional``: ``d' min(1/(4 (1 − β)), 1)/(γ² n) + min(d' min(B, 1),
  β/(4 (1 − β)²))/γ²`` with ``B = min(β², β/4)/(1 − β)²`` (the accepted
  rounding's second moment is at most ``1/(1 − β)`` times the unconditioned
  one, and its bias is :func:`~itsa.privacy.neighbours.conditional_rounding_cost`'s
  per coordinate, or :func:`~itsa.privacy.neighbours.conditional_bias`'s in
  total whatever the dimension; every rounded coordinate moves by less than
  1, so neither exceeds 1 per coordinate, whatever ``β``).

Examples
--------
>>> rotated_dimension(1200000, "hadamard"), rotated_dimension(1200001, "dft"), rotated_dimension(5, "none")
(2097152, 1200002, 5)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

import flint

from itsa._util.certified import Certified, Direction, precision, to_arb
from itsa._util.checks import choice, unknown, whole_number
from itsa.exceptions import InvalidOption
from itsa.privacy.neighbours import Rounding, conditional_bias, conditional_rounding_cost

__all__ = ["Rotation", "rotated_dimension", "FLATNESS", "RoundedSum", "rounded_sum",
           "quantization_mse_total", "as_rotation", "ROTATION_ALIASES", "SHORT_NAMES", "flattening_rotation", "erasure_probability"]


class Rotation(StrEnum):
    """The random rotation applied before rounding (public randomness)."""

    NONE = "none"
    HADAMARD = "hadamard"       # randomized Walsh-Hadamard, padded to a power of two
    DFT = "dft"                 # real randomized DFT, padded to an even length


#: The short names of the rotations that flatten (the k-standard-deviations rule's and the frameworks' spelling).
SHORT_NAMES = {Rotation.DFT: "dft", Rotation.HADAMARD: "hd"}
#: Other spellings read as a rotation (the frameworks' ``hd``).
ROTATION_ALIASES = {"hd": Rotation.HADAMARD}

#: ``ρ``: each rotated coordinate of a vector ``y`` is ``ρ ‖y‖²/d'``-sub-Gaussian over the rotation's signs.
FLATNESS = {Rotation.HADAMARD: Fraction(1), Rotation.DFT: Fraction(2)}


def as_rotation(value) -> Rotation:
    """A :class:`Rotation` from its name (or an alias such as ``hd``)."""
    if isinstance(value, str) and value in ROTATION_ALIASES:
        return ROTATION_ALIASES[value]
    return choice("encoding.rotation", value, Rotation)


def flattening_rotation(value) -> Rotation:
    """A rotation that flattens (DFT or Hadamard) from its name or its short name (``dft``, ``hd``).

    >>> flattening_rotation("hd") is Rotation.HADAMARD, flattening_rotation(Rotation.DFT) is Rotation.DFT
    (True, True)
    """
    for rotation, short in SHORT_NAMES.items():
        if value == rotation or value == short:
            return rotation
    raise InvalidOption(unknown("rotation", value, list(SHORT_NAMES.values())))


def rotated_dimension(dimension: int, kind: Rotation | str) -> int:
    """``d'``: the length the rotation works in and every client sends."""
    d = whole_number("dimension", dimension, minimum=1)
    r = as_rotation(kind)
    if r is Rotation.HADAMARD:
        return 1 << (d - 1).bit_length()
    if r is Rotation.DFT:
        return d + d % 2
    return d


@dataclass(frozen=True, kw_only=True)
class RoundedSum:
    """A coordinate of the clients' rotated, rounded sum before noise: ``|sum| ≤ exact + X``, ``X`` sub-Gaussian.

    ``exact`` is what holds surely (the data without a rotation, the rounding's size); ``proxy`` the
    sub-Gaussian variance proxy of the rest (the rotated data, stochastic rounding); ``coordinates``
    the ``d'`` words of a round.
    """

    exact: Fraction
    proxy: Fraction
    coordinates: int
    how: str


def rounded_sum(*, clients: int, gamma: Fraction, clip: Fraction, dimension: int, rotation: Rotation | str,
                rounding: Rounding | str) -> RoundedSum:
    """The range of one coordinate of ``K`` clients' encoded sum (see the module's notes)."""
    r, kind = as_rotation(rotation), choice("rounding", rounding, Rounding)
    k, g, s = clients, Fraction(gamma), Fraction(clip)
    d_rot = rotated_dimension(dimension, r)
    step = {Rounding.NEAREST: Fraction(1, 2), Rounding.STOCHASTIC: Fraction(0), Rounding.CONDITIONAL: Fraction(1)}
    proxy = Fraction(k, 4) if kind is Rounding.STOCHASTIC else Fraction(0)
    if r is Rotation.NONE:
        top: Fraction = {Rounding.NEAREST: Fraction(math.floor(g * s + Fraction(1, 2))), Rounding.STOCHASTIC: g * s,
                         Rounding.CONDITIONAL: Fraction(math.ceil(g * s))}[kind]
        return RoundedSum(exact=k * top, proxy=proxy, coordinates=d_rot,
                          how=f"data |sum| <= K x {kind} bound of gamma S (exact)" +
                          ("; stochastic rounding K/4-sub-Gaussian (Hoeffding)" if proxy else ""))
    data = FLATNESS[r] * (k * g * s) ** 2 / d_rot
    return RoundedSum(exact=k * step[kind], proxy=data + proxy, coordinates=d_rot,
                      how=f"rotated data {FLATNESS[r]} (K gamma S)^2/d'-sub-Gaussian over the {r} rotation's signs; "
                          + {Rounding.NEAREST: "rounding <= K/2 (exact)",
                             Rounding.STOCHASTIC: "stochastic rounding K/4-sub-Gaussian (Hoeffding)",
                             Rounding.CONDITIONAL: "conditional rounding < K (exact)"}[kind])


def quantization_mse_total(*, gamma: Fraction, dimension: int, rotation: Rotation | str, rounding: Rounding | str,
                           survivors: int, beta=None) -> Fraction:
    """The rounding's mean-square error of the released mean, summed over the ``d`` coordinates (exact bound)."""
    g, d = Fraction(gamma), whole_number("dimension", dimension, minimum=1)
    d_rot = rotated_dimension(d, rotation)
    n = whole_number("survivors", survivors, minimum=1)
    kind = choice("rounding", rounding, Rounding)
    if kind is Rounding.NEAREST:
        return Fraction(d_rot) / (4 * g * g)
    if kind is Rounding.STOCHASTIC:
        return Fraction(d) / (4 * g * g * n)
    attempts, bias = conditional_rounding_cost(beta)
    moment = min(attempts / 4, Fraction(1))      # |error| < 1 surely: a second moment and a bias of at most 1
    # the clients' biases add (at most n times one's) and the mean divides by n gamma: one rounding's bias, in
    # squared norm per coordinate (d' B) or in total whatever the dimension (conditional_bias), over gamma^2
    return d_rot * moment / (g * g * n) + min(d_rot * min(bias, Fraction(1)), conditional_bias(beta)) / (g * g)



def erasure_probability(*, gamma: Fraction, clip: Fraction, dimension: int, rotation: Rotation | str,
                        rounding: Rounding | str) -> Certified | None:
    """A lower bound on the probability that rounding to nearest maps a rotated update to zero in every
    coordinate, whatever the update within the clip (``None``: no rotation, or another rounding).

    Each rotated coordinate ``y_i`` of ``γ x`` (``‖x‖ ≤ S``) is ``ρ γ²S²/d'``-sub-Gaussian over the rotation's
    signs (:data:`FLATNESS`), so ``P(|y_i| ≥ 1/2) ≤ 2 exp(−d'/(8 ρ γ² S²))``; rounding to nearest sends ``y_i``
    to 0 when ``|y_i| < 1/2``, and by the union bound over the ``d'`` coordinates the whole update is
    erased with probability at least ``1 − 2 d' exp(−d'/(8 ρ γ² S²))`` (clamped at 0). Rotation spreads an
    update below half a unit in every coordinate once ``γ S`` is small beside ``√d'``: such an encoding
    sends nothing, whatever its error bound says.

    >>> erasure_probability(gamma=Fraction(23911, 1000), clip=Fraction(1), dimension=1200000, rotation="dft",
    ...                     rounding="nearest").decimal(6)
    '0.999999'
    >>> erasure_probability(gamma=Fraction(700), clip=Fraction(1), dimension=1200000, rotation="dft",
    ...                     rounding="nearest").decimal(6)
    '0'
    """
    r, kind = as_rotation(rotation), choice("rounding", rounding, Rounding)
    if r is Rotation.NONE or kind is not Rounding.NEAREST:
        return None
    d_rot = rotated_dimension(dimension, r)
    proxy = FLATNESS[r] * (Fraction(gamma) * Fraction(clip)) ** 2 / d_rot
    with precision():
        miss = 2 * d_rot * (-1 / (8 * to_arb(proxy))).exp()
        ball = (1 - miss).max(flint.arb(0))
    return Certified.from_arb("erasure", ball, Direction.LOWER,
                              f"1 - 2 d' exp(-d'/(8 rho gamma^2 S^2)): every coordinate of the {r}-rotated update "
                              f"below 1/2 (rho {FLATNESS[r]}-sub-Gaussian over the signs, a union bound), "
                              "which rounding to nearest sends to 0")
