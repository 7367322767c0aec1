"""(ε, δ) composition without Rényi DP: basic, advanced, the classical Gaussian formula, and ε√T.

- :func:`classical_sigma`: ``σ = √(2 ln(1.25/δ))/ε``, the classical Gaussian
  mechanism (Dwork and Roth 2014, Theorem A.1), proved for ``ε < 1`` only;
  the PCU-FL Table I uses it at ``ε = 50, 10, 1``. Outside ``ε < 1`` it is
  an upper bound only where the exact Gaussian curve certifies it; otherwise
  it is labelled a heuristic.
- :func:`basic_composition`: ``(T ε, T δ)`` (Dwork and Roth, Theorem 3.16).
- :func:`advanced_composition`: ``(ε √(2T ln(1/δ')) + T ε (e^ε − 1), T δ + δ')``
  (Dwork, Rothblum, Vadhan 2010; Dwork and Roth, Theorem 3.20).
- :func:`sqrt_rounds_heuristic`: ``ε √T``, a scaling heuristic, never a bound.

Both composition theorems turn a per-round guarantee into a total. The
total is ``vacuous`` when its δ (``T δ``, or ``T δ + δ'``) is ``≥ 1``:
every mechanism is ``(ε, 1)``-DP, so it then bounds nothing. Otherwise the
total is an upper bound only when the per-round ε is a certified one (a
:class:`Certified` upper bound, e.g. the exact curve's
:func:`~itsa.privacy.tight.gaussian_tight_epsilon`); from a bare number, or a
conditional or heuristic per-round ε, it is ``conditional``: a bound IF every
round is ``(ε, δ)``-DP.

Examples
--------
>>> from fractions import Fraction
>>> classical_sigma(50, Fraction(1, 10**5)).decimal(3)
'0.0969'
>>> total = basic_composition(50, Fraction(1, 10**5), 30)[0]
>>> total.decimal(), total.direction.value
('1500', 'conditional (premise not certified)')
>>> classical_sigma(50, Fraction(1, 10**5)).direction.value
'heuristic (not a bound)'
>>> sqrt_rounds_heuristic(50, 30).direction.value
'heuristic (not a bound)'
"""

from __future__ import annotations

from fractions import Fraction

import flint

from itsa._util.certified import Certified, Direction, Provenance, exact_text, precision, to_arb
from itsa._util.checks import fraction, whole_number
from itsa.privacy.conversion import check_delta
from itsa.privacy.tight import gaussian_meets

__all__ = ["INVERSE_CLASSICAL", "classical_sigma", "classical_epsilon", "basic_composition", "advanced_composition",
           "sqrt_rounds_heuristic", "check_epsilon", "check_delta_slack"]

CLASSICAL = "classical Gaussian mechanism sqrt(2 ln(1.25/delta))/eps (Dwork-Roth Thm A.1, proved for eps < 1)"
#: The classical formula read backwards: the per-round ε it assigns to a noise multiplier.
INVERSE_CLASSICAL = "inverse of the " + CLASSICAL


def check_epsilon(epsilon) -> Fraction:
    """``epsilon`` as an exact Fraction ``> 0`` (one line, exit 2 otherwise)."""
    return fraction("epsilon", epsilon, low=0)


def check_delta_slack(delta_slack) -> Fraction:
    """``δ'`` of advanced composition as an exact Fraction in ``(0, 1)``, named as such in its one line."""
    return fraction("delta slack (delta')", delta_slack, low=0, high=1)


def _classical_numerator(delta: Fraction) -> flint.arb:
    return (2 * (to_arb(Fraction(5, 4) / delta)).log()).sqrt()


#: What the exact curve says of a classical-formula pair outside the theorem.
UNPROVED = "; eps >= 1: outside the theorem, and the exact Gaussian curve does not certify it: a heuristic"
PROVED_BY_CURVE = "; eps >= 1: outside the theorem, certified by the exact Gaussian curve (Balle-Wang 2018, Thm 8)"


def classical_sigma(epsilon, delta) -> Certified:
    """The classical Gaussian noise multiplier ``√(2 ln(1.25/δ))/ε`` (round up = more noise).

    Parameters
    ----------
    epsilon : number
        The target ε.
    delta : number
        δ in ``(0, 1)``.


    An upper bound (enough noise for ``(ε, δ)``) for ``ε < 1`` by the theorem,
    and for ``ε ≥ 1`` where the exact Gaussian curve certifies it; else a
    heuristic (PCU-FL's ``ε = 50`` and ``10`` rows are of that kind).
    """
    eps, d = check_epsilon(epsilon), check_delta(delta)
    with precision():
        ball = _classical_numerator(d) / to_arb(eps)
    if eps < 1:
        return Certified.from_arb("noise multiplier", ball, Direction.UPPER, CLASSICAL)
    sigma = Certified.from_arb("noise multiplier", ball, Direction.UPPER, CLASSICAL)
    certified = gaussian_meets(sigma.lower(), eps, d)
    return Certified(sigma.name, sigma.low, sigma.high, Direction.UPPER if certified else Direction.HEURISTIC,
                     CLASSICAL + (PROVED_BY_CURVE if certified else UNPROVED))


