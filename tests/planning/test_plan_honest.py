"""Hostile and edge inputs to the planner give one line or a plan, and its verdicts say what is true.

Each test here failed before its fix: a traceback, a wrong reason, a limit
skipped, a library that accepted what the file refuses, a loop that never
looked at the clock, or a verdict that read as safe when it was not.
"""

import dataclasses
import json
import re
from fractions import Fraction

import pytest
from click.testing import CliRunner

import itsa
from itsa._util.deadline import Deadline
from itsa.exceptions import InvalidDeployment, InvalidOption, TimeLimitReached
from itsa.planning.deployment import Deployment, Encoding, Gate, Noise, Privacy, load_deployment, parse_deployment
from itsa.planning.drivers.explore import check_sweep, sweep_plan
from itsa.planning.drivers.sweep import parse_sweep
from itsa.planning.encoding import gamma_candidates, smallest_word
from itsa.planning.gate import GatePlan, shut_out_probability
from itsa.planning.layered import largest_gamma
from itsa.planning.protocols import SecAggProtocol
from itsa_cli import main
from itsa_cli._common import EXIT_BAD_INPUT, EXIT_INFEASIBLE

SMALL = {"clients": 100, "dimension": 10, "clip": 1, "privacy": {"epsilon": 4}}
#: A flat word in which the plan finds its own scale (no gamma): the quick case of every test.
QUICK = {**SMALL, "encoding": {"word_bits": 32}}


def _cli(args, tmp_path):
    with CliRunner().isolated_filesystem(temp_dir=tmp_path):
        return CliRunner().invoke(main, list(args))


# --- bad input: one line, the right reason -------------------------------------------------------

@pytest.mark.parametrize("sigma", ["1e200", "1e350"])
def test_a_huge_sigma_is_refused_in_one_line_not_a_traceback(sigma):
    """From about 1e160 the rule's float equation divided by zero; past 1e308 it overflowed. A sigma past 2^256
    spills the widest word by itself: refused in one line, before any sizing."""
    with pytest.raises(InvalidDeployment, match=r"noise.sigma: at most 2\^256"):
        parse_deployment({**SMALL, "privacy": {}, "noise": {"sigma": sigma}, "encoding": {"word_bits": 32}})


def test_a_sigma_just_below_the_widest_word_is_a_plan():
    """1e76 < 2^256: planned (the rule's eps at such noise is 0, certified), and its JSON is plain."""
    p = itsa.plan(parse_deployment({**SMALL, "privacy": {}, "noise": {"sigma": "1e76"},
                                    "encoding": {"word_bits": 32}}))
    assert p.heuristic is not None and p.heuristic.epsilon.upper() == 0 and not p.verdict.feasible
    json.dumps(p.to_dict())


@pytest.mark.parametrize("bits", [220, 256])
def test_a_wide_word_is_planned_at_the_finest_scale_the_target_allows(bits):
    """Before: refused with "too small a target", which was not the cause (the scale was too fine)."""
    p = itsa.plan(parse_deployment({**SMALL, "encoding": {"word_bits": bits}}))
    assert p.verdict.feasible and p.encoding.word_bits == bits and p.noise.epsilon.upper() <= 4
    assert "would need noise beyond 2^200" in p.encoding.chosen


def test_a_gamma_too_fine_for_any_noise_says_so():
    with pytest.raises(InvalidDeployment) as info:
        itsa.plan(parse_deployment({**SMALL, "encoding": {"gamma": "1e399"}}))
    assert "too fine a scale" in str(info.value) and "too small a target" not in str(info.value)


def test_a_5000_digit_sweep_bound_is_one_line():
    with pytest.raises(InvalidOption, match="more than 400 digits"):
        parse_sweep("word_bits=1.." + "9" * 5000)
    with pytest.raises(InvalidOption, match="more than 400"):
        parse_sweep("clients=1," + "9" * 5000)


@pytest.mark.parametrize("spec, message", [
    ("clients=10,1" + "0" * 4000, "more than 400"),
    ("clients=10,1000000000", "clients: must be a whole number in 1..100000000"),
    ("epsilon=1,0", "epsilon: must lie in (0, inf), not '0'"),
    ("dropout=0,1", "dropout: must lie in [0, 1)"),
], ids=["clients-4000-digits", "clients-past-the-file-limit", "epsilon-0", "dropout-1"])
def test_a_sweep_reads_its_values_with_the_files_checks_and_limits(spec, message):
    d = parse_deployment(QUICK)
    with pytest.raises(InvalidOption) as info:
        check_sweep(d, *parse_sweep(spec))
    assert message in str(info.value) and "Fraction" not in str(info.value)


