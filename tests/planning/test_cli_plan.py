"""``itsa plan`` as a user runs it: the installed command in a subprocess, stdout parsed."""

import json
import os
import subprocess

import pytest

from itsa_cli._common import EXIT_INFEASIBLE
from tests.cli.test_cli_json_process import installed_itsa

TINY = "clients: 10\ndimension: 4\nclip: 1\nprivacy: {epsilon: 4, rounds: 5}\nencoding: {word_bits: 32}\n"


def run(args, cwd):
    return subprocess.run(installed_itsa() + list(args), cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "COLUMNS": "100"})


def test_the_shipped_example_as_json(tmp_path):
    out = run(["plan", "k1000", "--json", "--markdown", "report.md"], tmp_path)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["deployment"]["clients"] == 1000 and data["deployment"]["survivors"] == 900
    noise, enc = data["noise"], data["encoding"]
    assert noise["survivors"] == 900 and noise["epsilon"]["direction"] == "upper bound"
    assert float(noise["epsilon"]["interval"][1]) <= 4 and noise["meets_target"]
    assert enc["modulus"] == str(2**32) and enc["word_bits"] == 32
    assert enc["wrap_probability"]["direction"] == "upper bound"
    assert float(enc["wrap_probability"]["interval"][1]) <= 1e-6
    assert data["keys"]["secagg"]["degree"] == 36 and data["keys"]["secagg"]["threshold"] == 19
    assert data["keys"]["secagg"]["dropout_tolerated"] and data["verdict"]["verdict"] == "feasible"
    assert "heuristic" in data
    report = (tmp_path / "report.md").read_text()
    assert report.startswith("# Plan: k1000") and "## keys" in report


def test_text_output_and_the_infeasible_example(tmp_path):
    out = run(["plan", "k1000000-8bit"], tmp_path)
    assert out.returncode == EXIT_INFEASIBLE == 3, out.stderr        # infeasible has its own exit code
    assert "infeasible" in out.stdout and "fix: word_bits" in out.stdout
    assert "Plan" not in out.stdout.split(":")[0]        # the title's words, not the class name
    out = run(["plan", "k1000000-8bit", "--json"], tmp_path)
    assert out.returncode == EXIT_INFEASIBLE and out.stderr == ""
    data = json.loads(out.stdout)
    assert data["verdict"]["verdict"] == "infeasible" and data["verdict"]["fixes"]["word_bits"]["word_bits"] == 21


@pytest.mark.parametrize("text, message", [
    ("clients: 0\ndimension: 4\nclip: 1\nprivacy: {epsilon: 1}\n", "clients: must be a whole number"),
    ("clients: 10\ndimension: 4\nclip: 1\n", "privacy.epsilon: missing"),
    ("clients: 10\ndimension: 4\nclip: 1\nprivacy: {epsilon: 1}\nencoding: {word_bits: 999}\n", "word_bits"),
    ("clients: 10\ndimension: 4\nclip: 1\nprivacy: {epsilon: 1}\nservers: no-such-instance\n", "no-such-instance"),
    ("[unclosed\n", "not valid YAML"),
])
def test_bad_deployments_exit_2_with_one_line(tmp_path, text, message):
    (tmp_path / "d.yaml").write_text(text)
    out = run(["plan", "d.yaml", "--json"], tmp_path)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and message in out.stderr


def test_a_bad_report_path_is_refused_before_the_work(tmp_path):
    (tmp_path / "d.yaml").write_text(TINY)
    out = run(["plan", "d.yaml", "--markdown", "no/such/folder/r.md"], tmp_path)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "cannot write" in out.stderr


def test_bad_options_exit_2(cli, tmp_path):
    (tmp_path / "d.yaml").write_text(TINY)
    res = cli("plan", str(tmp_path / "d.yaml"), "--time-limit", "-3")
    assert res.exit_code == 2
    res = cli("plan", str(tmp_path / "missing.yaml"))
    assert res.exit_code == 2 and "no such file" in res.stderr
    res = cli("plan", "nosuch")                      # a bare name: neither a file nor a shipped deployment
    assert res.exit_code == 2 and res.stderr.strip().startswith("error: nosuch: no such file, nor a shipped deployment (")
    assert "k1000" in res.stderr and len(res.stderr.strip().splitlines()) == 1
