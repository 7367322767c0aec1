"""A fleet's results folder is checked before it is read, and a resume never mixes plans: a spoiled part or
journal line, a metadata file that is not JSON and an edited deployment are each refused in one line (exit 2)
with nothing written."""

import os
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from itsa.exceptions import InvalidOption
from itsa.planning.drivers.fleet import FLEET_LAYOUT, read_fleet
from tests.cli.test_cli_census import one_line_exit_2

FAST = "clients: 100\ndimension: 64\nclip: 1\nnoise: {sigma: 30}\nprivacy: {rounds: 10}\nencoding: {word_bits: 20}\n"


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished fleet of two plans and its deployment file."""
    from click.testing import CliRunner

    from itsa_cli import main

    folder = tmp_path_factory.mktemp("fleet")
    (folder / "small.yaml").write_text(FAST)
    res = CliRunner().invoke(main, ["plan", str(folder / "small.yaml"), "--grid", "epsilon=2,4",
                                    "-o", str(folder / "done.parquet"), "--workers", "0"])
    assert res.exit_code == 0, res.output
    return folder


def _copy(finished, tmp_path):
    (tmp_path / "small.yaml").write_text(FAST)
    out = tmp_path / "r.parquet"
    shutil.copytree(finished / "done.parquet", out)
    return out


def _part(out):
    return next(out.glob("part-*.parquet"))


def _garbage(part):
    part.write_text("garbage")


def _empty(part):
    part.write_bytes(b"")


def _fifo(part):
    part.unlink()
    os.mkfifo(part)


def _dev_zero(part):
    part.unlink()
    part.symlink_to("/dev/zero")


def _no_key(part):
    pq.write_table(pa.table({"x": [1, 2]}), part)


def _integer_keys(part):
    pq.write_table(pa.table({"key": [1, 2]}), part)


def _wrong_type(part):
    pq.write_table(pa.table({"key": ["a"], "deployment": ["a"], "status": ["ok"], "word": ["x"]}), part)


SPOILED_PARTS = {"garbage": (_garbage, "not a Parquet part"), "empty": (_empty, "not a Parquet part"),
                 "fifo": (_fifo, "not a regular file"), "dev-zero": (_dev_zero, "not a regular file"),
                 "no-key": (_no_key, "'key' column is missing"), "integer-keys": (_integer_keys, "int64, not text"),
                 "wrong-type": (_wrong_type, "not a int64 value")}
BAD_LINES = {"a list": ("[1, 2]\n", "not a row"), "no key": ('{"x": 1}\n', "not a row"),
             "integer key": ('{"key": 7}\n', "not a row"),
             "no deployment": ('{"key": "small|epsilon=8", "status": "ok"}\n', "no text 'deployment'"),
             "unknown column": ('{"key": "k", "deployment": "d", "status": "ok", "zz": 1}\n', "no column"),
             "a bad line before a good one": ('zz\n{"key": "k"}\n', "line 1 is not a JSON row"),
             "int64 overflow": ('{"key": "k", "deployment": "d", "status": "ok", "word": ' + str(2**64) + '}\n',
                                "not a int64 value"),
             "float overflow": ('{"key": "k", "deployment": "d", "status": "ok", "time": ' + "9" * 400 + '}\n',
                                "not a float64 value"),
             "an integer past the interpreter's digits": ('{"key": "k", "word": ' + "7" * 5000 + '}\n{"key": "k"}\n',
                                                          "line 1 is not a JSON row"),
             "a lone surrogate": ('{"key": "\\ud800", "deployment": "d", "status": "ok"}\n{"key": "k"}\n',
                                  "line 1 is not a JSON row")}


def _resume(cli, out, grid="epsilon=2,4"):
    return cli("plan", out.parent / "small.yaml", "--grid", grid, "-o", out, "--workers", "0", "--resume")


def _snapshot(out):
    return {p.name: (p.lstat().st_mtime_ns, p.lstat().st_size) for p in out.iterdir()}


@pytest.mark.parametrize("case", sorted(SPOILED_PARTS))
def test_a_spoiled_part_is_refused_before_anything_is_written(cli, finished, tmp_path, case):
    out = _copy(finished, tmp_path)
    spoil, says = SPOILED_PARTS[case]
    spoil(_part(out))
    before = _snapshot(out)
    one_line_exit_2(_resume(cli, out), says)
    assert _snapshot(out) == before
    with pytest.raises(InvalidOption, match="not a"):
        read_fleet(out)


@pytest.mark.parametrize("case", sorted(BAD_LINES))
def test_a_bad_journal_line_is_refused(cli, finished, tmp_path, case):
    out = _copy(finished, tmp_path)
    text, says = BAD_LINES[case]
    (out / "_journal.jsonl").write_text(text)
    before = _snapshot(out)
    one_line_exit_2(_resume(cli, out), says)
    assert _snapshot(out) == before


def test_a_last_journal_line_cut_by_a_kill_is_left_out(finished, tmp_path):
    out = _copy(finished, tmp_path)
    (out / "_journal.jsonl").write_text('{"key": "small|epsilon=8", "deploy')
    assert [r["key"] for r in read_fleet(out)] == ["small|epsilon=2", "small|epsilon=4"]


@pytest.mark.parametrize("text", ["not json", "[1, 2]", ""])
def test_a_metadata_file_that_is_not_a_json_object_is_refused_not_skipped(cli, finished, tmp_path, text):
    """Before, an unreadable _fleet.json turned the same-grid check off: a resume with another grid mixed plans."""
    out = _copy(finished, tmp_path)
    (out / FLEET_LAYOUT.meta).write_text(text)
    one_line_exit_2(_resume(cli, out, grid="epsilon=2,4,8"), "not the JSON object")


def test_a_resume_after_the_deployment_was_edited_is_refused(cli, finished, tmp_path):
    out = _copy(finished, tmp_path)
    (tmp_path / "small.yaml").write_text(FAST.replace("sigma: 30", "sigma: 31"))
    before = _snapshot(out)
    one_line_exit_2(_resume(cli, out), "has changed since its rows were planned")
    assert _snapshot(out) == before
    (tmp_path / "small.yaml").write_text(FAST)                      # restored: the resume goes on
    res = _resume(cli, out, grid="epsilon=2,4")
    assert res.exit_code == 0 and "2 already done" in res.stdout, res.output


@pytest.mark.parametrize("contents", [{}, {"other": "0" * 64}])
def test_rows_of_a_deployment_whose_hash_is_not_recorded_are_not_resumed(cli, finished, tmp_path, contents):
    """An attacker's case: the hashes emptied (or the deployment's dropped), then its file edited: the rows cannot
    be checked against the file, so the resume is refused, not finished with the stale rows."""
    import json

    out = _copy(finished, tmp_path)
    meta = json.loads((out / "_fleet.json").read_text())
    (out / "_fleet.json").write_text(json.dumps({**meta, "contents": contents}))
    (tmp_path / "small.yaml").write_text(FAST.replace("sigma: 30", "sigma: 31"))
    before = _snapshot(out)
    one_line_exit_2(_resume(cli, out), "no record of the file's text")
    assert _snapshot(out) == before


def test_a_deployment_left_out_of_a_resume_stays_checked(cli, finished, tmp_path):
    """Its hash is kept when another run resumes the folder without it: editing it later is still caught."""
    out = _copy(finished, tmp_path)
    (tmp_path / "other.yaml").write_text(FAST.replace("clients: 100", "clients: 120"))
    res = cli("plan", tmp_path / "other.yaml", "--grid", "epsilon=2,4", "-o", out, "--workers", "0", "--resume")
    assert res.exit_code == 0, res.output
    (tmp_path / "small.yaml").write_text(FAST.replace("sigma: 30", "sigma: 29"))
    one_line_exit_2(_resume(cli, out), "'small' has changed")


def test_a_table_without_the_deployments_hashes_is_not_resumed(cli, finished, tmp_path):
    import json

    out = _copy(finished, tmp_path)
    meta = json.loads((out / FLEET_LAYOUT.meta).read_text())
    del meta["contents"]
    (out / FLEET_LAYOUT.meta).write_text(json.dumps(meta))
    one_line_exit_2(_resume(cli, out), "keeps no record of its contents")


@pytest.mark.parametrize("spoil", ["_garbage", "_fifo"])
def test_a_census_report_on_a_spoiled_folder_is_one_line(cli, tmp_path, spoil):
    spec = tmp_path / "spec.yaml"
    spec.write_text("universe:\n  grid: {U: 3, V: 1}\nwork: analyze\n")
    out = tmp_path / "c.parquet"
    assert cli("census", "run", spec, "-o", out, "--workers", "0").exit_code == 0
    globals()[spoil](_part(out))
    one_line_exit_2(cli("census", "report", out, "-o", tmp_path / "report"), "c.parquet")


def test_a_part_not_named_as_a_part_is_refused(cli, finished, tmp_path):
    """Its number could not be read for the next part (a ValueError before)."""
    out = _copy(finished, tmp_path)
    shutil.copy(_part(out), out / "part-zz.parquet")
    one_line_exit_2(_resume(cli, out), "a part is named part-NNNNNN.parquet")


@pytest.mark.parametrize("drop", ["grid", "seed", "time_limit"])
def test_a_metadata_file_missing_a_record_is_refused(cli, finished, tmp_path, drop):
    import json

    out = _copy(finished, tmp_path)
    meta = json.loads((out / FLEET_LAYOUT.meta).read_text())
    del meta[drop]
    (out / FLEET_LAYOUT.meta).write_text(json.dumps(meta))
    one_line_exit_2(_resume(cli, out, grid="epsilon=2,4,8"), f"keeps no record of its {drop}")


def test_an_empty_json_object_does_not_turn_the_checks_off(cli, finished, tmp_path):
    out = _copy(finished, tmp_path)
    (out / FLEET_LAYOUT.meta).write_text("{}")
    one_line_exit_2(_resume(cli, out, grid="epsilon=2,4,8"), "keeps no record")
