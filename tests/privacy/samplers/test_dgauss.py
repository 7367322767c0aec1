"""The exact discrete Gaussian: its law enumerated exactly, chi-square against the exact pmf, determinism."""

import math
from fractions import Fraction

import flint
import numpy as np
import pytest

from itsa._util.certified import precision, to_arb
from itsa.exceptions import InvalidOption
from itsa.privacy.discrete_gaussian import pmf
from itsa.privacy.samplers import BLOCK, DiscreteGaussianLaw, _dgauss, _exact, discrete_gaussian
from tests.privacy.samplers._chi import chi_square

SIGMAS2 = [Fraction(1, 10), Fraction(1, 4), Fraction(5, 2), Fraction(9), Fraction(100, 3), Fraction(10**6)]


@pytest.mark.parametrize("s2", [Fraction(1, 4), Fraction(5, 2), Fraction(9), Fraction(100, 3)])
def test_accepted_law_is_the_target_enumerated(s2):
    """Sum over the proposals (u, v, sign) that give y of P(proposal) e^-x(u, y): proportional to e^(-y^2/2s2).

    The proposal: u uniform on 0..t-1, P(v) = (1 - e^-1) e^-v, a fair sign; (negative, 0) dropped. Exactly, in balls,
    with the sampler's own t and x (_exact_x)."""
    law = DiscreteGaussianLaw(s2)
    t = law.t
    with precision(200):
        def weight(y):          # the one proposal giving y: u + t v = |y|, its sign (y = 0: the positive one)
            v, u = divmod(abs(y), t)
            pv = (1 - (-flint.arb(1)).exp()) * (-flint.arb(v)).exp()
            return flint.arb(1) / t * pv / 2 * (-to_arb(_dgauss._exact_x(law, u, y))).exp()
        w0 = weight(0)
        for y in range(-4 * t - 3, 4 * t + 4):
            ratio = weight(y) / w0
            target = (-to_arb(Fraction(y * y) / (2 * s2))).exp()
            assert abs(ratio - target) < flint.arb(2) ** -150, (s2, y)


def _chi_square(draws, s2, floor=20):
    """Against the exact pmf over +-10 sigma (the tails beyond, below 1e-20, dropped)."""
    K = int(10 * math.sqrt(float(s2))) + 5
    with precision():
        sigma = to_arb(s2).sqrt()            # the pmf takes sigma
    return chi_square(draws, lambda k: float(pmf(k, sigma).mid()), support=(-K, K), floor=floor)


@pytest.mark.parametrize("s2", SIGMAS2)
def test_chi_square_against_the_exact_pmf(s2):
    draws = discrete_gaussian(s2, 200_000, seed=f"chi-{s2}")
    assert _chi_square(draws, s2) > 1e-4


def test_chi_square_with_most_decisions_sent_to_the_exact_path(monkeypatch):
    """A bracket 2^29 times wider sends a tenth of the acceptances to exact arithmetic: the law is unchanged."""
    calls = []
    real = _exact.LazyUniform.less

    def counted(self, ball):
        calls.append(1)
        return real(self, ball)
    monkeypatch.setattr(_exact, "MARGIN", 2.0**-3)
    monkeypatch.setattr(_exact.LazyUniform, "less", counted)
    draws = discrete_gaussian(Fraction(5, 2), 20_000, seed="wide")
    assert len(calls) > 1000
    assert _chi_square(draws, Fraction(5, 2)) > 1e-4


def test_geometric_fallback_gives_the_exact_v():
    """Words equal to a threshold (or 0) are refined: v is the number of k >= 1 with U < e^-k, U read in full."""
    words = np.concatenate([_dgauss.THRESHOLDS, np.array([0, 12345], dtype=np.uint64)])
    rng = np.random.default_rng(5)
    extension = [int(w) for w in rng.integers(0, 2**64 - 1, 400, dtype=np.uint64, endpoint=True)]
    feed = iter(extension)
    v, beyond = _dgauss.geometric(words, lambda: next(feed))
    used = 400 - len(list(feed))
    assert used >= len(words) - 1
    # replay: each open word took its extension words in row order; check e^-(v+1) <= U < e^-v on U's prefix
    feed = iter(extension)
    with precision(400):
        for w, vi in zip(words.tolist()[:-1], v.tolist()[:-1]):
            lazy = _exact.LazyUniform(w, lambda: next(feed))
            assert lazy.less(_exact.exp_neg_ball(Fraction(vi))) or vi == 0
            assert not lazy.less(_exact.exp_neg_ball(Fraction(vi + 1)))
    assert v[-1] == len(_dgauss.THRESHOLDS) - int(np.searchsorted(_dgauss.THRESHOLDS, np.uint64(12345), side="right"))
    assert beyond[-2] and v[-2] >= len(_dgauss.THRESHOLDS)          # W = 0: U < 2^-64, so v >= 44


def test_no_overflow_at_sigma_in_the_millions():
    s2 = Fraction(1_739_710**2)
    draws = discrete_gaussian(s2, 100_000, seed=1)
    assert draws.dtype == np.int64
    assert 0.97 < float(np.var(draws.astype(float))) / float(s2) < 1.03
    assert int(np.abs(draws).max()) < 10 * 1_739_710


def test_draw_i_depends_only_on_seed_and_i():
    whole = discrete_gaussian(Fraction(7, 3), 2 * BLOCK + 100, seed="det")
    pieces = [discrete_gaussian("7/3", n, seed="det", start=a)
              for a, n in ((0, 5), (5, BLOCK - 10), (BLOCK - 5, 20), (BLOCK + 15, BLOCK + 85))]
    assert np.concatenate(pieces).tobytes() == whole.tobytes()
    two = discrete_gaussian(Fraction(7, 3), 2 * BLOCK + 100, seed="det", workers=2)
    assert two.tobytes() == whole.tobytes()
    assert discrete_gaussian("7/3", 100, seed="other").tobytes() != whole[:100].tobytes()


def test_integer_and_text_seeds_agree():
    assert discrete_gaussian(9, 10, seed=7).tolist() == discrete_gaussian("9", 10, seed="7").tolist()


@pytest.mark.parametrize("s2", ["0", "-1", "1e-400", str(2**93), "x"])
def test_refused_before_any_draw(s2):
    with pytest.raises(InvalidOption):
        discrete_gaussian(s2, 1, seed=1)


@pytest.mark.parametrize("seed", ["", -1, 1.5, None, True])
def test_bad_seeds_refused(seed):
    with pytest.raises(InvalidOption):
        discrete_gaussian(1, 1, seed=seed)
