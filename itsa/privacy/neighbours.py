"""Neighbouring data sets and the sensitivity of an encoded update: one home for both.

An update ``x`` of l2 norm at most ``S`` is encoded as ``round(γ x)`` (to
nearest) or rounded stochastically; the integer vector's l2 norm is then at
most:

- ``nearest``: ``γ S + √d/2`` (each coordinate moves by at most 1/2); and, since
  ``|round(y)| ≤ 2|y|`` for every real ``y`` (``|y| < 1/2`` rounds to 0, a tie
  ``|y| = 1/2`` to 0 or 1, and ``|y| > 1/2`` to at most ``|y| + 1/2 < 2|y|``),
  coordinatewise, also ``2 γ S``: the tight bound is ``min(γ S + √d/2, 2 γ S)``
  (:func:`rounded_norm` with ``tight=True``);
- ``stochastic``: ``γ S + √d`` (each coordinate moves by less than 1);
- ``conditional``: conditional randomized rounding with its ``β`` (Kairouz,
  Liu, Steinke 2021, the distributed discrete Gaussian paper, Sec. 4.1):
  stochastic rounding repeated until the rounded vector's squared norm is at
  most ``min((γ S + √d)², γ²S² + d/4 + √(2 ln(1/β)) (γ S + √d/2))``; one
  attempt fails with probability at most ``β``, so the bound holds surely
  (nothing is added to δ); what ``β`` costs is at most ``1/(1 − β)`` attempts
  on average and a bias of the rounding (:func:`conditional_rounding_cost`).
  By default ``β = exp(−1/2)`` (:data:`DEFAULT_BETA`, the value TensorFlow
  Federated recommends for conditional rounding), at which
  ``√(2 ln(1/β)) = 1`` exactly; a rational ``β`` is read exactly, and
  ``exp(−λ)`` for a rational ``λ`` is kept as ``ln(1/β) = λ``
  (:class:`ExpBeta`).

The ``dimension`` is the one the update is rounded in: after a rotation, the
padded dimension ``d'`` (a rotation keeps the norm ``γ S``; only the rounding
sees the padding).

The sensitivity (:func:`encoded_sensitivity`) is that norm for ``add-remove``
and twice it for ``replace-one`` (the difference of two such vectors).

Examples
--------
>>> encoded_sensitivity(gamma=1, clip=1, dimension=1000, adjacency="replace-one").decimal(6)
'33.6228'
>>> rounded_norm(gamma=256, clip="1/8", dimension=10**6, tight=True).decimal(4)
'64'
>>> rounded_norm(gamma=700, clip=1, dimension=1200000, rounding="conditional", beta="1/2").decimal(6)
'889.646'
>>> str(DEFAULT_BETA), rounded_norm(gamma=700, clip=1, dimension=1200000, rounding="conditional").decimal(6)
('exp(-1/2)', '889.522')
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

import flint

from itsa._util.certified import Certified, Direction, precision, safe_decimal, to_arb
from itsa._util.checks import choice, fraction, whole_number
from itsa.exceptions import InvalidOption, excerpt
from itsa.privacy.rdp import number, psa_block_sensitivity

__all__ = ["Adjacency", "Rounding", "l1_from_l2", "rounded_norm", "encoded_sensitivity", "sensitivity_ball", "layer_sensitivity",
           "conditional_rounding_cost", "conditional_bias", "conditional_rejection", "CAP_MARGIN", "NEAREST_CERTIFICATE", "DEFAULT_BETA", "ExpBeta", "as_beta",
           "MAX_LOG_INVERSE"]


@dataclass(frozen=True)
class ExpBeta:
    """``β = exp(−λ)`` for a rational ``λ > 0``, kept exactly as ``ln(1/β) = λ`` (``exp(-1/2)``: ``λ = 1/2``).

    Parameters
    ----------
    log_inverse : Fraction
        ``λ = ln(1/β)``.
    """

    log_inverse: Fraction

    def __post_init__(self) -> None:
        object.__setattr__(self, "log_inverse", fraction("beta: ln(1/beta)", self.log_inverse, low=0))

    def __str__(self) -> str:
        return f"exp(-{self.log_inverse})"

    def ball(self) -> flint.arb:
        """``β`` as a certified ball."""
        with precision():
            return (-to_arb(self.log_inverse)).exp()

    def upper(self) -> Fraction:
        """A rational upper bound on ``β`` below 1 (9 significant digits, rounded up: within ``10⁻⁸`` of ``β``;
        the ball's own upper end when those digits would reach 1)."""
        high = Certified.from_arb("beta", self.ball(), Direction.UPPER, str(self)).upper()
        short = Fraction(safe_decimal(high, 9))
        if short < 1:
            return short
        if high < 1:
            return Fraction(high)
        raise InvalidOption(f"beta: {excerpt(str(self))} is too close to 1 to bound conditional rounding's retries")


#: ``β`` of conditional randomized rounding when none is given: ``exp(−1/2)``, where ``√(2 ln(1/β)) = 1``
#: (at most ``1/(1 − e^(−1/2)) < 2.55`` attempts on average).
DEFAULT_BETA = ExpBeta(Fraction(1, 2))

_EXP = re.compile(r"^\s*exp\s*\((.*)\)\s*$", re.S)
#: Largest ``λ`` of ``β = exp(−λ)`` read: a smaller ``β`` only loosens the norm bound (``√(2 ln(1/β))`` grows), and
#: a rational ``β`` of at most 400 digits stops near ``λ = 921`` anyway.
MAX_LOG_INVERSE = 10**4


def as_beta(value) -> Fraction | ExpBeta:
    """``β`` of conditional rounding, read exactly: a rational in ``(0, 1)``, or ``exp(-λ)`` (text or
    :class:`ExpBeta`) for a rational ``λ`` in ``(0, MAX_LOG_INVERSE]``; ``None`` is :data:`DEFAULT_BETA`.

    >>> as_beta("exp(-1/2)") == DEFAULT_BETA, as_beta("1/2"), as_beta("exp(-1e-3)").log_inverse
    (True, Fraction(1, 2), Fraction(1, 1000))
    >>> as_beta("exp(1)")
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOption: beta: 'exp(1)' is not below 1: write exp(-lambda) with a rational lambda > 0, such as exp(-1/2)
    """
    if value is None:
        return DEFAULT_BETA
    if isinstance(value, ExpBeta):
        return value
    if isinstance(value, str) and (m := _EXP.match(value)):
        inner = m.group(1).strip()
        if not inner.startswith("-"):
            raise InvalidOption(f"beta: {excerpt(value)} is not below 1: write exp(-lambda) with a rational "
                                "lambda > 0, such as exp(-1/2)")
        lam = fraction("beta: lambda of exp(-lambda)", inner[1:], low=0)
        if lam > MAX_LOG_INVERSE:
            raise InvalidOption(f"beta: exp(-lambda) with lambda at most {MAX_LOG_INVERSE} (a smaller beta only "
                                f"loosens the norm bound), not {excerpt(value)}")
        beta = ExpBeta(lam)
        beta.upper()                            # a beta too close to 1 is refused here, where it is read
        return beta
    return fraction("beta", value, low=0, high=1)


class Adjacency(StrEnum):
    """Which neighbouring data sets the privacy guarantee compares."""

    REPLACE_ONE = "replace-one"     # one client's update replaced by another: sensitivity 2 (gamma S + sqrt(d)/2)
    ADD_REMOVE = "add-remove"       # one client's update added or removed: sensitivity gamma S + sqrt(d)/2


class Rounding(StrEnum):
    """How a scaled update is made whole."""

    NEAREST = "nearest"             # each coordinate moves by at most 1/2
    STOCHASTIC = "stochastic"       # each coordinate moves by less than 1
    CONDITIONAL = "conditional"     # stochastic, retried until the norm is within the beta bound


#: Why ``|round(y)| ≤ 2|y|`` holds for rounding to nearest, coordinate by coordinate.
NEAREST_CERTIFICATE = ("|round(y)| <= 2|y| for every real y (|y| < 1/2 rounds to 0, a tie |y| = 1/2 to at most 1, "
                       "|y| > 1/2 to at most |y| + 1/2 < 2|y|), so ||round(gamma x)|| <= 2 gamma S")


def _log_inverse(beta: Fraction | ExpBeta) -> flint.arb:
    """``ln(1/β)`` as a ball (exact for ``exp(-λ)``)."""
    with precision():
        if isinstance(beta, ExpBeta):
            return to_arb(beta.log_inverse)
        if beta < Fraction(1, 2):               # 1 - beta would round to 1 for a tiny beta (ln 0: nan)
            return -to_arb(beta).log()
        return -(-to_arb(1 - beta)).log1p()     # ln(1/beta) = -ln(1 - (1 - beta)): no cancellation near 1


def _norm_ball(gamma, clip, dimension: int, rounding, tight: bool, beta=None) -> tuple[flint.arb, str]:
    g, s = fraction("gamma", gamma, low=0), fraction("clip S", clip, low=0)
    d = whole_number("dimension", dimension, minimum=1)
    kind = choice("rounding", rounding, Rounding)
    with precision():
        root = flint.arb(d).sqrt()
        ball = to_arb(g * s) + (root / 2 if kind is Rounding.NEAREST else root)
        if tight and kind is Rounding.NEAREST:
            ball = ball.min(to_arb(2 * g * s))
        if kind is Rounding.CONDITIONAL:
            gs = to_arb(g * s)
            square = gs * gs + flint.arb(d) / 4 + (2 * _log_inverse(as_beta(beta))).sqrt() * (gs + root / 2)
            ball = ball.min(square.sqrt())
    if kind is Rounding.CONDITIONAL:
        how = (f"min(gamma S + sqrt(d), sqrt(gamma^2 S^2 + d/4 + sqrt(2 ln(1/beta)) (gamma S + sqrt(d)/2))), "
               f"beta = {as_beta(beta)}: conditional randomized rounding retries until the norm is within it "
               "(Kairouz-Liu-Steinke 2021, Sec. 4.1)")
    else:
        how = ("gamma S + sqrt(d)/2, rounding to nearest" if kind is Rounding.NEAREST
               else "gamma S + sqrt(d): stochastic rounding moves each coordinate by < 1")
    if tight and kind is Rounding.NEAREST:
        how = f"min(gamma S + sqrt(d)/2, 2 gamma S): {NEAREST_CERTIFICATE}"
    return ball, how


def conditional_rounding_cost(beta=None) -> tuple[Fraction, Fraction]:
    """What ``β`` costs conditional randomized rounding: ``(attempts, bias)``, both upper bounds (rationals).

    - ``attempts``: one attempt is accepted with probability at least ``1 − β``, so at most ``1/(1 − β)``
      attempts on average;
    - ``bias``: the accepted rounding's mean is off the scaled update by at most ``bias · d`` in squared
      norm, ``bias = min(β², β/4)/(1 − β)²`` (``‖E[e 1_fail]‖ ≤ min(√d β, √(d β/4))`` by Cauchy-Schwarz, each
      coordinate's error below 1 in size and ``1/4`` in variance; divided by ``P(accept) ≥ 1 − β``).

    Nothing is added to δ: the retries make the norm bound hold surely. Both grow with ``β``: an irrational
    ``β = exp(−λ)`` is read at its rational upper bound (:meth:`ExpBeta.upper`).

    >>> conditional_rounding_cost("1/2")
    (Fraction(2, 1), Fraction(1, 2))
    >>> [safe_decimal(x, 6) for x in conditional_rounding_cost()]       # exp(-1/2)
    ['2.5415', '0.979425']
    """
    given = as_beta(beta)
    b = given.upper() if isinstance(given, ExpBeta) else given
    return 1 / (1 - b), min(b * b, b / 4) / (1 - b) ** 2


def conditional_bias(beta=None) -> Fraction:
    """A bound on the squared norm of one conditional rounding's bias, whatever the dimension (a rational).

    The accepted rounding ``r`` is the stochastic rounding ``R`` conditioned on acceptance ``A``
    (``P(A^c) = q ≤ β``), so its mean is off ``E R`` (the scaled update) by
    ``E[(R − E R) 1_A]/P(A) = −E[(R − E R) 1_(A^c)]/P(A)``. For a unit vector ``u``, ``⟨u, R − E R⟩`` has
    variance ``Σ u_i² f_i (1 − f_i) ≤ 1/4`` (independent coordinates), so by Cauchy-Schwarz
    ``E[⟨u, R − E R⟩ 1_(A^c)] ≤ √q/2``; the supremum over ``u`` is the bias's norm:
    ``‖bias‖ ≤ √q/(2(1 − q)) ≤ √β/(2(1 − β))``, a squared norm of at most ``β/(4(1 − β)²)``.

    >>> conditional_bias("1/2")
    Fraction(1, 2)
    """
    given = as_beta(beta)
    b = given.upper() if isinstance(given, ExpBeta) else given
    return b / (4 * (1 - b) ** 2)


#: The relative margin :func:`conditional_rejection` leaves below the cap: an implementation that tests the
#: squared norm against a cap rounded down (a float sum, a float32 ``β``) rejects no more often than bounded.
CAP_MARGIN = Fraction(1, 10**9)


def conditional_rejection(*, gamma, clip, dimension: int, beta=None) -> Fraction:
    """An upper bound on the probability that one attempt of conditional rounding is rejected (a rational).

    Write ``a = γ x`` (``‖a‖ ≤ γ S``), ``a_i = n_i + f_i`` (``n_i = ⌊a_i⌋``) and the attempt
    ``u_i = n_i + B_i``, ``B_i`` Bernoulli(``f_i``). Then ``u_i² − a_i² = (2n_i + 1)(B_i − f_i) + f_i(1 − f_i)``:
    a mean of at most ``1/4`` and a zero-mean part in an interval of length ``|2n_i + 1| ≤ 2|a_i| + 1``,
    ``(n_i + 1/2)²``-sub-Gaussian (Hoeffding's lemma), independent over ``i``. The proxies sum to at most
    ``‖a‖² + ‖a‖₁ + d/4 ≤ (‖a‖ + √d/2)² ≤ P²``, ``P = γ S + √d/2`` (``‖a‖₁ ≤ √d ‖a‖``), so an attempt whose
    squared norm is tested against ``C`` is rejected with probability at most ``exp(−t²/(2P²))``,
    ``t = C − γ²S² − d/4``. At the cap of :func:`rounded_norm`, ``t = √(2 ln(1/β)) P`` and the bound is ``β``
    (Kairouz, Liu, Steinke 2021, Sec. 4.1); here ``C`` is the cap less a relative :data:`CAP_MARGIN`, so the
    bound is ``β`` raised by a relative few parts in 10⁶ at most (where the cap is the sure bound
    ``(γ S + √d)²``, smaller, the bound at that ``C``). Rounded up to 7 significant digits.

    A second bound holds at every cap, and is what counts near the sure one: ``‖u‖ ≤ ‖a‖ + ‖u − a‖ ≤ γ S +
    ‖u − a‖``, so a rejection (``‖u‖² > C``) needs ``Σ X_i > m``, ``X_i = (u_i − a_i)² ∈ [0, 1]``,
    ``m = (√C − γ S)²`` (``√C > γ S``). The ``X_i`` are independent with mean ``f_i(1 − f_i) ≤ 1/4``, so by
    Hoeffding's inequality the rejection is at most ``exp(−2 (m − d/4)²/d)`` when ``m > d/4``. Near the sure
    cap, ``κ = d − m < 3/4``: as every ``X_i ≤ 1``, ``Σ X_i > d − κ`` needs every ``X_i > 1 − κ``, i.e. each
    coordinate rounded to the far side at distance over ``√(1 − κ)``, which has probability at most
    ``η = 1 − √(1 − κ)`` (that side's probability is ``f_i`` or ``1 − f_i``, at most ``η`` there): the
    rejection is at most ``η^d``. At a cap at the sure bound ``(γ S + √d)²`` less the margin ``κ`` is about
    ``10⁻⁹ √d (γ S + √d)``: such a cap never rejects but with a probability far below any δ, and the coupling
    keeps its failure. The smallest of the bounds is returned.

    >>> conditional_rejection(gamma=700, clip=1, dimension=1200000, beta="1/1000")
    Fraction(1000003, 1000000000)
    >>> float(conditional_rejection(gamma=700, clip=1, dimension=1200000, beta="exp(-32)")) < 1.27e-14
    True
    """
    g, s = fraction("gamma", gamma, low=0), fraction("clip S", clip, low=0)
    d = whole_number("dimension", dimension, minimum=1)
    given = as_beta(beta)
    with precision():
        gs, root = to_arb(g * s), flint.arb(d).sqrt()
        sure = (gs + root) ** 2
        square = gs * gs + flint.arb(d) / 4 + (2 * _log_inverse(given)).sqrt() * (gs + root / 2)
        tested = square.min(sure) * (1 - to_arb(CAP_MARGIN))
        proxy = gs + root / 2
        t = tested - gs * gs - flint.arb(d) / 4
        bound = (-(t * t) / (2 * proxy * proxy)).exp() if t > 0 else flint.arb(1)
        if tested.sqrt() > gs:                  # the sure-side bounds, on the rounding errors (the notes)
            m = (tested.sqrt() - gs) ** 2
            excess, kappa = m - flint.arb(d) / 4, flint.arb(d) - m
            if excess > 0:
                bound = bound.min((-2 * excess * excess / d).exp())
            if kappa < flint.arb(3) / 4:
                eta = 1 - (1 - kappa.max(flint.arb(0))).sqrt()
                bound = bound.min(eta ** d)
        if not bound < 1:
            return Fraction(1)
    high = Certified.from_arb("rejection", bound, Direction.UPPER, "").upper()
    return min(Fraction(safe_decimal(high, 7)), Fraction(1))


def rounded_norm(*, gamma, clip, dimension: int, rounding: Rounding | str = Rounding.NEAREST,
                 tight: bool = False, beta=None) -> Certified:
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
        ``nearest`` (``γ S + √d/2``), ``stochastic`` (``γ S + √d``) or ``conditional`` (with ``beta``).
    tight : bool
        For ``nearest``: ``min(γ S + √d/2, 2 γ S)`` (see :data:`NEAREST_CERTIFICATE`).
    beta : number, str or ExpBeta, optional
        ``β`` of conditional rounding (:func:`as_beta`; default :data:`DEFAULT_BETA`, ``exp(-1/2)``).
    """
    ball, how = _norm_ball(gamma, clip, dimension, rounding, tight, beta)
    return Certified.from_arb("encoded norm", ball, Direction.UPPER, how)


def sensitivity_ball(*, gamma, clip, dimension: int, adjacency: Adjacency | str,
                     rounding: Rounding | str = Rounding.NEAREST, tight: bool = False, beta=None) -> flint.arb:
    """:func:`encoded_sensitivity` as the arb ball it is computed as (for the accountant's events).

    Parameters
    ----------
    gamma, clip, dimension, adjacency, rounding, tight, beta
        As for :func:`encoded_sensitivity`.
    """
    ball, _ = _norm_ball(gamma, clip, dimension, rounding, tight, beta)
    factor = 2 if choice("adjacency", adjacency, Adjacency) is Adjacency.REPLACE_ONE else 1
    with precision():
        return factor * ball


def encoded_sensitivity(*, gamma, clip, dimension: int, adjacency: Adjacency | str,
                        rounding: Rounding | str = Rounding.NEAREST, tight: bool = False, beta=None) -> Certified:
    """The l2 sensitivity of the integer sum: :func:`rounded_norm`, twice for ``replace-one`` (an upper bound).

    Parameters
    ----------
    gamma, clip, dimension, rounding, tight, beta
        As for :func:`rounded_norm`.
    adjacency : Adjacency or str
        ``add-remove`` or ``replace-one``.
    """
    _, how = _norm_ball(gamma, clip, dimension, rounding, tight, beta)
    twice = choice("adjacency", adjacency, Adjacency) is Adjacency.REPLACE_ONE
    ball = sensitivity_ball(gamma=gamma, clip=clip, dimension=dimension, adjacency=adjacency, rounding=rounding,
                            tight=tight, beta=beta)
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
