"""The bounded scheme search (itsa/keys/search/scalar.py): every returned scheme verifies,
determinism, limits, progress, and the fast criterion agrees with verify."""

import itertools
import random
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import itsa
from itsa.exceptions import ItsaError
from itsa.keys.schemes.scheme import Scheme
from itsa.keys.schemes.verifier import verify
from itsa.keys.search.scalar import MAX_SOURCE_DIM, fast_secure, search_min_rate
from itsa.testing import instances

#: The one health check these property tests lift: drawing a whole instance (servers, security and
#: collusion families) can pass hypothesis's generation-time budget on a loaded 2-core runner.
SLOW_DRAWS = [HealthCheck.too_slow]


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=SLOW_DRAWS)
@given(instances(max_users=5), st.sampled_from([5, 7, 31]))
def test_returned_scheme_verifies(inst, q):
    res = search_min_rate(inst, field=q, seed=1)
    assert res.found                          # d = K-1 is always reachable
    assert verify(inst, res.scheme, engine="rank").ok
    assert res.rate == res.scheme.rate <= inst.K - 1
    assert res.complete and res.limit is None
    assert res.verified >= 1 and res.prefiltered >= res.verified
    if res.rate == 0:
        assert res.exhaustive                  # nothing lies below rate 0


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=SLOW_DRAWS)
@given(instances(max_users=5), st.integers(0, 10**6), st.sampled_from([1, 2]),
       st.integers(0, 4), st.sampled_from([2, 3, 5]))
def test_fast_criterion_agrees_with_verify(inst, s, L, d, q):
    rng = random.Random(s)
    sup = [i for i in range(inst.K) if rng.random() < 0.7]
    keys = {i: [[rng.randrange(q) for _ in range(d)] for _ in range(L)] for i in sup[:-1]}
    if len(sup) >= 2:
        keys[sup[-1]] = [[-sum(keys[i][l][c] for i in sup[:-1]) % q for c in range(d)] for l in range(L)]
    sch = Scheme(field=q, L=L, key_symbols=d, keys=keys)
    assert fast_secure(inst, sch) == verify(inst, sch, engine="rank").ok


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=SLOW_DRAWS)
@given(instances(max_users=5), st.integers(0, 10**6), st.sampled_from([1, 2]),
       st.integers(0, 3), st.sampled_from([2, 3, 5]))
def test_fast_secure_agrees_with_verify_on_any_keys(inst, s, L, d, q):
    """Random keys that need not sum to zero (the criterion's precondition may fail)."""
    rng = random.Random(s)
    keys = {i: [[rng.randrange(q) if rng.random() < 0.6 else 0 for _ in range(d)] for _ in range(L)]
            for i in range(inst.K) if rng.random() < 0.6}
    sch = Scheme(field=q, L=L, key_symbols=d, keys=keys)
    assert fast_secure(inst, sch) == (not verify(inst, sch, engine="rank").nonzero_leaks)


def test_fast_secure_key_not_summing_to_zero():
    """Regression: one key, ΣZ ≠ 0; the group-rank criterion alone said secure."""
    inst = itsa.parse_instance({"servers": [1, 1, 1], "security_sets": [[[1, 1]]],
                                "collusion_sets": [[]]})
    sch = itsa.scheme_from_dict(inst, {"field": 5, "L": 1, "key_symbols": 1, "keys": {"1,1": [[1]]},
                                 "construction": "search", "seed": 0})
    verdict = verify(inst, sch, engine="rank")
    assert [(lk.k, lk.symbols) for lk in verdict.leaks] == [(1, 1), (2, 1), (3, 1)]
    assert not any(verdict.correct.values())
    assert fast_secure(inst, sch) is False


def _any_scalar_scheme(inst, q, d):
    """Brute force, independent of the search: some key assignment (any, ΣZ free) that verifies."""
    for flat in itertools.product(range(q), repeat=inst.K * d):
        keys = {i: [list(flat[i * d:(i + 1) * d])] for i in range(inst.K)}
        if verify(inst, Scheme(field=q, L=1, key_symbols=d, keys=keys), engine="rank").ok:
            return True
    return False


@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=SLOW_DRAWS)
@given(instances(max_users=4))
def test_exhaustive_means_no_smaller_scalar_scheme(inst):
    res = search_min_rate(inst, field=2, L_values=(1,), enumerate_up_to=10**4)
    assert res.exhaustive and res.found
    assert not any(_any_scalar_scheme(inst, 2, d) for d in range(int(res.rate)))


def test_exhaustive_false_when_levels_were_only_sampled():
    res = search_min_rate(itsa.keys.examples.load("homogeneous-U3-V2-t1"), field=31, L_values=(1,))
    assert res.rate == 4 and not res.exhaustive
    assert all(a.shape != "every-key" for a in res.attempts)


def test_deterministic_for_a_seed():
    inst = itsa.keys.examples.load("example-1")
    a, b = search_min_rate(inst, seed=3), search_min_rate(inst, seed=3)
    assert a.scheme == b.scheme and a.attempts == b.attempts and a.rate == Fraction(2)


def test_progress_and_attempts():
    inst = itsa.keys.examples.load("homogeneous-U3-V2-t1")
    calls = []
    res = search_min_rate(inst, field=31, progress=lambda e: calls.append((e.done, e.total)))
    assert res.rate == 4 and calls and all(d <= t for d, t in calls)
    assert res.d_values[1] == (0, 1, 2, 3, 4)
    assert [a for a in res.attempts if a.found][-1].shape == res.shape


def test_size_limit_refuses():
    inst = itsa.parse_instance({"servers": [10, 10, 10], "security_sets": ["all"],
                                "collusion_sets": [[]]})
    with pytest.raises(ItsaError, match="too large"):
        search_min_rate(inst)
    assert MAX_SOURCE_DIM == 60


def test_budget_stops_with_reason():
    inst = itsa.keys.examples.load("homogeneous-U3-V2-t1")
    res = search_min_rate(inst, field=31, budget=50)
    assert not res.complete and "budget" in res.limit
    assert res.scheme is None or verify(inst, res.scheme).ok


def test_bad_arguments():
    inst = itsa.keys.examples.load("example-1")
    with pytest.raises(ValueError):
        search_min_rate(inst, L_values=(3,))


def test_time_limit_stops_the_scalar_search():
    from itsa import examples

    r = search_min_rate(examples.load("example-2"), time_limit=1e-9)      # 0 is no limit
    assert not r.found and r.candidates == 0 and not r.exhaustive
    assert r.limit == "time limit of 0.0 s reached"
