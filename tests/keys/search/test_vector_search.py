"""Vector-linear schemes of a given rate (itsa/keys/search/vector.py): every returned
scheme verifies, hints steer the search, known optima are reached, determinism."""

import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import itsa
from itsa.exceptions import InvalidInput
from itsa.keys.bounds.published import known_optimum
from itsa.keys.schemes.scheme import Scheme
from itsa.keys.schemes.verifier import verify
from itsa.keys.search.blocks import hint_shapes
from itsa.keys.search.scalar import search_min_rate
from itsa.keys.search.vector import GroupCriterion, default_vector_field, key_entropies, search_vector_scheme
from itsa.testing import instances
from tests.conftest import INSTANCES

#: The one health check these property tests lift: drawing a whole instance (servers, security and
#: collusion families) can pass hypothesis's generation-time budget on a loaded 2-core runner.
SLOW_DRAWS = [HealthCheck.too_slow]

FRACTIONAL = INSTANCES / "audit" / "fractional-optimum.yaml"


def _sum_zero(scheme: Scheme, K: int) -> bool:
    total = sum(scheme.key_matrix(i) for i in range(K)) % scheme.field
    return not np.any(total)


@pytest.fixture(scope="module")
def fractional():
    return itsa.load_instance(FRACTIONAL)


def test_fractional_optimum_without_hints(fractional):
    res = search_vector_scheme(fractional, Fraction(3, 2), L_values=(2,), seed=0, budget=2000)
    assert res.found and res.scheme.L == 2 and res.scheme.rate == Fraction(3, 2)
    assert verify(fractional, res.scheme, engine="rank").ok
    assert _sum_zero(res.scheme, fractional.K) and not res.hinted


def test_fractional_optimum_with_hints_from_a_scheme(fractional):
    # the entropy vector of the keys of the scheme the scalar/L=2 search finds
    hints = key_entropies(search_min_rate(fractional).scheme, fractional.K)
    res = search_vector_scheme(fractional, "3/2", L_values=(2,), hints=hints, budget=50)
    assert res.found and res.hinted and res.shape.startswith("hint/")
    assert res.scheme.rate == Fraction(3, 2) and verify(fractional, res.scheme, engine="rank").ok


def test_fractional_optimum_with_hand_hints(fractional):
    # docs/audit.md: A = Z11, B = Z21, D = Z31 (+ Z32) carry half a key each, C = Z22 absorbs
    i = fractional.index
    bit = lambda u, v: 1 << i(u, v)  # noqa: E731
    hints = {bit(1, 1): Fraction(1, 2), bit(2, 1): Fraction(1, 2), bit(2, 2): Fraction(1),
             bit(3, 1): Fraction(1, 2), bit(3, 2): Fraction(0)}
    res = search_vector_scheme(fractional, Fraction(3, 2), hints=hints, budget=20)
    assert res.found and res.shape == "hint/private, absorber (2,2)"
    assert res.candidates <= 3 and res.scheme.key_matrix(i(3, 2)).sum() == 0
    ranks = key_entropies(res.scheme, fractional.K)
    assert all(ranks[m] == h for m, h in hints.items())


def test_hint_shapes_follow_the_entropy_vector(fractional):
    # Z11 and Z21 carry the same half key (h of the pair = 1/2), Z31 a private half, Z32 none
    i = fractional.index
    a, b, c, x, z = (1 << i(1, 1), 1 << i(2, 1), 1 << i(3, 1), 1 << i(3, 2), 1 << i(2, 2))
    half = Fraction(1, 2)
    hints = {a: half, b: half, c: half, x: Fraction(0), z: Fraction(1), a | b: half}
    shapes = {s.name: s for s in hint_shapes(fractional, hints, 4, 6)}
    assert set(shapes) == {"hint/private, absorber (2,2)", "hint/pairs, absorber (2,2)",
                           "hint/shared, absorber (2,2)"}
    ranks = dict(shapes["hint/private, absorber (2,2)"].ranks)
    assert ranks == {i(1, 1): 2, i(2, 1): 2, i(3, 1): 2}            # ⌈h·L⌉, (3,2) keyless
    ab = i(2, 2)
    assert shapes["hint/private, absorber (2,2)"].blocks == ((2, a, ab), (2, b, ab), (2, c, ab))
    # the pair's common block, then (3,1)'s own, then the 2 symbols left to all of them
    assert shapes["hint/pairs, absorber (2,2)"].blocks == (
        (2, a | b, ab), (2, c, ab), (2, a | b | c, ab))
    assert shapes["hint/shared, absorber (2,2)"].blocks == ((6, a | b | c, ab),)


