"""The certified converse LPs: golden values, certificates, soundness properties."""

from fractions import Fraction
from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from itsa import Instance, VerificationError, corrected_lower_bound, examples
from itsa.keys.converse import Certificate, check_certificate, converse
from itsa.keys.converse.proof import identifications, proof_markdown, proof_steps
from itsa.keys.search.scalar import search_min_rate
from itsa.testing import instances, relabellings
from tests.conftest import ROOT


def everything_protected(servers, t):
    """Every input protected (S = all users), any t users collude; servers of any sizes."""
    users = [(u + 1, v + 1) for u, V in enumerate(servers) for v in range(V)]
    T = [list(c) for r in range(t + 1) for c in combinations(users, r)]
    return Instance.from_users(servers, [users], T, name=f"hom-{servers}-{t}")


@pytest.mark.parametrize("path, value", [
    ("audit/fractional-optimum", Fraction(3, 2)),   # hand proof in docs/audit.md
    ("example-2", Fraction(7, 2)),                  # paper's scheme has rate 7/2
    ("example-1", Fraction(2)),                     # paper Example 1: R* = 2
    ("homogeneous-U3-V2-t1", Fraction(4)),          # min{U+V+t-2, UV-1}
    ("homogeneous-U4-V2-t1", Fraction(5)),
    ("homogeneous-U3-V3-t2", Fraction(6)),
    ("audit/vector-optimum-8-3", Fraction(8, 3)),   # a vector scheme at L = 3 meets it
])
def test_keys_golden(path, value):
    b = converse(examples.load(path))
    assert b.certified and b.value == value and b.method == "keys"
    assert b.scheme_class == "general" and "every scheme" in b.scope
    check_certificate(b.lp, b.certificate)


def test_old_names_still_work():
    old = converse(examples.load("audit/fractional-optimum"), "additive")
    assert old.method == "keys" and old.value == Fraction(3, 2)
    assert converse(examples.homogeneous(3, 1, 0), "general").method == "model"


@pytest.mark.parametrize("t", [0, 1, 2])
def test_general_homogeneous_three_users(t):
    # U = 3 servers of one user: min{U+V+t-2, UV-1} = min{2+t, 2} = 2
    b = converse(examples.homogeneous(3, 1, t), "model")
    assert b.certified and b.value == 2


def test_tampered_certificate_is_rejected():
    b = converse(examples.load("audit/fractional-optimum"))
    (r, w), *rest = b.certificate.weights
    with pytest.raises(VerificationError):
        check_certificate(b.lp, Certificate(b.value, ((r, w * 2), *rest)))
    with pytest.raises(VerificationError):
        check_certificate(b.lp, Certificate(b.value + 1, b.certificate.weights))


def test_tampered_lp_cannot_inflate_a_bound():
    import dataclasses
    b = converse(examples.load("audit/fractional-optimum"))
    rlp = b.lp
    r = next(r for r, _ in b.certificate.weights if rlp.rows[r].origin[0] == "shannon")
    rlp.rows[r] = dataclasses.replace(rlp.rows[r], rhs=Fraction(5))    # a lie in the LP's copy
    check_certificate(rlp, b.certificate)          # the check rebuilds the rhs from the origin
    with pytest.raises(VerificationError):
        check_certificate(rlp, Certificate(b.value + 5 * dict(b.certificate.weights)[r],
                                           b.certificate.weights))
    merge_two_columns(rlp)
    with pytest.raises(VerificationError, match="orbits"):
        check_certificate(rlp, b.certificate)


def merge_two_columns(rlp):
    """Tamper with the LP: two of its orbits become one column."""
    if getattr(rlp, "column_of", None) is not None:            # orbit LP
        rlp.column_of = rlp.column_of.copy()
        rlp.column_of[rlp.column_of == 2] = 1
    else:
        a, c = sorted(set(rlp.orbit_of.values()))[1:3]
        rlp.orbit_of = {k: (a if o == c else o) for k, o in rlp.orbit_of.items()}


