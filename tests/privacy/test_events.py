"""Every mechanism's event against an independent computation of its Rényi divergence.

The exact Rényi divergence of two shifted noise laws is computed here with
mpmath (discrete Gaussian shares convolved, Skellam from Bessel functions, the
sampled Gaussian's binomial sum of Mironov, Talwar, Zhang 2019): each event's
certified bound must lie above it, and each bound must be the one its paper
states (re-derived here at one point).
"""

import math
from fractions import Fraction

import flint
import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from itsa.exceptions import InvalidOption
from itsa.privacy import (
    Accountant,
    DdgBound,
    DiscreteGaussianEvent,
    DistributedDiscreteGaussianEvent,
    GaussianEvent,
    PoissonSampledEvent,
    PsaLayersEvent,
    SkellamEvent,
    encoded_sensitivity,
    rounded_norm,
)
from itsa.privacy.conversion import profile_epsilon

mpmath.mp.dps = 40


def mp(x):
    """An exact number as an mpmath float."""
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def dg_pmf(sigma, reach):
    """The discrete Gaussian N_Z(0, σ²) on [-reach, reach] (mpmath, normalised over a far wider range)."""
    s2 = mp(sigma) ** 2
    weights = {k: mpmath.exp(-mpmath.mpf(k) ** 2 / (2 * s2)) for k in range(-reach, reach + 1)}
    total = sum(weights.values())
    return {k: w / total for k, w in weights.items()}


def convolve(p, q):
    out = {}
    for a, pa in p.items():
        for b, qb in q.items():
            out[a + b] = out.get(a + b, 0) + pa * qb
    return out


def renyi(p, shift, alpha):
    """D_α(P ‖ P + shift) for a pmf on the integers (terms outside the support omitted: both tails negligible)."""
    total = mpmath.mpf(0)
    for x, px in p.items():
        qx = p.get(x - shift)
        if qx is not None and px > 0 and qx > 0:
            total += px ** alpha * qx ** (1 - alpha)
    return mpmath.log(total) / (alpha - 1)


@pytest.mark.parametrize("sigma, shares", [(Fraction(1, 2), 2), (Fraction(1, 2), 3), (Fraction(3, 4), 2),
                                           (Fraction(1), 4)])
@pytest.mark.parametrize("shift", [1, 2])
def test_the_distributed_discrete_gaussian_bounds_lie_above_the_exact_divergence(sigma, shares, shift):
    one = dg_pmf(sigma, 30)
    total = one
    for _ in range(shares - 1):
        total = convolve(total, one)
    for alpha in (Fraction(3, 2), 2, 3, 6):
        exact = renyi(total, shift, mp(alpha))
        for d, delta2 in ((1, shift), (2, shift * math.sqrt(2))):      # d = 2: the shift on both coordinates
            truth = d * exact
            event = DistributedDiscreteGaussianEvent(sensitivity=Fraction(delta2).limit_denominator(10**12) + Fraction(1, 10**9),
                                                     scale=sigma, survivors=shares, dimension=d,
                                                     l1_sensitivity=d * shift, bound="sharp")
            for branch in event.branches(alpha):
                assert float(branch.upper()) >= float(truth), (alpha, d, branch, truth)
            conservative = DistributedDiscreteGaussianEvent(sensitivity=Fraction(delta2).limit_denominator(10**12)
                                                            + Fraction(1, 10**9), scale=sigma, survivors=shares,
                                                            dimension=d)
            assert float(conservative.rdp(alpha).upper()) >= float(truth)


def test_the_sharp_bound_at_the_shipped_million_client_deployment():
    """k1000000-8bit: γ = 1, S = 1, d = 1000, replace-one, 900,000 survivors, σ = 31561/25000, 150 rounds, δ = 1e-6."""
    sens = encoded_sensitivity(gamma=1, clip=1, dimension=1000, adjacency="replace-one")
    kwargs = dict(sensitivity=sens.arb(), scale=Fraction(31561, 25000), survivors=900_000, dimension=1000)
    conservative = Accountant().compose(DistributedDiscreteGaussianEvent(**kwargs), 150).epsilon(Fraction(1, 10**6))
    sharp = Accountant().compose(DistributedDiscreteGaussianEvent(**kwargs, bound=DdgBound.SHARP), 150)
    assert conservative.epsilon.decimal(6) == "3.99946"
    assert sharp.epsilon(Fraction(1, 10**6)).epsilon.decimal(6) == "1.61401"