@pytest.mark.parametrize("name", ["homogeneous-U3-V2-t1", "homogeneous-U3-V2-t2",
                                  "homogeneous-U4-V2-t1"])
def test_homogeneous_optimum_at_L2(name):
    inst = itsa.load_instance(INSTANCES / f"{name}.yaml")
    opt = known_optimum(inst).value           # min{U+V+t-2, UV-1}
    res = search_vector_scheme(inst, opt, L_values=(2,), budget=500)
    assert res.found and res.scheme.L == 2 and res.scheme.key_symbols == 2 * opt
    assert verify(inst, res.scheme, engine="rank").ok
    # below the proved optimum nothing can verify: the search must come back empty
    below = search_vector_scheme(inst, opt - Fraction(1, 2), L_values=(2,), budget=60)
    assert not below.found and below.limit and below.candidates == 60


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=SLOW_DRAWS)
@given(instances(max_users=5), st.sampled_from(["1/2", "1", "3/2", "2", "5/2", "3"]),
       st.sampled_from([None, 31]))
def test_returned_scheme_verifies(inst, rate, field):
    res = search_vector_scheme(inst, rate, L_values=(1, 2), field=field, budget=40, seed=2)
    assert res.candidates <= 40
    if res.found:
        assert res.scheme.rate == Fraction(rate) and res.verdict.ok
        assert verify(inst, res.scheme, engine="rank").ok
        assert _sum_zero(res.scheme, inst.K)
        assert res.trials[-1].found and res.trials[-1].shape == res.shape
    else:
        assert not any(t.found for t in res.trials)


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=SLOW_DRAWS)
@given(instances(max_users=5), st.integers(0, 10**6), st.sampled_from([1, 2]),
       st.integers(0, 4), st.sampled_from([2, 3, 5]))
def test_group_criterion_agrees_with_verify(inst, s, L, d, q):
    rng = random.Random(s)
    Z = np.array([[[rng.randrange(q) for _ in range(d)] for _ in range(L)]
                  for _ in range(inst.K)], dtype=np.int64).reshape(inst.K, L, d)
    Z[-1] = (-Z[:-1].sum(axis=0)) % q
    sch = Scheme(field=q, L=L, key_symbols=d, keys={i: Z[i].tolist() for i in range(inst.K)})
    crit = GroupCriterion(inst, q)
    ok = verify(inst, sch, engine="rank").ok
    assert crit.secure(Z) == ok and (crit.deficit(Z) == 0) == ok


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=SLOW_DRAWS)
@given(instances(max_users=5), st.integers(0, 10**6), st.sampled_from([1, 2]),
       st.integers(0, 4), st.integers(0, 6))
def test_bounded_deficit_is_exact_or_above_the_bound(inst, s, L, d, above):
    rng = random.Random(s)
    q = 5
    crit = GroupCriterion(inst, q)
    for _ in range(3):                # the bounded calls reorder the checks; the exact sum must not move
        Z = np.array([[[rng.randrange(q) for _ in range(d)] for _ in range(L)]
                      for _ in range(inst.K)], dtype=np.int64).reshape(inst.K, L, d)
        Z[-1] = (-Z[:-1].sum(axis=0)) % q
        exact = crit.deficit(Z)
        bounded = crit.deficit(Z, above)
        assert bounded == exact if exact <= above else above < bounded <= exact
        assert crit.deficit(Z) == exact


