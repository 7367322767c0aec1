"""itsa's corrected converse (itsa/keys/bounds/corrected.py): validity against verified schemes,
the homogeneous closed form, and the audit instances' findings."""

from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import itsa
from itsa.keys.bounds.corrected import _Chain, corrected_lower_bound, paper_lower_bound, structure
from itsa.keys.model.quantities import configurations
from itsa.keys.search.scalar import search_min_rate
from itsa.testing import instances
from itsa.testing.oracles import ReferenceChain, reference_g

#: The one health check these property tests lift: drawing a whole instance (servers, security and
#: collusion families) can pass hypothesis's generation-time budget on a loaded 2-core runner.
SLOW_DRAWS = [HealthCheck.too_slow]

ROOT = Path(__file__).resolve().parents[3]
AUDIT = ROOT / "instances" / "audit"


def homogeneous(U, V, t):
    return itsa.parse_instance({"servers": [V] * U, "security_sets": ["all"],
                                "collusion_sets": {"all_users_up_to": t}})


@pytest.mark.parametrize("U", [3, 4])
@pytest.mark.parametrize("V", [1, 2, 3])
@pytest.mark.parametrize("t", [0, 1, 2, 3])
def test_homogeneous_closed_form(U, V, t):
    b = corrected_lower_bound(homogeneous(U, V, t))
    assert b.value == min(U + V + t - 2, U * V - 1)
    assert b.g <= U * V - 1          # never above the always-achievable K-1
    assert b.label.startswith("itsa finding")


@pytest.mark.slow
def test_homogeneous_closed_form_U4_V3_t3():
    assert corrected_lower_bound(homogeneous(4, 3, 3)).value == 8


def _check_valid(inst, field=31):
    res = search_min_rate(inst, field=field)
    assert res.found and res.verdict.ok
    b = corrected_lower_bound(inst)
    assert b.value <= res.rate, (inst, b.value, res.rate)
    assert b.g <= inst.K - 1
    return b.value, res.rate


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=SLOW_DRAWS)
@given(instances(max_users=5))
def test_corrected_bound_never_exceeds_a_verified_rate(inst):
    _check_valid(inst)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None, suppress_health_check=SLOW_DRAWS)
@given(instances(max_users=6))
def test_corrected_bound_never_exceeds_a_verified_rate_many(inst):
    _check_valid(inst, field=7)


def test_chain_gains_add_up():
    inst = itsa.load_instance(AUDIT / "homogeneous-U3-V2-t1.yaml")
    b = corrected_lower_bound(inst)
    assert sum(s.gain for s in b.chain) == b.g == 4
    assert len(b.describe(inst)) == len(b.chain)


def test_structure_drops_servers_inside_T_and_uses_S_minus_T():
    inst = itsa.load_instance(AUDIT / "overlap-S-inside-T.yaml")
    s = structure(inst, 2, 1, 1)        # server 2 listens, T = {(1,1)} = S
    assert s.groups == (0b010, 0b100)   # own user (2,1), server 3; server 1 is inside T
    assert s.pure == (False, False)
    assert configurations(inst).c.max() == 2 and corrected_lower_bound(inst).g == 0


# (file, printed min{e*,K-1}, best verified rate, corrected bound), measured with field 31, seed 0
AUDIT_NUMBERS = [
    ("overlap-S-inside-T.yaml", 2, Fraction(0), 0),
    ("overlap-condition-1.yaml", 2, Fraction(0), 0),
    ("sum-public-D-covers-K.yaml", 1, Fraction(0), 0),
    ("homogeneous-U3-V2-t0.yaml", 4, Fraction(3), 3),
    ("homogeneous-U3-V2-t1.yaml", 5, Fraction(4), 4),
    ("condition2-nothing-protected.yaml", 1, Fraction(0), 0),
    ("condition3-intersection-fails.yaml", 2, Fraction(1), 1),
    ("fractional-optimum.yaml", 1, Fraction(3, 2), 1),
]


@pytest.mark.parametrize("name,printed,rate,corrected", AUDIT_NUMBERS)
def test_audit_instances(name, printed, rate, corrected):
    inst = itsa.load_instance(AUDIT / name)
    assert paper_lower_bound(inst) == printed
    assert corrected_lower_bound(inst).value == corrected
    res = search_min_rate(inst, field=31, seed=0)
    assert res.verdict.ok and res.rate == rate
    assert corrected <= rate


def test_audit_homogeneous_matches_published_optimum():
    for name, U, V, t in (("homogeneous-U3-V2-t0.yaml", 3, 2, 0), ("homogeneous-U3-V2-t1.yaml", 3, 2, 1)):
        inst = itsa.load_instance(AUDIT / name)
        assert search_min_rate(inst, field=31).rate == min(U + V + t - 2, U * V - 1)


def test_fractional_optimum_needs_L2():
    inst = itsa.load_instance(AUDIT / "fractional-optimum.yaml")
    assert search_min_rate(inst, field=31, L_values=(1,)).rate == 2
    assert itsa.analyze(inst).key_rate_upper.value is None      # the Theorem-2 LP is infeasible


