"""Tight accounting: the exact (ε, δ) curve of composed Gaussian mechanisms, certified; dp-accounting's, as a cross-check.

``T`` rounds of the Gaussian mechanism with noise multiplier ``z`` are
exactly one Gaussian mechanism with ``μ = √T / z`` (μ-GDP), whose privacy
curve is (Balle and Wang, ICML 2018, Theorem 8; Dong, Roth, Su 2022)
``δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ)``. :func:`gaussian_tight_epsilon`
encloses the ``ε`` solving ``δ(ε) = δ`` in a certified interval (bisection
on balls): no valid bound can be below its lower end. The second term is
evaluated as ``e^(−b²/2) erfcx(a/√2)/2`` (``a, b = μ/2 ± ε/μ``, ``erfcx`` the
scaled complementary error function), which stays accurate where ``e^ε`` and
``Φ`` alone overflow the balls (noise multipliers of ``10⁻⁶`` and below), and the
working precision grows with ``log μ``. A bisection whose interval stays wider
than :data:`CONVERGED_WIDTH` says so in its method (``did NOT converge``): its
upper end is still a bound, the interval is not the exact ε.

:func:`dp_accounting_epsilon` asks Google's ``dp-accounting`` (the
``crosscheck`` extra) for the same events, with its RDP or its
privacy-loss-distribution accountant: a float, labelled as such.

Examples
--------
>>> tight = gaussian_tight_epsilon("4.8448", 100, "1e-5")
>>> tight.lower() > 10      # eps sqrt(T) = 10.00 is below the exact epsilon: not a bound
True
>>> tight.decimal(4)
'10.4'
"""

from __future__ import annotations

import math
from fractions import Fraction

import flint

from itsa._util.certified import Certified, Direction, TooLarge, precision, safe_decimal, to_arb
from itsa._util.checks import choice, whole_number
from itsa._util.extras import require
from itsa.exceptions import InvalidOption
from itsa.privacy.conversion import check_delta
from itsa.privacy.rdp import HALF, number

__all__ = ["gaussian_delta", "gaussian_meets", "gaussian_tight_epsilon", "gaussian_exact_multiplier", "converged",
           "dp_accounting_epsilon", "CROSSCHECK_ACCOUNTANTS"]

#: Bisection steps of the tight ε (each halves the interval).
STEPS = 80
#: Doublings of the bracket's upper end tried before giving up.
MAX_DOUBLINGS = 64
#: Working precision (bits) of the curve, before the extra bits that ``log2 μ`` asks for.
BASE_PRECISION = 512
#: Most working precision (bits) the curve is evaluated at (the extra bits grow with ``log2 μ``).
MAX_PRECISION = 1 << 15
#: Relative width below which the bisection counts as converged.
CONVERGED_WIDTH = Fraction(1, 2**40)
#: Said in the method of a tight ε whose bisection did not converge.
NOT_CONVERGED = "did NOT converge"
#: dp-accounting's accountants the cross-check can use.
CROSSCHECK_ACCOUNTANTS = ("rdp", "pld")


def _phi(x: flint.arb) -> flint.arb:
    return (-x / flint.arb(2).sqrt()).erfc() / 2


def _erfcx(x: flint.arb) -> flint.arb:
    """``e^(x²) erfc(x) = U(1/2, 1/2, x²)/√π`` for ``x > 0`` (no overflow for large ``x``)."""
    return (x * x).hypgeom_u(HALF, HALF) / flint.arb.pi().sqrt()


def gaussian_delta(mu: flint.arb, epsilon: flint.arb) -> flint.arb:
    """``δ(ε)`` of μ-GDP: ``Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ)`` (a ball, ``ε ≥ 0``).

    The second term is ``e^(−b²/2) erfcx(a/√2)/2`` with ``a = μ/2 + ε/μ``,
    ``b = μ/2 − ε/μ`` (since ``ε − a²/2 = −b²/2``): the same number, without
    the ``e^ε`` that overflows the balls for small noise multipliers.
    """
    a, b = mu / 2 + epsilon / mu, mu / 2 - epsilon / mu
    return _phi(b) - (-(b * b) / 2).exp() * _erfcx(a / flint.arb(2).sqrt()) / 2


def _bits(mu: flint.arb) -> int:
    """Working precision for ``μ``: :data:`BASE_PRECISION` plus twice ``log2 μ`` (``ε/μ − μ/2`` cancels), capped."""
    man, exp = (int(x) for x in mu.upper().man_exp())
    return min(MAX_PRECISION, BASE_PRECISION + 2 * max(0, exp + man.bit_length()))