@pytest.mark.parametrize("walk_seed", [0, 1, 2])
def test_bounded_scoring_walks_the_same_steps(example2, walk_seed):
    """The walk with ``deficit(Z, above=best)`` moves exactly as with the full sums."""
    from itsa.keys.search.blocks import BlockShape, draw_keys
    from itsa.keys.search.repair import repair

    K, L, q = example2.K, 2, 101
    start = hint_shapes(example2, {}, L, 6)[0]

    cut = []

    def path(bounded: bool):
        crit = GroupCriterion(example2, q)

        def score(blocks, ranks, above):
            shape = BlockShape("walk", blocks, tuple(sorted(ranks.items())))
            Z = draw_keys(shape, random.Random(repr((blocks, shape.ranks))), q, K, L)
            if not bounded:
                return crit.deficit(Z)
            x = crit.deficit(Z, above)
            cut.append(x != crit.deficit(Z))
            return x

        walk = repair((start.blocks, dict(start.ranks)), score, K, L, random.Random(walk_seed), 15, scan=True)
        return [(blocks, tuple(sorted(ranks.items())), d == 0) for d, blocks, ranks in walk]

    exact, bounded = path(False), path(True)
    assert len(exact) > 15 and exact == bounded
    assert any(cut)                   # some scores really were cut short


def test_deterministic_for_a_seed(example2):
    a = search_vector_scheme(example2, "7/2", seed=5, budget=300)
    b = search_vector_scheme(example2, "7/2", seed=5, budget=300)
    assert a.found and a.scheme == b.scheme and a.trials == b.trials
    c = search_vector_scheme(example2, 3, seed=5, budget=60)
    d = search_vector_scheme(example2, 3, seed=5, budget=60)
    assert c.trials == d.trials and not c.found and c.L_tried == (2, 3, 4)


def test_example2_hints_reproduce_the_paper_scheme(example2):
    paper = itsa.load_scheme(example2, INSTANCES / "example-2.scheme.json")
    hints = key_entropies(paper, example2.K)
    singles = [hints[1 << i] for i in range(example2.K)]
    # (1,1) (1,2) (1,3) (1,4) (2,1) (2,2) (2,3) (3,1): Sec. V-A's keys
    assert singles == [1, 0, Fraction(1, 2), Fraction(1, 2), 1, 1, 0, Fraction(1, 2)]
    res = search_vector_scheme(example2, "7/2", L_values=(2,), hints=hints, budget=10)
    assert res.found and res.shape == "hint/private, absorber (1,1)"
    assert key_entropies(res.scheme, example2.K) == hints


def test_rate_without_integral_L(fractional):
    res = search_vector_scheme(fractional, "5/3", L_values=(2, 4))
    assert res.L_tried == () and not res.found and res.candidates == 0


def test_zero_rate_and_single_user():
    inst = itsa.Instance.from_users([1, 1, 1], [[]], [[]])
    res = search_vector_scheme(inst, 0, L_values=(2,))
    assert res.found and res.scheme.key_symbols == 0
    lonely = itsa.Instance((1,), (1,), (0,))           # one user: Σ Z = 0 means no key
    res = search_vector_scheme(lonely, 1, L_values=(2,))
    expected = verify(lonely, Scheme(field=res.field, L=2, key_symbols=2, keys={}), engine="rank").ok
    assert [t.shape for t in res.trials] == ["zero"] and res.found == expected


@pytest.mark.parametrize("kwargs, match", [
    ({"rate": -1}, "negative"), ({"rate": "x"}, "not a number"),
    ({"rate": 1, "field": 12}, "not a prime"), ({"rate": 1, "L_values": (0,)}, "L_values"),
])
def test_bad_input(fractional, kwargs, match):
    # a bad rate or L is InvalidInstance, a bad field InvalidOption: both InvalidInput
    with pytest.raises(InvalidInput, match=match):
        search_vector_scheme(fractional, **kwargs)


def test_default_field_is_prime_and_grows(example2):
    q1, q2 = default_vector_field(example2, 4), default_vector_field(example2, 16)
    assert 101 <= q1 < q2 and all(itsa.keys.schemes.linalg.field_problem(q) is None for q in (q1, q2))


def test_progress_reports_candidates(fractional):
    calls = []
    res = search_vector_scheme(fractional, 1, L_values=(2,), budget=30,
                               progress=lambda e: calls.append((e.done, e.total)))
    assert not res.found                       # 1 < 3/2, the proved optimum (docs/audit.md)
    assert calls and calls[-1] == (30, 30) and all(d <= t for d, t in calls)
    assert sum(t.draws for t in res.trials) == res.candidates == 30