def test_condition3_construction_fails_under_intersection_rule():
    from itsa.exceptions import VerificationError
    from itsa.keys.schemes.constructions import build_scheme

    inst = itsa.load_instance(AUDIT / "condition3-intersection-fails.yaml")
    assert itsa.analyze(inst, q_rule="union").regime == "theorem-2"
    a = itsa.analyze(inst, q_rule="intersection")
    assert a.regime == "condition-3"
    with pytest.raises(VerificationError, match="4 leaking configurations"):
        build_scheme(a, 31, max_tries=50)


# -- the fast _Chain against the reference loop: same values, same chains ----------------------

def _assert_same_as_reference(inst, every_subset=False):
    gK, chain = reference_g(inst)
    b = corrected_lower_bound(inst)
    assert (b.g, tuple(map(_step, b.chain))) == (gK, chain), inst
    assert b.value == min(gK, inst.K - 1)
    if every_subset:      # every X, not only the ones the chain from K visits
        ref, fast = ReferenceChain(inst), _Chain(inst)
        for X in range(1 << inst.K):
            assert fast.g(X) == ref.g(X), (inst, X)
            assert _step(fast.memo[X][1]) == ref.step(X), (inst, X)


def _step(st):
    """A chain step as the reference writes it: ``(X, (k, m, n), T_n, gain)``, or ``None``."""
    return None if st is None else (st.X, tuple(st.config), st.T, st.gain)


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=SLOW_DRAWS)
@given(instances(max_users=6))
def test_fast_chain_matches_reference(inst):
    _assert_same_as_reference(inst, every_subset=True)


@given(instances(max_users=6, max_security_sets=6, max_collusion_sets=12))
@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=SLOW_DRAWS)
def test_fast_chain_matches_reference_larger_families(inst):
    _assert_same_as_reference(inst)


@pytest.mark.parametrize("path", sorted((ROOT / "instances").glob("*.yaml"))
                         + sorted(AUDIT.glob("*.yaml")), ids=lambda p: p.name)
def test_fast_chain_matches_reference_on_files(path):
    _assert_same_as_reference(itsa.load_instance(path))


def test_fast_chain_multiword_sets():
    # K > 64: two uint64 words per set
    servers = (30, 30, 5, 5)
    K = sum(servers)
    S = (sum(1 << i for i in range(0, K, 3)), (1 << 40) - 1, 0)
    T = (0, 1 << 65, (1 << 64) | 0b111, sum(1 << i for i in range(10, 70, 7)))
    _assert_same_as_reference(itsa.Instance(servers, S, T))


@pytest.mark.slow
@settings(max_examples=1000, deadline=None, suppress_health_check=SLOW_DRAWS)
@given(instances(max_users=7, max_security_sets=6, max_collusion_sets=12))
def test_fast_chain_matches_reference_many(inst):
    _assert_same_as_reference(inst, every_subset=inst.K <= 6)


@pytest.mark.slow
def test_fast_chain_matches_reference_on_benchmark_instance():
    # benchmarks/bench_analyze.py's make_instance(0, M=10, t=2); the reference takes ~50 s
    import importlib.util
    spec = importlib.util.spec_from_file_location("bench_analyze", ROOT / "benchmarks" / "bench_analyze.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    _assert_same_as_reference(mod.make_instance(0, 10, 2))


# -- no recursion, whatever the depth of the chain -------------------------------------
def _prefix_chain(K: int, V: int, width: int, seed: int):
    """Singleton security sets, collusion sets a nested chain of prefixes: the chain has ~K steps."""
    import random

    from itsa import Instance

    rng = random.Random(seed)
    U = max(3, K // V)
    K = U * V
    S = tuple(sorted({1 << rng.randrange(K) for _ in range(width)} | {1 << (K - 1)}))
    T = tuple((1 << j) - 1 for j in range(K))
    return Instance((V,) * U, S, T)


@settings(max_examples=4)
@given(K=st.integers(60, 90), V=st.integers(1, 3), seed=st.integers(0, 10**6))
def test_corrected_bound_runs_without_recursion(K, V, seed):
    """A chain ~K deep runs under a recursion limit far below K (the recursive version failed)."""
    import inspect
    import sys

    from itsa.keys.bounds.corrected import corrected_lower_bound as clb

    inst = _prefix_chain(K, V, K, seed)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 45)
    try:
        b = clb(inst)
    finally:
        sys.setrecursionlimit(limit)
    assert sum(s.gain for s in b.chain) == b.g and b.value == min(b.g, inst.K - 1)
    assert clb(inst) == b


def test_corrected_bound_near_the_user_limit():
    """K = 4095 users, a chain of prefixes over 64 of them: values match a bounded memo."""
    import itsa.keys.bounds.corrected as bounds
    from itsa import Instance

    K = 4095
    S = tuple(1 << i for i in range(0, 64))
    T = tuple((1 << j) - 1 for j in range(0, 64))
    inst = Instance((1365, 1365, 1365), S, T)
    full = bounds.corrected_lower_bound(inst)
    old = bounds._Chain.MEMO_MAX
    bounds._Chain.MEMO_MAX = 8
    try:
        small = bounds.corrected_lower_bound(inst)
    finally:
        bounds._Chain.MEMO_MAX = old
    assert small.value == full.value and small.chain == full.chain
    assert full.K == K
