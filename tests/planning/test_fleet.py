"""A fleet of plans: each row the plan run alone, serial = Dask, interrupted and resumed, bad input refused."""

import json
from fractions import Fraction

import pytest

from itsa.planning import load_deployment, plan
from itsa.planning.drivers.fleet import (
    FLEET_COLUMNS,
    fleet_deployments,
    fleet_summary,
    grid_points,
    parse_grid,
    plan_row,
    read_fleet,
    run_fleet,
)
from tests.cli.test_cli_census import one_line_exit_2

SMALL = "clients: 100\ndimension: 64\nclip: 1\nprivacy: {epsilon: 4, rounds: 10}\nencoding: {word_bits: 20}\n"
#: sigma given (no calibration): the cheap plans of the runs below
FAST = "clients: 100\ndimension: 64\nclip: 1\nnoise: {sigma: 30}\nprivacy: {rounds: 10}\nencoding: {word_bits: 20}\n"
KEYED = ("clients: 200\ndropout: 1/10\ndimension: 32\nclip: 1\nnoise: {sigma: 30}\nencoding: {word_bits: 24}\n"
         "protocol: {secagg+: {corrupt: 1/20, adversary: semi-honest}}\n")
VOLATILE = {"time"}


def stable(rows):
    return [{k: v for k, v in r.items() if k not in VOLATILE} for r in rows]


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "small.yaml").write_text(FAST)
    (tmp_path / "keyed.yaml").write_text(KEYED)
    return tmp_path


def test_grid_is_the_product_of_exact_values():
    grid = parse_grid(["word_bits=16..18:2", "epsilon=2,4", "dropout=0,1/10,0.3"])
    assert [(str(q), v) for q, v in grid] == [("word_bits", ("16", "18")), ("epsilon", ("2", "4")),
                                               ("dropout", ("0", "1/10", "3/10"))]
    points = grid_points(grid)
    assert len(points) == 12 and len(set(points)) == 12
    assert points[0] == (("word_bits", "16"), ("epsilon", "2"), ("dropout", "0"))


@pytest.mark.parametrize("override, field, value", [("word_bits", "encoding", {"word_bits": 22}),
                                                     ("dropout", "dropout", "1/5"),
                                                     ("epsilon", "privacy", {"epsilon": 2, "rounds": 10})])
def test_a_row_is_the_plan_of_the_file_with_that_value(tmp_path, override, field, value):
    """The row's numbers are those of the plan of a file that says the overridden value itself."""
    import yaml

    text = {"word_bits": "22", "dropout": "1/5", "epsilon": "2"}[override]
    row = plan_row(SMALL, str(tmp_path / "small.yaml"), [(override, text)], seed=3)
    raw = yaml.safe_load(SMALL)
    raw[field] = value
    (tmp_path / "alone.yaml").write_text(yaml.safe_dump(raw))
    alone = plan(load_deployment(tmp_path / "alone.yaml"), seed=3).to_dict()
    noise, enc, err = alone["noise"], alone["encoding"], alone["error"]
    assert row["status"] == "ok" and row[override] == text and row["seed"] == 3
    assert row["key"] == f"small|{override}={text}" and row["deployment"] == "small"
    assert row["eps"] == noise["epsilon"]["interval"][1] and noise["epsilon"]["direction"] == "upper bound"
    assert row["sigma_client"] == noise["sigma_client"] and row["gamma"] == enc["gamma"]
    assert row["word"] == enc["word_bits"] and row["wrap"] == enc["wrap_probability"]["interval"][1]
    assert row["mse"] == err["mse_total"]["interval"][1] and row["limit_ratio"] == err["limit_ratio"]
    assert row["mse_per_coordinate"] == err["mse_per_coordinate"]
    assert row["verdict"] == alone["verdict"]["verdict"] and json.loads(row["reasons"]) == alone["verdict"]["reasons"]
    assert Fraction(row["payload_bits"]) == enc["word_bits"] * 64