class OneBranch:
    """One branch of the sharp bound alone, as a profile (for the issue's reading: τd added once)."""

    integer_orders = False
    warnings = ()

    def __init__(self, event, branch, rounds):
        self.event, self.branch, self.rounds = event, branch, rounds

    def at(self, order):
        return self.rounds * self.event.branches(order)[self.branch]

    def method(self):
        return f"branch {self.branch}"


def test_the_first_branch_alone_gives_the_larger_reading_and_the_minimum_is_below_it():
    sens = encoded_sensitivity(gamma=1, clip=1, dimension=1000, adjacency="replace-one")
    event = DistributedDiscreteGaussianEvent(sensitivity=sens.arb(), scale=Fraction(31561, 25000), survivors=900_000,
                                             dimension=1000, bound="sharp")
    first = profile_epsilon(OneBranch(event, 0, 150), Fraction(1, 10**6)).epsilon
    assert first.decimal(6) == "1.86259"
    whole = Accountant().compose(event, 150).bound(Fraction(1, 10**6), orders=range(2, 257))
    assert whole.order == 15 and whole.epsilon.decimal(6) == "1.61442"      # orders given: only those are tried


def test_the_sharp_bound_is_never_above_the_conservative_one():
    for shares, sigma, d in ((10, 1, 5), (1000, Fraction(3, 5), 100), (2, Fraction(1, 2), 1)):
        a = DistributedDiscreteGaussianEvent(sensitivity=3, scale=sigma, survivors=shares, dimension=d)
        b = DistributedDiscreteGaussianEvent(sensitivity=3, scale=sigma, survivors=shares, dimension=d, bound="sharp")
        for q in (Fraction(11, 10), 2, 7, 100):
            assert b.rdp(q).upper() <= a.rdp(q).upper()


def skellam_pmf(mu, reach):
    """Sk(μ/2, μ/2): P(k) = e^(−μ) I_k(μ), variance μ."""
    mu = mpmath.mpf(mu)
    return {k: mpmath.exp(-mu) * mpmath.besseli(abs(k), mu) for k in range(-reach, reach + 1)}


@pytest.mark.parametrize("mu", [Fraction(1, 2), 2, 10])
@pytest.mark.parametrize("shift", [1, 3])
def test_the_skellam_bound_lies_above_the_exact_divergence(mu, shift):
    pmf = skellam_pmf(mp(mu), 80)
    for alpha in (2, 3, 5, 8):
        exact = renyi(pmf, shift, alpha)
        for d in (1, 2):
            event = SkellamEvent(variance=mu, sensitivity=Fraction(shift * math.sqrt(d)).limit_denominator(10**12)
                                 + Fraction(1, 10**9), l1_sensitivity=d * shift)
            assert float(event.rdp(alpha).upper()) >= float(d * exact), (alpha, d)


def test_the_skellam_bound_is_its_papers_formula_and_whole_orders_only():
    # q D2^2/(2 mu) + min(((2q-1) D2^2 + 6 D1)/(4 mu^2), 3 D1/(2 mu)) at q = 3, D2 = 2, D1 = 4, mu = 10
    expected = Fraction(3 * 4, 20) + min(Fraction(5 * 4 + 24, 400), Fraction(12, 20))
    got = SkellamEvent(variance=10, sensitivity=2, l1_sensitivity=4).rdp(3)
    assert got.lower() <= flint.arb(flint.fmpq(expected.numerator, expected.denominator)).upper()
    assert abs(float(got.mid()) - float(expected)) < 1e-15
    with pytest.raises(InvalidOption, match="whole orders"):
        SkellamEvent(variance=10, sensitivity=2).rdp(Fraction(5, 2))
    bound = Accountant().compose(SkellamEvent(variance=10**4, sensitivity=10, dimension=100), 10).bound("1e-5")
    assert bound.order.denominator == 1 and bound.epsilon.upper() > 0


