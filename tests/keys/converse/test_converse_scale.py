"""The converse at scale: orbit LPs of symmetric instances, their strict check, the time budget."""

import dataclasses
import re
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from itsa import Instance, InvalidInstance, VerificationError, examples, solve
from itsa._util.progress import Event
from itsa.keys.converse import Certificate, check_certificate, converse
from itsa.keys.converse.orbit import twin_cells
from itsa.testing import instances


def formula(U, V, t):
    """min{U+V+t-2, UV-1}: the optimum of the homogeneous family."""
    return Fraction(min(U + V + t - 2, U * V - 1))


def chain(K):
    """One server of K users, security sets {1}, {1,2}, ...: no two users are interchangeable."""
    users = [(1, v + 1) for v in range(K)]
    return Instance.from_users([K], [users[:j] for j in range(1, K + 1)], [[]], name=f"chain-{K}")


@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(instances(max_users=6, max_security_sets=3, max_collusion_sets=4))
def test_orbit_lp_equals_plain_lp(inst):
    orbit, plain = converse(inst, "keys"), converse(inst, "keys", symmetry=False)
    assert orbit.certified and plain.certified
    assert orbit.value == plain.value
    assert orbit.sizes["columns"] <= plain.sizes["columns"] == (1 << inst.K) - 1


@pytest.fixture(scope="module")
def k32():
    return converse(examples.homogeneous(4, 8, 2), "keys")


def test_homogeneous_K32(k32):
    b = k32
    assert b.certified and b.value == formula(4, 8, 2) == 12
    assert b.sizes["columns"] == 494 and b.sizes["count_vectors"] == 9 ** 4
    check_certificate(b.lp, b.certificate)


def test_key_entropy_hints_at_K32_are_singletons_and_pairs(k32):
    h = k32.key_entropies()
    assert len(h) == 32 + 32 * 31 // 2
    assert all(v >= 0 for v in h.values())


@pytest.mark.slow
def test_solve_K32_is_optimal_with_a_verified_scheme():
    s = solve(examples.homogeneous(4, 8, 2), time_limit=300)
    assert s.verdict == "optimal" and s.lower.value == 12 and s.lower.certified
    assert "model" in s.skipped


@pytest.mark.slow
@pytest.mark.parametrize("U, V, t", [(3, 16, 2), (4, 16, 2)])          # K = 48 (about 10 s), 64 (2 min)
def test_homogeneous_K48_K64(U, V, t):
    b = converse(examples.homogeneous(U, V, t), "keys")
    assert b.certified and b.value == formula(U, V, t)


@pytest.mark.parametrize("U, V, t", [(8, 2, 1), (7, 2, 0), (3, 4, 1)])     # 8! > 5040 cell perms: nauty
def test_orbit_lp_group_from_cells_or_nauty(U, V, t):
    b = converse(examples.homogeneous(U, V, t), "keys")
    assert b.certified and b.value == formula(U, V, t)


def test_twin_cells_split_users_the_sets_single_out():
    inst = Instance.from_users([3, 2], [[(1, 1)], [(2, 1), (2, 2)]], [[]])
    assert twin_cells(inst) == ((0,), (1, 2), (3, 4))
    assert twin_cells(chain(4)) == ((0,), (1,), (2,), (3,))


def test_asymmetric_large_instance_is_refused_with_the_reason():
    with pytest.raises(InvalidInstance, match="at most 16 users"):
        converse(chain(17), "keys")


def test_asymmetric_K14_is_settled_by_separation_within_the_budget():
    s = solve(chain(14), time_limit=20, classes=("keys",))
    assert s.verdict == "optimal" and s.lower.method == "keys" and not s.skipped
    bound = s.converses[0]
    assert bound.lp.implicit is not None and bound.sizes["rows_built"] < bound.sizes["rows"]


@pytest.fixture(scope="module")
def k12():
    return converse(examples.homogeneous(4, 3, 2), "keys")


def test_tampered_orbit_certificate_is_rejected(k12):
    b = k12
    check_certificate(b.lp, b.certificate)
    (r, w), *rest = b.certificate.weights
    with pytest.raises(VerificationError):
        check_certificate(b.lp, Certificate(b.value, ((r, w * 2), *rest)))
    with pytest.raises(VerificationError):
        check_certificate(b.lp, Certificate(b.value + 1, b.certificate.weights))