def test_secagg_degree_and_threshold_are_the_plans(folder):
    row = plan_row(KEYED, str(folder / "keyed.yaml"))
    secagg = plan(load_deployment(folder / "keyed.yaml")).to_dict()["keys"]["secagg"]
    assert (row["secagg_degree"], row["secagg_threshold"]) == (secagg["degree"], secagg["threshold"])
    assert row["secagg_degree"] is not None


def test_an_infeasible_plan_is_a_row_with_its_reasons_and_fixes():
    row = plan_row(FAST, "small.yaml", [("word_bits", "4")])
    assert row["status"] == "ok" and row["verdict"] == "infeasible"
    assert json.loads(row["reasons"]) and "word_bits" in json.loads(row["fixes"])


def test_one_dask_worker_and_the_serial_loop_write_the_same_table(folder):
    """The Dask path (chunks, window, journal) on one in-process worker: fast; two processes below (slow)."""
    from distributed import Client, LocalCluster

    deployments = fleet_deployments([folder / "small.yaml"])
    grid = parse_grid(["word_bits=14,16", "dropout=0,1/10"])
    serial = run_fleet(deployments, grid, folder / "s.parquet", workers=0)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0") as cl, \
            Client(cl) as c:
        run = run_fleet(deployments, grid, folder / "d.parquet", client=c)
    assert serial.progress.done == run.progress.done == 4 and run.workers == 1
    assert stable(read_fleet(folder / "d.parquet")) == stable(read_fleet(folder / "s.parquet"))
    assert stable([run.cheapest[0]["cheapest"]]) == stable([serial.cheapest[0]["cheapest"]])


@pytest.mark.slow
def test_serial_and_dask_tables_are_the_same(folder):
    """Worker processes of one thread, as the fleet starts them: python-flint's working precision is one
    per process, so plans in threads of one process may end their certified intervals in other digits."""
    from itsa._util.dask_run import local_cluster

    deployments = fleet_deployments([folder])
    grid = parse_grid(["word_bits=14,16"])
    serial = run_fleet(deployments, grid, folder / "s.parquet", workers=0)
    with local_cluster(2) as c:
        run = run_fleet(deployments, grid, folder / "d.parquet", client=c)
    assert serial.progress.done == run.progress.done == 4 and run.workers == 2
    rows = read_fleet(folder / "d.parquet")
    assert stable(rows) == stable(read_fleet(folder / "s.parquet"))
    assert set(rows[0]) == set(FLEET_COLUMNS)
    # and each row is the plan alone
    for r in rows:
        text = (folder / f"{r['deployment']}.yaml").read_text()
        alone = plan_row(text, str(folder / f"{r['deployment']}.yaml"), [("word_bits", r["word_bits"])])
        assert stable([alone]) == stable([r])


def test_interrupted_then_resumed_loses_and_repeats_no_row(folder):
    deployments = fleet_deployments([folder / "small.yaml"])
    grid = parse_grid(["word_bits=12..16"])
    run_fleet(deployments, grid, folder / "full.parquet", workers=0)

    def stop_after_2(p):
        if p.done == 2:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        run_fleet(deployments, grid, folder / "cut.parquet", workers=0, progress=stop_after_2)
    assert len(read_fleet(folder / "cut.parquet")) == 2            # from the journal
    with pytest.raises(Exception, match="--resume"):
        run_fleet(deployments, grid, folder / "cut.parquet", workers=0)
    with pytest.raises(Exception, match="seed"):
        run_fleet(deployments, grid, folder / "cut.parquet", workers=0, resume=True, seed=1)
    again = run_fleet(deployments, grid, folder / "cut.parquet", workers=0, resume=True)
    assert (again.progress.skipped, again.progress.done) == (2, 3)
    rows = read_fleet(folder / "cut.parquet")
    assert len(rows) == len({r["key"] for r in rows}) == 5
    assert stable(rows) == stable(read_fleet(folder / "full.parquet"))


def test_the_summary_names_the_cheapest_feasible_configuration():
    rows = [plan_row(FAST, "small.yaml", [("word_bits", b)]) for b in ("4", "14", "16", "18")]
    (s,) = fleet_summary(rows)
    feasible = [r for r in rows if r["verdict"] == "feasible"]
    assert s["plans"] == 4 and s["feasible"] == len(feasible) == 2
    assert s["cheapest"]["word_bits"] == "14"         # the fewest bits per client per round among feasible ones
    assert fleet_summary([rows[0]])[0]["cheapest"] is None


