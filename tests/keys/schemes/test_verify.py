"""The two exact verification engines: the paper's schemes, broken schemes, and agreement."""

import json
import math
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import itsa
from itsa.exceptions import InvalidOption, InvalidScheme, ItsaError
from itsa.keys.model.io import load_instance
from itsa.keys.schemes.linalg import rank, rank_flat
from itsa.keys.schemes.scheme import Scheme, load_scheme, scheme_from_dict, scheme_to_dict
from itsa.keys.schemes.verifier import Leak, Verdict, verify
from itsa.testing import instances

V = sys.modules["itsa.keys.schemes.engines"]
ROOT = Path(__file__).resolve().parents[3]
BIG = 2**31 - 1


@pytest.fixture(scope="module")
def ex1():
    return load_instance(ROOT / "instances/example-1.yaml")


@pytest.fixture(scope="module")
def ex2():
    return load_instance(ROOT / "instances/example-2.yaml")


def scheme1(inst, q):
    return load_scheme(inst, ROOT / "instances/example-1.scheme.json", field=q)


def scheme2(inst, q):
    return load_scheme(inst, ROOT / "instances/example-2.scheme.json", field=q)


def table(verdict):
    return [(lk.k, lk.m, lk.n, lk.symbols) for lk in verdict.measured]


def leaking(verdict):
    return {(lk.k, lk.m, lk.n): lk.symbols for lk in verdict.leaks}


def ns_with(inst, *users):
    """1-based n of the collusion sets containing all the given users."""
    need = inst.mask(users)
    return [n for n, t in enumerate(inst.collusion_sets, 1) if t & need == need]


# -- the paper's printed schemes -------------------------------------------------
@pytest.mark.parametrize("q,engine", [(3, "enumerate"), (5, "enumerate"), (7, "rank"), (BIG, "rank")])
def test_example_1_scheme_verifies(ex1, q, engine):
    v = verify(ex1, scheme1(ex1, q), engine=engine)
    assert v.engine == engine and v.fallback is None
    assert v.correct == {1: True, 2: True, 3: True}
    assert v.ok and v.leaks == ()
    assert (v.checked, v.trivial, v.total) == (3 * 3 * 16, 3 * 16, 3 * 4 * 16)
    assert all(lk.symbols == 0 and lk.exact for lk in v.measured)
    assert v.source_dim == 9


@pytest.mark.parametrize("q", [7, 11, BIG])
def test_example_2_scheme_verifies_by_rank(ex2, q):
    v = verify(ex2, scheme2(ex2, q), engine="rank")
    assert v.correct == {1: True, 2: True, 3: True}
    assert v.ok
    assert (v.checked, v.trivial) == (3 * 7 * 28, 3 * 28)
    assert [(lk.k, lk.m, lk.n) for lk in v.measured[:3]] == [(1, 2, 1), (1, 2, 2), (1, 2, 3)]


def test_galois_backend_agrees_on_example_2(ex2):
    s = scheme2(ex2, 7)
    assert table(verify(ex2, s, engine="rank", rank_backend="galois")) == table(
        verify(ex2, s, engine="rank"))


def test_auto_engine_choice(ex1, ex2):
    v = verify(ex1, scheme1(ex1, 3))
    assert v.engine == "enumerate" and v.fallback is None and v.ok
    v = verify(ex2, scheme2(ex2, 7))
    assert v.engine == "rank" and "7^23" in v.fallback and "used rank" in v.fallback


def test_enumeration_refuses_large_instances(ex2):
    # a request too large is bad input (the CLI exits 2), not a failed check
    with pytest.raises(InvalidOption, match=r"too large: q\^dim = 7\^23"):
        verify(ex2, scheme2(ex2, 7), engine="enumerate")


def test_enumeration_budget_is_a_parameter(ex1):
    with pytest.raises(ItsaError, match="too large"):
        verify(ex1, scheme1(ex1, 3), engine="enumerate", enum_budget=1000)


