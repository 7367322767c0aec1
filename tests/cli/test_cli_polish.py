"""The command line's manners: every verb in the help, one-line errors, did-you-mean, extras."""

import pytest

from itsa_cli import _COMMANDS


def test_help_names_every_verb(cli):
    res = cli("--help")
    assert res.exit_code == 0
    head = res.stdout.split("Options:")[0]          # the description itself, not click's list
    for verb in _COMMANDS:
        assert verb in head, verb


@pytest.mark.parametrize("args, words", [
    (("analyze", "example-1", "--q-rule", "nope"), ["--q-rule", "'nope'", "itsa analyze --help"]),
    (("analyze",), ["Missing argument", "itsa analyze --help"]),
    (("nope",), ["No such command 'nope'", "itsa --help"]),
    (("build", "example-1", "--field", "x"), ["--field", "itsa build --help"]),
])
def test_usage_errors_are_one_line_exit_2(cli, args, words):
    res = cli(*args)
    assert res.exit_code == 2
    assert res.stdout == ""
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    for word in words:
        assert word in lines[0]


def test_help_still_exits_0(cli):
    res = cli("analyze", "--help")
    assert res.exit_code == 0 and res.stdout.startswith("Usage: itsa analyze")


@pytest.mark.parametrize("verb", ["analyze", "solve", "converse"])
def test_did_you_mean_a_shipped_example(cli, verb):
    res = cli(verb, "exmaple-1")
    assert res.exit_code == 2
    assert res.stderr.strip() == "error: exmaple-1: no such file; did you mean 'example-1'?"


def test_no_suggestion_for_a_name_far_from_every_example(cli):
    res = cli("analyze", "no-such-instance-at-all.yaml")
    assert res.exit_code == 2
    assert "no such file" in res.stderr and "did you mean" not in res.stderr


def test_examples_lists_instances_only(cli):
    res = cli("examples")
    assert res.exit_code == 0
    names = [line.split()[0] for line in res.stdout.splitlines()]
    assert "example-1" in names and "audit/fractional-optimum" in names
    assert not [n for n in names if n.startswith("census/")]


def test_a_census_spec_is_not_an_instance(cli):
    res = cli("analyze", "census/minimal")
    assert res.exit_code == 2


def test_census_finds_a_shipped_spec_by_name(cli, tmp_path):
    # A misspelt name: a did-you-mean before any work starts.
    res = cli("census", "minmal", "-o", tmp_path / "out")
    assert res.exit_code == 2
    assert res.stderr.strip() == "error: minmal: no such file; did you mean 'minimal'?"


def test_missing_extra_is_one_line(capsys):
    from itsa._util.extras import source_folder
    from itsa_cli._common import itsa_errors

    with pytest.raises(SystemExit) as exit_info:
        with itsa_errors():
            raise ModuleNotFoundError("No module named 'pyarrow'", name="pyarrow")
    assert exit_info.value.code == 1
    assert capsys.readouterr().err == (
        "error: pyarrow is not installed (the census results table (itsa census)): "
        f"pip install '.[census]' in {source_folder()} (itsa's source folder)\n")


def test_an_unrelated_missing_module_is_not_hidden():
    from itsa_cli._common import itsa_errors

    with pytest.raises(ModuleNotFoundError):
        with itsa_errors():
            raise ModuleNotFoundError("No module named 'nope'", name="nope")


def test_census_without_its_extra_is_one_line(tmp_path):
    import subprocess
    import sys

    from itsa._util.extras import source_folder

    code = ("import sys\n"
            "for m in ('pyarrow', 'dask', 'distributed'): sys.modules[m] = None\n"
            "from itsa_cli import main\n"
            f"main(['census', 'minimal', '-o', {str(tmp_path / 'out.parquet')!r}])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr == ("error: pyarrow is not installed (the census results table (itsa census)): "
                          f"pip install '.[census]' in {source_folder()} (itsa's source folder)\n")
    assert not (tmp_path / "out.parquet").exists()