def sampled_gaussian_exact(rate, z, alpha):
    """Mironov, Talwar, Zhang 2019 (integer α): ln Σ_k C(α,k) (1−q)^(α−k) q^k exp((k²−k)/(2z²)) / (α − 1)."""
    q, z = mp(rate), mp(z)
    total = sum(mpmath.binomial(alpha, k) * (1 - q) ** (alpha - k) * q ** k * mpmath.exp((k * k - k) / (2 * z * z))
                for k in range(alpha + 1))
    return mpmath.log(total) / (alpha - 1)


@pytest.mark.parametrize("rate", [Fraction(1, 100), Fraction(1, 10), Fraction(1, 2)])
@pytest.mark.parametrize("z", [Fraction(1, 2), 1, 4])
def test_the_sampled_bound_lies_above_the_sampled_gaussian(rate, z):
    event = PoissonSampledEvent(event=GaussianEvent(z), rate=rate)
    for alpha in (2, 3, 8, 32):
        bound = event.rdp(alpha)
        assert float(bound.upper()) >= float(sampled_gaussian_exact(rate, z, alpha))
        assert bound.upper() <= GaussianEvent(z).rdp(alpha).upper()      # never above the mechanism's own


def exact_mpf(ball):
    """A ball's upper end (at 128 bits, rounded up), exactly, as an mpmath number."""
    with flint.ctx.workprec(128):
        man, exp = ball.upper().man_exp()
    return mpmath.ldexp(mpmath.mpf(int(man)), int(exp))


def zhu_wang_direct(rate, inner, alpha):
    """Zhu and Wang 2019, Thm 6, summed term by term in mpmath at 60 digits (the inner bound's upper ends)."""
    with mpmath.workdps(60), flint.ctx.workprec(128):
        g = mpmath.mpf(rate.numerator) / rate.denominator
        h = 1 - g
        eps = {ell: exact_mpf(inner.rdp(ell)) for ell in range(2, alpha + 1)}
        total = h ** (alpha - 1) * (alpha * g - g + 1) + mpmath.binomial(alpha, 2) * g**2 * h ** (alpha - 2) * \
            mpmath.exp(eps[2])
        total += sum(3 * mpmath.binomial(alpha, ell) * h ** (alpha - ell) * g**ell * mpmath.exp((ell - 1) * eps[ell])
                     for ell in range(3, alpha + 1))
        return min(mpmath.log(total) / (alpha - 1), eps[alpha])


@pytest.mark.parametrize(("inner", "rate"), [(GaussianEvent(Fraction(77, 100)), Fraction(1, 100)),
                                             (SkellamEvent(variance=50, sensitivity=3), Fraction(1, 3)),
                                             (GaussianEvent(40), Fraction(1, 10**6))])
def test_the_sampled_bound_is_the_theorems_sum(inner, rate):
    """The bound (all searched orders from one product) is the theorem's sum, to 1e-12, never below it."""
    event = PoissonSampledEvent(event=inner, rate=rate)
    for alpha in (2, 3, 17, 256, 320, 600):           # 600: outside the orders computed together
        bound, direct = event.rdp(alpha), zhu_wang_direct(rate, inner, alpha)
        with mpmath.workdps(60):
            assert exact_mpf(bound) >= direct * (1 - mpmath.mpf(10) ** -30)
            assert exact_mpf(bound) <= direct * (1 + mpmath.mpf(10) ** -12)


def test_sampling_amplifies_and_rate_one_changes_nothing():
    base = Accountant().compose(GaussianEvent(2), 100).epsilon("1e-5").epsilon
    sampled = Accountant().compose(PoissonSampledEvent(event=GaussianEvent(2), rate=Fraction(1, 100)), 100)
    assert sampled.epsilon("1e-5").epsilon.upper() < base.upper() / 5
    whole = Accountant().compose(PoissonSampledEvent(event=GaussianEvent(2), rate=1), 100).epsilon("1e-5").epsilon
    assert whole.upper() >= base.upper()       # whole orders only: never better than the continuous search


