"""itsa secagg: the published example, JSON with degree and threshold at its top, one-line errors."""

import json

import pytest

from tests.keys.secagg.test_finder import FEASIBLE


def test_the_published_example_as_json(cli):
    result = cli("secagg", "--clients", "10000", "--corrupt", "0.05", "--dropout", "0.05", "--json")
    assert result.exit_code == 0, result.output
    d = json.loads(result.stdout)
    assert (d["degree"], d["threshold"], d["agrees"]) == (34, 20, True)
    assert d["reproduction"] == {"degree": 34, "threshold": 20}


def test_a_semi_malicious_server_as_text(cli):
    result = cli("secagg", "-n", "1e4", "--corrupt", "1/20", "--dropout", "1/20", "--adversary", "semi-malicious",
                 "--dimension", "1000", "--payload-bits", "20")
    assert result.exit_code == 0, result.output
    assert "degree 62, threshold 44" in result.stdout and "upper bound" in result.stdout
    assert "2,500 bytes" in result.stdout


@pytest.mark.parametrize("args", [
    ["--clients", "1000", "--corrupt", "0.5", "--dropout", "0.5"],
    ["--clients", "1000", "--corrupt", "x", "--dropout", "0.05"],
    ["--clients", "0", "--corrupt", "0", "--dropout", "0"],
    ["--clients", "100", "--corrupt", "0.05", "--dropout", "0.05", "--adversary", "evil"],
])
def test_bad_input_is_one_line_and_exit_2(cli, args):
    result = cli("secagg", *args)
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ")


def _row_through_the_verb(cli, n, gamma, delta, adversary, degree, threshold):
    result = cli("secagg", "--clients", n, "--corrupt", gamma, "--dropout", delta, "--adversary", adversary, "--json")
    assert result.exit_code == 0, result.output
    d = json.loads(result.stdout)
    assert d["reproduction"] == {"degree": degree, "threshold": threshold}
    if d["agrees"]:
        assert (d["degree"], d["threshold"]) == (degree, threshold)
    else:       # the finder's threshold raised to 2 after its correctness test: its own bound missed
        assert n == 10 and threshold == 2 and d["bounds"]["meets_targets"]


FAST = [row for row in FEASIBLE if row[0] <= 1000]


@pytest.mark.parametrize("row", FAST, ids=lambda r: "-".join(map(str, r[:4])))
def test_every_published_row_through_the_verb(cli, row):
    _row_through_the_verb(cli, *row)


@pytest.mark.slow
@pytest.mark.parametrize("row", [row for row in FEASIBLE if row not in FAST], ids=lambda r: "-".join(map(str, r[:4])))
def test_every_larger_published_row_through_the_verb(cli, row):
    _row_through_the_verb(cli, *row)
