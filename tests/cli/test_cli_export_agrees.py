"""``itsa plan``'s frameworks section says what ``--export`` then does: a refused export is a ``none: <reason>``
row and one line ``export X: <reason>`` (exit 2); a cohort's TFF export carries the cohort's premise."""

from __future__ import annotations

import json

import pytest

SKELLAM = ("clients: 100\ndimension: 10\nclip: 1\nprivacy: {epsilon: 2, delta: 1e-6, rounds: 10}\n"
           "noise: {mechanism: skellam}\nencoding: {word_bits: 20, rotation: hadamard, rounding: stochastic}\n")
COHORT = ("clients: 200\npopulation: 100000\nsampling: poisson\ndropout: 1/10\ndimension: 100\nclip: 1\n"
          "adjacency: replace-one\nprivacy: {epsilon: 4, delta: 1e-7, rounds: 100}\n"
          "noise: {mechanism: dgauss, placement: distributed}\n"
          "encoding: {word_bits: 20, rotation: hadamard, rounding: stochastic}\n")


def _file(tmp_path, text):
    path = tmp_path / "d.yaml"
    path.write_text(text)
    return str(path)


def _row(stdout: str, name: str) -> str:
    return next(line for line in stdout.splitlines() if line.strip().startswith(name + " ")).split(None, 1)[1]


def _refusal_matches_the_row(cli, path, framework, row_name):
    plan = cli("plan", path, "--quiet")
    assert plan.exit_code == 0, plan.output
    row = _row(plan.stdout, row_name).strip()
    assert row.startswith("none: "), row
    r = cli("plan", path, "--export", framework, "--quiet")
    assert r.exit_code == 2 and r.stdout == "" and r.stderr.count("\n") == 1, r.output
    assert r.stderr.strip() == f"error: export {framework}: {row[len('none: '):]}"


def test_skellams_dp_accounting_row_is_the_exports_refusal(cli, tmp_path):
    _refusal_matches_the_row(cli, _file(tmp_path, SKELLAM), "dp-accounting", "dp-accounting")


@pytest.mark.slow
def test_a_cohorts_rows_and_exports_agree(cli, tmp_path):
    path = _file(tmp_path, COHORT)
    _refusal_matches_the_row(cli, path, "dp-accounting", "dp-accounting")
    flower = cli("plan", path, "--export", "flower", "--quiet")
    assert flower.exit_code == 2 and "export to tff" in flower.stderr
    r = cli("plan", path, "--export", "tff", "--quiet")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert any("must not learn who was sampled" in p for p in out["epsilon_premises"])
    n = out["DistributedDpSumFactory"]["expected_clients_per_round"]
    assert any(f"expected_clients_per_round is {n}," in note for note in out["notes"])
    assert 0 < out["DistributedDpSumFactory"]["modclip_prob"] < 1
    assert not any("modclip_prob should be" in x for x in out["refused_by_tff"])


@pytest.mark.parametrize("dropout", ["1.5", "1", "-1/10"])
def test_dropout_out_of_range_states_the_true_range(cli, tmp_path, dropout):
    r = cli("plan", _file(tmp_path, SKELLAM + f"dropout: {dropout}\n"), "--quiet")
    assert r.exit_code == 2 and r.stderr.count("\n") == 1, r.output
    assert "dropout: must lie in [0, 1)" in r.stderr