def test_tampered_plain_lp_orbits_are_rejected():
    b = converse(examples.load("audit/fractional-optimum"), "additive", symmetry=False)
    check_certificate(b.lp, b.certificate)
    merge_two_columns(b.lp)
    with pytest.raises(VerificationError, match="orbits"):
        check_certificate(b.lp, b.certificate)


def test_zero_bound_has_a_one_step_proof():
    b = converse(examples.load("audit/condition2-nothing-protected"))
    assert b.value == 0 and b.certificate.size == 1


def test_proof_reads_and_sums():
    b = converse(examples.load("audit/fractional-optimum"))
    text = proof_markdown(b.lp, b.certificate, "fractional optimum")
    assert "3/2" in text and "every scheme of the model" in text
    assert text.count("\n1. ") == 1 and len(b.certificate.weights) <= 10
    # the lemma is stated once, in full, before the steps that cite it
    lemmas, steps = text.split("## Steps")
    assert lemmas.count("General group lemma (") == 1 and "gain = |P| − 1" in lemmas
    assert "gain = |P|" not in steps and steps.count("general group lemma for server") >= 1


def test_security_steps_name_their_sets_by_users():
    inst = examples.load("example-2")
    b = converse(inst)
    steps = [st for _, st, why, _ in proof_steps(b.lp, b.certificate) if "group lemma" in why]
    whys = [why for _, _, why, _ in proof_steps(b.lp, b.certificate) if "group lemma" in why]
    assert steps and all("S_" in w and "T_" in w and "(" in w for w in whys)
    # S_8 of Example 2 is {(1,1), (2,1), (2,2)}: named by its users wherever it is cited
    assert all("S_8 = {(1,1), (2,1), (2,2)}" in w for w in whys if "S_8 =" in w)


def test_expansions_use_the_statement_sets_and_name_each_permutation():
    b = converse(examples.load("example-2"))
    for _, stmt, why, exp in proof_steps(b.lp, b.certificate):
        if why.startswith("Shannon: conditional mutual"):
            named = stmt[stmt.index("(") + 1:stmt.index(")")].replace(";", ",").replace(" |", ",")
            assert all(v.strip() in exp for v in named.split(",") if v.strip())
    same = identifications(b.lp, b.certificate)
    assert same and all("π = (Z(1,3) Z(1,4))" in x for x in same)


def _compile(path):
    """pdflatex on ``path`` where it is installed (CI's image may lack it: then skip)."""
    import shutil
    import subprocess

    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed")
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", path.name],
                         cwd=path.parent, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-2000:]
    assert path.with_suffix(".pdf").stat().st_size > 0


def test_latex_proof_is_mathematics(tmp_path):
    """itsa converse example-2 --proof p.tex: math mode, subscripts, \\Sigma, sets, standard packages."""
    import re

    from itsa.keys.converse.proof import write_proof

    inst = examples.load("example-2")
    b = converse(inst)
    path = tmp_path / "proof.tex"
    write_proof(b, inst, path)
    text = path.read_text()
    assert text.startswith("\\documentclass") and text.rstrip().endswith("\\end{document}")
    assert text.isascii() and "\\_" not in text and "DeclareUnicodeCharacter" not in text
    assert set(re.findall(r"\\usepackage(?:\[[^]]*\])?\{([^}]*)\}", text)) <= {"amsmath,amssymb", "geometry"}
    assert "$R_{Z\\Sigma} \\geq H(Z_{\\Sigma})/L" in text                           # the claim
    assert "$S_{8} = \\{(1,1), (2,1), (2,2)\\}$" in text                             # a set, in math mode
    assert "$T_{21} = \\{(1,2), (1,3), (2,3)\\}$" in text
    assert "\\bigl[I(Z_{(1,4)}; Z_{(2,3)} \\mid Z_{(1,3)}) \\geq 0\\bigr]" in text      # a statement
    assert "$\\pi = (Z_{(1,3)} Z_{(1,4)})$" in text                                   # the symmetry used
    _compile(path)


@pytest.mark.parametrize("path, lp", [("instances/audit/overlap-condition-1.yaml", "model"),
                                      ("example-1", "linear")])
