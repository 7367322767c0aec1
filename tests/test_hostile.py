"""Hostile input: every command answers every hostile file with exit 2 and one line, in bounded memory.

The corpus is :mod:`itsa.testing.hostile` (alias bombs in every position, deep nesting,
huge numbers in every field, huge schemes, duplicate keys, binary files,
encodings). Runs happen in subprocesses under ``RLIMIT_AS``, so a file that
escaped its limits would hit ``MemoryError`` and the safety net, and the tests
assert that no run reaches the net: each is refused by a check of its own.
"""

import json
import resource
import subprocess
import sys

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from itsa._util.safe_yaml import load_yaml
from itsa.testing.hostile import commands, modular_values, write_corpus
from itsa_cli._common import LIMIT_PREFIX

from .conftest import INSTANCES, ROOT

MEMORY_CAP = 1 << 30          # bytes of address space per process
EX1 = INSTANCES / "example-1.yaml"
SPOT = ["bomb-user", "deep-flow-list", "huge-server", "binary", "scheme-huge-L", "scheme-deep"]


def _cap():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def check(case, command, code, stderr, traceback=""):
    where = f"{case} / {command}: {stderr!r}"
    assert code == 2, where
    assert stderr.endswith("\n") and stderr.count("\n") == 1 and stderr.startswith("error: "), where
    assert "Traceback" not in stderr and not traceback, where + traceback
    assert LIMIT_PREFIX not in stderr, f"{where} reached the safety net"
    assert len(stderr) < 400, where


