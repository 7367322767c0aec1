"""``itsa privacy release`` and the files it reads and writes: a FIFO, a device or a name too long for the
file system is one line and exit 2 at once; nothing that is not a regular file is read or replaced."""

import json
import os
import stat

import pytest

from tests.test_files import LONG, char_device, fifo, no_hang

UPDATES = [[0.5, -0.25], [0.125, 0.75], [-0.5, 0.5]]


@pytest.fixture
def csv(tmp_path):
    path = tmp_path / "u.csv"
    path.write_text("x0,x1\n" + "\n".join(",".join(map(str, row)) for row in UPDATES) + "\n")
    return path


def one_line(res, *words):
    assert res.exit_code == 2, res.output
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("error: "), res.stderr
    assert "Traceback" not in res.output and res.stdout == ""
    for word in words:
        assert word in res.stderr, res.stderr


@pytest.mark.parametrize("where", ["updates", "--seed-file", "--verify", "--published"])
def test_a_fifo_input_ends_in_one_line_at_once(cli, tmp_path, csv, where):
    pipe, record = fifo(tmp_path), tmp_path / "r.json"
    if where == "--published":      # the record is read first: a real one
        assert cli("privacy", "release", csv, "--epsilon", "1", "--seed", "7", "--record", record).exit_code == 0
    args = {"updates": [pipe, "--epsilon", "1"], "--seed-file": [csv, "--epsilon", "1", "--seed-file", pipe],
            "--verify": ["--verify", pipe], "--published": ["--verify", record, "--published", pipe]}[where]
    with no_hang():
        res = cli("privacy", "release", *args, "--time-limit", "5")
    one_line(res, "FIFO")


def test_a_device_as_the_record_is_refused_and_kept(cli, tmp_path, csv):
    node = char_device(tmp_path)
    res = cli("privacy", "release", csv, "--epsilon", "1", "--record", node)
    one_line(res, "--record")
    assert stat.S_ISCHR(os.lstat(node).st_mode)


@pytest.mark.parametrize("option", ["--record", "--seed-file", "--verify"])
def test_a_name_too_long_is_one_line(cli, tmp_path, csv, option):
    res = cli("privacy", "release", *([] if option == "--verify" else [csv, "--epsilon", "1"]), option,
              tmp_path / LONG)
    one_line(res, "too long")


def test_the_record_is_still_written(cli, tmp_path, csv):
    record = tmp_path / "r.json"
    res = cli("privacy", "release", csv, "--epsilon", "1", "--seed", "7", "--record", record, "--json")
    assert res.exit_code == 0, res.stderr
    assert json.loads(record.read_text())["secret"] is True and sorted(os.listdir(tmp_path)) == ["r.json", "u.csv"]