# -- broken schemes ------------------------------------------------------------------
def test_example_1_without_Z13_leaks_exactly_where_reasoned(ex1):
    """Z_{1,3} = 0 and Z_{2,1} = -N_1 (so that ΣZ = 0 still).

    Server 1 then reads W_{1,2}, W_{1,3} from its own messages and Y_3 = W_{3,1}+W_{3,2};
    when (2,2) colludes, ΣW minus all these is W_{1,1} + W_{2,1}: one symbol about
    S_4 = {(1,1),(2,1)}. Without (2,2) in T, W_{2,2} masks it; S_2, S_3 alone stay
    hidden by the other input; servers 2 and 3 only see Y_1, in which W_{1,3} masks.
    """
    for q, engine in ((3, "enumerate"), (7, "rank")):
        s = Scheme(field=q, L=1, key_symbols=2, keys={ex1.index(1, 1): [[1, 0]], ex1.index(2, 1): [[-1, 0]]})
        v = verify(ex1, s, engine=engine)
        assert v.correct == {1: True, 2: True, 3: True}
        assert leaking(v) == {(1, 4, n): 1 for n in ns_with(ex1, (2, 2))}
        assert sorted(ns_with(ex1, (2, 2))) == [3, 6, 9, 10, 12, 13, 15, 16]
        assert not v.ok


def test_example_1_key_set_to_zero_breaks_correctness_too(ex1):
    data = json.loads((ROOT / "instances/example-1.scheme.json").read_text())
    del data["keys"]["1,3"]                  # entries stay -1, re-read mod each q
    for q, engine in ((3, "enumerate"), (7, "rank")):
        v = verify(ex1, scheme_from_dict(ex1, data, field=q), engine=engine)
        assert v.correct == {1: False, 2: False, 3: False}          # ΣZ = -N_2 ≠ 0
        assert leaking(v) == {(1, 4, n): 1 for n in ns_with(ex1, (2, 2))}


def test_no_keys_leaks_values(ex1):
    """Without keys server 1 reads W_{1,1}; with (2,2) colluding it also gets W_{2,1} from Y_2."""
    for q, engine in ((2, "enumerate"), (3, "enumerate"), (5, "rank")):
        v = verify(ex1, Scheme(field=q, L=1, key_symbols=0, keys={}), engine=engine)
        assert all(v.correct.values())
        lk = leaking(v)
        assert lk[1, 2, 1] == 1                  # S = {(1,1)}, T = ∅
        assert lk[1, 4, 1] == 1                  # W_{2,1} still masked by W_{2,2}
        assert lk[1, 4, 3] == 2                  # T_3 = {(2,2)}: both inputs exposed
        assert lk[2, 3, 1] == 1
        # server 2 never gets W_{1,1}: Y_1 = W_{1,1}+W_{1,2}+W_{1,3} and (1,3) never colludes
        assert all(lk[2, 4, n] == 1 for n in range(1, 17))
        assert (3, 2, 1) not in lk               # server 3: Y_1 masks W_{1,1} by W_{1,2}, W_{1,3}


@pytest.mark.parametrize("user,row_col,expected_n", [
    ("3,1", (1, 6), [17, 22]),       # Z_{3,1} = (N7, N7): needs (1,4), (2,3) colluding
    ("1,4", (1, 1), [20, 23]),       # Z_{1,4} = (N2, N2): needs (2,3), (3,1) colluding
])
def test_example_2_changed_coefficient(ex2, user, row_col, expected_n):
    """Make a key's second symbol repeat its first (Z_{1,1} compensates, so ΣZ = 0).

    Server 1 sees X_{1,3} = W_{1,3} + (N1, N1) and the other repeated key's message
    separately, so it learns the differences of both symbols of those inputs; with the
    remaining unkeyed masks colluding, ΣW then yields the difference of the two symbols
    of W_{1,1} + W_{2,1} + W_{2,2}: one symbol about S_8, and only at those (1, 8, n).
    """
    data = scheme_to_dict(ex2, scheme2(ex2, 7))
    r, c = row_col
    data["keys"][user][r][c] = 1
    data["keys"]["1,1"][r][c] = -1
    v = verify(ex2, scheme_from_dict(ex2, data), engine="rank")
    assert v.correct == {1: True, 2: True, 3: True}
    assert leaking(v) == {(1, 8, n): 1 for n in expected_n}
    want = {17: [(1, 4), (2, 3)], 22: [(1, 2), (1, 4), (2, 3)],
            20: [(2, 3), (3, 1)], 23: [(1, 2), (2, 3), (3, 1)]}
    for n in expected_n:
        assert ex2.labels(ex2.collusion_sets[n - 1]) == want[n]


