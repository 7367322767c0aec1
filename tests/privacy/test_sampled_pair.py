"""The Poisson-sampled Gaussian pair through the certified grid: the exact curve of one round (closed form, in
balls) and of the unsampled Gaussian over T rounds lie between the two sides; dp-accounting's own PLD of the same
pair lies in the certified bracket; the bound is monotone in the rate, the rounds and mu (hypothesis)."""

from fractions import Fraction

import flint
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from itsa._util.certified import arb_to_fractions
from itsa.exceptions import InvalidOption
from itsa.privacy.sampled_pair import sampled_gaussian_delta, sampled_gaussian_epsilon
from itsa.privacy.tight import gaussian_delta, gaussian_tight_epsilon

DELTA = Fraction(1, 10**6)


def _phi(x: flint.arb) -> flint.arb:
    return (-x / flint.arb(2).sqrt()).erfc() / 2


def one_round_delta(mu: Fraction, q: Fraction, eps: Fraction) -> tuple[Fraction, Fraction]:
    """The exact ``max(δ_remove(ε), δ_add(ε))`` of one round, in balls: each loss is monotone in ``x``, so
    ``{L > ε}`` is a half-line of ``x`` and ``δ = P(half-line) − e^ε Q(half-line)``."""
    with flint.ctx.workprec(200):
        m, r, e = (flint.arb(flint.fmpq(v.numerator, v.denominator)) for v in (mu, q, eps))

        def edge(level):            # x with 1 - q + q e^(mu x - mu^2/2) = level
            room = level - (1 - r)
            return None if not room > 0 else ((room / r).log() + m * m / 2) / m

        x = edge(e.exp())           # remove: L > eps for x > x
        remove = (1 - r) * _phi(-x) + r * _phi(m - x) - e.exp() * _phi(-x)
        y = edge((-e).exp())        # add: L > eps for x < y
        add = flint.arb(0) if y is None else _phi(y) - e.exp() * ((1 - r) * _phi(y) + r * _phi(y - m))
        return arb_to_fractions(remove.max(add))


@pytest.mark.parametrize(("mu", "q"), [(Fraction(1, 2), Fraction(1, 20)), (Fraction(2), Fraction(1, 100)),
                                       (Fraction(3, 2), Fraction(1, 2)), (Fraction(1), Fraction(1))])
@pytest.mark.parametrize("eps", [Fraction(0), Fraction(1, 10), Fraction(1), Fraction(3)])
def test_one_round_against_its_closed_form(mu, q, eps):
    exact = one_round_delta(mu, q, eps)
    up = sampled_gaussian_delta(mu=mu, rate=q, rounds=1, epsilon=eps)
    low = sampled_gaussian_delta(mu=mu, rate=q, rounds=1, epsilon=eps, side="lower")
    assert low <= exact[0] and exact[1] <= up
    assert up - exact[1] <= Fraction(1, 10**3) * exact[1] + Fraction(1, 10**12)


@pytest.mark.parametrize(("mu", "rounds"), [(Fraction(1, 2), 1), (Fraction(1, 4), 2), (Fraction(1, 5), 3),
                                            (Fraction(1, 10), 300)])
def test_unsampled_is_the_gaussian_curve(mu, rounds):
    """``q = 1``: the pair is ``N(μ, 1)`` against ``N(0, 1)``, whose ``T`` rounds are ``μ√T``-GDP (Balle-Wang)."""
    exact = gaussian_tight_epsilon(1 / mu, rounds, DELTA)
    up = sampled_gaussian_epsilon(mu=mu, rate=1, rounds=rounds, delta=DELTA)
    low = sampled_gaussian_epsilon(mu=mu, rate=1, rounds=rounds, delta=DELTA, side="lower", resolution=200)
    assert low.upper() <= exact.upper() and exact.lower() <= up.upper()
    assert up.upper() <= exact.upper() * (1 + Fraction(1, 10**3))
    with flint.ctx.workprec(200):      # the grid's delta at the exact eps: at least the curve's
        value = gaussian_delta(flint.arb(rounds).sqrt() * flint.arb(flint.fmpq(mu.numerator, mu.denominator)),
                               flint.arb(flint.fmpq(exact.upper().numerator, exact.upper().denominator)))
    assert arb_to_fractions(value)[0] <= sampled_gaussian_delta(mu=mu, rate=1, rounds=rounds, epsilon=exact.upper(),
                                                                delta_hint=DELTA)


#: (noise multiplier, rate, rounds, delta): a sampled central plan's pair, and two more regimes.
CASES = [(2.390565452347597, 0.05, 300, 1e-6), (1.1, 0.01, 1000, 1e-5), (4.0, 0.2, 50, 1e-8)]


