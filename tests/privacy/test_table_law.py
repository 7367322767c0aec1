"""The table engine's exact law (word counts) and its certified distance from the discrete Gaussian."""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from click.testing import CliRunner

from itsa._util.certified import arb_to_fractions
from itsa.exceptions import InvalidOption
from itsa.privacy.discrete_gaussian import normaliser
from itsa.privacy.releasing import release
from itsa.privacy.sampler import table
from itsa.privacy.table_law import WORDS, table_distance, word_counts, words_at_most
from itsa_cli import main as cli


def _uniform(w: int) -> float:
    """What the sampler does to one word (numpy's own cast and division)."""
    return float(np.array([w], dtype=np.uint64).astype(np.float64)[0] / float(2**64 - 1))


def _words_at_most_by_search(c: float) -> int:
    """The same count found by bisection on numpy's actual mapping (independent of the formula)."""
    low, high = -1, WORDS - 1          # _uniform(low) <= c (or low = -1), find the largest such word
    if _uniform(high) <= c:
        return WORDS
    while high - low > 1:
        mid = (low + high) // 2
        if _uniform(mid) <= c:
            low = mid
        else:
            high = mid
    return low + 1


@pytest.mark.parametrize("c", [0.0, 2.0**-70, 1e-17, 2.0**-11, 0.1, 0.5, 0.5 + 2.0**-53, 0.75, 1 - 2.0**-53, 1.0]
                         + table(Fraction(15, 2))[1][::7].tolist())
def test_words_at_most_is_numpys_mapping(c):
    assert words_at_most(c) == _words_at_most_by_search(c)


def test_counts_add_up_and_place_every_word_where_the_sampler_does():
    support, cdf = table(3)
    counts = word_counts(cdf)
    assert sum(counts) == WORDS and len(counts) == len(support)
    edges = np.cumsum(np.array(counts, dtype=object))
    for i in range(0, len(counts) - 1, 5):           # the last word of entry i and the first of entry i + 1
        for w, entry in ((int(edges[i]) - 1, i), (int(edges[i]), i + 1)):
            if counts[entry]:
                index = min(int(np.searchsorted(cdf, _uniform(w), side="left")), len(cdf) - 1)
                assert index == entry


@pytest.mark.parametrize("sigma", [Fraction(3), Fraction(5, 2), Fraction(40)])
def test_table_distance_encloses_an_independent_computation(sigma):
    """mpmath at 50 digits, counts from numpy's own mapping: the TV lies in the certified interval."""
    mpmath.mp.dps = 50
    support, cdf = table(sigma)
    before, tv = 0, mpmath.mpf(0)
    z = mpmath.mpf(0)
    for k in range(-40 * int(sigma) - 40, 40 * int(sigma) + 41):
        z += mpmath.exp(-mpmath.mpf(k) ** 2 / (2 * mpmath.mpf(sigma.numerator) ** 2 / sigma.denominator ** 2))
    inside = mpmath.mpf(0)
    for i, k in enumerate(support.tolist()):
        upto = WORDS if i == len(cdf) - 1 else _words_at_most_by_search(float(cdf[i]))
        p = mpmath.exp(-mpmath.mpf(k) ** 2 / (2 * mpmath.mpf(sigma.numerator) ** 2 / sigma.denominator ** 2)) / z
        tv += abs(mpmath.mpf(upto - before) / WORDS - p)
        inside += p
        before = upto
    tv = (tv + 1 - inside) / 2
    bound = table_distance(sigma)
    lo, hi = arb_to_fractions(normaliser(sigma))
    assert lo <= Fraction(str(z)) * (1 + Fraction(1, 10**30)) and Fraction(str(z)) <= hi * (1 + Fraction(1, 10**30))
    assert bound.lower() * (1 - Fraction(1, 10**20)) <= Fraction(str(tv)) <= bound.upper() * (1 + Fraction(1, 10**20))
    assert tv > 1e-17          # the float table moves the law far more than the truncated tail does


def test_table_distance_golden_against_tail():
    """sigma = 3: TV 7.5e-16 against a tail of 3.4e-20; sigma = 14924: 3.38e-12 against 5.2e-14."""
    assert table_distance(3).decimal(2) == "7.6e-16"
    assert table_distance(14924).decimal(3) == "3.38e-12"


def test_release_delta_counts_the_table_distance():
    """50 clients, d = 24,706, eps = 1, S = 0.45: delta_run is 1.018e-5 (the tail alone gave 1.001e-5)."""
    u = np.random.default_rng(0).normal(size=(50, 24706)) * 0.01
    r = release(u, epsilon=1, seed=11, clip="0.45", engine="table")
    eps = r.epsilon.epsilon.upper()
    expected = Fraction(1, 10**5) + (1 + Fraction(math.exp(float(eps)))) * 24706 * table_distance(r.sigma_int).upper()
    assert r.delta_run.decimal(4) == "1.018e-5"
    assert abs(r.delta_run.upper() - expected) < Fraction(1, 10**12) and not r.warnings


def test_vacuous_delta_is_refused():
    """The table engine's delta_run reaches 1 at eps = 20 (eps_run 27): refused, saying why; exact is not."""
    u = np.random.default_rng(0).normal(size=(5, 3))
    with pytest.raises(InvalidOption, match="vacuous .*delta_run = 1;"):
        release(u, epsilon=20, seed=11, engine="table")
    exact = release(u, epsilon=20, seed=11)                   # the default engine: exact
    assert exact.delta_run.upper() == Fraction(1, 10**5) and not exact.warnings


def test_cli_refuses_a_vacuous_release(tmp_path):
    path = tmp_path / "u.csv"
    path.write_text("x,y\n0.1,0.2\n0.3,0.4\n")
    res = CliRunner().invoke(cli, ["privacy", "release", str(path), "--epsilon", "100", "--json"])
    assert res.exit_code == 2 and "vacuous" in res.stderr and res.stdout == ""


def test_the_exact_engine_is_the_default_and_the_table_runs_only_by_name_labelled_and_redrawn():
    """A release without an engine is exact (delta_run = delta, no truncation, no distance); one asked for with
    the table says so in public, and its audit record redraws with the table, the engine it names."""
    from itsa.privacy.record_check import check_record
    from itsa.privacy.sampler import draw

    u = np.random.default_rng(4).normal(size=(4, 3)) * 0.1
    exact = release(u, epsilon=1, seed=9, salt="9" * 64)
    public = exact.to_dict()
    assert (public["engine"], public["truncation"], public["table_distance"]) == ("exact", None, None)
    assert exact.delta_run.upper() == Fraction(1, 10**5)
    tabled = release(u, epsilon=1, seed=9, salt="9" * 64, engine="table")
    public = tabled.to_dict()
    assert public["engine"] == "table" and public["truncation"] > 0 and public["table_distance"] is not None
    record = tabled.record()
    assert record["inputs"]["engine"] == "table" and check_record(record, published=public).ok
    key = tabled.noise.seed
    assert list(tabled.noise.draws) == list(draw(tabled.sigma_int, 3, key, "table").draws)
    assert list(tabled.noise.draws) != list(draw(tabled.sigma_int, 3, key, "exact").draws)
    relabelled = {**record, "inputs": {**record["inputs"], "engine": "exact"}}
    assert not check_record(relabelled).ok                   # the same draws under the other engine: FAIL
