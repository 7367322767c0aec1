"""The fixed-size cohort's combined pair (sampling without replacement, replace-one): above the exact curve of
small mechanisms (a population of 2 or 3, a cohort of 1, every placement of the others' updates, 1 and 2 rounds),
the Gaussian pair's own curve at rate 1, and its atom at 0 in closed form."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from itsa.privacy.sampled_fixed import fixed_sampled_epsilon, zero_atom
from itsa.privacy.sampled_pair import sampled_gaussian_epsilon
from itsa.privacy.tight import gaussian_tight_epsilon

GRID = np.linspace(-12.0, 12.0, 4801)


def _law(values: list[float]) -> np.ndarray:
    """The output density on the grid: a cohort of one drawn uniformly, its update plus N(0, 1)."""
    dens = sum(np.exp(-((GRID - v) ** 2) / 2) for v in values) / (len(values) * math.sqrt(2 * math.pi))
    return dens * (GRID[1] - GRID[0])


def _epsilon(p: np.ndarray, q: np.ndarray, delta: float) -> float:
    low, high = 0.0, 30.0
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if np.maximum(p - math.exp(mid) * q, 0).sum() > delta else (low, mid)
    return high


@pytest.mark.parametrize("population", [2, 3])
def test_the_bound_is_above_every_small_mechanism(population):
    """Population N, cohort 1 (gamma = 1/N), updates in [-1/2, 1/2] (replace-one shift 1: mu = 1), the others'
    updates on a grid, the replaced client's at the ends: the exact curve (numerical integration, fine grid) over
    1 and 2 rounds is below the certified one."""
    delta = Fraction(1, 1000)
    rate = Fraction(1, population)
    bound = {t: float(fixed_sampled_epsilon(mu=1, rate=rate, rounds=t, delta=delta).upper()) for t in (1, 2)}
    worst = {1: 0.0, 2: 0.0}
    for others in itertools.product([-0.5, 0.0, 0.5], repeat=population - 1):
        for x, x2 in ((0.5, -0.5), (0.5, 0.0), (0.25, -0.5)):
            p, q = _law([x, *others]), _law([x2, *others])
            worst[1] = max(worst[1], _epsilon(p, q, float(delta)), _epsilon(q, p, float(delta)))
            # two rounds: the product law, on a coarser grid
            pc, qc = p.reshape(-1)[::8], q.reshape(-1)[::8]
            pc, qc = pc / pc.sum(), qc / qc.sum()
            p2, q2 = np.outer(pc, pc).ravel(), np.outer(qc, qc).ravel()
            worst[2] = max(worst[2], _epsilon(p2, q2, float(delta)), _epsilon(q2, p2, float(delta)))
    for t in (1, 2):
        assert worst[t] <= bound[t] + 1e-6, (t, worst[t], bound[t])
    assert bound[1] <= worst[1] * 1.5           # not vacuous: the worst placement is near it


def test_rate_one_is_the_gaussian_pair():
    """gamma = 1: no atom, the pair is the Gaussian's; the grid within 10^-3 of its exact curve (Balle-Wang)."""
    assert zero_atom(1, 1) == 0
    got = fixed_sampled_epsilon(mu=Fraction(1, 2), rate=1, rounds=50, delta=Fraction(1, 10**5)).upper()
    exact = gaussian_tight_epsilon(Fraction(2), 50, Fraction(1, 10**5))
    assert exact.lower() <= got <= exact.upper() * (1 + Fraction(1, 1000))


def test_the_combined_pair_is_at_least_the_poisson_pairs_orders():
    """Its curve is the remove order's for eps >= 0 in one round, and its composition is never below the two-order
    maximum (the atom at 0 only adds rounds of no loss): at or above the Poisson pair of the same mu and rate."""
    for mu, rate, rounds in ((Fraction(1, 2), Fraction(1, 20), 300), (Fraction(2), Fraction(1, 400), 400)):
        fixed = fixed_sampled_epsilon(mu=mu, rate=rate, rounds=rounds, delta=Fraction(1, 10**6)).upper()
        poisson = sampled_gaussian_epsilon(mu=mu, rate=rate, rounds=rounds, delta=Fraction(1, 10**6)).upper()
        assert poisson * (1 - Fraction(1, 10**4)) <= fixed
    one = fixed_sampled_epsilon(mu=2, rate=Fraction(1, 10), rounds=1, delta=Fraction(1, 100)).upper()
    remove = sampled_gaussian_epsilon(mu=2, rate=Fraction(1, 10), rounds=1, delta=Fraction(1, 100)).upper()
    assert abs(one - remove) <= Fraction(1, 1000) * remove


def test_the_bound_is_below_dp_accountings_renyi_for_the_same_sampling():
    """dp-accounting's RdpAccountant (replace-one, SampledWithoutReplacementDpEvent, Wang-Balle-Kasiviswanathan 2019)
    is an upper bound of the same mechanism: the certified grid is below it (about half, here)."""
    dp = pytest.importorskip("dp_accounting")
    a = dp.rdp.RdpAccountant(neighboring_relation=dp.NeighboringRelation.REPLACE_ONE)
    a.compose(dp.SelfComposedDpEvent(dp.SampledWithoutReplacementDpEvent(2000, 100, dp.GaussianDpEvent(2.0)), 300))
    ours = fixed_sampled_epsilon(mu=Fraction(1, 2), rate=Fraction(1, 20), rounds=300, delta=Fraction(1, 10**6))
    assert float(ours.upper()) < a.get_epsilon(1e-6) * 0.6


@pytest.mark.parametrize(("mu", "rate"), [(2, Fraction(1, 10)), (Fraction(1, 3), Fraction(1, 2)), (5, Fraction(99, 100))])
def test_zero_atom_closed_form(mu, rate):
    value = (1 - float(rate)) * (2 * 0.5 * (1 + math.erf(float(mu) / 2 / math.sqrt(2))) - 1)
    assert abs(float(zero_atom(mu, rate)) - value) < 1e-15