def test_every_command_refuses_every_hostile_file(tmp_path):
    proc = subprocess.run([sys.executable, str(ROOT / "tests" / "hostile_runner.py"),
                           str(tmp_path / "corpus"), str(tmp_path), str(EX1)],
                          capture_output=True, text=True, preexec_fn=_cap, timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    runs = [json.loads(line) for line in proc.stdout.splitlines()]
    cases = write_corpus(tmp_path / "again")
    assert len(runs) == sum(len(commands(c, EX1, tmp_path)) for c in cases) > 200
    for r in runs:
        check(r["case"], r["command"], r["exit"], r["stderr"], r["traceback"])
        assert r["seconds"] < 20, r


@pytest.mark.parametrize("name", SPOT)
def test_real_process_exit_2_one_line(tmp_path, name):
    case = next(c for c in write_corpus(tmp_path / "corpus") if c.name == name)
    cmd = commands(case, EX1, tmp_path)[0]
    proc = subprocess.run([sys.executable, "-c", "from itsa_cli import main; main()", *cmd],
                          capture_output=True, text=True, preexec_fn=_cap, timeout=120, cwd=tmp_path)
    check(name, cmd[0], proc.returncode, proc.stderr)
    assert proc.stdout == ""


@pytest.mark.slow
def test_every_command_as_its_own_process(tmp_path):
    for case in write_corpus(tmp_path / "corpus"):
        for cmd in commands(case, EX1, tmp_path):
            proc = subprocess.run([sys.executable, "-c", "from itsa_cli import main; main()", *cmd],
                                  capture_output=True, text=True, preexec_fn=_cap, timeout=120,
                                  cwd=tmp_path)
            check(case.name, cmd[0], proc.returncode, proc.stderr)


# -- structurally random YAML: analysed, or refused with exit 2 -------------------------------
ANCHORS = ["a", "b"]
SCALARS = st.one_of(
    st.integers(-(10**40), 10**40).map(str), st.sampled_from(["0", "1", "2", "-1", "3"]),
    st.floats(allow_nan=True).map(repr), st.booleans().map(str).map(str.lower),
    st.sampled_from(["null", "~", "all", ".inf", "-.nan", "2001-12-14", "0x1F", "0o17", "1_000",
                     "'all'", '"x"', "!!str 1", "!!binary aGk=", "yes", "on", "<<"]),
    st.text(st.characters(codec="utf-8", exclude_characters="\\\"\r"), max_size=8).map(json.dumps),
    st.sampled_from([f"*{a}" for a in ANCHORS]),
)
KEYS = st.one_of(st.sampled_from(["servers", "security_sets", "collusion_sets", "name", "subsets_of",
                                  "min_size", "max_size", "all_users_up_to", "x"]), SCALARS)


def _anchored(node):
    return st.one_of(st.just(node), st.sampled_from(ANCHORS).map(lambda a: f"&{a} {node}"))


NODES = st.recursive(
    SCALARS,
    lambda kids: st.one_of(
        st.lists(kids, max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.lists(st.tuples(KEYS, kids), max_size=4).map(
            lambda kv: "{" + ", ".join(f"{k}: {v}" for k, v in kv) + "}"),
    ).flatmap(_anchored),
    max_leaves=25,
)
PLAUSIBLE = {
    "servers": st.one_of(NODES, st.sampled_from(["[2, 1, 1]", "[1, 1, 1]", "[3, 2, 2]"])),
    "security_sets": st.one_of(NODES, st.sampled_from(["[all]", "[[[1, 1]]]", "[[], [[2, 1]]]"])),
    "collusion_sets": st.one_of(NODES, st.sampled_from(["[[]]", "{all_users_up_to: 1}",
                                                        "{subsets_of: [[1, 2], [3, 1]]}"])),
}


@st.composite
def documents(draw):
    keys = draw(st.lists(st.sampled_from(list(PLAUSIBLE) + ["name", "x"]), min_size=1, max_size=5))
    lines = [f"{k}: {draw(PLAUSIBLE.get(k, NODES))}" for k in keys]
    if draw(st.booleans()):
        lines.append(f"{draw(KEYS)}: {draw(NODES)}")
    return "\n".join(lines) + "\n"


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(text=documents())
def test_random_yaml_is_analysed_or_refused(cli, tmp_path_factory, text):
    path = tmp_path_factory.mktemp("y") / "x.yaml"
    path.write_text(text, encoding="utf-8")
    res = cli("analyze", str(path), "--json")
    if res.exit_code == 0:
        assert json.loads(res.stdout)["K"] >= 1
    else:
        check("random", "analyze", res.exit_code, res.stderr,
              "" if isinstance(res.exception, SystemExit) else repr(res.exception))
    try:
        ours = load_yaml(text)
    except ValueError:
        return
    assert ours == yaml.safe_load(text)    # what we read, we read as PyYAML does


# -- the verbs with a verdict and the deployment's fields (check flower, secagg, plan) ----------------

#: Per verb with a verdict: a base command line (small, fast) and each numeric option with the kind of its values.
VERDICT_VERBS: dict[str, tuple[tuple[str, ...], dict[str, str]]] = {
    "check flower": (("check", "flower", "--clients", "500"),
                     {"--clients": "int", "--num-shares": "number", "--reconstruction-threshold": "number",
                      "--max-weight": "number", "--clipping-range": "number", "--quantization-range": "number",
                      "--modulus-range": "number", "--dropout": "number", "--corrupt": "number", "--clip": "number"}),
    "secagg": (("secagg", "--clients", "100", "--corrupt", "0", "--dropout", "0"),
               {"--clients": "int", "--corrupt": "number", "--dropout": "number", "--dimension": "int",
                "--payload-bits": "int"}),
}
#: The values that once slipped through the verbs with a verdict: a threshold Shamir keeps no secret at, a
#: modulus Flower draws no mask for, numbers that grew or overflowed before their range was checked.
VERDICT_EXTRAS = ("-5", "2**64", str(2**64), str(2**1100), "2^1100", "10^400", str(10**400), "1e308", "1e-320",
                  "1e4400", "1/" + "7" * 5000)


def verdict_command(verb: str, option: str, value: str, as_json: bool = False) -> list[str]:
    """``BASE... OPTION=VALUE [--json]`` for a verb of :data:`VERDICT_VERBS` (the option last, so it wins)."""
    base, options = VERDICT_VERBS[verb]
    if option not in options:
        raise KeyError(f"{verb} has no option {option}")
    return [*base, f"{option}={value}", *(["--json"] if as_json else [])]


def verdict_cases() -> list[list[str]]:
    """Every hostile value on every numeric option of ``check flower`` and ``secagg``."""
    return [verdict_command(verb, option, value)
            for verb, (_, options) in VERDICT_VERBS.items()
            for option, kind in options.items() for value in modular_values(kind) + VERDICT_EXTRAS]


#: Deployment fields (a YAML path) with their hostile values: each deployment is planned or refused in one line
#: naming the file and the field, never a traceback.
DEPLOYMENT_BASE = ("clients: 100\ndimension: 10\nclip: 1\nnoise: central\n"
                   "privacy: {epsilon: 2, delta: 1e-6, rounds: 10}\nencoding: {word_bits: 32}\n")
DEPLOYMENT_CASES: dict[str, str] = {
    "beta-tiny": "encoding: {word_bits: 32, rounding: conditional, beta: 1e-399}\n",
    "beta-exp-huge": "encoding: {word_bits: 32, rounding: conditional, beta: 'exp(-" + "9" * 390 + ")'}\n",
    "beta-exp-positive": "encoding: {word_bits: 32, rounding: conditional, beta: 'exp(1)'}\n",
    "beta-exp-near-1": "encoding: {word_bits: 32, rounding: conditional, beta: 'exp(-1e-390)'}\n",
    "beta-unused": "encoding: {word_bits: 32, beta: 1/2}\n",
    "gamma-long-fraction": "encoding: {word_bits: 32, gamma: 1/" + "7" * 5000 + "}\n",
    "sigma-tiny": "noise: {placement: central, sigma: 1e-300}\n",
    "skellam-layered": "noise: {mechanism: skellam, placement: distributed}\nencoding: {radix: 3, layers: 4}\n",
    "clients-huge": "clients: 1e999999999\n",
    "multi-server-flower": "protocol: {multi-server: {servers: 3, collusion: 1}}\n",
}


def deployment_text(case: str) -> str:
    """The base deployment with the case's lines in place of the base's lines of the same keys."""
    extra = DEPLOYMENT_CASES[case]
    keys = {line.split(":", 1)[0] for line in extra.splitlines()}
    kept = [line for line in DEPLOYMENT_BASE.splitlines() if line.split(":", 1)[0] not in keys]
    return "\n".join(kept) + "\n" + extra


def _verdict_values(kind):
    from itsa.testing.hostile import modular_values

    return st.sampled_from(modular_values(kind) + VERDICT_EXTRAS)


@pytest.mark.parametrize("verb", ["check flower", "secagg"])
def test_every_numeric_option_of_the_verdict_verbs_answers_in_one_line(verb):
    from click.testing import CliRunner

    from itsa.testing.hostile import check_verdict
    from itsa_cli import main

    options = VERDICT_VERBS[verb][1]

    @settings(max_examples=80, suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data())
    def run(data):
        option = data.draw(st.sampled_from(sorted(options)))
        args = verdict_command(verb, option, data.draw(_verdict_values(options[option])), data.draw(st.booleans()))
        check_verdict(CliRunner().invoke(main, args), args)

    run()


@pytest.mark.slow
def test_every_hostile_value_on_every_option_of_the_verdict_verbs():
    from click.testing import CliRunner

    from itsa.testing.hostile import check_verdict
    from itsa_cli import main

    for args in verdict_cases():
        check_verdict(CliRunner().invoke(main, args), args)


@pytest.mark.parametrize("case", ["beta-tiny", "beta-exp-huge", "beta-exp-positive", "beta-exp-near-1",
                                  "beta-unused", "gamma-long-fraction", "sigma-tiny", "skellam-layered",
                                  "clients-huge", "multi-server-flower"])
def test_every_hostile_deployment_is_planned_or_refused_naming_the_file(cli, tmp_path, case):
    from itsa.testing.hostile import check_verdict

    path = tmp_path / f"{case}.yaml"
    path.write_text(deployment_text(case), encoding="utf-8")
    report = tmp_path / "out.md"
    args = ["plan", str(path), "--json", "--quiet", "--markdown", str(report)]
    if case == "multi-server-flower":
        args = ["plan", str(path), "--quiet", "--export", "flower", "--markdown", str(report)]
    r = cli(*args)
    if r.exit_code == 3:                        # an infeasible plan: its verdict, exit 3, the report written
        assert json.loads(r.stdout)["verdict"]["verdict"] == "infeasible" and report.exists()
        return
    check_verdict(r, args)
    if r.exit_code == 2:
        assert not report.exists() and ("error: " + str(path) in r.stderr or "export flower" in r.stderr), r.stderr
        assert len(r.stderr) < 400


# -- the one reader of whole numbers: its range decided on the text, the same answer as exact arithmetic ---------

@settings(max_examples=300)
@given(mantissa=st.integers(0, 10**6), exponent=st.integers(-30, 10**7), point=st.integers(0, 6))
def test_read_whole_agrees_with_exact_arithmetic_and_never_grows_a_number(mantissa, exponent, point):
    from decimal import Decimal
    from fractions import Fraction

    from itsa._util.checks import MAX_WHOLE, decimal_order, read_whole
    from itsa.exceptions import InvalidOption

    digits = str(mantissa)
    text = (digits[:-point] or "0") + "." + digits[-point:] if 0 < point < len(digits) else digits
    text += f"e{exponent}"
    value = Fraction(Decimal(text)) if exponent < 40 else None      # past 10^40 the range alone decides
    order = decimal_order(text)
    if mantissa:
        assert order is not None and (value is None or 10**order <= value < 10 ** (order + 1))
    try:
        got = read_whole("n", text)
    except InvalidOption:
        assert value is None or value.denominator != 1 or not 1 <= value <= MAX_WHOLE
    else:
        assert value is not None and got == value and 1 <= got <= MAX_WHOLE


@pytest.mark.parametrize("args", [["check", "flower", "--clients", "1e999999999"],
                                  ["secagg", "--clients", "10", "--corrupt", "0", "--dropout", "0",
                                   "--dimension", "1e999999999"],
                                  ["secagg", "--clients", "10", "--corrupt", "0", "--dropout", "0",
                                   "--payload-bits", "1e999999999"]])
def test_a_number_that_once_hung_is_refused_in_a_real_process_under_the_cap(tmp_path, args):
    """Once turned into a billion-digit integer (417 MB after 40 s); now refused on its text. A hang fails the
    subprocess's timeout, a memory blow-up the cap."""
    proc = subprocess.run([sys.executable, "-c", "from itsa_cli import main; main()", *args],
                          capture_output=True, text=True, preexec_fn=_cap, timeout=60, cwd=tmp_path)
    check(args[0], args[0], proc.returncode, proc.stderr)
    assert proc.stdout == "" and "1e999999999" in proc.stderr
