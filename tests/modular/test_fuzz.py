"""Fuzz: every option of every ``itsa modular`` verb, hostile or random, exits 0 or 2 with one line, never a traceback.

The values are :mod:`itsa.testing.hostile`'s (decimal exponents past Python's
4,300-digit limit, nan, inf, negatives, empty strings, mismatched lists) and
random ones drawn by hypothesis (numbers with huge and tiny exponents, short
texts, lists). Each verb's base command line keeps K small, so a value that
is accepted runs in a fraction of a second. A run that exits 0 with
``--json`` prints exactly one JSON object.
"""

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from itsa.testing.hostile import MODULAR_VERBS, check_refusal, modular_cases, modular_command, modular_values
from itsa_cli import main as itsa

_mantissas = st.sampled_from(["1", "9", "1.5", "-1", "0", "3/7"])
_exponents = st.one_of(st.integers(-10, 10), st.integers(-200_000, 200_000))
_scientific = st.builds(lambda m, e: f"{m}e{e}", _mantissas, _exponents)
_floats = st.floats(allow_nan=True, allow_infinity=True).map(repr)
_small = st.integers(-3, 40).map(str)
_lists = st.lists(st.one_of(_small, st.sampled_from(["1/3", "1/2", "0", "", "x", "1e-5000"])), max_size=5).map(",".join)
_texts = st.text(alphabet="0123456789-+.,/eE xn", max_size=12)


def _values(kind: str):
    hostile = st.sampled_from(modular_values(kind))
    random = {"number": st.one_of(_scientific, _floats, _texts), "int": st.one_of(_small, _scientific, _texts),
              "list": st.one_of(_lists, _texts), "choice": _texts}[kind]
    return st.one_of(hostile, random)


@st.composite
def _command(draw, verb: str):
    options = MODULAR_VERBS[verb][1]
    option = draw(st.sampled_from(sorted(options)))
    value = draw(_values(options[option]))
    return modular_command(verb, option, value, as_json=draw(st.booleans()))


def check(args: list[str]) -> None:
    check_refusal(CliRunner().invoke(itsa, args), args)


@pytest.mark.parametrize("verb", sorted(MODULAR_VERBS))
def test_every_option_of_every_verb_exits_0_or_2_with_one_line(verb):
    @settings(max_examples=60)
    @given(_command(verb))
    def run(args):
        check(args)

    run()


@pytest.mark.slow
def test_every_hostile_value_on_every_option():
    """The whole corpus, each hostile value on each option of each verb, with and without --json (minutes)."""
    for args in modular_cases():
        check(args)
        check(args + ["--json"])