def test_verdict_api(ex1):
    v = verify(ex1, Scheme(field=3, L=1, key_symbols=0, keys={}), engine="rank")
    assert isinstance(v, Verdict) and not v.ok
    lk = v.leak(1, 4, 3)
    assert lk == Leak(1, 4, 3, Fraction(2), 2.0) and lk.exact and not lk.independent
    assert v.leak(1, 1, 1) is None                       # S_1 = ∅: trivial
    assert all(x.symbols > 0 for x in v.leaks)
    assert len(v.measured) == v.checked == 144
    assert [(x.k, x.m, x.n) for x in v.measured] == sorted((x.k, x.m, x.n) for x in v.measured)


def test_scheme_outside_instance_rejected(ex1):
    with pytest.raises(InvalidScheme, match="user index 7"):
        verify(ex1, Scheme(field=3, L=1, key_symbols=1, keys={7: [[1]]}))


def test_unknown_engine(ex1):
    with pytest.raises(ValueError, match="unknown engine"):
        verify(ex1, Scheme(field=3, L=1, key_symbols=0, keys={}), engine="fast")


def test_progress_is_reported(ex1):
    for engine in ("rank", "enumerate"):
        calls = []
        verify(ex1, scheme1(ex1, 3), engine=engine, progress=lambda e, calls=calls: calls.append((e.done, e.total)))
        assert calls and calls[-1][0] == calls[-1][1]
        assert [d for d, _ in calls] == sorted(d for d, _ in calls)


def test_enumeration_infers_only_exact_zeros(ex1):
    v = verify(ex1, scheme1(ex1, 3), engine="enumerate")
    assert 0 < v.inferred <= v.checked
    broken = verify(ex1, Scheme(field=3, L=1, key_symbols=0, keys={}), engine="enumerate")
    assert table(broken) == table(verify(ex1, Scheme(field=3, L=1, key_symbols=0, keys={}), engine="rank"))


# -- exactness of the counting -------------------------------------------------------
def test_counting_is_exact_and_flags_irrational_values():
    """A = B = [s = 0] on 3 equally likely values: I(A;B) = H(A) = 1 - (2/3) log_3 2."""
    s_ab = V._xlogx(np.array([1, 2]))
    s_c = V._xlogx(np.array([3]))                       # C constant
    assert s_c == {3: 3}
    val, approx = V._cmi(s_ab, s_c, s_ab, s_ab, 3, 3)
    assert val is None
    assert approx == pytest.approx(1 - 2 / 3 * math.log(2, 3))
    # a uniform 2-symbol variable over F_3 observed fully: exactly 2 q-ary units
    s = V._xlogx(np.ones(9, dtype=np.int64))
    assert s == {}
    assert V._cmi(s, V._xlogx(np.array([9])), s, s, 3, 9) == (Fraction(2), 2.0)


def test_counter_range_split_matches_sort():
    rng = np.random.default_rng(1)
    lab = rng.integers(0, 5000, 20000)
    ctr = V._Counter(10)
    ctr.limit = 700                                     # forces the split path
    ref_vals, ref_counts = np.unique(lab, return_counts=True)
    assert sorted(ctr.counts(lab, 5000).tolist()) == sorted(ref_counts.tolist())
    dense, card, counts = ctr.dense(lab, 5000)
    assert card == len(ref_vals)
    assert np.array_equal(np.unique(dense), np.arange(card))
    assert np.array_equal(np.bincount(dense), counts)
    pairs = set(zip(lab.tolist(), dense.tolist()))
    assert len(pairs) == card                          # a bijection of values
    ctr.limit = 10                                      # forces the sorting path
    assert sorted(ctr.counts(lab, 5000).tolist()) == sorted(ref_counts.tolist())
    assert ctr.dense(lab, 5000)[1] == card


