"""A fixed-size cohort drawn without replacement, replace-one neighbours: the Gaussian pair's certified ε.

Each round draws exactly ``m`` of the population's ``N`` clients without
replacement (``γ = m/N``); neighbouring datasets replace one client's data
``x`` by ``x'``. Let ``(A, B)`` be a symmetric pair dominating one full
round under replace-one (here the Gaussian pair ``N(μ, 1)``, ``N(0, 1)``,
beside a slack ``δ₀``), ``C = γA + (1 − γ)B``. By advanced joint convexity
(Balle, Barthe, Gaboardi 2018, Thm 2 and the coupling of their Thm 10) one
sampled round has, for every ``α ≥ 1``,
``H_α ≤ h_R(α) = H_α(C‖B)`` (the remove-form pair), and by the relation's
symmetry, for ``α < 1``, ``H_α ≤ h_A(α) = H_α(B‖C)`` (the add form). Two
different pairs: the two-order maximum of the Poisson pair
(:mod:`itsa.privacy.sampled_pair`, where a fixed pair of datasets is one
order in every round) does not apply. Instead, ``h = h_R`` on ``[1, ∞)``
and ``h_A`` on ``[0, 1)`` is the profile of **one** symmetric pair, whose
privacy-loss distribution is

- the remove order's on losses ``> 0`` (the ``P = C`` masses of ``x > μ/2``),
- the add order's on losses ``< 0`` (the ``P = B`` masses of the same ``x``),
- an atom at loss 0 of mass ``m₀ = (1 − γ)(2Φ(μ/2) − 1) ≥ 0``,

so that every round is dominated by it for every ``α`` and ``T`` rounds by its
``T``-fold product (Zhu, Dong, Wang 2022, Thm 10). :func:`fixed_sampled_epsilon`
puts it on :mod:`itsa.privacy.pld_grid`'s certified grid (connect the dots,
masses rounded up, the remove order's tail past the last bin at ``+∞``)
and composes it exactly. The proof is in the privacy page of the docs.

Examples
--------
>>> from fractions import Fraction
>>> e = fixed_sampled_epsilon(mu=Fraction(1, 2), rate=Fraction(1, 20), rounds=300, delta=Fraction(1, 10**6))
>>> e.decimal(4), str(e.direction)      # dp-accounting's RDP (Wang-Balle-Kasiviswanathan 2019): 5.0015
('2.456', 'upper bound')
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

from itsa._util.certified import Certified, Direction, precision, safe_decimal, to_arb
from itsa._util.checks import fraction, whole_number
from itsa.privacy.pld_grid import UPPER, GridPld, grid_from_bins, self_compose, working_bits
from itsa.privacy.sampled_pair import grid_setup, loss_bins, pair_inputs

__all__ = ["fixed_sampled_grid", "fixed_sampled_epsilon", "zero_atom", "METHOD"]

METHOD = ("a fixed-size cohort drawn without replacement, replace-one: each round dominated for alpha >= 1 by "
          "(gamma A + (1 - gamma) B, B) and for alpha < 1 by its reverse (advanced joint convexity, Balle-Barthe-"
          "Gaboardi 2018), one symmetric pair whose privacy-loss distribution is the remove order's above 0, the "
          "add order's below 0 and an atom (1 - gamma)(2 Phi(mu/2) - 1) at 0; composed as a dominating pair "
          "(Zhu-Dong-Wang 2022, Thm 10) on a certified grid (connect the dots, masses rounded up, tails to +inf): "
          "an upper bound")


def zero_atom(mu, rate) -> Fraction:
    """``m₀ = (1 − γ)(2Φ(μ/2) − 1)``, the combined pair's mass at loss 0, rounded up (exact rational).

    >>> float(zero_atom(2, Fraction(1, 10)))            # 0.9 (2 Phi(1) - 1) = 0.9 * 0.682689...
    0.6144205...
    """
    m = fraction("mu", mu, low=0)
    g = fraction("sampling rate", rate, low=0, high=1, closed=True)
    with precision(256):
        value = (1 - to_arb(g)) * (to_arb(m) / (2 * to_arb(2).sqrt())).erf()
        man, exp = (int(v) for v in value.upper().man_exp())
    return Fraction(man) * Fraction(2) ** exp


def fixed_sampled_grid(*, mu, rate, step, first: int, last: int, bits: int) -> GridPld:
    """One round's upper-side grid law of the combined pair (the module's notes), the remove order's losses in
    bins ``first..last`` of step ``h`` (only the positive ones are used).

    Parameters
    ----------
    mu, rate : number
        ``μ > 0`` and ``γ ∈ (0, 1]``.
    step : Fraction
        ``h``, a power of two.
    first, last : int
        The remove order's bins, as :func:`itsa.privacy.sampled_pair.sampled_gaussian_grid`'s.
    bits : int
        The masses' unit ``2^(−bits)``.
    """
    return _grid(fraction("mu", mu, low=0), fraction("sampling rate", rate, low=0, high=1, closed=True),
                 fraction("step", step, low=0), int(first), int(last), whole_number("bits", bits, minimum=8))


@lru_cache(maxsize=16)
def _grid(mu: Fraction, rate: Fraction, step: Fraction, first: int, last: int, bits: int) -> GridPld:
    bins, beyond = loss_bins(mu, rate, step, first, last, bits)
    _, above0, above1, _, _ = beyond
    with precision(working_bits(bits, step)):
        q = to_arb(rate)
        positive = [(j, f0, f1) for j, f0, f1 in bins if j >= 0]        # losses (jh, (j + 1)h], j >= 0: above 0
        chosen = [(j, (1 - q) * f0 + q * f1, f0) for j, f0, f1 in positive]
        chosen += [(-j - 1, f0, (1 - q) * f0 + q * f1) for j, f0, f1 in positive]
        top = (1 - q) * above0 + q * above1            # remove: past the last bin, to +inf
        bottom = above0                                 # add: the same x, losses below -last h: up to it
        atom = to_arb(zero_atom(mu, rate))
    return grid_from_bins(chosen, step=step, bits=bits, side=UPPER, points=[(-last, bottom), (0, atom)],
                          infinity=top)


def fixed_sampled_epsilon(*, mu, rate, rounds: int, delta, slack=0) -> Certified | None:
    """The ε at ``δ`` of ``rounds`` rounds of a fixed-size cohort (rate ``γ = m/N``) whose full round is
    dominated under replace-one by the Gaussian pair of ``μ`` (beside a pair of hockey stick ``slack/T``):
    an upper bound, or ``None`` where the grid's mass at ``+∞`` alone exceeds ``δ − slack``.

    Parameters
    ----------
    mu : number
        ``μ``: the replace-one pair's shift over its standard deviation.
    rate : number
        ``γ ∈ (0, 1]``: the cohort's share of the population.
    rounds : int
        ``T``.
    delta : number
        ``δ`` in ``(0, 1)``.
    slack : number
        ``T δ₀``: the ε is at ``δ − slack``.
    """
    m, g, t, d = pair_inputs(mu, rate, rounds, delta, slack, what="fixed-size cohort")
    eps = _composed(m, g, t, d).epsilon(d)
    if eps is None:
        return None
    note = "" if not slack else f"; at delta - {safe_decimal(fraction('slack', slack), 3)} (the pair's slack)"
    return Certified("epsilon", eps, eps, Direction.UPPER, METHOD + note)


@lru_cache(maxsize=32)
def _composed(mu: Fraction, rate: Fraction, rounds: int, delta: Fraction) -> GridPld:
    step, first, last, bits, budget = grid_setup(mu, rate, rounds, delta)
    return self_compose(_grid(mu, rate, step, first, last, bits), rounds, budget=budget)
