"""The exact Bin(N, 1/2): the envelope's series and its remainder bound, chi-square, the exact path, determinism."""

from fractions import Fraction

import flint
import numpy as np
import pytest
from scipy.stats import binom

from itsa._util.certified import precision, to_arb
from itsa.exceptions import InvalidOption
from itsa.privacy.samplers import BLOCK, CoinsLaw
from itsa.privacy.samplers import _coins as _binomial
from itsa.privacy.samplers import fair_coins as binomial
from tests.privacy.samplers._chi import chi_square


@pytest.mark.parametrize("n", [256, 1000, 12345])
def test_phi_and_its_bound_enclose_the_exact_log_ratio(n):
    """Phi(j) = -log(C(2n, n+j)/C(2n, n)) - 2j^2/s lies in [phî - err, phî + err] for every sampled j (balls)."""
    s = 2 * n + 1
    js = sorted({0, 1, 2, 3, n // 100, n // 10, n // 3, n // 2, n - 1, n} | set(range(0, min(n, 200), 7)))
    phi, err = _binomial._phi(np.array(js, dtype=float), float(s))
    with precision(300):
        for j, p, e in zip(js, phi.tolist(), err.tolist()):
            log_r = 2 * flint.arb(n + 1).lgamma() - flint.arb(n + j + 1).lgamma() - flint.arb(n - j + 1).lgamma()
            exact = -log_r - flint.arb(2 * j * j) / s
            assert not exact < 0                    # the envelope dominates
            if e <= _binomial.MAX_ERR:              # the fast path's claim
                assert not abs(exact - to_arb(Fraction(p))) > to_arb(Fraction(e)) + flint.arb(2) ** -200, (n, j)


def _chi_square(draws, N, floor=20):
    lo, hi = int(binom.ppf(1e-12, N, 0.5)), int(binom.isf(1e-12, N, 0.5))
    return chi_square(draws, lambda k: binom.pmf(k, N, 0.5), support=(lo, hi), floor=floor)


@pytest.mark.parametrize("N", [1, 2, 63, 64, 65, 512, 513, 514, 2001, 10**6])
def test_chi_square_against_the_exact_pmf(N):
    draws = binomial(N, 100_000, seed=f"bin-{N}")
    assert draws.min() >= 0 and draws.max() <= N
    assert _chi_square(draws, N) > 1e-4


def test_the_exact_path_alone_gives_the_same_law(monkeypatch):
    """Every acceptance sent to arb lgamma (MAX_ERR below every row's widening): the law passes the same test."""
    calls = []
    real = _binomial._exact_accept
    monkeypatch.setattr(_binomial, "MAX_ERR", -1.0)
    monkeypatch.setattr(_binomial, "_exact_accept", lambda *a: calls.append(1) or real(*a))
    draws = binomial(1001, 3000, seed="exact-path")
    assert len(calls) >= 3000
    assert _chi_square(draws, 1001, floor=10) > 1e-4


def test_huge_n_stays_exact_and_in_range():
    N = 10**10
    draws = binomial(N, 50_000, seed=3)
    assert draws.dtype == np.int64 and draws.min() >= 0 and draws.max() <= N
    z = (draws - N / 2) / np.sqrt(N / 4)
    assert abs(z.mean()) < 0.03 and 0.97 < z.var() < 1.03


def test_draw_i_depends_only_on_seed_and_i():
    for N in (100, 10**9 + 1):
        whole = binomial(N, BLOCK + 500, seed="det")
        pieces = [binomial(N, k, seed="det", start=a) for a, k in ((0, 7), (7, BLOCK - 17), (BLOCK - 10, 510))]
        assert np.concatenate(pieces).tobytes() == whole.tobytes()
        assert binomial(N, BLOCK + 500, seed="det", workers=2).tobytes() == whole.tobytes()


@pytest.mark.parametrize("coins", [0, -1, 2**62 + 1, 1.5, "7.5", "abc", "²", "0", "1e19", "1e100_000_000"])
def test_bad_coins_refused(coins):
    with pytest.raises(InvalidOption):
        binomial(coins, 1, seed=1)


@pytest.mark.parametrize("text", ["7", " 7 ", "7e0", "7_0e-1"])
def test_a_text_of_coins_is_read_as_the_other_laws_read_theirs(text):
    """The coins of a text are read by the one whole-number reader, as σ² and V are by the one fraction reader."""
    assert CoinsLaw(text).coins == 7
    assert binomial(text, 5, seed=1).tolist() == binomial(7, 5, seed=1).tolist()
