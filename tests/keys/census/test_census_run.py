"""Census runs: the table against the library run serially, faults as rows, kill and resume."""

import json
import os
import signal
import subprocess
import sys
import time
from fractions import Fraction

import pytest
import yaml

import itsa
from itsa.keys.census import InvalidSpec, load_spec, parse_spec, read_results, read_rows, run_census, run_one
from itsa.keys.census.store import JOURNAL
from itsa.keys.census.work import hard_limit
from tests.conftest import INSTANCES, ROOT, held_census

VOLATILE = {"time", "timings"}


def stable(rows):
    return [{k: v for k, v in r.items() if k not in VOLATILE} for r in rows]


def tiny_spec(work="search", **extra):
    return parse_spec({"universe": {"exhaustive": {"U": 3, "K": 3, "M": 1, "N": 1}}, "work": work, **extra})


@pytest.fixture(scope="module")
def client():
    """Two workers, threads of this process: LocalCluster startup in processes is slower;
    the worker-process path is exercised by the CLI test in test_cli_census.py."""
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as cl, \
            Client(cl) as c:
        yield c


def test_local_cluster_matches_serial_library(client, tmp_path):
    spec = tiny_spec()
    seen = []
    run = run_census(spec, tmp_path / "r.parquet", client=client, progress=seen.append)
    assert [p.done for p in seen] == sorted(p.done for p in seen) and seen[-1].done == seen[-1].total == 20
    assert all(p.running <= 2 for p in seen) and seen[-1].running == 0
    rows = read_rows(tmp_path / "r.parquet")
    assert run.progress.done == len(rows) == 20 and run.workers == 2
    for r in rows:
        inst = itsa.parse_instance(yaml.safe_load(r["instance"]))
        lower = itsa.corrected_lower_bound(inst).value
        found = itsa.search_min_rate(inst, field=31, seed=0)
        a = itsa.analyze(inst)
        assert r["status"] == "ok" and r["error"] is None
        assert (r["U"], r["K"], r["M"], r["N"]) == (inst.U, inst.K, inst.M, inst.N)
        assert r["regime"] == a.regime and r["e_star"] == a.e_star
        assert Fraction(r["lower"]) == lower and r["lower_class"] == "corrected"
        assert Fraction(r["lower_printed"]) == a.key_rate_lower_printed.value
        assert Fraction(r["upper"]) == found.rate
        assert r["verdict"] == ("optimal" if lower == found.rate else "open")
        assert r["printed_beaten"] == (found.rate < a.key_rate_lower_printed.value)
    # and the same as the serial loop over run_one
    serial = run_census(spec, tmp_path / "s.parquet", workers=0)
    assert serial.progress.done == 20
    assert stable(read_rows(tmp_path / "s.parquet")) == stable(rows)


def test_golden_rows():
    """Values from docs/audit.md and the published homogeneous optimum min{U+V+t-2, UV-1}."""
    r = run_one((INSTANCES / "homogeneous-U3-V2-t1.yaml").read_text(), "search", None, 0)
    assert (r["lower_printed"], r["lower"], r["upper"], r["verdict"]) == ("5", "4", "4", "optimal")
    assert r["printed_beaten"] and (r["homogeneous_V"], r["homogeneous_t"]) == (2, 1)
    r = run_one((INSTANCES / "audit" / "fractional-optimum.yaml").read_text(), "search", None, 0)
    assert (r["lower"], r["upper"], r["upper_L"], r["gap"], r["verdict"]) == ("1", "3/2", 2, "1/2", "open")
    r = run_one((INSTANCES / "example-2.yaml").read_text(), "corrected", None, 0)
    assert (r["lower_printed"], r["lower"], r["upper_claimed"], r["upper"]) == ("2", "3", "7/2", None)
    r = run_one((INSTANCES / "example-1.yaml").read_text(), "analyze", None, 0)
    assert (r["regime"], r["e_star"], r["a_star"], r["lower"], r["verdict"]) == ("condition-2", 2, 2, None, "open")
    assert json.loads(r["S_bar"]) == [[1, 1], [1, 3], [2, 1]]