def test_a_sweep_of_a_plan_whose_epsilon_is_zero_leaks_no_internal_message():
    """A huge sigma and no target: the plan's eps is 0, which the rule's parameters refused as its target
    (central noise: its curve is linear, so the order search reaches eps 0; the sharp distributed bound is
    searched at finite orders)."""
    d = parse_deployment({**SMALL, "privacy": {}, "noise": {"mechanism": "dgauss", "placement": "central",
                                                             "sigma": "1e70"}, "encoding": {"word_bits": 62}})
    p = itsa.plan(d)
    assert p.noise.epsilon.upper() == 0
    s = sweep_plan(p, "clients", [10, 20], time_limit=60)
    assert [pt.value for pt in s.points] == [10, 20] and all(pt.heuristic.verdict is None for pt in s.points)


@pytest.mark.parametrize("text, message", [("16:40", "base-60"), ("010", "octal")])
def test_a_yaml_1_1_number_is_refused_not_misread(tmp_path, text, message):
    (tmp_path / "d.yaml").write_text(f"clients: {text}\ndimension: 10\nclip: 1\nprivacy: {{epsilon: 4}}\n")
    with pytest.raises(InvalidDeployment, match=message):
        load_deployment(tmp_path / "d.yaml")
    (tmp_path / "q.yaml").write_text(f"clients: '{text}'\ndimension: 10\nclip: 1\nprivacy: {{epsilon: 4}}\n")
    with pytest.raises(InvalidDeployment, match="clients: must be a whole number"):
        load_deployment(tmp_path / "q.yaml")


@pytest.mark.parametrize("option", [["--markdown", ""], ["--sweep", "word_bits=30,32", "--figure", ""]])
def test_an_empty_output_name_is_refused(tmp_path, option):
    (tmp_path / "d.yaml").write_text("clients: 10\ndimension: 4\nclip: 1\nprivacy: {epsilon: 4}\n"
                                     "encoding: {word_bits: 32}\n")
    result = _cli(["plan", str(tmp_path / "d.yaml"), "--quiet", *option], tmp_path)
    assert result.exit_code == EXIT_BAD_INPUT and "empty" in result.stderr and result.stdout == ""


# --- a checked Deployment ------------------------------------------------------------------------

def test_the_deployment_checks_itself_with_the_readers_messages():
    with pytest.raises(InvalidDeployment, match=r"^clip: must lie in \(0, inf\), not 0$"):
        Deployment(clients=10, dimension=4, clip=0, privacy=Privacy(epsilon=1))
    with pytest.raises(TypeError):
        Deployment(10, 4, 1)                               # type: ignore[misc]   # keyword-only
    for bad, message in [(dict(clients=0), "clients: must be a whole number in 1..100000000"),
                         (dict(clients=10**9), "clients: must be a whole number in 1..100000000"),
                         (dict(dropout=1), "dropout: must lie in [0, 1)"),
                         (dict(privacy=Privacy()), "privacy.epsilon: missing"),
                         (dict(name=""), "name: must be a text"),
                         (dict(privacy={"epsilon": 1}), "privacy: must be Privacy(...)")]:
        with pytest.raises(InvalidDeployment) as info:
            Deployment(**{"clients": 10, "dimension": 4, "clip": 1, "privacy": Privacy(epsilon=1), **bad})
        assert message in str(info.value)
        raw = {"clients": 10, "dimension": 4, "clip": 1, "privacy": {"epsilon": 1}}
        if "privacy" not in bad and "name" not in bad:          # the file says the same
            with pytest.raises(InvalidDeployment, match=re.escape(message)):
                parse_deployment({**raw, **bad})
    for part, message in [(lambda: Noise(sigma=Fraction(1, 4)), "noise.sigma: a distributed share needs"),
                          (lambda: Encoding(word_bits=1), "encoding.word_bits"),
                          (lambda: Encoding(radix=4), "encoding.radix: must be odd"),
                          (lambda: Gate(budget=0), "gate.budget"),
                          (lambda: Privacy(epsilon=1, delta=1), "privacy.delta: must lie in")]:
        with pytest.raises(InvalidDeployment, match=re.escape(message)):
            part()


def test_a_deployment_built_in_python_is_the_files():
    built = Deployment(clients=1000, dimension=1290, clip=1, dropout="1/10",
                       privacy=Privacy(epsilon=4, delta="1e-6", rounds=150), encoding=Encoding(word_bits=32),
                       overflow="1e-6", protocol=SecAggProtocol(corrupt="1/20"), name="k1000")
    assert built == load_deployment("k1000")
    with pytest.raises(InvalidDeployment, match="clients"):
        dataclasses.replace(built, clients=10**4000)        # replace checks again


