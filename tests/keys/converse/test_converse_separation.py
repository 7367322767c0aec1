"""The keys LP on every user set by separation: chain rows first, a relaxation's bound every round."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from itsa import Instance
from itsa.keys.converse import certificate as C
from itsa.keys.converse import check_certificate, converse
from itsa.keys.converse.lazy import ElementalRows, lazy_lp, upper_fill
from itsa.keys.converse.solver import solve_float
from itsa.testing.families import one_protected_user

#: K = 8, drawn from the probe's `testing` ensemble: the chain rows alone give 5, the LP 6.
CHAIN_SHORT = Instance((3, 1, 3, 1), (186, 143, 248), (150, 174, 91), name="chain-rows-short")


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.integers(2, 6), st.data())
def test_upper_fill_is_the_least_known_superset(K, data):
    n = 1 << K
    values = np.array(data.draw(st.lists(st.integers(0, 9), min_size=n, max_size=n)), dtype=float)
    known = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    known[-1] = True
    out = upper_fill(values, known)
    for X in range(n):
        want = values[X] if known[X] else min(values[A] for A in range(n) if known[A] and A & X == X)
        assert out[X] == want


def test_chain_rows_are_the_prefix_conditions_and_every_rest_row():
    K = 6
    rows = ElementalRows(K, np.arange(1 << K))
    order = [2, 0, 5, 1, 4, 3]
    got = set(rows.chain_rows([order], extra=1).tolist())
    prefixes = {sum(1 << u for u in order[:m]) for m in range(K + 1)}
    for t in range(rows.n):
        C, p = int(rows.sets[t][3]), int(rows.pair[t])
        near = any(P & C == P and bin(C & ~P).count("1") <= 1 for P in prefixes)
        assert (t in got) == (p < 0 or near)


@pytest.mark.parametrize("K, value", [(8, Fraction(7, 5)), (10, Fraction(9, 7))])
def test_chain_rows_alone_prove_the_optimum_of_one_protected_user(K, value):
    """Round 1 (the chain rows: a Shearer-type proof) is already the LP's optimum on this family."""
    lp = lazy_lp(one_protected_user(K))
    rounds: list[str] = []
    sol = solve_float(lp, target=float(value), progress=lambda stage, **kw: rounds.append(stage))
    assert len(rounds) == 1
    cert = C.from_basis(lp, sol)                       # the basis route itself
    check_certificate(lp, cert)
    assert cert.value == value


def test_a_stopped_relaxation_is_certified_and_below_the_lp():
    lp = lazy_lp(CHAIN_SHORT)
    first = solve_float(lp, target=0.0)                 # stop after the first round
    assert first.relaxed and "round 1," in first.relaxed
    cert = C.from_basis(lp, first)
    check_certificate(lp, cert)
    assert cert.value == 5 < converse(CHAIN_SHORT).value == 6
    whole = solve_float(lazy_lp(CHAIN_SHORT))
    assert whole.relaxed is None and abs(whole.value - 6) < 1e-7


def test_converse_stops_at_the_target_and_says_so(monkeypatch):
    import itsa.keys.converse as conv

    monkeypatch.setattr(conv, "PLAIN_MAX_USERS", 7)          # K = 8 goes to the array-held LP
    short = converse(CHAIN_SHORT, symmetry=False, rate_goal=Fraction(5))
    assert short.certified and short.value == 5 and short.lp.implicit is not None
    assert "relaxation" in short.status and short.to_dict()["relaxed"] == short.relaxed
    whole = converse(CHAIN_SHORT, symmetry=False)
    assert whole.certified and whole.value == 6 and whole.relaxed is None and whole.status == "certified"


def test_separation_limit_stops_after_the_first_round(monkeypatch):
    import itsa.keys.converse as conv

    monkeypatch.setattr(conv, "PLAIN_MAX_USERS", 7)
    b = converse(CHAIN_SHORT, symmetry=False, separation_limit=0.0)
    assert b.certified and b.value == 5 and "time for rounds used" in b.status and "round 1," in b.status


def _second_run_ends(monkeypatch, status_name: str):
    """Make HiGHS's second run in a solve end with ``status_name`` (the first runs for real)."""
    import highspy

    import itsa.keys.converse.solver as S

    real, calls = S._run, []

    def second(h, clock):
        calls.append(1)
        return getattr(highspy.HighsModelStatus, status_name) if len(calls) == 2 else real(h, clock)
    monkeypatch.setattr(S, "_run", second)


def test_a_cut_round_returns_the_last_rounds_optimum(monkeypatch):
    _second_run_ends(monkeypatch, "kTimeLimit")
    lp = lazy_lp(CHAIN_SHORT)
    sol = solve_float(lp)
    assert sol.status == "optimal" and "time limit reached in round 2; the optimum of round 1," in sol.relaxed
    assert C.from_basis(lp, sol).value == 5


def test_a_cut_first_round_is_a_clean_cut(monkeypatch):
    import highspy

    import itsa.keys.converse.solver as S

    monkeypatch.setattr(S, "_run", lambda h, clock: highspy.HighsModelStatus.kTimeLimit)
    sol = solve_float(lazy_lp(CHAIN_SHORT))
    assert sol.status != "optimal" and sol.timed_out and sol.basis is None


def test_a_failed_later_round_keeps_the_earlier_bound(monkeypatch):
    _second_run_ends(monkeypatch, "kSolveError")
    lp = lazy_lp(CHAIN_SHORT)
    sol = solve_float(lp)
    assert sol.status == "optimal" and sol.relaxed.startswith("HiGHS:") and "round 2" in sol.relaxed
    assert C.from_basis(lp, sol).value == 5


def test_routing_keeps_the_orbit_lp_where_users_are_interchangeable():
    from itsa.keys.converse import _reduced
    from itsa.keys.converse.orbit import orbit_count

    twins = Instance((2,) * 8, (1,), (2,), name="seven-twin-pairs")   # K = 16, 4·3^7 = 8,748 count vectors
    assert orbit_count(twins)[0] == 8748
    assert _reduced(twins, "keys", True).implicit is None
    assert _reduced(one_protected_user(13), "keys", True).implicit is not None


def test_floor_stops_after_a_round_no_higher(monkeypatch):
    import itsa.keys.converse as conv

    monkeypatch.setattr(conv, "PLAIN_MAX_USERS", 7)
    b = converse(CHAIN_SHORT, symmetry=False, floor=Fraction(5))
    assert b.certified and b.value == 5 and "no higher than the bound proved otherwise" in b.status
    assert converse(CHAIN_SHORT, symmetry=False, floor=Fraction(4)).value == 6


def test_cli_says_a_bound_is_a_relaxations(cli, tmp_path):
    import json

    inst = one_protected_user(13)
    fam = lambda masks: [[list(u) for u in inst.labels(m)] for m in masks]          # noqa: E731
    path = tmp_path / "op13.json"
    path.write_text(json.dumps({"name": "op13", "servers": list(inst.servers),
                                "security_sets": fam(inst.security_sets),
                                "collusion_sets": fam(inst.collusion_sets)}))
    res = cli("converse", path, "--time-limit", 8)
    assert res.exit_code == 0 and "R_ZΣ ≥ 6/5" in res.stdout
    assert "the optimum of a relaxation of the LP" in res.stdout and "may be higher" in res.stdout
    res = cli("converse", path, "--time-limit", 8, "--json")
    lower = json.loads(res.stdout)["lower"]
    assert lower["value"] == "6/5" and lower["relaxed"] and "relaxation" in lower["status"]