def test_the_accountant_answers_delta_at_its_own_epsilon():
    acc = Accountant().compose(DistributedDiscreteGaussianEvent(sensitivity=10, scale=2, survivors=100, dimension=50,
                                                                bound="sharp"), 20)
    eps = acc.epsilon(Fraction(1, 10**6)).epsilon.upper()
    assert acc.delta(eps).upper() <= Fraction(11, 10**7)
    assert acc.delta(eps / 2).upper() > Fraction(1, 10**6)
    with pytest.raises(InvalidOption, match="epsilon at a delta only"):
        from itsa.privacy import TightAccountant
        TightAccountant().compose(GaussianEvent(1)).delta(1)


def test_the_central_and_layer_events_are_the_curves_they_replace():
    central = Accountant().compose(DiscreteGaussianEvent(sigma=20, sensitivity=2), 30).epsilon("1e-5")
    plain = Accountant().compose(GaussianEvent(10), 30).epsilon("1e-5").epsilon
    assert abs(central.epsilon.upper() - plain.upper()) < Fraction(1, 10**12)
    layer = DistributedDiscreteGaussianEvent(sensitivity=2, scale=3, survivors=10, dimension=4)
    four = Accountant().compose(PsaLayersEvent(layers={1: layer}, copies=4), 5).bound("1e-6")
    assert four.epsilon.upper() == Accountant().compose(layer, 20).bound("1e-6").epsilon.upper()
    with pytest.raises(InvalidOption, match="no layer"):
        PsaLayersEvent(layers={1: layer}, authorized=[2])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-3, 3, allow_nan=False), min_size=1, max_size=12), st.integers(1, 64),
       st.fractions(Fraction(1, 10), 4))
def test_the_tight_nearest_bound_holds(direction, gamma, clip):
    norm = math.sqrt(sum(x * x for x in direction))
    if norm == 0:
        return
    x = [Fraction(v / norm) * clip for v in direction]          # on the sphere of radius about S
    scaled = [gamma * v for v in x]
    s2 = sum(v * v for v in x)
    if s2 > clip * clip:
        return
    rounded = sum(round(v) ** 2 for v in scaled)
    bound = rounded_norm(gamma=gamma, clip=clip, dimension=len(direction), tight=True).upper()
    assert rounded <= bound * bound
    assert rounded_norm(gamma=gamma, clip=clip, dimension=len(direction)).upper() >= bound


def test_calibrate_inverts_the_accountant_for_any_event():
    from itsa.privacy import calibrate

    def sharp(sigma):
        return DistributedDiscreteGaussianEvent(sensitivity=20, scale=sigma, survivors=100, dimension=50, bound="sharp")

    def conservative(sigma):
        return DistributedDiscreteGaussianEvent(sensitivity=20, scale=sigma, survivors=100, dimension=50)

    found = calibrate(2, "1e-6", rounds=10, event_for=sharp, minimum_scale=Fraction(1, 2),
                      relative_tolerance=Fraction(1, 10**4))
    assert found.epsilon.epsilon.upper() <= 2
    z = found.noise_multiplier.upper()
    assert Accountant().compose(sharp(z * Fraction(99, 100)), 10).epsilon("1e-6").epsilon.upper() > 2
    looser = calibrate(2, "1e-6", rounds=10, event_for=conservative, minimum_scale=Fraction(1, 2),
                       relative_tolerance=Fraction(1, 10**4))
    assert looser.noise_multiplier.upper() >= z
    skellam = calibrate(2, "1e-6", rounds=10, event_for=lambda mu: SkellamEvent(variance=mu, sensitivity=20),
                        relative_tolerance=Fraction(1, 10**4))
    assert skellam.epsilon.epsilon.upper() <= 2 and skellam.epsilon.order.denominator == 1


def test_a_zcdp_event_is_linear_without_xi_and_adds_xi_per_round():
    from itsa.privacy import ZcdpEvent

    plain = Accountant().compose(ZcdpEvent(rho=Fraction(1, 8)), 30).epsilon("1e-5").epsilon
    assert abs(plain.upper() - Accountant().compose(GaussianEvent(2), 30).epsilon("1e-5").epsilon.upper()) < Fraction(
        1, 10**20)
    shifted = Accountant().compose(ZcdpEvent(rho=Fraction(1, 8), xi=Fraction(1, 100)), 30).epsilon("1e-5").epsilon
    assert plain.upper() + Fraction(3, 10) - Fraction(1, 10**6) <= shifted.upper() <= plain.upper() + Fraction(
        3, 10) + Fraction(1, 10**4)
