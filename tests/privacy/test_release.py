"""Hamilton weights, the sensitivity reading, the integer release (PCU-FL Algorithm 3 via the explainer page)."""

import math
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from itsa.exceptions import InvalidInput, InvalidOption
from itsa.privacy import hamilton_weights
from itsa.privacy import sensitivity_bound as sensitivity
from itsa.privacy.hamilton import grid_guidance, rounding_bound
from itsa.privacy.releasing import encode, load_updates, release
from itsa_cli import main as cli


def test_fifty_equal_clients_golden():
    """Page, first demo: 50 equal clients on alpha = 256: 44 get 5/256 and six get 6/256."""
    hw = hamilton_weights([1] * 50, 256)
    assert hw.integers.count(5) == 44 and hw.integers.count(6) == 6 and sum(hw.integers) == 256
    assert hw.integers[:6] == (6,) * 6          # ties by client ID: the first six
    assert hw.max_weight == Fraction(6, 256)


def test_classroom_exercise():
    """Page, 'Try this in class' 2: 31, 74, 120, 9, 66 members on 256 points: total exactly 256."""
    hw = hamilton_weights([31, 74, 120, 9, 66], 256)
    assert sum(hw.integers) == 256
    assert hw.integers == (27, 63, 102, 8, 56)


def test_ties_follow_ids():
    hw = hamilton_weights([1, 1, 1], 4, ids=["c", "a", "b"])
    assert hw.integers == (1, 2, 1)


