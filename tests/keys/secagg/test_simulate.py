"""One SecAgg+ round end to end: the server's sum is the survivors' exactly, through Shamir reconstruction."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from itsa.exceptions import InvalidOption
from itsa.keys.secagg import simulate_round
from itsa.keys.secagg.simulate import PRIME, harary_neighbours, shamir_reconstruct, shamir_shares


def _inputs(n, d, modulus, seed):
    return np.random.default_rng(seed + 1000).integers(0, modulus, size=(n, d), dtype=np.int64)


def test_the_sum_of_the_survivors_with_dropouts():
    n, d, m = 60, 12, 2**20
    x = _inputs(n, d, m, 0)
    gone = [3, 17, 18, 40, 41]
    r = simulate_round(n, 10, 6, dimension=d, modulus=m, dropped=gone, inputs=x, seed=5)
    alive = np.setdiff1d(np.arange(n), gone)
    assert r.survivors == n - len(gone) and r.failed_reconstructions == ()
    assert np.array_equal(r.aggregate, x[alive].sum(axis=0) % m) and r.exact


@given(n=st.integers(5, 24), data=st.data())
def test_small_rounds_recover_the_survivors_sum_or_say_why_not(n, data):
    degree = data.draw(st.sampled_from([k for k in range(2, n - 1, 2)] + [n - 1]))
    threshold = data.draw(st.integers(2, max(2, degree)))
    gone = data.draw(st.lists(st.integers(0, n - 1), max_size=n // 2, unique=True))
    m = data.draw(st.sampled_from([2, 7, 2**16, 2**32]))
    seed = data.draw(st.integers(0, 50))
    x = _inputs(n, 3, m, seed)
    r = simulate_round(n, degree, threshold, dimension=3, modulus=m, dropped=gone, inputs=x, seed=seed)
    alive = np.setdiff1d(np.arange(n), gone)
    assert r.exact == (not r.failed_reconstructions)
    if r.exact:
        assert np.array_equal(r.aggregate, x[alive].sum(axis=0) % m)
    else:
        assert not np.array_equal(r.aggregate, x[alive].sum(axis=0) % m) or m <= 7


def test_a_round_with_too_few_surviving_neighbours_reports_its_failures():
    r = simulate_round(20, 4, 4, dimension=5, dropout="3/10", seed=2)
    assert r.failed_reconstructions and not r.exact
    assert "sum NOT recovered" in r.headline()


def test_the_graph_is_a_harary_graph():
    order = np.random.default_rng(0).permutation(30)
    table = harary_neighbours(30, 6, order)
    assert table.shape == (30, 6)
    edges = {(int(i), int(j)) for i in range(30) for j in table[i]}
    assert all((j, i) in edges for i, j in edges) and all(i != j for i, j in edges)
    assert all(len(set(row)) == 6 for row in table.tolist())
    full = harary_neighbours(5, 4, order[:5] % 5)
    assert sorted(full[0].tolist()) == [1, 2, 3, 4]


def test_shamir_shares_reconstruct_from_any_t_and_not_from_fewer():
    rng = np.random.default_rng(7)
    secrets = rng.integers(0, PRIME, size=4, dtype=np.int64)
    points = np.tile(np.arange(1, 9, dtype=np.int64), (4, 1))
    shares = shamir_shares(secrets, points, 5, rng)
    assert np.array_equal(shamir_reconstruct(points[:, :5], shares[:, :5]), secrets)
    assert np.array_equal(shamir_reconstruct(points[:, 3:], shares[:, 3:]), secrets)
    assert not np.array_equal(shamir_reconstruct(points[:, :4], shares[:, :4]), secrets)


def test_corrupt_neighbours_are_counted():
    r = simulate_round(8, 7, 3, corrupt_clients=[0, 1, 2], seed=1)
    assert r.max_corrupt_neighbours == 3 and r.exposed == (3, 4, 5, 6, 7)
    safe = simulate_round(8, 7, 4, corrupt_clients=[0, 1, 2], seed=1)
    assert safe.exposed == () and safe.to_dict()["exposed"] == []


def test_progress_is_reported():
    seen = []
    simulate_round(30, 6, 4, dimension=4, dropout="1/10", seed=3, progress=seen.append)
    stages = [e.stage for e in seen]
    assert stages[0] == "secagg round: shares" and stages[-1] == "secagg round: done"
    assert any(e.total for e in seen)


@pytest.mark.parametrize("kwargs, message", [
    ({"degree": 5}, "even degree"), ({"threshold": 1}, "threshold"), ({"modulus": 2**33}, "modulus"),
    ({"dropped": [99]}, "client ids"), ({"inputs": np.zeros((3, 1), dtype=np.int64)}, "inputs"),
])
def test_bad_rounds_are_refused(kwargs, message):
    args = {"clients": 20, "degree": 4, "threshold": 3, **kwargs}
    with pytest.raises(InvalidOption, match=message):
        simulate_round(**args)


@pytest.mark.slow
def test_a_thousand_clients_of_ten_thousand_words():
    r = simulate_round(1000, 30, 17, dimension=10**4, dropout="1/20", corrupt="1/20", seed=3)
    assert r.exact and r.survivors == 950 and r.exposed == ()
