"""The exact Poisson and Skellam samplers: the inversion table, the envelope and its series against arb, the law
enumerated, chi-square against the exact pmfs, the exact paths alone, determinism, refusals."""

from fractions import Fraction

import flint
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from itsa._util.certified import precision, to_arb
from itsa.exceptions import InvalidOption
from itsa.privacy.samplers import BLOCK, DiscreteGaussianLaw, discrete_gaussian, poisson, skellam
from itsa.privacy.samplers import _poisson as P
from tests.privacy.samplers._chi import chi_square

#: Means of the rejection engine: just past the inversion, a Skellam share of variance 10^6, k1000-like shares, the top.
LARGE = [Fraction(2**16 + 1, 1) + Fraction(1, 4), Fraction(10**6 + 1, 2), Fraction(3 * 10**12, 2), P.MAX_MEAN]


def _log_p(lam: Fraction, k: int) -> flint.arb:
    lam_b = to_arb(lam)
    return k * lam_b.log() - lam_b - flint.arb(k + 1).lgamma()


# -- inversion -------------------------------------------------------------------------------------

@pytest.mark.parametrize("lam", [Fraction(1, 3), Fraction(5, 4), Fraction(10), Fraction(2001, 2)])
def test_the_inversion_table_is_the_cdfs_floors(lam):
    """L[i] = floor(2^64 F(K + i)) with F summed from the pmf's exact terms (not the incomplete gamma), F(K-1) < 2^-64,
    and the table ends at the first 2^64 - 1."""
    start, table = P.inversion_table(lam)
    with precision(400):
        lam_b, total, term = to_arb(lam), flint.arb(0), (-to_arb(lam)).exp()
        floors = []
        for k in range(start + len(table)):
            total += term
            term = term * lam_b / (k + 1)
            floors.append(int((total * flint.arb(2) ** 64).floor().unique_fmpz()))
    assert floors[start:] == table.tolist() and floors[start - 1:start] in ([], [0])
    assert table[-1] == 2**64 - 1 and (len(table) == 1 or table[-2] < 2**64 - 1)


def test_the_table_starts_below_the_mean_where_the_cdf_is_below_2_to_the_minus_64():
    start, table = P.inversion_table(Fraction(2**16))
    assert 2**16 - 11 * 256 < start < 2**16 - 9 * 256 and len(table) < 20 * 256
    assert P.cdf_ball(Fraction(2**16), start - 1, 200) < flint.arb(2) ** -64


class Words:
    """A stream whose first words are given and whose refinements are all 0 (so ``U = w/2⁶⁴`` exactly)."""

    def __init__(self, first):
        self.first = np.array(first, dtype=np.uint64)

    def words(self, n):
        return self.first[:n]

    def word(self):
        return 0


