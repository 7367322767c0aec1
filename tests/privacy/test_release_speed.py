"""A release of one client is fast: the table's distance over millions of entries, vectorised and still a bound."""

from fractions import Fraction

import numpy as np
import pytest

from itsa.privacy import table_law
from itsa.privacy.releasing import release
from itsa.privacy.sampler import table
from itsa.privacy.table_law import word_count_array, word_counts, words_at_most, words_below


@pytest.mark.parametrize("sigma", [Fraction(1, 3), Fraction(3), Fraction(3001, 3), Fraction(14924)])
def test_vectorised_word_counts_equal_the_exact_ones(sigma):
    cdf = table(sigma)[1]
    whole = word_count_array(cdf)
    assert [int(x) for x in whole] == word_counts(cdf)
    sliced = np.concatenate([word_count_array(cdf, i, i + 997) for i in range(0, len(cdf), 997)])
    assert np.array_equal(sliced, whole)


def test_words_below_is_words_at_most_minus_one():
    rng = np.random.default_rng(0)
    c = np.sort(np.concatenate([rng.random(5000), rng.random(500) * 2**-11, rng.random(50) * 2**-40,
                                [0.0, 2**-11, 2**-11 + 2**-60, 0.5, 0.5 + 2**-53, 1 - 2**-53, 1.0, 1.0]]))
    assert [int(m) + 1 for m in words_below(c)] == [words_at_most(float(x)) for x in c]


@pytest.mark.parametrize("sigma", [Fraction(3001, 3), Fraction(14924)])
def test_the_vectorised_bound_is_above_the_exact_pass_and_close_to_it(sigma):
    """Both passes where both run: the float pass bounds the ball pass's value from above, within 3 BLOCK u."""
    support, cdf = table(sigma)
    fast = table_law._distance_fast(sigma, cdf, int(support[-1]))
    exact = table_law._distance.__wrapped__(sigma)
    assert fast[1] >= exact[1]
    assert fast[1] - exact[1] <= 4 * table_law.BLOCK * table_law.UNIT


def test_the_vectorised_pmf_is_within_rho():
    """p̂_j against balls of e^(-j^2/2s^2)/Z at sampled j: within the stated relative error."""
    from itsa._util.certified import precision, to_arb
    from itsa.privacy.discrete_gaussian import normaliser

    sigma = Fraction(20001, 7)
    K = 25_000
    values, rho = table_law._pmf_floats(sigma, K)
    with precision():
        z = normaliser(sigma)
        for j in [0, 1, 63, 64, 65, 1000, 12_345, K]:
            p = (-to_arb(j * j) / (2 * to_arb(sigma) ** 2)).exp() / z
            assert abs(to_arb(Fraction(float(values[j]))) - p) <= to_arb(rho) * p


def test_one_client_two_coordinates_takes_the_table_engine():
    """The reported case: 1 client, d = 2, eps = 1 (sigma_int ~ 6.4e5, a table of ~9.6e6 entries)."""
    table_law._distance.cache_clear()
    r = release(np.array([[0.3, 0.4]]), epsilon=1, seed=3, engine="table")   # its cost, the table distance: bench_privacy.py
    assert len(table(r.sigma_int)[1]) > table_law.EXACT_PASS_ENTRIES
    assert r.delta_run.upper() > Fraction(1, 10**5) and "float64" in r.table_distance.method