def _mu(z, rounds: int) -> flint.arb:
    with precision(BASE_PRECISION):
        return flint.arb(rounds).sqrt() / to_arb(z)


def gaussian_meets(noise_multiplier, epsilon, delta, rounds: int = 1) -> bool:
    """Whether ``rounds`` Gaussian mechanisms at ``noise_multiplier`` are certainly ``(ε, δ)``-DP.

    True only when the ball of the exact curve's ``δ(ε)`` lies at or below
    ``δ`` (Balle and Wang 2018, Theorem 8): a proof, not an estimate.

    >>> gaussian_meets("4.8448", 1, "1e-5"), gaussian_meets("0.0969", 50, "1e-5")
    (True, False)
    """
    z = number("noise multiplier", noise_multiplier)
    whole_number("rounds", rounds, minimum=1)
    eps = number("epsilon", epsilon)
    d = check_delta(delta)
    with precision(_bits(_mu(z, rounds))):
        mu = flint.arb(rounds).sqrt() / to_arb(z)
        return bool(gaussian_delta(mu, to_arb(eps)) <= to_arb(d))


def gaussian_tight_epsilon(noise_multiplier, rounds: int, delta) -> Certified:
    """The exact ``ε`` at ``δ`` of ``rounds`` Gaussian mechanisms, enclosed in a certified interval.

    Notes
    -----
    Balle and Wang, "Improving the Gaussian mechanism for differential
    privacy", ICML 2018, Theorem 8; composition of Gaussians is a Gaussian
    with ``μ = √T / z`` (Dong, Roth, Su, JRSS-B 2022, Corollary 2).
    """
    z = number("noise multiplier", noise_multiplier)
    whole_number("rounds", rounds, minimum=1)
    bits = _bits(_mu(z, rounds))
    with precision(bits):
        d = to_arb(check_delta(delta))
        mu = flint.arb(rounds).sqrt() / to_arb(z)
        low = flint.arb(0)
        if gaussian_delta(mu, low) < d:
            return Certified("epsilon", Fraction(0), Fraction(0), Direction.EXACT, "delta(0) <= delta: eps = 0")
        # at mu^2/2 + mu t, t = sqrt(2 ln(1/delta)): delta(eps) <= Phi(-t) < delta; doubling is a safeguard
        high = flint.arb((1 + mu * mu / 2 + mu * (2 * (1 / d).log()).sqrt()).upper())
        for _ in range(MAX_DOUBLINGS):
            if gaussian_delta(mu, high) < d:
                break
            high *= 2
        else:
            raise TooLarge(f"exact Gaussian curve: delta(eps) cannot be decided at {bits} bits near eps = "
                           f"{safe_decimal(Certified.from_arb('e', high, Direction.UPPER, '').upper(), 3)} "
                           "(noise multiplier too small)")
        why = f"the {STEPS} bisection steps ran out"
        for _ in range(STEPS):
            mid = (low + high) / 2
            value = gaussian_delta(mu, mid)
            if value < d:
                high = mid
            elif value > d:
                low = mid
            else:       # the ball cannot decide: stop with what is certain
                why = "the ball of delta(eps) could not decide"
                break
        ball = low.union(high)
    method = ("exact Gaussian privacy curve, mu = sqrt(T)/z (Balle-Wang 2018, Thm 8), bisection on balls; "
              "the interval brackets the exact eps")
    found = Certified.from_arb("epsilon", ball, Direction.UPPER, method)
    if found.lower() > 0 and found.upper() - found.lower() <= CONVERGED_WIDTH * found.upper():
        return found
    return Certified(found.name, max(found.lower(), Fraction(0)), found.upper(), Direction.UPPER,
                     f"{method}; {NOT_CONVERGED}: {why} at {bits} bits, the "
                     f"interval stayed [{safe_decimal(max(found.lower(), Fraction(0)), 4, up=False)}, "
                     f"{safe_decimal(found.upper(), 4)}]: its upper end is still a bound, not the exact eps")


#: Bisection steps of the exact multiplier (each halves its interval).
MULTIPLIER_STEPS = 60


