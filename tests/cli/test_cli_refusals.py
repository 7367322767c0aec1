"""Every refusal of ``itsa plan`` comes before anything is written, and an export never changes the protocol."""

from __future__ import annotations

import pytest

BASE = ("clients: 100\ndimension: 10\nclip: 1\nnoise: central\n"
        "privacy: {epsilon: 2, delta: 1e-6, rounds: 10}\n")
#: Deployments the Flower export refuses: before planning (the deployment) or after it (the plan's numbers).
REFUSED = {
    "layered": ("table1-psa", "layered plan"),
    "population": (BASE + "adjacency: add-remove\nencoding: {word_bits: 32}\npopulation: 100000\n", "fixed cohort"),
    "multi-server": (BASE + "encoding: {word_bits: 32}\nprotocol: {multi-server: {servers: 3, collusion: 1}}\n",
                     "multi-server (3 servers, collusion 1)"),
    "servers": (BASE + "encoding: {word_bits: 32}\nservers: example-1\n", "key-rate instance"),
    "int32-scale": (BASE + "encoding: {word_bits: 62, gamma: 4294967296}\n", "int32"),
}


def _deployment(tmp_path, text):
    if "\n" not in text:
        return text
    path = tmp_path / "d.yaml"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("name", list(REFUSED))
def test_a_refused_flower_export_writes_no_report(cli, tmp_path, name):
    text, words = REFUSED[name]
    out = tmp_path / "out.md"
    r = cli("plan", _deployment(tmp_path, text), "--export", "flower", "--markdown", out, "--quiet")
    assert r.exit_code == 2 and words in r.stderr and r.stderr.count("\n") == 1, r.output
    assert not out.exists() and r.stdout == ""


def test_a_refused_flower_export_writes_no_figure_and_no_export_file(cli, tmp_path):
    figure, export = tmp_path / "f.svg", tmp_path / "e.json"
    r = cli("plan", _deployment(tmp_path, REFUSED["population"][0]), "--export", "flower", "--sweep", "epsilon=1,2",
            "--figure", figure, "--export-file", export, "--quiet")
    assert r.exit_code == 2 and "fixed cohort" in r.stderr
    assert not figure.exists() and not export.exists()


def test_a_multi_server_deployment_is_not_exported_as_secagg(cli, tmp_path):
    r = cli("plan", _deployment(tmp_path, REFUSED["multi-server"][0]), "--export", "flower", "--quiet")
    assert r.exit_code == 2 and "never replaces the deployment's protocol" in r.stderr
    assert "SecAggPlusWorkflow" not in r.stdout and "1/20" not in r.stderr
    ok = cli("plan", _deployment(tmp_path, REFUSED["multi-server"][0]), "--export", "dp-accounting", "--quiet")
    assert ok.exit_code == 0 and '"dp_event"' in ok.stdout


def test_snippet_with_json_is_refused(cli, tmp_path):
    r = cli("plan", "k1000", "--export", "flower", "--snippet", "--json", "--quiet")
    assert r.exit_code == 2 and "give one of them" in r.stderr and r.stdout == ""
