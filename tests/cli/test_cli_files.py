"""Every verb that writes a file refuses, as its option is parsed, a place that is not a regular file (a FIFO
or a device made here, in a temporary folder) and leaves it as it was; a name too long is one line."""

import os
import stat

import pytest

from tests.test_files import LONG, char_device, fifo, no_hang

WRITERS = [("draw", ["example-1", "-o"], "out.png"), ("build", ["example-1", "-o"], "scheme.json"),
           ("converse", ["example-1", "--proof"], "proof.md"), ("plan", ["k1000", "--markdown"], "plan.md"),
           ("privacy", ["release", "u.csv", "--epsilon", "1", "--record"], "record.json")]


def one_line(res, *words):
    assert res.exit_code == 2, res.output
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("error: "), res.stderr
    assert "Traceback" not in res.output and res.stdout == ""
    for word in words:
        assert word in res.stderr, res.stderr


@pytest.mark.parametrize("verb, args, name", WRITERS)
def test_a_fifo_is_refused_and_kept(cli, tmp_path, verb, args, name):
    pipe = fifo(tmp_path, name)
    with no_hang(60):
        res = cli(verb, *args, pipe)
    one_line(res, "never overwritten" if verb == "privacy" else "FIFO")    # a record's name must be new
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)


@pytest.mark.parametrize("verb, args, name", WRITERS[:3])
def test_a_device_is_refused_and_kept(cli, tmp_path, verb, args, name):
    node = char_device(tmp_path, name)
    res = cli(verb, *args, node)
    one_line(res, "character device")
    assert stat.S_ISCHR(os.lstat(node).st_mode)


@pytest.mark.parametrize("verb, args, name", WRITERS)
def test_a_name_too_long_or_empty_is_one_line(cli, tmp_path, verb, args, name):
    one_line(cli(verb, *args, tmp_path / (LONG + name)), "too long")
    one_line(cli(verb, *args, ""), "empty")


def test_a_census_folder_whose_journal_is_a_fifo_is_refused(tmp_path):
    pytest.importorskip("pyarrow")
    from itsa.exceptions import InvalidOutputPath
    from itsa.keys.census.store import JOURNAL, META, ResultStore

    (tmp_path / META).write_text("{}")
    journal = fifo(tmp_path, JOURNAL)
    with no_hang(), pytest.raises(InvalidOutputPath, match="FIFO"):
        ResultStore(tmp_path, resume=True)
    assert stat.S_ISFIFO(os.lstat(journal).st_mode)


def test_a_fifo_in_a_census_universe_is_never_opened(tmp_path):
    pytest.importorskip("pyarrow")
    from itsa.keys.census import parse_spec
    from tests.conftest import INSTANCES

    folder = tmp_path / "inst"
    folder.mkdir()
    (folder / "a.yaml").write_text((INSTANCES / "example-1.yaml").read_text())
    fifo(folder, "b.yaml")
    spec = parse_spec({"universe": {"files": "inst"}, "work": "search"}, base=str(tmp_path))
    with no_hang():
        items = spec.items()
    assert [item.name for item in items] == ["example-1"]


PLAN_FILE = ("clients: 20\ndimension: 64\nclip: 1\nprivacy: {epsilon: 4, delta: 1e-6, rounds: 10}\n"
             "noise: distributed\nencoding: {word_bits: 32}\n")


@pytest.mark.parametrize("options", [["--markdown", "{in}"], ["--export", "flower", "--export-file", "{in}"],
                                     ["--markdown", "{dot}"], ["--sweep", "word_bits=30..32", "--figure", "{link}"]])
def test_an_output_that_is_the_deployment_is_refused_and_the_file_kept(cli, tmp_path, monkeypatch, options):
    src = tmp_path / "d.yaml"
    src.write_text(PLAN_FILE)
    (tmp_path / "d.pdf").symlink_to(src)                  # another name of the same file
    monkeypatch.chdir(tmp_path)
    names = {"{in}": str(src), "{dot}": "./d.yaml", "{link}": str(tmp_path / "d.pdf")}
    res = cli("plan", src, *[names.get(o, o) for o in options])
    one_line(res, "which is read")
    assert src.read_text() == PLAN_FILE


def test_two_outputs_that_are_one_file_are_refused_before_either_is_written(cli, tmp_path):
    src = tmp_path / "d.yaml"
    src.write_text(PLAN_FILE)
    out = tmp_path / "out.txt"
    one_line(cli("plan", src, "--export", "flower", "--export-file", out, "--markdown", out), "give each its own")
    assert not out.exists()


@pytest.mark.parametrize("verb, option", [("build", "-o"), ("converse", "--proof")])
def test_an_instance_is_never_overwritten_by_its_own_output(cli, tmp_path, verb, option):
    from itsa.keys.examples import resolve

    src = tmp_path / "example-1.yaml"
    text = resolve("example-1").read_text()
    src.write_text(text)
    one_line(cli(verb, src, option, src), "which is read")
    assert src.read_text() == text