def test_tampered_orbit_structure_is_rejected(k12):
    lp = k12.lp
    cert = k12.certificate

    def rejected(**changes):
        with pytest.raises(VerificationError):
            check_certificate(dataclasses.replace(lp, **changes), cert)
    swap = tuple([1, 0] + list(range(2, 12)))
    cross = tuple([3] + list(range(1, 3)) + [0] + list(range(4, 12)))      # users of two servers
    rejected(problem=dataclasses.replace(lp.problem, generators=lp.problem.generators + (cross,)))
    rejected(cells=((0, 3),) + tuple(c for c in lp.cells if 0 not in c and 3 not in c)
             + ((1, 2), (4, 5)))
    merged = lp.column_of.copy()
    merged[merged == 2] = 1
    rejected(column_of=merged)
    c0 = lp.problem.constraints[0]
    lie = dataclasses.replace(c0, rhs=c0.rhs + 1)
    rejected(problem=dataclasses.replace(lp.problem, constraints=(lie,) + lp.problem.constraints[1:]))
    check_certificate(dataclasses.replace(lp, problem=dataclasses.replace(
        lp.problem, generators=lp.problem.generators + (swap,))), cert)     # a true symmetry is fine
    not_a_permutation = tuple([1, 2, 2] + list(range(3, 12)))
    rejected(problem=dataclasses.replace(lp.problem, generators=lp.problem.generators + (not_a_permutation,)))
    rejected(radix=[r + 1 for r in lp.radix])


def test_an_extra_constraint_without_a_lemma_origin_is_rejected(k12):
    from itsa.keys.converse.lp import Row
    from itsa.keys.converse.problem import Constraint

    lp = k12.lp
    fake = Constraint(((examples.homogeneous(4, 3, 2).full_mask, Fraction(1)),), ">=", Fraction(100), "a lie")
    problem = dataclasses.replace(lp.problem, constraints=lp.problem.constraints + (fake,))
    row = Row(tuple(lp.coords(fake.form).items()), ">=", Fraction(100), ("constraint", len(problem.constraints) - 1))
    tampered = dataclasses.replace(lp, problem=problem, rows=lp.rows + [row])
    with pytest.raises(VerificationError, match="not a group-lemma row"):
        check_certificate(tampered, Certificate(Fraction(100), ((len(tampered.rows) - 1, Fraction(1)),)))


def test_tiny_budget_gives_a_clean_cut():
    b = converse(examples.homogeneous(4, 8, 2), "keys", time_limit=1e-6)
    assert not b.certified and b.cut and b.status.startswith("cut:") and b.value is None
    assert b.to_dict()["cut"] is True


def test_budget_skips_by_estimate_and_records_why():
    s = solve(examples.homogeneous(3, 1, 1), time_limit=30, classes=("model",))
    b = converse(examples.homogeneous(3, 1, 1), "model", max_estimate=1e-9)
    assert b.status.startswith("skipped: about") and b.cut and b.estimate > 0
    assert s.verdict == "optimal" and s.lower.value == 2


def test_progress_events():
    seen = []
    converse(examples.homogeneous(3, 2, 1), "keys", progress=seen.append)
    stages = [e.stage for e in seen]
    assert stages[0] == "keys: reduce" and "keys: certify" in stages
    rounds = [e for e in seen if e.round is not None]
    assert rounds and all(e.columns == 9 for e in rounds)
    assert all(isinstance(e, Event) for e in seen)
    elapsed = [e.elapsed for e in seen]              # seconds since the call began, each time
    assert elapsed[0] >= 0 and elapsed == sorted(elapsed)


def test_cli_converse_json_is_silent_on_stderr(cli):
    res = cli("converse", "homogeneous-U3-V2-t1", "--json")
    assert res.exit_code == 0 and res.stderr == ""
    assert '"value": "4"' in res.stdout and '"cut": false' in res.stdout


def test_cli_converse_cut_names_the_best_bound(cli):
    res = cli("converse", "homogeneous-U3-V2-t1", "--time-limit", "0.000001")
    assert res.exit_code == 1
    assert "cut: time limit reached" in res.stdout
    assert re.search(r"best bound proved +R_ZΣ ≥", res.stdout), res.stdout


def test_cli_progress_rules():
    from itsa_cli._progress import time_limit_of, wanted

    assert wanted(False, True, True) and wanted(True, True, True)
    assert not wanted(True, False, True) and not wanted(False, False, False)
    assert time_limit_of(None, 300.0) == 300.0 and time_limit_of(0, 300.0) is None
    assert time_limit_of(7.5, 300.0) == 7.5


def test_cli_default_budget_is_the_library_default():
    from itsa.keys.converse import DEFAULT_TIME_LIMIT
    from itsa_cli.converse import TIME_LIMIT_HELP

    assert f"default {DEFAULT_TIME_LIMIT:g}" in TIME_LIMIT_HELP


def test_orbit_lp_key_entropies_hint():
    b = converse(examples.homogeneous(3, 2, 1), "keys")
    h = b.key_entropies(1)
    assert len(h) == 6 and all(v >= 0 for v in h.values())
    assert np.isfinite(b.float_value)