def test_failed_and_timeout_rows(tmp_path):
    folder = tmp_path / "inst"
    folder.mkdir()
    (folder / "a-good.yaml").write_text((INSTANCES / "example-1.yaml").read_text())
    (folder / "b-bad.yaml").write_text("servers: [1, 1, 1]\nsecurity_sets: [[[9, 9]]]\ncollusion_sets: [[]]\n")
    (folder / "c-big.yaml").write_text("servers: [40, 1, 1]\nsecurity_sets: [all]\ncollusion_sets: [[]]\n")
    spec = parse_spec({"universe": {"files": "inst"}, "work": "search"}, base=str(tmp_path))
    seen = []
    run = run_census(spec, tmp_path / "r.parquet", workers=0, progress=seen.append)
    assert (run.progress.total, run.progress.done, run.progress.failed) == (3, 3, 2)
    assert [p.done for p in seen if p.running == 0] == [0, 1, 2, 3]
    rows = {r["name"]: r for r in read_rows(tmp_path / "r.parquet")}
    assert rows["example-1"]["status"] == "ok"
    bad, big = rows["b-bad"], rows["c-big"]
    assert bad["status"] == "failed" and "user [9, 9] is outside the topology" in bad["error"]
    assert bad["key"].startswith("invalid-") and bad["verdict"] == "open"
    assert big["status"] == "failed" and "search too large" in big["error"] and big["K"] == 42
    slow = run_one((INSTANCES / "example-2.yaml").read_text(), "search", 0.5, 0,
                   {"search": {"tries": 5000, "budget": 10**7}})
    # stopped by the guard at the hard limit that time_limit 0.5 sets, and the row says so
    assert slow["status"] == "timeout"
    assert slow["error"] == f"stopped after {hard_limit(0.5):.3g} s (time_limit 0.5 s)"


def test_interrupted_then_resumed_equals_uninterrupted(tmp_path):
    spec = tiny_spec("corrected")
    run_census(spec, tmp_path / "full.parquet", workers=0)

    def stop_after_7(p):
        if p.done == 7:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        run_census(spec, tmp_path / "cut.parquet", workers=0, progress=stop_after_7)
    assert len(read_rows(tmp_path / "cut.parquet")) == 7          # from the journal
    with pytest.raises(InvalidSpec, match="--resume"):
        run_census(spec, tmp_path / "cut.parquet", workers=0)
    again = run_census(spec, tmp_path / "cut.parquet", workers=0, resume=True)
    assert (again.progress.skipped, again.progress.done) == (7, 13)
    assert stable(read_rows(tmp_path / "cut.parquet")) == stable(read_rows(tmp_path / "full.parquet"))
    assert read_results(tmp_path / "cut.parquet").num_rows == 20


