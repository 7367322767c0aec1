"""The float solve's optimal basis, its exact certificate, and the keys LP with array-held rows."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from scipy.sparse import csr_matrix

from itsa.keys.converse import _reduced, check_certificate, converse, orbit
from itsa.keys.converse import certificate as C
from itsa.keys.converse.lazy import ElementalRows, lazy_lp
from itsa.keys.converse.lp import Origin
from itsa.keys.converse.solver import solve_float
from itsa.testing import instances
from itsa.testing.families import one_protected_user


def _gauss(M: list[list[int]], b: list[int]) -> list[Fraction]:
    """Plain Gauss-Jordan in fractions: the reference for solve_exactly."""
    n = len(b)
    A = [[Fraction(v) for v in row] + [Fraction(bi)] for row, bi in zip(M, b)]
    for c in range(n):
        p = next(r for r in range(c, n) if A[r][c])
        A[c], A[p] = A[p], A[c]
        A[c] = [v / A[c][c] for v in A[c]]
        for r in range(n):
            if r != c and A[r][c]:
                A[r] = [v - A[r][c] * w for v, w in zip(A[r], A[c])]
    return [A[r][n] for r in range(n)]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(1, 7).flatmap(lambda n: st.tuples(
    st.lists(st.lists(st.integers(-3, 3), min_size=n, max_size=n), min_size=n, max_size=n),
    st.lists(st.integers(-5, 5), min_size=n, max_size=n))))
def test_solve_exactly_matches_gauss_jordan(system):
    M, b = system
    assume(np.linalg.matrix_rank(np.array(M, dtype=float)) == len(b))
    assert C.solve_exactly(csr_matrix(np.array(M)), b) == _gauss(M, b)


def test_solve_exactly_refuses_a_singular_system():
    assert C.solve_exactly(csr_matrix(np.array([[1, 2], [2, 4]])), [1, 3]) is None


@pytest.mark.parametrize("K", [8, 10])
def test_certificate_from_the_basis_checks_and_is_the_optimum(K):
    rlp = _reduced(one_protected_user(K), "keys", True)
    sol = solve_float(rlp)
    assert sol.basis is not None and len(sol.basis.rows) == len(sol.basis.columns)
    cert = C.from_basis(rlp, sol)
    assert cert is not None
    check_certificate(rlp, cert)
    assert abs(float(cert.value) - sol.value) < 1e-7
    assert cert.value == {8: Fraction(7, 5), 10: Fraction(9, 7)}[K]


def test_a_basis_not_optimal_for_the_objective_gives_no_certificate():
    """The basis of another objective (the sum of all entropies) is feasible but not optimal
    for ``h(N)``: a reduced cost is negative in exact arithmetic, and no certificate is made."""
    import dataclasses

    rlp = _reduced(one_protected_user(8), "keys", True)
    sol = solve_float(rlp)
    other = dataclasses.replace(rlp, objective={o: Fraction(1) for o in range(1, rlp.n_columns + 1)})
    foreign = solve_float(other).basis
    assert foreign is not None and foreign != sol.basis
    assert C.from_basis(rlp, dataclasses.replace(sol, basis=foreign)) is None
    assert C.from_basis(rlp, sol).value == Fraction(7, 5)


def test_a_row_of_unknown_origin_is_rejected():
    import dataclasses

    from itsa import VerificationError
    from itsa.keys.converse.lp import Row

    rlp = _reduced(one_protected_user(6), "keys", True)
    cert = C.certify(rlp, solve_float(rlp))
    r, w = cert.weights[0]
    rlp.rows[r] = Row(rlp.rows[r].coefs, ">=", Fraction(0), ("zhang-yeung", 1, 2, 4, 8))
    with pytest.raises(VerificationError, match="unknown origin"):
        check_certificate(rlp, dataclasses.replace(cert))


def test_a_column_map_without_the_empty_set_first_is_rejected():
    from itsa import VerificationError

    lp = lazy_lp(one_protected_user(5))
    lp.column_of[[0, 1]] = lp.column_of[[1, 0]]
    with pytest.raises(VerificationError, match="empty set"):
        lp.check_structure()


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(instances(max_users=7, max_security_sets=3, max_collusion_sets=4))
def test_array_held_lp_equals_the_orbit_lp(inst):
    lazy = lazy_lp(inst)
    assert lazy.n_columns == (1 << inst.K) - 1
    sol = solve_float(lazy)
    cert = C.from_basis(lazy, sol)                      # the basis route itself, not a rounding
    assert cert is not None
    check_certificate(lazy, cert)
    assert cert.value == converse(inst, "keys").value
    built = [r for r in lazy.rows if r.origin[0] == Origin.SHANNON]
    assert len(built) == len(lazy.implicit.built) == lazy.sizes["rows_built"] - len(lazy.problem.constraints)


def test_elemental_rows_are_every_elemental_inequality():
    K = 5
    rows = ElementalRows(K, np.arange(1 << K))
    assert rows.n == K * (K - 1) * 2 ** (K - 3) + K
    seen = {(int(p), int(s[3]) if p >= 0 else int(s[1])) for s, p in zip(rows.sets, rows.pair)}
    assert len(seen) == rows.n                                   # no row twice
    full, rests = (1 << K) - 1, set()
    for s, p in zip(rows.sets.tolist(), rows.pair.tolist()):
        if p >= 0:
            i, j = divmod(p, K)
            a, b, ab, c = s
            assert not c >> i & 1 and not c >> j & 1 and (a, b, ab) == (c | 1 << i, c | 1 << j, c | 1 << i | 1 << j)
        else:                                                    # H(i | rest) = h(N) - h(N - i)
            assert s[0] == full and s[1] == full & ~(1 << (-1 - p))
            rests.add(-1 - p)
    assert rests == set(range(K))


def test_too_many_orbit_rows_go_to_the_array_held_lp(monkeypatch):
    inst = one_protected_user(9)
    expected = converse(inst).value
    monkeypatch.setattr(orbit, "MAX_PAIR_ROWS", 10)
    with pytest.raises(orbit.TooManyRows):
        orbit.orbit_lp(inst)
    b = converse(inst)
    assert b.certified and b.value == expected and b.sizes["rows_built"] < b.sizes["rows"]
    assert converse(inst, symmetry=False).value == expected


def test_without_symmetry_past_the_plain_limit_the_array_held_lp_answers(monkeypatch):
    import itsa.keys.converse as conv

    inst = one_protected_user(9)
    plain = converse(inst, symmetry=False)
    assert "rows_built" not in plain.sizes                       # rows built as objects
    monkeypatch.setattr(conv, "PLAIN_MAX_USERS", 8)
    held = converse(inst, symmetry=False)
    assert held.certified and held.value == plain.value
    assert held.sizes["rows_built"] < held.sizes["rows"]


def test_the_certificate_is_never_starved_by_the_solve():
    """A solve that used up the whole time limit still gets its certificate (the solve's own time)."""
    import dataclasses
    import time

    from itsa._util.deadline import Deadline
    from itsa._util.progress import Reporter
    from itsa.keys.converse.pipeline import solve_and_certify

    def slow(rlp, time_limit=None, progress=None):
        sol = solve_float(rlp)
        time.sleep(time_limit + 0.05)
        return dataclasses.replace(sol, seconds=sol.seconds + time_limit)
    rlp = _reduced(one_protected_user(10), "keys", True)
    b = solve_and_certify(rlp, Deadline(0.5), Reporter(None, "keys"), solver=slow)
    assert b.certified and b.value == Fraction(9, 7)
