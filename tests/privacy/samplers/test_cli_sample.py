"""``itsa privacy sample``: the .npy, --json, exit codes, refusals before any work."""

import json
import os

import numpy as np
import pytest
from click.testing import CliRunner

from itsa.privacy.samplers import discrete_gaussian, fair_coins
from itsa_cli import main as cli


def run(*args):
    return CliRunner().invoke(cli, ["privacy", "sample", *map(str, args)])


def test_writes_the_draws_and_reports_the_speed(tmp_path):
    out = tmp_path / "d.npy"
    res = run("dgauss", "--sigma-squared", "5/2", "--count", 1000, "--seed", 7, "-o", out, "--json")
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert report["count"] == 1000 and report["law"]["sigma_squared"] == "5/2"
    assert report["draws_per_second"] > 0 and report["seconds"] >= 0
    got = np.load(out)
    assert got.dtype == np.dtype("<i8")
    assert got.tobytes() == discrete_gaussian("5/2", 1000, seed=7).tobytes()


@pytest.mark.parametrize("s2", ["2.5", "5/2", "10/4"])
def test_decimals_and_fractions_are_the_same_law(tmp_path, s2):
    out = tmp_path / "d.npy"
    assert run("dgauss", "--sigma-squared", s2, "--count", 50, "--seed", 3, "-o", out).exit_code == 0
    assert np.load(out).tolist() == discrete_gaussian("5/2", 50, seed=3).tolist()


def test_workers_give_the_same_bytes(tmp_path):
    a, b = tmp_path / "a.npy", tmp_path / "b.npy"
    for path, w in ((a, 1), (b, 2)):
        assert run("dgauss", "--sigma-squared", 1000**2, "--count", 140_000, "--seed", 9, "-o", path,
                   "--workers", w).exit_code == 0
    assert a.read_bytes() == b.read_bytes()


@pytest.mark.parametrize("args", [
    ("dgauss", "--count", 5, "--seed", 1),                               # no sigma^2
    ("dgauss", "--sigma-squared", "-1", "--count", 5, "--seed", 1),
    ("dgauss", "--sigma-squared", "abc", "--count", 5, "--seed", 1),
    ("dgauss", "--sigma-squared", "1", "--count", -5, "--seed", 1),
    ("gauss", "--sigma-squared", "1", "--count", 5, "--seed", 1),
])
def test_bad_input_is_exit_2_and_nothing_written(tmp_path, args):
    out = tmp_path / "x.npy"
    res = run(*args, "-o", out)
    assert res.exit_code == 2, res.output
    assert not out.exists()


def test_never_writes_over_what_is_not_a_regular_file(tmp_path):
    folder = tmp_path / "f.npy"
    folder.mkdir()
    res = run("dgauss", "--sigma-squared", 1, "--count", 5, "--seed", 1, "-o", folder)
    assert res.exit_code == 2 and folder.is_dir()
    fifo = tmp_path / "p.npy"
    os.mkfifo(fifo)
    assert run("dgauss", "--sigma-squared", 1, "--count", 5, "--seed", 1, "-o", fifo).exit_code == 2