def test_latex_proofs_of_the_other_lps_compile(cli, tmp_path, path, lp):
    """The model LP's dependencies (W(1,1) = ΣW minus ...) and the linear LP's Ingleton rows."""
    out = tmp_path / "p.tex"
    res = cli("converse", str(ROOT / path) if path.endswith(".yaml") else path, "--lp", lp, "--proof", out)
    assert res.exit_code == 0, res.output
    text = out.read_text()
    assert text.isascii() and "\\_" not in text
    if lp == "model":
        assert "($W_{(1,1)} = \\Sigma W$ minus the other inputs)" in text
    _compile(out)


def test_general_refuses_large_instance():
    from itsa import InvalidInstance
    with pytest.raises(InvalidInstance, match="at most 4 users"):
        converse(examples.load("example-1"), "model")


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(instances(max_users=6, max_security_sets=3, max_collusion_sets=3))
def test_keys_between_corrected_and_verified(inst):
    b = converse(inst)
    assert b.certified
    check_certificate(b.lp, b.certificate)
    assert corrected_lower_bound(inst).value <= b.value
    found = search_min_rate(inst, field=31, budget=2000)
    if found.found:
        assert b.value <= found.rate


@settings(max_examples=15, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_keys_invariant_under_relabelling(data):
    inst = data.draw(instances(max_users=5, max_security_sets=3, max_collusion_sets=3))
    perm = data.draw(relabellings(inst))
    assert converse(inst).value == converse(inst.relabelled(perm)).value


@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(instances(min_servers=3, max_servers=3, max_users=3, max_security_sets=2,
                 max_collusion_sets=2))
def test_model_lp_agrees_with_keys_lp(inst):
    # two independent proofs, each valid for every scheme: on small instances they meet
    g, a = converse(inst, "model"), converse(inst, "keys")
    assert g.certified and a.certified
    assert g.value == a.value


@pytest.mark.slow
# every input protected, t colluders, K = 4 users: the Condition-1 rate K - 1 = 3 is optimal
@pytest.mark.parametrize("servers, t, value", [([2, 1, 1], 0, 3), ([2, 1, 1], 1, 3)])
def test_general_four_users(servers, t, value):
    b = converse(everything_protected(servers, t), "model")
    assert b.certified and b.value == value


def test_a_certificate_row_whose_origin_does_not_rebuild_is_rejected():
    import dataclasses
    b = converse(examples.load("audit/fractional-optimum"))
    rlp = b.lp
    r = next(r for r, _ in b.certificate.weights if rlp.rows[r].origin[0] == "constraint")
    row = rlp.rows[r]
    rlp.rows[r] = dataclasses.replace(row, origin=("constraint", 10**6))    # no such constraint
    try:
        with pytest.raises(VerificationError, match="does not rebuild"):
            check_certificate(rlp, b.certificate)
    finally:
        rlp.rows[r] = row


def test_reconstruct_finds_a_common_denominator():
    from itsa.keys.converse.certificate import _reconstruct
    truth = [Fraction(1, 3), Fraction(-2, 7), Fraction(5, 21), Fraction(0)]
    shift = 60
    digits = [round(f * (1 << shift)) for f in truth]
    assert _reconstruct(digits, shift) == truth
    few = [round(f * (1 << 8)) for f in truth]
    assert _reconstruct(few, 8) != truth            # too few bits: a wrong guess, which the caller refuses


@pytest.mark.parametrize("name", ["example-2", "audit/fractional-optimum", "audit/vector-optimum-8-3"])
def test_refinement_alone_recovers_the_certificate(name, monkeypatch):
    """With rounding and the dense solve switched off, iterative refinement still proves the bound."""
    import itsa.keys.converse.certificate as C

    monkeypatch.setattr(C, "_roundings", lambda duals, support: iter(()))
    monkeypatch.setattr(C, "_basis_solved", lambda *a: pytest.fail("refinement should have sufficed"))
    b = converse(examples.load(name))
    assert b.certified and b.value == converse(examples.load(name), symmetry=False).value
    check_certificate(b.lp, b.certificate)
