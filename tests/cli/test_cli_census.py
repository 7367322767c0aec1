"""``itsa census`` and ``itsa census report`` through click's CliRunner."""

import csv
import json
import re
import subprocess

import pytest

from itsa.keys.census import load_spec, read_rows
from tests.conftest import ROOT, held_census


@pytest.fixture(scope="module")
def grid_results(cli, tmp_path_factory):
    """The grid spec on a real LocalCluster of two worker processes (the default path)."""
    out = tmp_path_factory.mktemp("census") / "grid.parquet"
    res = cli("census", ROOT / "specs" / "grid-small.yaml", "-o", out, "--workers", "2", "--json")
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert (summary["done"], summary["failed"], summary["workers"]) == (8, 0, 2)
    return out


def test_census_rows(grid_results):
    rows = read_rows(grid_results)
    assert len(rows) == 8
    for r in rows:
        U, V, t = r["U"], r["homogeneous_V"], r["homogeneous_t"]
        assert r["upper"] == r["lower"] == str(min(U + V + t - 2, U * V - 1))   # published optimum
        assert r["verdict"] == "optimal"


def test_report(cli, grid_results, tmp_path):
    from itsa.keys.bounds.corrected import EVERY_SCHEME

    res = cli("census", "report", grid_results, "-o", tmp_path / "rep", "--format", "png", "--json")
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["summary"]["instances"] == 8 and d["summary"]["optimal"] == 8
    assert d["summary"]["optimal_scope"] == EVERY_SCHEME
    # no open instance, every gap 0, one (K, regime) per bar group...: a line each, no empty axes
    assert "open: no open instance (no figure)" in d["notes"]
    assert "gaps: every one of the 8 instances with both bounds has gap 0 (no figure)" in d["notes"]
    for name in ("converse-by-regime", "certified-by-K", "printed-gap", "gaps", "grid-rate", "open"):
        assert (tmp_path / "rep" / f"{name}.csv").exists()
        png = tmp_path / "rep" / f"{name}.png"
        noted = any(n.startswith(name + ":") for n in d["notes"])
        assert noted != png.exists(), name                      # a figure, or a line: never both
        assert noted or png.stat().st_size > 1000
    assert (tmp_path / "rep" / "grid-rate.png").exists()     # 8 homogeneous instances, 4 closed forms
    with open(tmp_path / "rep" / "converse-by-regime.csv") as fh:
        by_regime = {r["regime"]: r for r in csv.DictReader(fh)}
    # condition-1 holds for V = 1; with V = 2 the printed e* is beaten (docs/audit.md)
    assert by_regime["condition-1"]["printed_beaten"] == "0"
    assert by_regime["theorem-2"]["share_printed_beaten"] == "1.0000"
    with open(tmp_path / "rep" / "grid-rate.csv") as fh:
        grid = list(csv.DictReader(fh))
    assert len(grid) == 8 and all(g["upper"] == g["published"] for g in grid)
    with open(tmp_path / "rep" / "open.csv") as fh:
        assert len(list(csv.DictReader(fh))) == 0


def test_report_svg(cli, grid_results, tmp_path):
    res = cli("census", "report", grid_results, "-o", tmp_path, "--format", "svg", "--style", "annotated")
    assert res.exit_code == 0, res.output
    assert (tmp_path / "grid-rate.svg").read_text().lstrip().startswith("<?xml")
    assert "note: open: no open instance (no figure)" in res.stdout
    optimal = next(line for line in res.stdout.splitlines() if line.startswith("optimal "))
    assert "(lower bound proved for " in optimal


def one_line_exit_2(res, fragment):
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and fragment in lines[0], res.output


def test_malformed_spec(cli, tmp_path):
    spec = tmp_path / "bad.yaml"
    spec.write_text("universe: [grid\n")
    one_line_exit_2(cli("census", spec, "-o", tmp_path / "r.parquet"), "not valid YAML")


def test_unknown_universe(cli, tmp_path):
    spec = tmp_path / "bad.yaml"
    spec.write_text("universe:\n  everything: {}\nwork: search\n")
    one_line_exit_2(cli("census", spec, "-o", tmp_path / "r.parquet"), "unknown universe 'everything'")


def test_unreachable_scheduler_is_an_environment_failure_not_bad_input(cli, tmp_path):
    res = cli("census", ROOT / "specs" / "grid-small.yaml", "-o", tmp_path / "r.parquet",
              "--scheduler", "tcp://127.0.0.1:9", "--connect-timeout", "0.5")
    assert res.exit_code == 1, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "cannot reach the Dask scheduler" in lines[0]
    assert not (tmp_path / "r.parquet").exists()


def test_existing_output_needs_resume(cli, grid_results):
    res = cli("census", ROOT / "specs" / "grid-small.yaml", "-o", grid_results, "--workers", "0")
    one_line_exit_2(res, "--resume")
    res = cli("census", "run", ROOT / "specs" / "grid-small.yaml", "-o", grid_results,
              "--workers", "0", "--resume", "--json")
    assert res.exit_code == 0 and json.loads(res.stdout)["skipped"] == 8


def test_report_of_a_non_census(cli, tmp_path):
    one_line_exit_2(cli("census", "report", tmp_path, "-o", tmp_path / "rep"), "not a census results folder")