@pytest.mark.parametrize(("z", "q", "rounds", "delta"), CASES)
def test_dp_accountings_pld_lies_in_the_bracket(z, q, rounds, delta):
    """dp-accounting 0.6's PLD accountant on the same Poisson-sampled Gaussian (its pessimistic connect-the-dots
    grid, floats): between the certified lower side and just above the certified upper side."""
    dp = pytest.importorskip("dp_accounting")
    acc = dp.pld.PLDAccountant()
    acc.compose(dp.SelfComposedDpEvent(dp.PoissonSampledDpEvent(q, dp.GaussianDpEvent(z)), rounds))
    theirs = acc.get_epsilon(delta)
    mu, rate, d = 1 / Fraction(z), Fraction(q), Fraction(delta)
    up = sampled_gaussian_epsilon(mu=mu, rate=rate, rounds=rounds, delta=d)
    low = sampled_gaussian_epsilon(mu=mu, rate=rate, rounds=rounds, delta=d, side="lower", resolution=100)
    assert float(low.upper()) <= theirs * (1 + 1e-9)
    assert theirs * (1 - 1e-9) <= float(up.upper()) * (1 + 1e-3) and float(up.upper()) <= theirs * (1 + 1e-3)
    assert float(low.upper()) >= theirs * (1 - 0.05)


def test_the_plan_pair_golden():
    """The sampled central plan's pair (z = 2.390565452347597, q = 1/20, 300 rounds, delta 1e-6): dp-accounting's
    PLD gives 1.7527083371918342 (its RDP 1.8983230479735738), the itsa plan's old sampled Renyi bound 3."""
    up = sampled_gaussian_epsilon(mu=1 / Fraction(2.390565452347597), rate=Fraction(1, 20), rounds=300, delta=DELTA)
    assert Fraction(17527083371918342, 10**16) <= up.upper() <= Fraction(17527083371918342, 10**16) * Fraction(
        10002, 10000)
    assert "upper bound" in str(up.direction) and "connect-the-dots" in up.method


def test_slack_and_refusals():
    base = sampled_gaussian_epsilon(mu=1, rate=Fraction(1, 10), rounds=10, delta=DELTA)
    slacked = sampled_gaussian_epsilon(mu=1, rate=Fraction(1, 10), rounds=10, delta=DELTA, slack=DELTA / 2)
    assert slacked.upper() > base.upper() and "slack" in slacked.method
    with pytest.raises(InvalidOption, match="slack"):
        sampled_gaussian_epsilon(mu=1, rate=Fraction(1, 10), rounds=10, delta=DELTA, slack=DELTA)
    with pytest.raises(InvalidOption):
        sampled_gaussian_epsilon(mu=0, rate=Fraction(1, 10), rounds=10, delta=DELTA)
    with pytest.raises(InvalidOption):
        sampled_gaussian_epsilon(mu=1, rate=0, rounds=10, delta=DELTA)


_mu = st.fractions(min_value=Fraction(1, 4), max_value=2, max_denominator=32)
_rate = st.fractions(min_value=Fraction(1, 100), max_value=1, max_denominator=100)
_rounds = st.integers(min_value=1, max_value=20)


def _bracket(mu, q, t):
    up = sampled_gaussian_epsilon(mu=mu, rate=q, rounds=t, delta=DELTA)
    low = sampled_gaussian_epsilon(mu=mu, rate=q, rounds=t, delta=DELTA, side="lower")
    return low.upper(), up.upper()


@settings(max_examples=12, deadline=None)
@given(_mu, _rate, _rate, _rounds)
def test_monotone_in_the_rate(mu, q1, q2, t):
    q1, q2 = min(q1, q2), max(q1, q2)
    (low1, up1), (_, up2) = _bracket(mu, q1, t), _bracket(mu, q2, t)
    assert low1 <= up2                                  # certified: eps(q1) <= eps(q2)
    assert up1 <= up2 * (1 + Fraction(1, 10**3)) + Fraction(1, 10**6)


@settings(max_examples=12, deadline=None)
@given(_mu, _rate, _rounds, _rounds)
def test_monotone_in_the_rounds(mu, q, t1, t2):
    t1, t2 = min(t1, t2), max(t1, t2)
    (low1, up1), (_, up2) = _bracket(mu, q, t1), _bracket(mu, q, t2)
    assert low1 <= up2
    assert up1 <= up2 * (1 + Fraction(1, 10**3)) + Fraction(1, 10**6)


@settings(max_examples=12, deadline=None)
@given(_mu, _mu, _rate, _rounds)
def test_monotone_in_mu(mu1, mu2, q, t):
    mu1, mu2 = min(mu1, mu2), max(mu1, mu2)
    (low1, up1), (_, up2) = _bracket(mu1, q, t), _bracket(mu2, q, t)
    assert low1 <= up2
    assert up1 <= up2 * (1 + Fraction(1, 10**3)) + Fraction(1, 10**6)