def classical_epsilon(noise_multiplier, delta) -> Certified:
    """The per-round ε the classical formula assigns to ``σ``: ``√(2 ln(1.25/δ))/σ``.

    Parameters
    ----------
    noise_multiplier : number
        ``σ`` in units of the sensitivity.
    delta : number
        δ in ``(0, 1)``.


    An upper bound where the exact Gaussian curve certifies it (always below
    1, where the theorem holds); else a heuristic.
    """
    sigma = fraction("noise multiplier", noise_multiplier, low=0)
    d = check_delta(delta)
    with precision():
        ball = _classical_numerator(d) / to_arb(sigma)
    eps = Certified.from_arb("epsilon per round", ball, Direction.UPPER, INVERSE_CLASSICAL)
    if gaussian_meets(sigma, eps.upper(), d):
        return Certified(eps.name, eps.low, eps.high, Direction.UPPER,
                         Provenance((INVERSE_CLASSICAL, "certified by the exact Gaussian curve (Balle-Wang 2018, Thm 8)")))
    return Certified(eps.name, eps.low, eps.high, Direction.HEURISTIC,
                     Provenance((INVERSE_CLASSICAL, UNPROVED.removeprefix("; "))))


def _per_round(epsilon) -> tuple[flint.arb, Direction, str]:
    """The per-round ε as a ball, the direction a total built on it has, and the premise it rests on."""
    if isinstance(epsilon, Certified):
        if epsilon.direction in (Direction.UPPER, Direction.EXACT):
            return to_arb(epsilon.upper()), Direction.UPPER, f"per-round eps: {epsilon.method}"
        kind = Direction.HEURISTIC if epsilon.direction is Direction.HEURISTIC else Direction.CONDITIONAL
        return to_arb(epsilon.upper()), kind, f"premise not certified: per-round eps {epsilon.method}"
    return (to_arb(check_epsilon(epsilon)), Direction.CONDITIONAL,
            "premise: every round is (eps, delta)-DP at the given eps (not certified here)")


def _vacuous_at(total_delta: Fraction, direction: Direction, method: str) -> tuple[Direction, str]:
    """A total at ``δ ≥ 1`` bounds nothing (every mechanism is ``(ε, 1)``-DP): labelled vacuous, said why."""
    if total_delta < 1:
        return direction, method
    return Direction.VACUOUS, f"{method}; VACUOUS: its delta {exact_text(total_delta)} >= 1, so it bounds nothing"


def basic_composition(epsilon, delta, rounds: int) -> tuple[Certified, Fraction]:
    """``T`` rounds of ``(ε, δ)``-DP: ``(T ε, T δ)`` (Dwork and Roth 2014, Theorem 3.16).

    Parameters
    ----------
    epsilon : number or Certified
        The per-round ε.
    delta : number
        The per-round δ.
    rounds : int
        ``T``.


    ``epsilon`` may be a :class:`Certified` per-round ε (its upper end is
    used); the total is an upper bound only when that ε is one, and
    ``conditional`` from a bare number (see the module notes). At ``T δ ≥ 1``
    it is ``vacuous``.

    >>> basic_composition(1, Fraction(1, 10**5), 10**6)[0].direction.value
    'vacuous (delta >= 1: bounds nothing)'
    """
    whole_number("rounds", rounds, minimum=1)
    d = check_delta(delta)
    eps, direction, premise = _per_round(epsilon)
    with precision():
        ball = rounds * eps
    kind, method = _vacuous_at(rounds * d, direction, f"basic composition T eps (Dwork-Roth Thm 3.16); {premise}")
    return Certified.from_arb("epsilon", ball, kind, method), rounds * d


def advanced_composition(epsilon, delta, rounds: int, delta_slack=None) -> tuple[Certified, Fraction]:
    """``T`` rounds of ``(ε, δ)``-DP: ``ε √(2T ln(1/δ')) + T ε (e^ε − 1)`` at ``T δ + δ'``.

    Parameters
    ----------
    epsilon : number or Certified
        The per-round ε.
    delta : number
        The per-round δ.
    rounds : int
        ``T``.
    delta_slack : number, optional
        ``δ'`` (default ``δ``).


    ``delta_slack`` is ``δ'`` (default: ``δ``). Dwork, Rothblum, Vadhan 2010;
    Dwork and Roth 2014, Theorem 3.20. At ``T δ + δ' ≥ 1`` the total is ``vacuous``.

    >>> advanced_composition(Fraction(1, 10), Fraction(1, 10**5), 100)[0].decimal(4)
    '5.851'
    """
    whole_number("rounds", rounds, minimum=1)
    d = check_delta(delta)
    slack = d if delta_slack is None else check_delta_slack(delta_slack)
    eps, direction, premise = _per_round(epsilon)
    with precision():
        ball = eps * (2 * rounds * (1 / to_arb(slack)).log()).sqrt() + rounds * eps * eps.expm1()
    method = (f"advanced composition eps sqrt(2T ln(1/d')) + T eps (e^eps - 1), d' = {exact_text(slack)} "
              f"(Dwork-Rothblum-Vadhan 2010); {premise}")
    kind, method = _vacuous_at(rounds * d + slack, direction, method)
    return Certified.from_arb("epsilon", ball, kind, method), rounds * d + slack


def sqrt_rounds_heuristic(epsilon, rounds: int) -> Certified:
    """``ε √T``: a scaling heuristic, NOT a composition bound (shown so that it can be compared).

    Parameters
    ----------
    epsilon : number or Certified
        The per-round ε.
    rounds : int
        ``T``.
    """
    whole_number("rounds", rounds, minimum=1)
    with precision():
        ball = _per_round(epsilon)[0] * flint.arb(rounds).sqrt()
    return Certified.from_arb("epsilon", ball, Direction.HEURISTIC,
                              "eps sqrt(T): a scaling heuristic, not a composition bound")
