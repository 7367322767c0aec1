"""Fuzz every option of every ``itsa privacy`` verb: exit 0 or 2, and 2 is one line.

Each verb starts from a valid command line; hypothesis replaces some of its
options (and adds others) with hostile texts (exponents past every limit,
nan, inf, negatives, blanks, lists) or plausible ones, and toggles the flags.
"""

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import itsa.privacy.accounting
from itsa.testing.hostile import check_refusal, privacy_numbers
from itsa_cli import main as cli

HOSTILE = st.sampled_from(privacy_numbers())


@pytest.fixture(autouse=True, scope="module")
def no_pld_grid():
    """--crosscheck is fuzzed with dp-accounting's RDP only: its PLD grid takes seconds per example."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(itsa.privacy.accounting, "MAX_PLD_MU", 0)
        yield


def values(*plausible: str):
    """A hostile number text, or one of ``plausible``."""
    return HOSTILE | st.sampled_from(plausible)


#: Per verb: the valid start, each option with the values tried, the flags, and how many examples.
VERBS = {
    "account": (["--noise-multiplier", "1"], {
        "--noise-multiplier": values("0.5", "1e-7", "4.8448"),
        "--rounds": values("1", "30", "1000000"),
        "--delta": values("1e-5", "1e-12", "0.5"),
        "--epsilon-per-round": values("1", "50", "1e-3"),
        "--per-round": st.sampled_from(["tight", "classical", "", "TIGHT", "nan"]),
        "--delta-slack": values("1e-5", "0.5"),
    }, ["--json", "--crosscheck"], 40),
    "calibrate": (["--epsilon", "2", "--quiet"], {
        "--epsilon": values("1", "0.1", "1e50"),
        "--delta": values("1e-5", "1e-12"),
        "--rounds": values("1", "4", "1000"),
        "--conversion": st.sampled_from(["cks", "mironov", "", "tight"]),
    }, ["--json"], 20),
    "noise": (["--sigma", "3", "--count", "5", "--seed", "s"], {
        "--sigma": values("3", "1/3", "14924", "1e-150"),
        "--count": values("0", "5", "10000000"),
        "--seed": st.sampled_from(["", "s", "é", "-1", "1e400"]),
        "--engine": st.sampled_from(["exact", "table", "", "nan"]),
        "--verify": values("0" * 63, "x" * 64),      # a well-formed mismatch exits 1: test_cli has it
        "--show": values("0", "3"),
        "--time-limit": values("0", "1", "1e-9"),
    }, ["--json", "--quiet"], 40),
    "sensitivity": (["-d", "2", "--clients", "5"], {
        "--max-weight": values("6/256", "13/64", "1"),
        "--alpha": values("256", "1", "4096"),
        "--clip": values("1", "0.45"),
        "--dimension": values("2", "24706"),
        "--gamma": values("256", "4096"),
        "--clients": values("5", "50", "1000000000"),
        "--epsilon": values("1", "10", "50"),
        "--delta": values("1e-5", "1e-12"),
    }, ["--json"], 40),
}


def command(draw, verb: str) -> list[str]:
    start, options, flags, _ = VERBS[verb]
    chosen = draw(st.dictionaries(st.sampled_from(sorted(options)), st.none(), min_size=1, max_size=3))
    args = list(start)
    for name in chosen:
        value = draw(options[name])
        if name in args:                    # replace the start's value of that option
            args[args.index(name) + 1] = value
        else:
            args += [name, value]
    return ["privacy", verb, *args, *draw(st.lists(st.sampled_from(flags), unique=True))]


def check(args: list[str]) -> None:
    check_refusal(CliRunner().invoke(cli, args), args)


def fuzz(verb: str):
    @settings(max_examples=VERBS[verb][3], deadline=None, derandomize=True)
    @given(st.data())
    def run(data):
        check(command(data.draw, verb))
    run.__name__ = f"test_fuzz_{verb}"
    return run


test_fuzz_account = fuzz("account")
test_fuzz_calibrate = fuzz("calibrate")
test_fuzz_noise = fuzz("noise")
test_fuzz_sensitivity = fuzz("sensitivity")


@settings(max_examples=40, deadline=None, derandomize=True)
@given(alpha=values("256", "1", "4"), weights=st.lists(values("1", "31", "1/3", "0"), max_size=5),
       as_json=st.booleans())
def test_fuzz_weights(alpha, weights, as_json):
    check(["privacy", "weights", "--alpha", alpha, *weights, *(["--json"] if as_json else [])])


#: ``release``'s options (the verb starts from a file of three clients, written per test).
RELEASE = {
    "--alpha": values("256", "1", "4"),
    "--gamma": values("256", "1", "4"),
    "--clip": values("1", "0.45", "1e-9"),
    "--epsilon": values("1", "10", "1e-3"),
    "--noise-multiplier": values("1", "50"),
    "--delta": values("1e-5", "0.5"),
    "--weights": st.sampled_from(["1,2,3", "1", "1,2", "0,0,0", "-1,2,3", "nan,1,1", "", "1/3,1,1"]),
    "--seed": st.sampled_from(["", "s", "é", "-1"]),
    "--engine": st.sampled_from(["exact", "table", "", "nan"]),
    "--conversion": st.sampled_from(["cks", "mironov", "", "tight"]),
    "--time-limit": values("0", "1", "1e-9"),
}


@settings(max_examples=60, deadline=None, derandomize=True)
@given(data=st.data())
def test_fuzz_release(data, tmp_path_factory):
    folder = tmp_path_factory.mktemp("release-fuzz")
    updates = folder / "updates.csv"
    updates.write_text("a,b\n0.3,0.4\n0.1,0.2\n0.5,-0.2\n")
    chosen = data.draw(st.dictionaries(st.sampled_from(sorted(RELEASE)), st.none(), min_size=1, max_size=3))
    args = ["privacy", "release", str(updates), "--quiet", "--record", str(folder / "record.json")]
    if "--noise-multiplier" not in chosen:
        args += ["--epsilon", "1"]
    for name in chosen:
        args += [name, data.draw(RELEASE[name])]
    check(args + data.draw(st.lists(st.sampled_from(["--json", "--no-noise"]), unique=True)))
    if not (folder / "record.json").exists():                 # refused: nothing half-written either
        assert list(folder.iterdir()) == [updates]