# -- agreement of the engines on random small schemes ---------------------------------
@st.composite
def small_cases(draw):
    inst = draw(instances(max_users=4, max_security_sets=3, max_collusion_sets=4))
    q = draw(st.sampled_from([2, 3]))
    L = draw(st.integers(1, 2))
    d = draw(st.integers(0, 2))
    assume(q ** (inst.K * L + d) <= 3**9)
    users = draw(st.sets(st.integers(0, inst.K - 1)))
    entry = st.integers(0, q - 1)
    keys = {i: draw(st.lists(st.lists(entry, min_size=d, max_size=d), min_size=L, max_size=L))
            for i in users}
    if draw(st.booleans()) and keys and d:        # often make ΣZ = 0, so correctness holds
        last = max(keys)
        rest = sum(np.array(keys[i], dtype=np.int64) for i in keys if i != last)
        keys[last] = ((-rest) % q).tolist() if isinstance(rest, np.ndarray) else keys[last]
    return inst, Scheme(field=q, L=L, key_symbols=d, keys=keys)


@settings(max_examples=200, deadline=None)
@given(small_cases())
def test_engines_agree(case):
    inst, scheme = case
    r = verify(inst, scheme, engine="rank")
    e = verify(inst, scheme, engine="enumerate")
    assert (r.engine, e.engine) == ("rank", "enumerate")
    assert r.correct == e.correct
    assert table(r) == table(e)
    assert all(lk.exact and lk.symbols.denominator == 1 for lk in e.measured)
    assert r.ok == e.ok and r.trivial == e.trivial


def gauss_rank(rows, cols, flat, q):
    """Plain Gaussian elimination mod q: the independent reference."""
    m = [flat[r * cols:(r + 1) * cols] for r in range(rows)]
    rk = 0
    for c in range(cols):
        piv = next((r for r in range(rk, rows) if m[r][c] % q), None)
        if piv is None:
            continue
        m[rk], m[piv] = m[piv], m[rk]
        inv = pow(m[rk][c], -1, q)
        for r in range(rows):
            if r != rk and m[r][c] % q:
                f = m[r][c] * inv % q
                m[r] = [(a - f * b) % q for a, b in zip(m[r], m[rk])]
        rk += 1
    return rk


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([2, 3, 5, 7, BIG]), st.integers(0, 5), st.integers(0, 6), st.data())
def test_rank_backends_agree(q, rows, cols, data):
    small = st.integers(0, min(q - 1, 2))            # small entries make dependencies likely
    flat = data.draw(st.lists(small | st.integers(0, q - 1), min_size=rows * cols,
                              max_size=rows * cols))
    got = rank_flat(rows, cols, flat, q)
    assert got == gauss_rank(rows, cols, flat, q)
    assert got == rank_flat(rows, cols, flat, q, backend="galois")
    if rows and cols:
        assert got == rank(np.array(flat).reshape(rows, cols), q)


def test_leaks_are_the_leaks(ex1):
    """``verdict.leaks`` reads as "the leaks" and is exactly that; every measurement is ``measured``."""
    v = verify(ex1, Scheme(field=3, L=1, key_symbols=0, keys={}), engine="rank")
    zero = [x for x in v.measured if x.symbols == 0]
    assert zero and v.leaks                                  # this scheme has both kinds
    assert v.leaks == tuple(x for x in v.measured if x.symbols != 0)
    assert v.nonzero_leaks == v.leaks                        # the old name, same tuple
    good = verify(ex1, itsa.keys.examples.scheme("example-1"))
    assert good.ok and not good.leaks and len(good.measured) == good.checked > 0


def test_verify_and_audit_are_functions_with_modules_of_their_own(ex1):
    import inspect

    import itsa.keys.auditor
    import itsa.keys.schemes.verifier as verifier

    assert inspect.isfunction(itsa.verify) and inspect.isfunction(itsa.audit)
    assert itsa.verify is verifier.verify and itsa.audit is itsa.keys.auditor.audit
    assert itsa.ENGINES == verifier.ENGINES == ("auto", "rank", "enumerate")
    assert "converse-beaten" in itsa.FINDING_KINDS
    assert itsa.verify(ex1, itsa.keys.examples.scheme("example-1"), engine="rank").ok
    assert list(inspect.signature(itsa.verify).parameters)[:2] == ["instance", "scheme"]
