"""Neighbouring data sets and the sensitivity of an encoded update: one home for both.

An update ``x`` of l2 norm at most ``S`` is encoded as ``round(γ x)`` (to
nearest) or rounded stochastically; the integer vector's l2 norm is then at
most:

- ``nearest``: ``γ S + √d/2`` (each coordinate moves by at most 1/2); and, since
  ``|round(y)| ≤ 2|y|`` for every real ``y`` (``|y| < 1/2`` rounds to 0, a tie
  ``|y| = 1/2`` to 0 or 1, and ``|y| > 1/2`` to at most ``|y| + 1/2 < 2|y|``),
  coordinatewise, also ``2 γ S``: the tight bound is ``min(γ S + √d/2, 2 γ S)``
  (:func:`rounded_norm` with ``tight=True``);
- ``stochastic``: ``γ S + √d`` (each coordinate moves by less than 1).

The sensitivity (:func:`encoded_sensitivity`) is that norm for ``add-remove``
and twice it for ``replace-one`` (the difference of two such vectors).

Examples
--------
>>> encoded_sensitivity(gamma=1, clip=1, dimension=1000, adjacency="replace-one").decimal(6)
'33.6228'
>>> rounded_norm(gamma=256, clip="1/8", dimension=10**6, tight=True).decimal(4)
'64'
"""

from __future__ import annotations

from enum import StrEnum

import flint

from itsa._util.certified import Certified, Direction, precision, to_arb
from itsa._util.checks import choice, fraction, whole_number
from itsa.privacy.rdp import number, psa_block_sensitivity

__all__ = ["Adjacency", "Rounding", "l1_from_l2", "rounded_norm", "encoded_sensitivity", "sensitivity_ball", "layer_sensitivity",
           "NEAREST_CERTIFICATE"]


class Adjacency(StrEnum):
    """Which neighbouring data sets the privacy guarantee compares."""

    REPLACE_ONE = "replace-one"     # one client's update replaced by another: sensitivity 2 (gamma S + sqrt(d)/2)
    ADD_REMOVE = "add-remove"       # one client's update added or removed: sensitivity gamma S + sqrt(d)/2


class Rounding(StrEnum):
    """How a scaled update is made whole."""

    NEAREST = "nearest"             # each coordinate moves by at most 1/2
    STOCHASTIC = "stochastic"       # each coordinate moves by less than 1


#: Why ``|round(y)| ≤ 2|y|`` holds for rounding to nearest, coordinate by coordinate.
NEAREST_CERTIFICATE = ("|round(y)| <= 2|y| for every real y (|y| < 1/2 rounds to 0, a tie |y| = 1/2 to at most 1, "
                       "|y| > 1/2 to at most |y| + 1/2 < 2|y|), so ||round(gamma x)|| <= 2 gamma S")


def _norm_ball(gamma, clip, dimension: int, rounding, tight: bool) -> tuple[flint.arb, str]:
    g, s = fraction("gamma", gamma, low=0), fraction("clip S", clip, low=0)
    d = whole_number("dimension", dimension, minimum=1)
    kind = choice("rounding", rounding, Rounding)
    with precision():
        root = flint.arb(d).sqrt()
        ball = to_arb(g * s) + (root / 2 if kind is Rounding.NEAREST else root)
        if tight and kind is Rounding.NEAREST:
            ball = ball.min(to_arb(2 * g * s))
    how = ("gamma S + sqrt(d)/2, rounding to nearest" if kind is Rounding.NEAREST
           else "gamma S + sqrt(d): stochastic rounding moves each coordinate by < 1")
    if tight and kind is Rounding.NEAREST:
        how = f"min(gamma S + sqrt(d)/2, 2 gamma S): {NEAREST_CERTIFICATE}"
    return ball, how