def test_binomial_writes_the_heads(tmp_path):
    from itsa.privacy.samplers import fair_coins as binomial

    out = tmp_path / "b.npy"
    res = run("binomial", "--coins", 4_000_000_000, "--count", 1000, "--seed", 5, "-o", out, "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["law"]["coins"] == 4_000_000_000
    assert np.load(out).tobytes() == binomial(4_000_000_000, 1000, seed=5).tobytes()


@pytest.mark.parametrize("args", [
    ("binomial", "--sigma-squared", 3),
    ("binomial", "--coins", 0),
    ("binomial", "--coins", "2.5"),
    ("dgauss", "--coins", 3),
    ("binomial",),
])
def test_a_parameter_of_another_law_is_exit_2(tmp_path, args):
    out = tmp_path / "x.npy"
    res = run(*args, "--count", 5, "--seed", 1, "-o", out)
    assert res.exit_code == 2, res.output
    assert not out.exists()


def test_skellam_writes_the_draws(tmp_path):
    from itsa.privacy.samplers import skellam

    out = tmp_path / "s.npy"
    res = run("skellam", "--variance", "5/2", "--count", 1000, "--seed", 5, "-o", out, "--json")
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert report["count"] == 1000 and report["law"]["variance"] == "5/2" and "Skellam" in report["law"]["law"]
    assert report["draws_per_second"] > 0 and report["seconds"] >= 0
    got = np.load(out)
    assert got.dtype == np.dtype("<i8") and got.tobytes() == skellam("5/2", 1000, seed=5).tobytes()
    again = tmp_path / "t.npy"
    assert run("skellam", "--variance", "2.5", "--count", 1000, "--seed", 5, "-o", again).exit_code == 0
    assert again.read_bytes() == out.read_bytes()


def test_skellam_workers_give_the_same_bytes(tmp_path):
    a, b = tmp_path / "a.npy", tmp_path / "b.npy"
    for path, w in ((a, 1), (b, 2)):
        assert run("skellam", "--variance", 10**6, "--count", 140_000, "--seed", 9, "-o", path,
                   "--workers", w).exit_code == 0
    assert a.read_bytes() == b.read_bytes()


@pytest.mark.parametrize("args", [
    ("skellam",),                                      # no variance
    ("skellam", "--variance", 0),
    ("skellam", "--variance", "-3"),
    ("skellam", "--variance", "abc"),
    ("skellam", "--variance", str(2**62)),
    ("skellam", "--sigma-squared", 3),
    ("skellam", "--coins", 3),
    ("dgauss", "--variance", 3),
    ("binomial", "--variance", 3),
])
def test_skellam_bad_input_is_exit_2_and_nothing_written(tmp_path, args):
    out = tmp_path / "x.npy"
    res = run(*args, "--count", 5, "--seed", 1, "-o", out)
    assert res.exit_code == 2, res.output
    assert not out.exists() and "Traceback" not in res.output


def test_a_negative_seed_is_exit_2_as_in_the_api(tmp_path):
    """Before: --seed -1 was taken as the seed text '-1' while the API refused seed=-1."""
    out = tmp_path / "x.npy"
    res = run("dgauss", "--sigma-squared", 4, "--count", 5, "--seed", "-1", "-o", out)
    assert res.exit_code == 2 and "seed: must be a whole number >= 0" in res.output, res.output
    assert not out.exists()


@pytest.mark.parametrize("variance, text, exact", [
    ("2e-300", "V = 2e-300 (exact)", "1/" + "5" + "0" * 299),
    ("1000000000000000000000000000001/3000000000000", "V = 3.33333333334e17 (rounded up; exact in --json)",
     "1000000000000000000000000000001/3000000000000"),
])
def test_the_text_shows_a_short_parameter_and_the_json_the_exact_one(tmp_path, variance, text, exact):
    """Before: V = 2e-300 printed as a 300-digit fraction in the text."""
    res = run("skellam", "--variance", variance, "--count", 3, "--seed", 1, "-o", tmp_path / "a.npy")
    assert res.exit_code == 0 and text in res.output and len(max(res.output.splitlines(), key=len)) < 200, res.output
    res = run("skellam", "--variance", variance, "--count", 3, "--seed", 1, "-o", tmp_path / "b.npy", "--json")
    assert json.loads(res.stdout)["law"]["variance"] == exact


def test_coins_are_read_as_every_whole_number_option(tmp_path):
    out = tmp_path / "h.npy"
    assert run("binomial", "--coins", "4e9", "--count", 5, "--seed", 1, "-o", out).exit_code == 0
    assert np.load(out).tolist() == fair_coins(4 * 10**9, 5, seed=1).tolist()
