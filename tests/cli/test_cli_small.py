"""The small things a user trips on: help texts, an empty path, the U = 2 warning in every
verb that computes, the build's field-size line, a huge census count, the enumeration
refusal that names the rank engine."""

import re

import pytest

from tests.conftest import INSTANCES


def test_help_names_every_exit_code_and_every_option(cli):
    top = " ".join(cli("--help").stdout.split())
    assert "exit 2 for bad input, 1 for a failed check or a missing optional part" in top
    assert "Seed of the scheme constructions" in " ".join(cli("solve", "--help").stdout.split())
    verify = " ".join(cli("verify", "--help").stdout.split())
    assert "rank: exact ranks over F_q" in verify and "enumerate: every key and input value" in verify


def test_an_empty_path_is_named_as_such(cli):
    res = cli("analyze", "")
    assert res.exit_code == 2
    assert res.stderr.strip() == ("error: the path is empty: give a file, or the name of a shipped example "
                                  "(itsa examples)")


@pytest.mark.parametrize("verb", ["analyze", "solve", "converse"])
def test_two_servers_are_flagged_by_every_verb_that_computes(cli, tmp_path, verb):
    path = tmp_path / "two.yaml"
    path.write_text("name: two\nservers: [2, 2]\nsecurity_sets: [all]\ncollusion_sets: [[]]\n")
    res = cli(verb, path, *(["-o", tmp_path / "out"] if verb == "solve" else []))
    assert res.exit_code == 0, res.output
    assert "warning: U = 2 < 3: the paper assumes at least three servers" in res.stderr


def test_build_says_when_the_paper_gives_no_field_size(cli):
    res = cli("build", "example-2")
    assert res.exit_code == 0
    text = " ".join(res.stdout.split())
    assert "none printed" not in text
    assert "Schwartz-Zippel field size none (the paper gives no field size for this construction)" in text


def test_a_huge_exhaustive_universe_is_refused_with_its_order_of_magnitude():
    from itsa.keys.census import InvalidSpec, parse_spec

    with pytest.raises(InvalidSpec) as err:
        parse_spec({"universe": {"exhaustive": {"U": 6, "K": 12, "M": 6, "N": 6}}})
    assert re.search(r"more than 10\^\d+ candidate instances", str(err.value))
    assert not re.search(r"\d{16}", str(err.value))                  # no 117-digit count


def test_enumeration_refusal_names_the_rank_engine(cli):
    res = cli("verify", "example-1", "--scheme", INSTANCES / "example-1.scheme.json", "--engine", "enumerate")
    assert res.exit_code == 2
    assert "the rank engine decides this scheme exactly" in res.stderr
    assert cli("verify", "example-1", "--scheme", INSTANCES / "example-1.scheme.json",
               "--engine", "rank").exit_code == 0