@given(st.lists(st.integers(0, 10**6), min_size=1, max_size=60).filter(any), st.integers(1, 5000))
def test_hamilton_properties(weights, alpha):
    """Largest remainders: floor(quota) each, +1 to exactly the alpha - sum(floors) largest remainders, ties by index."""
    hw = hamilton_weights(weights, alpha)
    total = sum(weights)
    quotas = [Fraction(alpha * w, total) for w in weights]
    floors = [q.numerator // q.denominator for q in quotas]
    assert hw.quotas == tuple(quotas) and sum(hw.integers) == alpha
    bumped = [i for i, (w, f) in enumerate(zip(hw.integers, floors)) if w == f + 1]
    assert all(w in (f, f + 1) for w, f in zip(hw.integers, floors)) and len(bumped) == alpha - sum(floors)
    kept = [i for i in range(len(weights)) if i not in set(bumped)]
    rank = [(-(quotas[i] - floors[i]), i) for i in range(len(weights))]
    assert all(rank[b] < rank[k] for b in bumped for k in kept[:50])


def test_sensitivity_golden():
    """Page: Delta*_2 = 0.047 for w_max = 6/256, S = 1, d = 2, gamma = 256 (reading [R] of its Eq. (1))."""
    ds = sensitivity(max_weight=Fraction(6, 256), clip=1, dimension=2, gamma=256)
    exact = 2 * 6 / 256 * (1 + math.sqrt(2) / (2 * 256))
    assert round(float(ds.upper()), 3) == 0.047
    assert ds.lower() <= Fraction(exact) * (1 + Fraction(1, 10**14)) and ds.upper() >= Fraction(exact) * (1 - Fraction(1, 10**14))
    assert ds.upper() - ds.lower() < Fraction(1, 10**30)
    assert "reading" in ds.method


def test_page_delta_036_candidates():
    """Page, notes: Eq. (1) at S = 0.45 gives 0.036 with gamma = alpha = 256, 50 clients, d = 24,706 (0.0355)."""
    w_max = hamilton_weights([1] * 50, 256).max_weight
    ds = sensitivity(max_weight=w_max, clip=Fraction(45, 100), dimension=24706, gamma=256)
    assert round(float(ds.upper()), 4) == 0.0355


def test_grid_and_rounding_golden():
    """Page: alpha >= 10^3 M_t / W_min asks 5,000 for five clients and 50,000 for 50; M_t S/(alpha W_t) ~ 0.20."""
    assert grid_guidance(5) == 5000 and grid_guidance(50) == 50000
    assert round(float(rounding_bound(50, 1, 256)), 2) == 0.20


def test_sigma_int_golden():
    """Page: sigma_int reaches 14,924 in the first demo at eps = 1."""
    rng = np.random.default_rng(0)
    r = release(rng.normal(size=(50, 2)), epsilon=1, seed=11)
    assert round(float(r.sigma_int)) == 14924


def test_release_without_noise_is_the_integer_weighted_mean():
    rng = np.random.default_rng(1)
    u = rng.uniform(-0.5, 0.5, size=(5, 3))
    r = release(u, [1, 2, 3, 4, 5], alpha=1000, gamma=1 << 12, no_noise=True)
    w = np.array(r.weights.integers)
    assert r.released == r.noiseless
    assert np.allclose([float(x) for x in r.released], (w[:, None] * encode(u, 1 << 12)).sum(0) / (1000 * 4096))
    assert np.allclose([float(x) for x in r.released], r.exact_average, atol=1e-2)


def test_release_is_reproducible_and_decodes_once():
    u = np.random.default_rng(2).normal(size=(10, 4))
    a = release(u, epsilon=10, seed=5, salt="5" * 64)
    b = release(u, epsilon=10, seed=5, salt="5" * 64)
    assert a.released == b.released and a.noise.commitment == b.noise.commitment
    assert all(x == Fraction(y + z, a.denominator) for x, y, z in zip(a.released, a.encoded_sum, a.noise.draws))
    assert a.noise.engine == "exact" and a.inputs["engine"] == "exact"         # the default: the exact sampler
    assert a.delta_run.upper() == Fraction(1, 10**5) and a.delta_run.method.startswith("the exact sampler")
    t = release(u, epsilon=10, seed=5, salt="5" * 64, engine="table")          # the table only by name, labelled
    assert t.delta_run.method.startswith("delta + (1 + e^eps) d TV") and t.delta_run.upper() > Fraction(1, 10**5)
    assert t.noise.draws != a.noise.draws and t.commitment != a.commitment


def test_encode_half_even():
    assert encode(np.array([[0.5 / 256, 1.5 / 256, -0.5 / 256]]), 256).tolist() == [[0, 2, 0]]
    assert encode(np.array([[0.5 / 3, 1.5 / 3]]), 3).tolist() == [[0, 2]]


def test_load_csv(tmp_path):
    path = tmp_path / "u.csv"
    path.write_text("client,weight,x,y\nb,2,0.1,0.2\na,1,0.3,-0.4\n")
    u, w, ids = load_updates(path)
    assert u.shape == (2, 2) and w == [2, 1] and ids == ["b", "a"]


@pytest.mark.parametrize(("text", "match"), [("x,y\n1,nan\n", "finite"), ("x\n", "header"), ("x,y\n1,a\n", "numbers")])
def test_load_bad_csv(tmp_path, text, match):
    path = tmp_path / "u.csv"
    path.write_text(text)
    with pytest.raises(InvalidInput, match=match):
        load_updates(path)


@pytest.mark.parametrize("weights", [[-1, 2], [0, 0], []])
def test_bad_weights(weights):
    with pytest.raises(InvalidOption):
        hamilton_weights(weights, 256)


def test_bad_grid():
    with pytest.raises(InvalidOption, match="alpha"):
        hamilton_weights([1, 2], 2.5)


def test_exact_delta_is_printed_exactly(tmp_path):
    """The exact engine's delta_run is delta itself: printed exactly, not rounded to nearest (1.234e-05)."""
    u = np.random.default_rng(3).normal(size=(4, 2))
    r = release(u, epsilon=1, delta="0.000012344", seed=5, engine="exact")
    assert r.delta_run.decimal() == "1.2344e-5" and r.to_dict()["delta_run"]["value"] == "1.2344e-5"
    assert "1.2344e-5" in r.epsilon.headline()
    path = tmp_path / "u.csv"
    path.write_text("x,y\n0.1,0.2\n0.3,0.4\n")
    res = CliRunner().invoke(cli, ["privacy", "release", str(path), "--engine", "exact", "--delta", "0.000012344",
                                   "--epsilon", "1"])
    assert res.exit_code == 0 and "1.2344e-5" in res.stdout and "1.234e-05" not in res.stdout


def test_huge_npy_is_refused_before_it_is_read(tmp_path):
    """A .npy beyond MAX_ENTRIES is refused from its header (mapped, not loaded)."""
    from itsa.privacy.releasing import MAX_ENTRIES

    path = tmp_path / "big.npy"
    np.lib.format.open_memmap(path, mode="w+", dtype=np.int8, shape=(MAX_ENTRIES // 1000 + 1, 1000)).flush()
    with pytest.raises(InvalidInput, match="more than"):
        load_updates(path)


def test_numeric_client_ids_tie_break_as_numbers(tmp_path):
    """IDs 10, 9, 2 with equal weights on alpha = 4: the spare unit goes to client 2 (as text, '10' < '2')."""
    path = tmp_path / "u.csv"
    path.write_text("client,x\n10,0.1\n9,0.2\n2,0.3\n")
    u, w, ids = load_updates(path)
    assert ids == [10, 9, 2]
    assert release(u, alpha=4, ids=ids, no_noise=True).weights.integers == (1, 1, 2)
    text = tmp_path / "t.csv"
    text.write_text("client,x\nb10,0.1\nb9,0.2\nb2,0.3\n")
    assert load_updates(text)[2] == ["b10", "b9", "b2"]


def test_encode_refuses_int64_overflow():
    with pytest.raises(InvalidOption, match="2\\^62"):
        encode(np.array([[1e10]]), 2**40)
    with pytest.raises(InvalidOption, match="2\\^62"):
        release(np.array([[0.5]]), gamma=2**40, clip=10**7, no_noise=True)


def test_release_states_that_max_weight_comes_from_the_data():
    r = release(np.array([[0.1], [0.2]]), [1, 3], no_noise=True)
    assert "public" in r.to_dict()["max_weight_note"] and any("public" in v for _, v in r.rows())


@pytest.mark.parametrize("engine", ["table", "exact"])
def test_release_privacy_recomputed_independently(engine):
    """eps_run and delta_run of a release from scratch (mpmath): z = sigma_int / (gamma W Delta*_2), the CKS
    conversion at the reported order, delta + (1 + e^eps) d TV for the table engine, delta for the exact one."""
    import mpmath

    from itsa.privacy.table_law import table_distance

    mpmath.mp.dps = 40
    u = np.random.default_rng(5).normal(size=(7, 3))
    r = release(u, epsilon=2, seed=12, engine=engine)
    w_max = mpmath.mpf(max(r.weights.integers)) / 256
    delta_star = 2 * w_max * (1 + mpmath.sqrt(3) / (2 * 256))
    sigma = mpmath.mpf(r.sigma_int.numerator) / r.sigma_int.denominator
    z = sigma / (256 * 256 * delta_star)
    q = mpmath.mpf(r.epsilon.order.numerator) / r.epsilon.order.denominator
    delta = mpmath.mpf(1) / 10**5
    eps = q / (2 * z**2) + mpmath.log(1 - 1 / q) - (mpmath.log(delta) + mpmath.log(q)) / (q - 1)
    printed = r.epsilon.epsilon.upper()
    assert Fraction(mpmath.nstr(eps, 30)) <= printed <= Fraction(mpmath.nstr(eps, 30)) * (1 + Fraction(1, 10**9))
    if engine == "exact":
        assert r.delta_run.upper() == r.delta_run.lower() == Fraction(1, 10**5)
        return
    tv = table_distance(r.sigma_int).upper()
    expected = delta + (1 + mpmath.exp(mpmath.mpf(printed.numerator) / printed.denominator)) * 3 * (
        mpmath.mpf(tv.numerator) / tv.denominator)
    got = mpmath.mpf(r.delta_run.upper().numerator) / r.delta_run.upper().denominator
    assert expected * (1 - mpmath.mpf(10) ** -25) <= got <= expected * (1 + mpmath.mpf(10) ** -14)
    assert got > delta