def test_a_zero_clip_never_reaches_a_loop_and_every_loop_looks_at_the_clock():
    expired = Deadline.spent()
    with pytest.raises(TimeLimitReached):
        gamma_candidates(Fraction(1), 10, 32, deadline=expired)
    with pytest.raises(InvalidOption, match="clip"):
        gamma_candidates(Fraction(0), 10, None)                     # before: an endless loop
    with pytest.raises(TimeLimitReached):
        largest_gamma(3, 4, Fraction(1, 2**100), deadline=expired)
    with pytest.raises(InvalidOption, match="clip"):
        largest_gamma(3, 4, Fraction(0))                            # before: an endless loop too
    with pytest.raises(TimeLimitReached):
        smallest_word(clients=10, bound=10, sigma=Fraction(1), shares=10, coordinates=1, target=Fraction(1, 10**6),
                      widest=256, deadline=expired)
    g = GatePlan(budget=3, flag_rate=Fraction(1, 3), rounds=30, clients=100, survivors=90,
                 shut_out=shut_out_probability(budget=3, rounds=30, flag_rate=Fraction(1, 3)))
    with pytest.raises(TimeLimitReached):
        g.smallest_budget(expired)
    with pytest.raises(TimeLimitReached):
        itsa.plan(parse_deployment(QUICK), time_limit=expired)


def test_time_limit_zero_means_no_limit_in_the_library_as_on_the_command_line():
    p = itsa.plan(parse_deployment(QUICK), time_limit=0)             # before: expired at once
    assert p.verdict.feasible
    for bad in (-1, float("nan"), "5", True):
        with pytest.raises(InvalidOption, match="time_limit"):
            itsa.plan(parse_deployment(QUICK), time_limit=bad)


# --- honest verdicts -----------------------------------------------------------------------------

def test_an_infeasible_plan_has_its_own_exit_code_in_text_and_json(tmp_path):
    (tmp_path / "d.yaml").write_text("clients: 100000\ndimension: 10\nclip: 1\nprivacy: {epsilon: 4}\n"
                                     "encoding: {word_bits: 8}\n")
    assert EXIT_INFEASIBLE not in (0, 1, 2)
    for extra in ([], ["--json"]):
        result = _cli(["plan", str(tmp_path / "d.yaml"), "--quiet", *extra], tmp_path)
        assert result.exit_code == EXIT_INFEASIBLE, result.stderr
        assert "infeasible" in result.stdout and result.stderr == ""
    (tmp_path / "ok.yaml").write_text("clients: 10\ndimension: 4\nclip: 1\nprivacy: {epsilon: 4}\n")
    assert _cli(["plan", str(tmp_path / "ok.yaml"), "--quiet"], tmp_path).exit_code == 0


GATE_CASE = {"clients": 1000, "dropout": "3/10", "dimension": 10, "clip": 1,
             "noise": {"kind": "central", "sigma": 1000}, "privacy": {"epsilon": 100, "rounds": 100},
             "encoding": {"word_bits": 32}, "gate": {"budget": 10, "flag_rate": "2/25"}}


def test_the_gate_verdict_is_a_certified_bound_not_the_expectation():
    """K P = 278 < 300 passed before; the gate alone exceeds the allowance with probability 5.7 %."""
    p = itsa.plan(parse_deployment(GATE_CASE))
    g = p.gate
    assert g.allowance == 300 and g.expected_honest_excluded < 300 < g.clients * g.shut_out.upper() + 30
    assert Fraction(5, 100) < g.exceeds.low <= g.exceeds.upper() < Fraction(6, 100)
    assert g.overflow_target == p.deployment.overflow and g.breaks_allowance and not p.verdict.feasible
    fix = p.verdict.fixes["gate_budget"]["budget"]
    fixed = itsa.plan(parse_deployment({**GATE_CASE, "gate": {"budget": fix, "flag_rate": "2/25"}}))
    assert fixed.verdict.feasible and fixed.gate.exceeds.upper() <= fixed.gate.overflow_target
    before = itsa.plan(parse_deployment({**GATE_CASE, "gate": {"budget": fix - 1, "flag_rate": "2/25"}}))
    assert not before.verdict.feasible                                    # the smallest budget that meets it
    assert json.loads(json.dumps(p.to_dict()))["gate"]["exceeds_allowance_probability"]["direction"] == "upper bound"


def test_no_privacy_target_and_a_tiny_sigma_is_not_feasible():
    p = itsa.plan(parse_deployment({**SMALL, "privacy": {"delta": "1e-6"}, "noise": {"kind": "central",
                                                                                     "sigma": "1/1000"},
                                    "encoding": {"word_bits": 32}}))
    assert p.noise.epsilon.upper() > 200 and not p.verdict.feasible
    assert p.verdict.reasons[0].startswith("no privacy target") and "eps <=" in p.verdict.reasons[0]
    quiet = itsa.plan(parse_deployment({**SMALL, "privacy": {"delta": "1e-6"}, "noise": {"sigma": 100},
                                        "encoding": {"word_bits": 32, "gamma": 1}}))
    assert quiet.noise.epsilon.upper() <= 200 and quiet.verdict.feasible           # unchanged below the bound