def rounded_norm(*, gamma, clip, dimension: int, rounding: Rounding | str = Rounding.NEAREST,
                 tight: bool = False) -> Certified:
    """The largest l2 norm of the encoded update ``round(γ x)``, ``‖x‖ ≤ S`` (integer units, an upper bound).

    Parameters
    ----------
    gamma : number
        The encoding scale ``γ``.
    clip : number
        ``S``, the l2 clip.
    dimension : int
        ``d``.
    rounding : Rounding or str
        ``nearest`` (``γ S + √d/2``) or ``stochastic`` (``γ S + √d``).
    tight : bool
        For ``nearest``: ``min(γ S + √d/2, 2 γ S)`` (see :data:`NEAREST_CERTIFICATE`).
    """
    ball, how = _norm_ball(gamma, clip, dimension, rounding, tight)
    return Certified.from_arb("encoded norm", ball, Direction.UPPER, how)


def sensitivity_ball(*, gamma, clip, dimension: int, adjacency: Adjacency | str,
                     rounding: Rounding | str = Rounding.NEAREST, tight: bool = False) -> flint.arb:
    """:func:`encoded_sensitivity` as the arb ball it is computed as (for the accountant's events).

    Parameters
    ----------
    gamma, clip, dimension, adjacency, rounding, tight
        As for :func:`encoded_sensitivity`.
    """
    ball, _ = _norm_ball(gamma, clip, dimension, rounding, tight)
    factor = 2 if choice("adjacency", adjacency, Adjacency) is Adjacency.REPLACE_ONE else 1
    with precision():
        return factor * ball


def encoded_sensitivity(*, gamma, clip, dimension: int, adjacency: Adjacency | str,
                        rounding: Rounding | str = Rounding.NEAREST, tight: bool = False) -> Certified:
    """The l2 sensitivity of the integer sum: :func:`rounded_norm`, twice for ``replace-one`` (an upper bound).

    Parameters
    ----------
    gamma, clip, dimension, rounding, tight
        As for :func:`rounded_norm`.
    adjacency : Adjacency or str
        ``add-remove`` or ``replace-one``.
    """
    _, how = _norm_ball(gamma, clip, dimension, rounding, tight)
    twice = choice("adjacency", adjacency, Adjacency) is Adjacency.REPLACE_ONE
    ball = sensitivity_ball(gamma=gamma, clip=clip, dimension=dimension, adjacency=adjacency, rounding=rounding,
                            tight=tight)
    return Certified.from_arb("sensitivity", ball, Direction.UPPER, how + ("; twice for replace-one" if twice else ""))


def layer_sensitivity(*, radix: int, dimension: int, adjacency: Adjacency | str) -> flint.arb:
    """A full-range PSA layer's sensitivity in its digit units: ``(ρ − 1) √d`` (eq. 28), half for add-remove.

    Parameters
    ----------
    radix : int
        ``ρ``.
    dimension : int
        ``d``.
    adjacency : Adjacency or str
        ``replace-one`` (the paper's) or ``add-remove``.
    """
    full = psa_block_sensitivity(1, radix, 1, dimension)
    return full if choice("adjacency", adjacency, Adjacency) is Adjacency.REPLACE_ONE else full / 2


def l1_from_l2(l2, dimension: int) -> flint.arb:
    """An l1 bound for an integer vector from its l2 bound ``Δ₂``: ``min(Δ₂², √d Δ₂)``.

    Every coordinate ``v_i`` of an integer vector has ``|v_i| ≤ v_i²``, so
    ``‖v‖₁ ≤ ‖v‖₂²``; and ``‖v‖₁ ≤ √d ‖v‖₂`` (Cauchy-Schwarz).

    Parameters
    ----------
    l2 : number or arb
        ``Δ₂``.
    dimension : int
        ``d``.
    """
    with precision():
        a = to_arb(number("l2 sensitivity", l2))
        return (a * a).min(flint.arb(whole_number("dimension", dimension, minimum=1)).sqrt() * a)