def gaussian_exact_multiplier(epsilon, delta, rounds: int = 1) -> Certified:
    """The smallest noise multiplier ``z`` at which ``rounds`` Gaussian mechanisms are ``(ε, δ)``-DP, enclosed.

    The exact privacy curve decides each step (Balle and Wang 2018, Theorem 8, at ``μ = √T/z``; ``δ(ε)``
    falls as ``z`` grows): the upper end is a multiplier whose ball of ``δ(ε)`` lies at or below ``δ`` (it
    meets the target), the lower end one whose ball lies above (it does not). No mechanism adding Gaussian
    noise of multiplier below the lower end meets the target: it is the continuous limit a discrete,
    rounded, shared mechanism is measured against.

    Parameters
    ----------
    epsilon, delta : number
        The target, read exactly; ``ε > 0``, ``δ ∈ (0, 1)``.
    rounds : int
        ``T``, the Gaussian mechanisms composed (``μ = √T/z``).

    Returns
    -------
    Certified
        An enclosure of the exact multiplier (relative width about ``2^−50``, or where the balls stop deciding).

    >>> z = gaussian_exact_multiplier(1, "1e-5")
    >>> z.decimal(5), gaussian_meets(z.upper(), 1, "1e-5")
    ('3.7307', True)
    """
    eps = number("epsilon", epsilon)
    if not eps > 0:
        raise InvalidOption(f"epsilon: must be positive, not {safe_decimal(eps, 6)}")
    whole_number("rounds", rounds, minimum=1)
    d = check_delta(delta)
    low, high = Fraction(0), Fraction(1)
    while _decide(high, eps, d, rounds) is not True:
        low, high = high, 2 * high
        if high > 2**MAX_DOUBLINGS:
            raise TooLarge(f"exact Gaussian multiplier: none below 2^{MAX_DOUBLINGS} meets the target")
    for _ in range(MULTIPLIER_STEPS):
        if low > 0 and high - low <= high / 2**50:
            break
        mid = (low + high) / 2
        mid = Fraction(math.ceil(mid * 2**80), 2**80) if mid.denominator > 2**80 else mid
        found = _decide(mid, eps, d, rounds)
        if found is None:       # the ball cannot decide: stop with what is certain
            break
        low, high = (low, mid) if found else (mid, high)
    return Certified("noise multiplier", low, high, Direction.ENCLOSURE,
                     "the exact Gaussian privacy curve at mu = sqrt(T)/z (Balle-Wang 2018, Thm 8), bisection on z "
                     "with balls: the upper end meets the target, the lower end does not")


def _decide(z: Fraction, epsilon: Fraction, delta: Fraction, rounds: int) -> bool | None:
    """Whether ``δ(ε) ≤ δ`` at multiplier ``z`` (``None``: the ball cannot tell; ``z = 0``: no)."""
    if z == 0:
        return False
    with precision(_bits(_mu(z, rounds))):
        value = gaussian_delta(flint.arb(rounds).sqrt() / to_arb(z), to_arb(epsilon))
        goal = to_arb(delta)
        return True if value <= goal else False if value > goal else None


def converged(epsilon: Certified) -> bool:
    """Whether a tight ε's bisection converged: an exact 0, or an interval narrower than :data:`CONVERGED_WIDTH`.

    Parameters
    ----------
    epsilon : Certified
        A tight ε (:func:`gaussian_tight_epsilon`).
    """
    if epsilon.direction is Direction.EXACT:
        return True
    return epsilon.lower() > 0 and epsilon.upper() - epsilon.lower() <= CONVERGED_WIDTH * epsilon.upper()


def dp_accounting_epsilon(noise_multiplier: float, rounds: int, delta: float, accountant: str = "rdp",
                          orders=None) -> float:
    """dp-accounting's ε for ``rounds`` Gaussian mechanisms (a float cross-check, not a certified bound).

    ``accountant`` is ``"rdp"`` (its RDP accountant: the CKS conversion over
    its default orders, or ``orders``) or ``"pld"`` (privacy-loss distributions).
    """
    dpa = require("dp_accounting")
    kind = choice("accountant", accountant, CROSSCHECK_ACCOUNTANTS)
    whole_number("rounds", rounds, minimum=1)
    event = dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(float(noise_multiplier)), rounds)
    if kind == "rdp":
        acc = dpa.rdp.RdpAccountant() if orders is None else dpa.rdp.RdpAccountant(orders=list(orders))
    else:
        acc = dpa.pld.PLDAccountant()
    acc.compose(event)
    return float(acc.get_epsilon(float(delta)))