def test_killed_process_then_resumed(tmp_path):
    """SIGKILL the CLI in the middle of a run; --resume completes the same table."""
    spec_path = tmp_path / "spec.yaml"
    spec_path.write_text("universe:\n  exhaustive: {U: 3, K: 3, M: 1, N: 1}\nwork: search\n")
    itsa_bin = [sys.executable, "-c", "from itsa_cli import main; main()"]
    full = subprocess.run([*itsa_bin, "census", str(spec_path), "-o", str(tmp_path / "full.parquet"),
                           "--workers", "0"], capture_output=True, text=True)
    assert full.returncode == 0, full.stderr
    out = tmp_path / "cut.parquet"
    # killed when it reports its fifth finished row, held there so that work is left
    with held_census([spec_path, "-o", out, "--workers", 0], rows=5,
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) as (proc, done):
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate()
    kept = len(read_rows(out))
    assert kept == done and 5 <= kept < 20       # every reported row, and only those
    res = subprocess.run([*itsa_bin, "census", str(spec_path), "-o", str(out), "--workers", "0", "--resume",
                          "--json"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["skipped"] == kept
    assert stable(read_rows(out)) == stable(read_rows(tmp_path / "full.parquet"))


def test_journal_line_cut_by_a_kill_is_ignored(tmp_path):
    spec = tiny_spec("analyze")
    run_census(spec, tmp_path / "r.parquet", workers=0)
    rows = read_rows(tmp_path / "r.parquet")
    with open(tmp_path / "r.parquet" / JOURNAL, "w") as fh:
        fh.write('{"key": "3.3.1.1-abc", "na')
    assert stable(read_rows(tmp_path / "r.parquet")) == stable(rows)


def test_minimal_spec_from_docs(tmp_path):
    """The minimal spec (work: solve) reads as written; it runs once itsa.solve exists."""
    spec = load_spec(ROOT / "specs" / "minimal.yaml")
    assert (spec.universe, spec.work, spec.time_limit, len(spec.items())) == ("grid", "solve", 30.0, 8)
    run_census(spec, tmp_path / "r.parquet", workers=0)
    rows = read_rows(tmp_path / "r.parquet")
    assert all(r["status"] == "ok" and r["verdict"] in ("optimal", "open") for r in rows)
    for r in rows:
        if r["verdict"] == "optimal":
            U, V, t = r["U"], r["homogeneous_V"], r["homogeneous_t"]
            assert Fraction(r["lower"]) == min(U + V + t - 2, U * V - 1)


@pytest.mark.parametrize("data, message", [
    ([1, 2], "a spec is a mapping"),
    ({"universe": {"grid": {"U": 3}}}, "missing V"),
    ({"universe": {"everything": {}}}, "unknown universe 'everything'"),
    ({"universe": {"grid": {"U": 3, "V": 1}, "random": {"n": 1}}}, "exactly one"),
    ({"universe": {"grid": {"U": 3, "V": 1}}, "work": "dream"}, "work: unknown work 'dream' \\(choose from "),
    ({"universe": {"grid": {"U": 3, "V": 1}}, "time_limit": -1}, "time_limit"),
    ({"universe": {"grid": {"U": "x..y", "V": 1}}}, "not a range"),
    ({"universe": {"random": {"n": 3, "regimes": {"condition-1": 2}}}}, "sum to 1"),
    ({"universe": {"random": {"n": 3, "seed": "x"}}}, "seed"),
    ({"universe": {"exhaustive": {"U": 3, "K": 8, "M": 3, "N": 3}}}, "candidate instances"),
    ({"universe": {"files": "no-such-folder"}}, "not a folder"),
])
def test_bad_specs(data, message):
    with pytest.raises(InvalidSpec, match=message):
        parse_spec(data)


def test_random_universe_seeded_and_regime_mix():
    spec = parse_spec({"universe": {"random": {"n": 12, "regimes": {"condition-1": 0.5, "theorem-2": 0.5}}},
                       "seed": 3})
    a, b = spec.items(), spec.items()
    assert [i.key for i in a] == [i.key for i in b]
    regimes = [itsa.analyze(itsa.parse_instance(yaml.safe_load(i.text)), corrected=False).regime for i in a]
    assert sorted(regimes) == ["condition-1"] * 6 + ["theorem-2"] * 6
    other = parse_spec({"universe": {"random": {"n": 12}}, "seed": 4}).items()
    assert [i.key for i in other] != [i.key for i in a]


def _die():
    os.kill(os.getpid(), signal.SIGKILL)


def _sleep():
    time.sleep(30)
    return "ok", {}


def test_child_guard_records_death_and_timeout(monkeypatch):
    from itsa.keys.census.work import _in_child

    status, msg = _in_child(5, _die, ())
    assert status == "failed" and "died" in msg and "9" in msg
    children, fork = [], os.fork

    def recorded_fork():
        pid = fork()
        if pid:
            children.append(pid)
        return pid
    monkeypatch.setattr(os, "fork", recorded_fork)
    # a guard that waited for the child would get its ("ok", {}) after 30 s
    assert _in_child(0.3, _sleep, ()) == ("timeout", "stopped after 0.3 s")
    with pytest.raises(ProcessLookupError):       # killed and reaped, not left sleeping
        os.kill(children[0], 0)
    assert _in_child(5, lambda x: ("ok", {"x": x}), (3,)) == ("ok", {"x": 3})


def test_solve_work_maps_the_solution():
    """The ``solve`` work puts ``itsa.solve``'s verdict, ends and class on the row."""
    text = (INSTANCES / "audit" / "fractional-optimum.yaml").read_text()
    r = run_one(text, "solve", None, 7, {"field": 31})
    s = itsa.solve(itsa.parse_instance(yaml.safe_load(text)), seed=7, field=31)
    assert (r["status"], r["lower"], r["lower_class"], r["lower_certified"]) == \
        ("ok", str(s.lower.value), s.lower.scheme_class, True)
    assert (r["upper"], r["upper_L"], r["verdict"]) == ("3/2", 2, "optimal")
    assert "solve.converse-keys" in json.loads(r["timings"])
    assert r["lower_method"] == "keys" and json.loads(r["skipped"]) == {} and r["open_why"] is None


def test_random_families_hold_no_repeated_set_and_no_full_collusion():
    spec = parse_spec({"universe": {"random": {"n": 300, "max_users": 4}}, "seed": 0})
    for it in spec.items():
        inst = itsa.parse_instance(yaml.safe_load(it.text))
        assert len(set(inst.security_sets)) == inst.M and len(set(inst.collusion_sets)) == inst.N, it.source
        assert inst.full_mask not in inst.collusion_sets, it.source
    asked = parse_spec({"universe": {"random": {"n": 300, "max_users": 3, "full_collusion": True}}, "seed": 0})
    assert any(inst.full_mask in inst.collusion_sets
               for inst in (itsa.parse_instance(yaml.safe_load(i.text)) for i in asked.items()))


def test_saved_files_go_under_the_results_folder_and_rows_point_to_them(tmp_path):
    spec = parse_spec({"universe": {"grid": {"U": 3, "V": [1, 2], "t": 1}}, "work": "search", "save": True})
    for out in (tmp_path / "a.parquet", tmp_path / "b.parquet"):       # two runs never share files
        run_census(spec, out, workers=0)
        rows = read_rows(out)
        assert len(rows) == 2
        for r in rows:
            assert r["scheme_path"] == f"_saved/{r['key']}.scheme.json"
            assert (out / r["scheme_path"]).is_file()
    assert read_results(tmp_path / "a.parquet").num_rows == 2          # the folder still reads as a table


def test_a_census_with_saved_files_reads_as_one_table_in_pyarrow_and_pandas(tmp_path):
    """The saved schemes and proofs sit outside the Parquet scan (a folder starting with _)."""
    import pyarrow.parquet as pq

    pd = pytest.importorskip("pandas")          # in the test extra
    spec = parse_spec({"universe": {"grid": {"U": 3, "V": [1, 2], "t": 1}}, "work": "solve", "save": "files"})
    out = tmp_path / "r.parquet"
    run_census(spec, out, workers=0)
    table = pq.read_table(out)
    frame = pd.read_parquet(out)
    assert table.num_rows == len(frame) == 2
    assert sorted(table.column("key").to_pylist()) == sorted(frame["key"]) == [r["key"] for r in read_rows(out)]
    for _, r in frame.iterrows():                                      # every row points to its files
        assert r["scheme_path"].startswith("_files/") and (out / r["scheme_path"]).is_file()
        assert r["proof_path"].startswith("_files/") and (out / r["proof_path"]).is_file()


def test_solve_work_saves_scheme_and_proof(tmp_path):
    text = (INSTANCES / "homogeneous-U3-V2-t1.yaml").read_text()
    r = run_one(text, "solve", None, 0, {"field": 31, "save_dir": str(tmp_path / "s"), "root": str(tmp_path),
                                          "key": "k"})
    assert (r["scheme_path"], r["proof_path"]) == ("s/k.scheme.json", "s/k.proof.md")
    assert (tmp_path / "s" / "k.proof.md").read_text().strip() and (tmp_path / "s" / "k.scheme.json").is_file()


@pytest.mark.parametrize("save", ["/abs", "../out", ".", 3])
def test_save_outside_the_results_folder_is_refused(save):
    with pytest.raises(InvalidSpec, match="save"):
        parse_spec({"universe": {"grid": {"U": 3, "V": 1}}, "save": save})


def test_a_chunk_under_a_time_limit_forks_once_and_gives_run_ones_rows(monkeypatch):
    """run_chunk: the rows of run_one (wall times aside), an instance past its limit a timeout row in the
    middle of the chunk, the instances after it run in a new child; one fork per stretch, not per instance."""
    from itsa.keys.census.work import run_chunk

    fast = [(INSTANCES / name).read_text() for name in ("example-1.yaml", "homogeneous-U3-V2-t1.yaml")]
    slow = (INSTANCES / "example-2.yaml").read_text()
    heavy = {"search": {"tries": 5000, "budget": 10**7}}
    jobs = [(fast[0], {"key": "a"}), (fast[1], {"key": "b"}), (slow, {"key": "c", **heavy}), (fast[0], {"key": "d"})]
    alone = [run_one(text, "search", 0.5, 0, o) for text, o in jobs]
    forks, fork = [], os.fork

    def counted():
        pid = fork()
        if pid:
            forks.append(pid)
        return pid
    monkeypatch.setattr(os, "fork", counted)
    rows = run_chunk(jobs, "search", 0.5, 0)
    assert len(forks) == 2                      # one child for a, b, c (killed at c), one for d

    def same(r):
        return {k: v for k, v in r.items() if k not in ("time", "timings")}
    assert [same(r) for r in rows] == [same(r) for r in alone]
    assert [r["status"] for r in rows] == ["ok", "ok", "timeout", "ok"]
    assert rows[2]["error"] == f"stopped after {hard_limit(0.5):.3g} s (time_limit 0.5 s)"
    for pid in forks:
        with pytest.raises(ChildProcessError):  # every child reaped
            os.waitpid(pid, os.WNOHANG)