def test_workers_and_scheduler_exclusive(cli, tmp_path):
    res = cli("census", ROOT / "specs" / "grid-small.yaml", "-o", tmp_path / "r",
              "--workers", "2", "--scheduler", "tcp://127.0.0.1:9")
    one_line_exit_2(res, "exclude each other")


def test_joins_a_running_scheduler(cli, tmp_path):
    """--scheduler ADDRESS: the census runs on a cluster it did not start."""
    from distributed import LocalCluster

    spec = tmp_path / "spec.yaml"
    spec.write_text("universe:\n  exhaustive: {U: 3, K: 3, M: 1, N: 1}\nwork: corrected\n")
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0") as cl:
        res = cli("census", spec, "-o", tmp_path / "r.parquet", "--scheduler", cl.scheduler_address, "--json")
        assert res.exit_code == 0, res.output
        assert json.loads(res.stdout)["workers"] == 1
        assert cl.scheduler.workers              # the cluster is still up after the census left it
    rows = read_rows(tmp_path / "r.parquet")
    assert len(rows) == 20 and all(r["status"] == "ok" and r["lower"] is not None for r in rows)


def test_ctrl_c_on_workers_is_one_line_and_resume_completes(cli, tmp_path):
    """A real SIGINT to the whole process group (what a terminal's Ctrl-C sends) during a run on
    two worker processes: one line, exit 130, no Dask log line or worker traceback; the rows
    finished are kept and --resume completes the table.

    The signal is sent when the census reports its third finished row (see
    :func:`tests.conftest.held_census`), never after a guessed delay, and the census is held
    there, so that it always has work left when the signal lands, however fast the machine.
    """
    import os
    import signal

    spec = tmp_path / "spec.yaml"
    spec.write_text("universe:\n  random: {n: 120, max_users: 5}\nwork: search\n")
    n = len(load_spec(spec).items())
    out = tmp_path / "r.parquet"
    # SIGINT at its default in the child, whatever this runner inherited (a shell's
    # background job ignores SIGINT, and Python then keeps ignoring it)
    with held_census([spec, "-o", out, "--workers", 2], rows=3, stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE, text=True, start_new_session=True,
                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL)) as (proc, done):
        os.killpg(proc.pid, signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=600)
    assert proc.returncode == 130, stderr
    lines = (stdout + stderr).strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("interrupted:") and "--resume" in lines[0], stderr
    kept = len(read_rows(out))
    assert kept == done and 3 <= kept < n      # every reported row, and only those
    res = cli("census", spec, "-o", out, "--workers", "0", "--resume", "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["skipped"] == kept
    rows = read_rows(out)
    assert len(rows) == len({r["key"] for r in rows}) == n and all(r["status"] == "ok" for r in rows)


def _fake_census(states, interrupt):
    def run_census(*args, progress=None, **kwargs):
        for p in states:
            progress(p)
        if interrupt:
            raise KeyboardInterrupt
        raise AssertionError("not reached")
    return run_census


def test_progress_bar_is_one_line_and_an_interrupt_gets_a_line_of_its_own(cli, monkeypatch):
    """In a 100-column terminal the bar never wraps (a wrapped live line is redrawn below
    itself), and Ctrl-C's 'interrupted: ...' comes after the bar's last line has ended."""
    import io

    import click
    from rich.console import Console

    import itsa.keys.census
    from itsa.keys.census import CensusProgress
    from itsa_cli import census as census_cli

    screen = io.StringIO()
    terminal = Console(file=screen, force_terminal=True, width=100, color_system=None)
    bar = census_cli._progress_bar
    monkeypatch.setattr(census_cli, "_progress_bar", lambda quiet: bar(quiet, terminal))
    states = [CensusProgress(total=5488, done=d, failed=d // 7, timeout=d // 11, running=2, elapsed=1.0 + d)
              for d in (0, 82, 4000)]
    monkeypatch.setattr(itsa.keys.census, "run_census", _fake_census(states, interrupt=True))
    seen = []
    echo = click.echo
    monkeypatch.setattr(click, "echo", lambda msg="", **kw: (seen.append((screen.getvalue(), str(msg))),
                                                            echo(msg, **kw)))
    res = cli("census", "run", ROOT / "specs" / "grid-small.yaml", "-o", "unused.parquet")
    assert res.exit_code == 130
    drawn, message = next((s, m) for s, m in seen if m.startswith("interrupted:"))
    drawn = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", drawn)            # the terminal's control codes
    assert drawn.endswith("\n") and drawn.count("\n") == 1          # the bar's one line ended first
    lines = re.split(r"[\r\n]", drawn)
    assert max(len(line) for line in lines) < 80                   # never wraps
    assert "4000/5488" in drawn


def test_a_scheduler_that_accepts_and_never_answers_is_unreachable_within_the_timeout(cli, tmp_path):
    """An attacker's case: a loopback peer that takes the TCP connection and says nothing held the join for ever
    (Dask's own timeout bounds the connection, not the handshake). Now: one line, exit 1, within the connect
    timeout and its grace, nothing written."""
    import socket

    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)
        port = silent.getsockname()[1]
        res = cli("census", ROOT / "specs" / "grid-small.yaml", "-o", tmp_path / "r.parquet",
                  "--scheduler", f"tcp://127.0.0.1:{port}", "--connect-timeout", "1")
    assert res.exit_code == 1, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "no answer within 1 s" in lines[0]
    assert not (tmp_path / "r.parquet").exists()