def test_cli_fleet_runs_and_writes_the_table(cli, folder):
    (folder / "target.yaml").write_text(SMALL)
    res = cli("plan", folder / "target.yaml", "--grid", "word_bits=16,20", "epsilon=2,4", "-o", folder / "f.parquet",
              "--workers", "0", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["done"] == 4 and data["cheapest"][0]["deployment"] == "target"
    rows = read_fleet(folder / "f.parquet")
    assert sorted((r["word_bits"], r["epsilon"]) for r in rows) == [("16", "2"), ("16", "4"), ("20", "2"), ("20", "4")]


@pytest.mark.parametrize("args, fragment", [
    (["--grid", "bogus=1,2", "-o", "OUT"], "unknown grid field 'bogus'"),
    (["--grid", "word_bits=9..2", "-o", "OUT"], "is not a range"),
    (["--grid", "word_bits=16", "word_bits=20", "-o", "OUT"], "word_bits given twice"),
    (["--grid", "word_bits=16"], "--grid goes with a fleet"),
    (["--workers", "2"], "--workers goes with a fleet"),
    (["--grid", "word_bits=1", "-o", "OUT"], "word_bits"),
    (["--grid", "dropout=2", "-o", "OUT"], "dropout"),
    (["-o", "OUT", "--sweep", "word_bits=12..14"], "--sweep goes with a single plan"),
    (["-o", "/dev/null"], "is not a plan fleet results folder"),
    (["-o", "NOFOLDER/x.parquet"], "no folder"),
    (["-o", "OUT", "--workers", "1", "--scheduler", "tcp://127.0.0.1:1"], "exclude each other"),
])
def test_bad_fleets_are_one_line_exit_2_and_write_nothing(cli, folder, args, fragment):
    args = [str(folder / "OUT") if a == "OUT" else str(folder / a) if a.startswith("NOFOLDER") else a for a in args]
    before = sorted(p.name for p in folder.iterdir())
    one_line_exit_2(cli("plan", folder / "small.yaml", *args), fragment)
    assert sorted(p.name for p in folder.iterdir()) == before


def test_several_deployments_without_an_output_are_refused(cli, folder):
    one_line_exit_2(cli("plan", folder / "small.yaml", folder / "keyed.yaml"), "give -o")


def test_two_deployments_of_one_name_are_refused(folder):
    (folder / "b").mkdir()
    (folder / "b" / "small.yaml").write_text(SMALL)
    with pytest.raises(Exception, match="two deployments named 'small'"):
        fleet_deployments([folder / "small.yaml", folder / "b"])


def test_killed_command_then_resumed_loses_and_repeats_no_row(folder):
    """SIGKILL the command once two rows are journalled; --resume completes the table of an uninterrupted run."""
    import os
    import signal
    import subprocess
    import sys
    import time

    cmd = [sys.executable, "-c", "from itsa_cli import main; main()", "plan", str(folder / "small.yaml"),
           "--grid", "word_bits=12..16", "--workers", "0", "--json", "-o"]
    full = subprocess.run([*cmd, str(folder / "full.parquet")], capture_output=True, text=True, timeout=600)
    assert full.returncode == 0, full.stderr
    out = folder / "cut.parquet"
    proc = subprocess.Popen([*cmd, str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    journal, deadline = out / "_journal.jsonl", time.monotonic() + 600
    while proc.poll() is None and time.monotonic() < deadline:
        if journal.exists() and journal.read_text().count("\n") >= 2:
            os.kill(proc.pid, signal.SIGKILL)
            break
        time.sleep(0.05)
    proc.wait()
    kept = len(read_fleet(out))
    assert 2 <= kept < 5, "the command finished before it could be killed"
    res = subprocess.run([*cmd, str(out), "--resume"], capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["skipped"] == kept
    rows = read_fleet(out)
    assert len(rows) == len({r["key"] for r in rows}) == 5
    assert stable(rows) == stable(read_fleet(folder / "full.parquet"))
