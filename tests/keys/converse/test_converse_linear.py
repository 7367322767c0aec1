"""The linear converse (itsa/keys/converse/linear.py): Ingleton rows are valid for linear keys,
certified exactly, and a tampered Ingleton certificate is rejected."""

import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from itsa.exceptions import VerificationError
from itsa.keys.converse import converse
from itsa.keys.converse.certificate import Certificate, certify, check_certificate
from itsa.keys.converse.linear import LINEAR, ingleton_cuts, ingleton_rows, linear_converse
from itsa.keys.converse.lp import Row, reduce_problem
from itsa.keys.converse.problem import KEYS, Constraint, EntropyProblem, ingleton_form
from itsa.keys.converse.solver import solve_float
from itsa.keys.schemes.scheme import Scheme
from itsa.keys.schemes.verifier import verify
from itsa.keys.search.scalar import search_min_rate
from itsa.testing import instances


def _ingleton_problem() -> EntropyProblem:
    """Minimise Ingleton's expression of four variables with every ``H(S) <= 1``.

    (Every set bounded, so that the first LP of the cutting-plane loop, the
    constraints alone, is bounded.)
    """
    return EntropyProblem(names=("A", "B", "C", "D"), dependencies=(),
                          constraints=tuple(Constraint(((S, Fraction(-1)),), ">=", Fraction(-1), f"H({S}) <= 1")
                                for S in range(1, 16)),
                          objective=tuple(sorted(ingleton_form(1, 2, 4, 8).items())), generators=(), method="linear", keys=(0, 1, 2, 3),
                          kind=LINEAR)


@pytest.fixture(scope="module")
def ingleton_lp():
    rlp = reduce_problem(_ingleton_problem(), symmetry=False)
    shannon = solve_float(rlp).value
    rlp.rows += ingleton_rows(rlp)
    sol = solve_float(rlp)
    return rlp, shannon, sol, certify(rlp, sol)


def test_ingleton_lifts_the_shannon_bound(ingleton_lp):
    rlp, shannon, sol, cert = ingleton_lp
    assert shannon < -0.1                       # polymatroids violate Ingleton
    assert cert is not None and cert.value == 0
    used = [rlp.rows[r].origin for r, _ in cert.weights if rlp.rows[r].origin[0] == "ingleton"]
    assert used == [("ingleton", 1, 2, 4, 8)]
    check_certificate(rlp, cert)


def test_tampered_ingleton_certificate_is_rejected(ingleton_lp):
    rlp, _, _, cert = ingleton_lp
    with pytest.raises(VerificationError):        # the weights no longer add up
        check_certificate(rlp, Certificate(cert.value, tuple((r, 2 * w) for r, w in cert.weights)))
    with pytest.raises(VerificationError):        # a claimed value the rows do not give
        check_certificate(rlp, Certificate(Fraction(1, 10), cert.weights))
    k = next(r for r, _ in cert.weights if rlp.rows[r].origin[0] == "ingleton")
    row = rlp.rows[k]
    rlp.rows[k] = Row(row.coefs, row.sense, row.rhs, ("ingleton", 1, 4, 2, 8))   # another Ingleton row
    try:
        with pytest.raises(VerificationError):
            check_certificate(rlp, cert)
    finally:
        rlp.rows[k] = row


def test_no_cut_for_a_rank_function(ingleton_lp):
    rlp, _, _, _ = ingleton_lp
    # the entropy vector of four generic lines in a plane (ranks) violates no Ingleton row
    x = np.array([min(2, bin(rlp.representatives[o]).count("1")) for o in range(1, len(rlp.representatives))],
                 dtype=float)
    assert ingleton_cuts(rlp, x, max_size=1) == []
    # a polymatroid that is not: the Shannon optimum violates one
    rlp2 = reduce_problem(_ingleton_problem(), symmetry=False)
    assert ingleton_cuts(rlp2, solve_float(rlp2).x, max_size=1)


def _random_linear_scheme(inst, rng: random.Random) -> Scheme:
    """Random keys with ΣZ = 0 over F_3, L = 1 or 2, d <= 3."""
    q, L, d = 3, rng.choice((1, 2)), rng.randint(1, 3)
    keys = {i: [[rng.randrange(q) for _ in range(d)] for _ in range(L)] for i in range(inst.K - 1)}
    keys[inst.K - 1] = [[-sum(keys[i][l][c] for i in keys) % q for c in range(d)] for l in range(L)]
    return Scheme(field=q, L=L, key_symbols=d, keys=keys)


@settings(max_examples=12)
@given(instances(max_users=5), st.integers(0, 1000))
def test_no_verified_linear_scheme_below_the_linear_bound(inst, seed):
    b = linear_converse(inst)
    assert b.certified and b.value >= converse(inst, "keys").value
    schemes = [_random_linear_scheme(inst, random.Random(f"{seed}:{t}")) for t in range(20)]
    best = search_min_rate(inst, budget=2000).scheme
    assert best is not None                     # the search always reaches the rate K - 1
    for s in schemes + [best]:
        if verify(inst, s, engine="rank").ok:
            assert s.rate >= b.value


def test_linear_is_a_registered_lp_with_its_own_scope(tmp_path):
    from itsa import examples
    from itsa.keys.converse.proof import write_proof
    from itsa.keys.converse.registry import SOLVE_CLASSES

    inst = examples.load("audit/fractional-optimum")
    b = converse(inst, "linear")
    assert (b.method, b.value, b.scheme_class) == ("linear", Fraction(3, 2), "linear")
    assert b.scope.startswith("every scheme whose keys are linear")
    assert "linear" not in SOLVE_CLASSES                 # solve keeps to bounds for every scheme
    write_proof(b, inst, tmp_path / "p.md")
    text = (tmp_path / "p.md").read_text()
    assert text.count("Ingleton's inequality (") == 1 and "General group lemma (" in text


def test_ingleton_rows_are_refused_in_an_lp_for_every_scheme(ingleton_lp):
    import dataclasses
    rlp, _, _, cert = ingleton_lp
    as_keys = dataclasses.replace(rlp, problem=dataclasses.replace(rlp.problem, method="keys", kind=KEYS))
    with pytest.raises(VerificationError, match="Ingleton"):
        check_certificate(as_keys, cert)


def test_linear_lp_reports_progress_and_honours_the_estimate_budget():
    from itsa import examples

    inst, events = examples.load("audit/fractional-optimum"), []
    b = converse(inst, "linear", progress=events.append)
    assert b.certified and [e.stage for e in events][:2] == ["linear: reduce", "linear: reduced"]
    assert "linear: certify" in [e.stage for e in events]
    skipped = converse(inst, "linear", max_estimate=-1.0)
    assert skipped.cut and skipped.status.startswith("skipped: about") and skipped.value is None


def test_linear_lp_out_of_time_is_a_cut():
    from itsa import examples

    b = converse(examples.load("audit/fractional-optimum"), "linear", time_limit=1e-9)
    assert b.cut and not b.certified and b.status.startswith("cut:")
