"""(ε, δ) composition without Rényi DP: basic, advanced, the classical Gaussian formula, and ε√T.

- :func:`classical_sigma`: ``σ = √(2 ln(1.25/δ))/ε``, the classical Gaussian
  mechanism (Dwork and Roth 2014, Theorem A.1), proved for ``ε < 1`` only;
  the PCU-FL Table I uses it at ``ε = 50, 10, 1``.
- :func:`basic_composition`: ``(T ε, T δ)`` (Dwork and Roth, Theorem 3.16).
- :func:`advanced_composition`: ``(ε √(2T ln(1/δ')) + T ε (e^ε − 1), T δ + δ')``
  (Dwork, Rothblum, Vadhan 2010; Dwork and Roth, Theorem 3.20).
- :func:`sqrt_rounds_heuristic`: ``ε √T``, a scaling heuristic, never a bound.

Examples
--------
>>> from fractions import Fraction
>>> classical_sigma(50, Fraction(1, 10**5)).decimal(3)
'0.0969'
>>> basic_composition(50, Fraction(1, 10**5), 30)[0].decimal()
'1500'
>>> sqrt_rounds_heuristic(50, 30).direction.value
'heuristic (not a bound)'
"""

from __future__ import annotations

from fractions import Fraction

import flint

from itsa._util.checks import fraction, whole_number
from itsa.privacy.certified import Certified, Direction, precision, to_arb
from itsa.privacy.conversion import check_delta

__all__ = ["classical_sigma", "classical_epsilon", "basic_composition", "advanced_composition",
           "sqrt_rounds_heuristic", "check_epsilon"]

CLASSICAL = "classical Gaussian mechanism sqrt(2 ln(1.25/delta))/eps (Dwork-Roth Thm A.1, proved for eps < 1)"


def check_epsilon(epsilon) -> Fraction:
    """``epsilon`` as an exact Fraction ``> 0`` (one line, exit 2 otherwise)."""
    return fraction("epsilon", epsilon, low=0)


def _classical_numerator(delta: Fraction) -> flint.arb:
    return (2 * (to_arb(Fraction(5, 4) / delta)).log()).sqrt()


def classical_sigma(epsilon, delta) -> Certified:
    """The classical Gaussian noise multiplier ``√(2 ln(1.25/δ))/ε`` (certified; round up = more noise)."""
    eps, d = check_epsilon(epsilon), check_delta(delta)
    with precision():
        ball = _classical_numerator(d) / to_arb(eps)
    note = "" if eps < 1 else "; eps >= 1: outside the theorem's proof, the guarantee must come from an accountant"
    return Certified.from_arb("noise multiplier", ball, Direction.UPPER, CLASSICAL + note)


def classical_epsilon(noise_multiplier, delta) -> Certified:
    """The per-round ε the classical formula assigns to ``σ``: ``√(2 ln(1.25/δ))/σ`` (certified upper)."""
    sigma = fraction("noise multiplier", noise_multiplier, low=0)
    d = check_delta(delta)
    with precision():
        ball = _classical_numerator(d) / to_arb(sigma)
    return Certified.from_arb("epsilon per round", ball, Direction.UPPER,
                              "inverse of the " + CLASSICAL)


def _per_round(epsilon) -> flint.arb:
    if isinstance(epsilon, Certified):
        return to_arb(epsilon.upper())
    return to_arb(check_epsilon(epsilon))


def basic_composition(epsilon, delta, rounds: int) -> tuple[Certified, Fraction]:
    """``T`` rounds of ``(ε, δ)``-DP: ``(T ε, T δ)`` (Dwork and Roth 2014, Theorem 3.16).

    ``epsilon`` may be a :class:`Certified` per-round ε (its upper end is used).
    """
    whole_number("rounds", rounds, minimum=1)
    d = check_delta(delta)
    with precision():
        ball = rounds * _per_round(epsilon)
    return (Certified.from_arb("epsilon", ball, Direction.UPPER, "basic composition T eps (Dwork-Roth Thm 3.16)"),
            rounds * d)


def advanced_composition(epsilon, delta, rounds: int, delta_slack=None) -> tuple[Certified, Fraction]:
    """``T`` rounds of ``(ε, δ)``-DP: ``ε √(2T ln(1/δ')) + T ε (e^ε − 1)`` at ``T δ + δ'``.

    ``delta_slack`` is ``δ'`` (default: ``δ``). Dwork, Rothblum, Vadhan 2010;
    Dwork and Roth 2014, Theorem 3.20.

    >>> advanced_composition(Fraction(1, 10), Fraction(1, 10**5), 100)[0].decimal(4)
    '5.851'
    """
    whole_number("rounds", rounds, minimum=1)
    d = check_delta(delta)
    slack = d if delta_slack is None else check_delta(delta_slack)
    with precision():
        eps = _per_round(epsilon)
        ball = eps * (2 * rounds * (1 / to_arb(slack)).log()).sqrt() + rounds * eps * eps.expm1()
    method = f"advanced composition eps sqrt(2T ln(1/d')) + T eps (e^eps - 1), d' = {slack} (Dwork-Rothblum-Vadhan 2010)"
    return Certified.from_arb("epsilon", ball, Direction.UPPER, method), rounds * d + slack


def sqrt_rounds_heuristic(epsilon, rounds: int) -> Certified:
    """``ε √T``: a scaling heuristic, NOT a composition bound (shown so that it can be compared)."""
    whole_number("rounds", rounds, minimum=1)
    with precision():
        ball = _per_round(epsilon) * flint.arb(rounds).sqrt()
    return Certified.from_arb("epsilon", ball, Direction.HEURISTIC,
                              "eps sqrt(T): a scaling heuristic, not a composition bound")