@pytest.mark.parametrize("lam", [Fraction(3001), Fraction(7, 2)], ids=str)
def test_undecided_words_are_searched_exactly(lam):
    """Words equal to a threshold, 0 (below the table) and 2^64 - 1 (above it) go to the exact search, which gives
    the least k with U < F(k); the decided words give the same k."""
    start, table = P.inversion_table(lam)
    words = [int(table[len(table) // 2]), 0, 2**64 - 1, int(table[0]) + 1, 12345]
    got = P._inversion_round(lam, Words(words), len(words))
    with precision(300):
        for w, k in zip(words, got.tolist()):
            u = to_arb(Fraction(w, 2**64))
            assert P.cdf_ball(lam, k, 300) > u and (k == 0 or P.cdf_ball(lam, k - 1, 300) < u), (w, k)


# -- the envelope ----------------------------------------------------------------------------------

@pytest.mark.parametrize("lam", LARGE, ids=lambda x: f"{float(x):.3g}")
def test_the_envelope_dominates_and_x_hat_is_within_its_bound(lam):
    """x = A - log p(c + j) - v >= 0 (the envelope dominates) and |x̂ - x| <= err on |j| < 16t (the fast path's claim),
    against 300-bit balls, at rows spread over the fast range and at its ends."""
    env = P.envelope(lam)
    t, c = env.t, env.c
    rng = np.random.default_rng(1)
    js = sorted({0, 1, -1, t, -t, 16 * t - 1, -(16 * t - 1)} | set(rng.integers(-16 * t + 1, 16 * t, 120).tolist())
                | set(rng.integers(-3 * t, 3 * t, 80).tolist()))
    j = np.array(js, dtype=np.int64)
    v = np.abs(j) // t
    xs = P.x_hat(env, j, v)
    with precision(300):
        for ji, vi, xi in zip(js, v.tolist(), xs.tolist()):
            x = to_arb(env.a) - _log_p(lam, c + ji) - vi
            assert x >= 0, (lam, ji)
            assert abs(x - to_arb(Fraction(xi))) < to_arb(Fraction(env.err)), (lam, ji)
            assert abs(x - to_arb(Fraction(xi))) < flint.arb(2) ** -36 + to_arb(Fraction(env.err - P.FLOAT_ERR))


@settings(max_examples=40, deadline=None)
@given(numerator=st.integers(2**16 * 7 + 1, 2**62), position=st.floats(-1, 1))
def test_x_hat_is_within_its_bound_at_any_mean_property(numerator, position):
    """At a random mean lambda = numerator/7 past 2^16 and a random row of the fast range: x >= 0 and |x̂ - x| < err."""
    lam = Fraction(numerator, 7)
    env = P.envelope(lam)
    j = int(position * (16 * env.t - 1))
    xs = P.x_hat(env, np.array([j], dtype=np.int64), np.array([abs(j) // env.t], dtype=np.int64))
    with precision(300):
        x = to_arb(env.a) - _log_p(lam, env.c + j) - abs(j) // env.t
        assert x >= 0 and abs(x - to_arb(Fraction(float(xs[0])))) < to_arb(Fraction(env.err))


@pytest.mark.parametrize("lam", [LARGE[0], Fraction(200001, 3)])
def test_the_envelope_dominates_everywhere_not_only_on_the_fast_range(lam):
    """log p(k) + |k - c|/t <= A at every k from 0 to 4 lambda (a stride, and every k near the two peaks)."""
    env = P.envelope(lam)
    peaks = [int(lam * np.exp(s / env.t)) for s in (1, -1)]
    ks = set(range(0, 4 * int(lam), 37)) | {k for p in peaks for k in range(p - 50, p + 50)}
    with precision(200):
        a = to_arb(env.a)
        worst = max((_log_p(lam, k) + flint.arb(abs(k - env.c)) / env.t - a).upper() for k in ks)
    assert worst <= 0 and worst > -1e-3            # the bound holds and is nearly reached (an efficient envelope)


@pytest.mark.parametrize("lam", [LARGE[0], Fraction(10**6 + 1, 2)])
def test_accepted_law_is_the_target_enumerated(lam):
    """P(proposal gives k) P(accept | k) / p(k) is one constant over every k within 5t of the centre (exact balls):
    the proposal u uniform below t, P(v) = (1 - e^-1) e^-v, a fair sign, (negative, 0) dropped; the sampler's own
    acceptance ball."""
    env = P.envelope(lam)
    t, c = env.t, env.c
    with precision(200):
        def ratio(j):
            v = abs(j) // t
            proposal = flint.arb(1) / t * (1 - (-flint.arb(1)).exp()) * (-flint.arb(v)).exp() / 2
            return proposal * P.acceptance(env, c + j, v)(200) / _log_p(lam, c + j).exp()
        r0 = ratio(0)
        for j in list(range(-5 * t, 5 * t + 1, max(1, t // 40))) + [1, -1, t - 1, t, -t]:
            assert abs(ratio(j) / r0 - 1) < flint.arb(2) ** -120, (lam, j)


def test_the_series_degree_follows_the_mean_and_the_constants_are_as_the_proof_takes_them():
    """N = 8 just past 2^16, 6 at a variance of 10^6, 3 at k1000-like shares; err < 2^-20; |K0| < 1 (Lemma 8)."""
    envs = [P.envelope(lam) for lam in LARGE]
    assert [len(e.h_coefficients) + 1 for e in envs] == [8, 6, 3, 3]
    assert all(e.err < 2.0**-20 and abs(e.k0) < 1 and (16 * e.t + 1) / float(e.lam) < 0.063 for e in envs)


# -- the laws, by chi-square -----------------------------------------------------------------------

def poisson_pmf(lam: Fraction):
    def pmf(k: int) -> float:
        with precision(128):
            return float(_log_p(lam, k).exp().mid()) if k >= 0 else 0.0
    return pmf


def skellam_pmf(variance: Fraction):
    """``e^(−V) I_|d|(V)``, the difference of two Poisson(V/2), in arb."""
    def pmf(d: int) -> float:
        with precision(128):
            v = to_arb(variance)
            return float(((-v).exp() * v.bessel_i(abs(d))).mid())
    return pmf


@pytest.mark.parametrize("lam", [Fraction(1, 1000), Fraction(1, 3), Fraction(5, 2), Fraction(2001, 2),
                                 Fraction(2**16), LARGE[0], Fraction(10**6 + 1, 2)], ids=str)
def test_poisson_chi_square_against_the_exact_pmf(lam):
    draws = poisson(lam, 100_000, seed=f"pois-{lam}")
    assert draws.min() >= 0
    assert chi_square(draws, poisson_pmf(lam)) > 1e-4


@pytest.mark.parametrize("variance", [Fraction(1, 5), Fraction(5, 2), Fraction(1000), Fraction(10**6)], ids=str)
def test_skellam_chi_square_against_the_exact_pmf(variance):
    draws = skellam(variance, 100_000, seed=f"skel-{variance}")
    assert chi_square(draws, skellam_pmf(variance)) > 1e-4


def test_the_exact_path_alone_gives_the_same_law(monkeypatch):
    """Every acceptance sent to arb (the bracket undecided for every word): the law passes the same test."""
    calls = []
    real = P.acceptance
    monkeypatch.setattr(P, "bracket", lambda x, err: (np.zeros(len(x), np.uint64), np.zeros(len(x), np.uint64),
                                                      np.ones(len(x), bool)))
    monkeypatch.setattr(P, "acceptance", lambda *a: calls.append(1) or real(*a))
    lam = LARGE[0]
    draws = poisson(lam, 3000, seed="exact-path")
    assert len(calls) >= 3000
    assert chi_square(draws, poisson_pmf(lam), floor=10) > 1e-4


@pytest.mark.parametrize("lam", [Fraction(2**32 - 1), Fraction(2**40 - 1, 1) + Fraction(1, 3)], ids=str)
def test_a_power_of_two_scale_takes_every_word(lam):
    """t = 2^16 or 2^20 divides 2^64: no word is dropped (and the bound 2^64 is not a uint64)."""
    assert P.envelope(lam).t & (P.envelope(lam).t - 1) == 0
    z = (poisson(lam, 20_000, seed=5) - float(lam)) / np.sqrt(float(lam))
    assert abs(z.mean()) < 0.05 and 0.95 < z.var() < 1.05


def test_huge_means_stay_exact_in_int64():
    for variance in (Fraction(3 * 10**12), 2 * P.MAX_MEAN):
        draws = skellam(variance, 50_000, seed=3)
        z = draws / np.sqrt(float(variance))
        assert draws.dtype == np.int64 and abs(z.mean()) < 0.03 and 0.97 < z.var() < 1.03
    big = poisson(P.MAX_MEAN, 1000, seed=4)
    assert big.dtype == np.int64 and abs(float(big.mean()) / 2**60 - 1) < 1e-6


# -- determinism and refusals ------------------------------------------------------------------------

@pytest.mark.parametrize("variance", [Fraction(7, 3), Fraction(10**6)], ids=str)
def test_draw_i_depends_only_on_seed_and_i(variance):
    whole = skellam(variance, 2 * BLOCK + 100, seed="det")
    pieces = [skellam(variance, n, seed="det", start=a)
              for a, n in ((0, 5), (5, BLOCK - 10), (BLOCK - 5, 20), (BLOCK + 15, BLOCK + 85))]
    assert np.concatenate(pieces).tobytes() == whole.tobytes()
    assert skellam(variance, 2 * BLOCK + 100, seed="det", workers=2).tobytes() == whole.tobytes()
    assert skellam(variance, 100, seed="other").tobytes() != whole[:100].tobytes()
    assert poisson(variance / 2, 300, seed="det", start=BLOCK - 100).tobytes() == \
        poisson(variance / 2, BLOCK + 200, seed="det", workers=2)[BLOCK - 100:].tobytes()


def test_decimals_fractions_and_integers_are_the_same_law():
    assert skellam("2.5", 20, seed=1).tolist() == skellam(Fraction(5, 2), 20, seed=1).tolist() \
        == skellam("10/4", 20, seed=1).tolist()
    assert skellam(4, 20, seed=1).tolist() == skellam("4", 20, seed=1).tolist()


@pytest.mark.parametrize("variance", ["0", "-1", "1e-400", str(2**62), "x", None])
def test_refused_before_any_draw(variance):
    with pytest.raises(InvalidOption):
        skellam(variance, 1, seed=1)


@pytest.mark.parametrize("mean", ["0", "1e-301", str(2**60 + 1)])
def test_poisson_mean_refused(mean):
    with pytest.raises(InvalidOption):
        poisson(mean, 1, seed=1)


@pytest.mark.parametrize("law, value, field", [
    (P.PoissonLaw, "5/2", "mean"), (P.SkellamLaw, "5/2", "variance"), (DiscreteGaussianLaw, "5/2", "sigma_squared"),
])
def test_the_public_laws_read_their_parameter_with_the_one_reader(law, value, field):
    """Before: PoissonLaw("5/2") raised TypeError, PoissonLaw(0.1) drew with the binary value of 0.1 while to_dict
    said "0.1", and poisson(PoissonLaw(70000.5), ...) raised AttributeError."""
    assert getattr(law(value), field) == Fraction(5, 2)
    assert getattr(law(0.1), field) == Fraction(1, 10)            # a float is the decimal it prints, as elsewhere
    assert getattr(law(70000.5), field) == Fraction(140001, 2)
    assert law(0.1).to_dict()[field] == "1/10"
    for bad in ("x", None, True, "1e100_000_000", float("nan"), -1):
        with pytest.raises(InvalidOption):
            law(bad)


def test_a_law_object_draws_as_its_parameter_does():
    assert poisson(P.PoissonLaw(70000.5), 3, seed=1).tolist() == poisson(Fraction(140001, 2), 3, seed=1).tolist()
    assert poisson(P.PoissonLaw(0.1), 50, seed=1).tolist() == poisson("1/10", 50, seed=1).tolist()
    assert skellam(P.SkellamLaw(0.3), 50, seed=1).tolist() == skellam("3/10", 50, seed=1).tolist()
    assert discrete_gaussian(DiscreteGaussianLaw(0.3), 50, seed=1).tolist() == \
        discrete_gaussian("3/10", 50, seed=1).tolist()


@pytest.mark.parametrize("seed", [-1, "-1", " -7 ", "-1_000"])
def test_a_negative_seed_is_refused_as_a_number_and_as_a_text(seed):
    with pytest.raises(InvalidOption, match="seed: must be a whole number >= 0"):
        skellam(2, 1, seed=seed)
    assert skellam(2, 5, seed="-x").tolist() == skellam(2, 5, seed="-x").tolist()     # other texts stay texts
