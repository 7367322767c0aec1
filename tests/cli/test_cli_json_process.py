"""Every verb's ``--json`` read as a pipe reads it: the installed ``itsa`` in a fresh process.

Click's test runner captures only Python-level output; a native library that
writes to file descriptor 1 (HiGHS prints a banner when a model is built)
is seen only here. Each case parses the whole of stdout with ``json.loads``.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

#: One cheap invocation of every verb of every group (``--json`` is appended).
VERBS = {
    "analyze": ["analyze", "example-1"],
    "build": ["build", "example-1"],
    "verify": ["verify", "example-1"],
    "draw": ["draw", "example-1", "-o", "figure.svg"],
    "audit": ["audit", "example-1"],
    "converse": ["converse", "example-1"],
    "solve": ["solve", "example-1"],
    "examples": ["examples"],
    "secagg": ["secagg", "--clients", "1000", "--corrupt", "0.05", "--dropout", "0.05"],
    "census run": ["census", "run", "tiny.yaml", "-o", "census-out"],
    "privacy account": ["privacy", "account", "--noise-multiplier", "2", "--rounds", "10"],
    "privacy binomial": ["privacy", "binomial", "--epsilon", "1", "--delta", "1e-5"],
    "privacy calibrate": ["privacy", "calibrate", "--epsilon", "4", "--delta", "1e-6", "--rounds", "150"],
    "privacy noise": ["privacy", "noise", "--sigma", "3", "--count", "5", "--seed", "1"],
    "privacy release": ["privacy", "release", "updates.csv", "--epsilon", "1"],
    "privacy sample": ["privacy", "sample", "dgauss", "--sigma-squared", "5/2", "--count", "5", "--seed", "1",
                       "-o", "draws.npy"],
    "privacy sensitivity": ["privacy", "sensitivity", "-d", "10", "--clients", "5"],
    "privacy weights": ["privacy", "weights", "--alpha", "256", "3", "5", "8"],
    "modular audit": ["modular", "audit"],
    "modular clip-rate": ["modular", "clip-rate", "--norm", "1", "--clip-factor", "2", "--dimension", "1290"],
    "modular converse": ["modular", "converse", "-K", "10", "--margin", "2"],
    "modular digits": ["modular", "digits"],
    "modular distortion": ["modular", "distortion"],
    "modular margins": ["modular", "margins", "-K", "8,16"],
    "modular payload": ["modular", "payload", "--clients", "10"],
    "modular privacy": ["modular", "privacy", "--survivors", "10"],
    "modular rules": ["modular", "rules", "-K", "10"],
    "plan": ["plan", "deployment.yaml"],
    "check flower": ["check", "flower", "--clients", "500"],
}

#: Options that add to a verb's JSON (read the same way): a verb of :data:`VERBS`, then the options.
VARIANTS = {
    "plan --simulate": ["plan", "deployment.yaml", "--simulate", "2"],
    "plan --sweep": ["plan", "deployment.yaml", "--sweep", "word_bits=16..18", "--figure", "sweep.pdf"],
}

TINY_CENSUS = "universe:\n  grid: {U: [3], V: [1], t: [0]}\nwork: analyze\n"
TINY_DEPLOYMENT = "clients: 10\ndimension: 4\nclip: 1\nprivacy: {epsilon: 4}\nencoding: {word_bits: 32}\n"


def installed_itsa() -> list[str]:
    """The console script installed beside this Python (as a user runs it), else on ``PATH``."""
    here = Path(sys.executable).with_name("itsa")
    found = str(here) if here.exists() else shutil.which("itsa")
    assert found, "the itsa console script is not installed (pip install -e .)"
    return [found]


def run_json(args, cwd):
    out = subprocess.run(installed_itsa() + list(args) + ["--json"], cwd=cwd, capture_output=True,
                         text=True, timeout=300, env={**os.environ, "COLUMNS": "100"})
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    where = tmp_path_factory.mktemp("json-process")
    (where / "updates.csv").write_text("a,b\n0.3,0.4\n0.1,0.2\n")
    (where / "tiny.yaml").write_text(TINY_CENSUS)
    (where / "deployment.yaml").write_text(TINY_DEPLOYMENT)
    return where


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_stdout_is_one_json_object(verb, workdir):
    data = run_json(VERBS[verb], workdir)
    assert isinstance(data, dict) and data


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_variant_prints_one_json_object(variant, workdir):
    verb = variant.split(" --")[0]
    assert VARIANTS[variant][:len(VERBS[verb])] == VERBS[verb]
    data = run_json(VARIANTS[variant], workdir)
    assert isinstance(data, dict) and set(data) > set(run_json(VERBS[verb], workdir))


def test_census_report_is_json(workdir):
    if not (workdir / "census-out").exists():
        run_json(VERBS["census run"], workdir)
    data = run_json(["census", "report", "census-out", "-o", "census-report"], workdir)
    assert isinstance(data, dict)


def test_every_verb_is_covered():
    """A new verb must join :data:`VERBS`: the table is checked against the command line itself."""
    from itsa_cli import main

    found = set()
    for name in main.list_commands(None):
        command = main.get_command(None, name)
        subs = getattr(command, "commands", None)
        found |= {f"{name} {sub}" for sub in subs} if subs else {name}
    assert found - {"census report"} == set(VERBS)


def test_a_native_banner_is_kept_off_stdout(tmp_path):
    """C-level writes to descriptor 1 inside the guard do not reach a pipe; Python's own output does."""
    code = ("import os; from itsa._util.native import quiet_native_stdout\n"
            "print('before', flush=True)\n"
            "with quiet_native_stdout():\n    os.write(1, b'banner\\n'); print('inside')\n"
            "print('after')\n")
    for buffered in ("", "1"):      # Python's own buffer flushed or not, the block's output is dropped alike
        env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
        env.update({"PYTHONUNBUFFERED": buffered} if buffered else {})
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
        assert out.returncode == 0, out.stderr
        assert out.stdout.split() == ["before", "after"]


@pytest.mark.parametrize("verb", [["solve", "example-1"], ["converse", "example-1"],
                                  ["privacy", "noise", "--sigma", "3", "--count", "3", "--seed", "1"],
                                  ["privacy", "release", "updates.csv", "--epsilon", "1"]])
def test_time_limit_nan_is_one_line(verb, workdir):
    """A float range lets ``nan`` through; every ``--time-limit`` refuses it before any work."""
    out = subprocess.run(installed_itsa() + verb + ["--time-limit", "nan"], cwd=workdir, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and "'nan' is not a number of seconds" in out.stderr


@pytest.mark.parametrize("given", ["1e-400", "5e-1000"])
def test_a_time_limit_too_small_for_a_float_is_refused_not_read_as_no_limit(given, workdir):
    """``float("1e-400")`` is 0, which means no limit: a positive limit that rounds to it is refused instead."""
    out = subprocess.run(installed_itsa() + ["plan", "k1000", "--time-limit", given], cwd=workdir,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and "too small a number of seconds" in out.stderr


def test_a_time_limit_of_zero_written_any_way_means_none():
    from itsa_cli._common import SECONDS

    assert SECONDS.convert("0e5", None, None) == 0 == SECONDS.convert("0.000", None, None)
