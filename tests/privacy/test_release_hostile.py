"""A second attacker's records, published files and updates: each FAILs or is refused in one line, never a traceback."""

import json
from fractions import Fraction

import numpy as np
import pytest

from itsa._util.deadline import Deadline
from itsa.exceptions import InvalidInput, InvalidOption, TimeLimitReached
from itsa.privacy.commitment import MAX_RECORD_BYTES
from itsa.privacy.hamilton import MAX_WEIGHT_BITS
from itsa.privacy.hamilton import weights as hamilton_weights
from itsa.privacy.record_check import check_record
from itsa.privacy.releasing import encode, release
from tests.guard import ends

UPDATES = np.array([[0.5, -0.25], [0.125, 0.75], [-0.5, 0.0]])
#: A thousand exact weights whose common denominator has about 100,000 bits (the release took 90 s).
LONG_WEIGHTS = [Fraction(1, 10**30 + 2 * k + 1) for k in range(1000)]


@pytest.fixture(scope="module")
def made():
    r = release(UPDATES, epsilon=1, engine="exact", ids=[1, 2, 3])
    assert check_record(r.record()).ok
    return r


def _fresh(made) -> dict:
    return json.loads(json.dumps(made.record()))


def one_line_exit_2(res) -> str:
    assert res.returncode == 2, (res.returncode, res.stdout, res.stderr)
    assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1, res.stderr
    return res.stderr


def fail_names(result, *words) -> str:
    assert not result.ok
    details = " ".join(f"{c.name}: {c.detail}" for c in result.checks if not c.ok)
    for word in words:
        assert word in details, details
    return details


# --- 1: numbers past Python's 4,300-digit limit, and JSON that is not JSON ---

HUGE = "9" * 5000
RAW_EDITS = {
    "a 5,000-digit whole number": lambda text: text.replace('"encoded_sum": [', f'"encoded_sum": [{HUGE}, ', 1),
    "NaN": lambda text: text.replace('"encoded_sum": [', '"encoded_sum": [NaN, ', 1),
    "Infinity": lambda text: text.replace('"encoded_sum": [', '"encoded_sum": [-Infinity, ', 1),
    "a key given twice": lambda text: text.replace('"secret": true,', '"secret": true, "secret": false,', 1),
    "nesting past the parser": lambda text: text.replace('"encoded_sum": [', '"encoded_sum": [' + "[" * 100_000, 1),
}


@pytest.mark.parametrize("edit", sorted(RAW_EDITS))
def test_a_record_that_is_not_strict_json_is_one_line_exit_2(tmp_path, made, itsa_privacy, edit):
    path = tmp_path / "r.json"
    path.write_text(RAW_EDITS[edit](json.dumps(made.record(), indent=1)))
    one_line_exit_2(itsa_privacy("release", "--verify", path, check=False))


@pytest.mark.parametrize("edit", sorted(RAW_EDITS))
def test_a_published_file_that_is_not_strict_json_is_one_line_exit_2(tmp_path, made, itsa_privacy, edit):
    record, published = tmp_path / "r.json", tmp_path / "p.json"
    record.write_text(json.dumps(made.record()))
    public = {"secret": True, "encoded_sum": [0], **made.to_dict()}     # room for each edit
    published.write_text(RAW_EDITS[edit](json.dumps(public)))
    one_line_exit_2(itsa_privacy("release", "--verify", record, "--published", published, check=False))


def test_a_record_past_the_size_limit_is_refused_before_it_is_read(tmp_path, itsa_privacy):
    path = tmp_path / "big.json"
    with path.open("wb") as fh:         # sparse: no time to write, all the time to parse
        fh.truncate(MAX_RECORD_BYTES + 1)
    with ends():
        message = one_line_exit_2(itsa_privacy("release", "--verify", path, check=False))
    assert f"{MAX_RECORD_BYTES:,}" in message


# --- 2 and 4: IDs, and every field, of the wrong JSON kind ---

@pytest.mark.parametrize("ids", [["1", 2, 3], [{"a": 1}, 2, 3], [[1], 2, 3], [1.0, 2.0, 3.0], [True, 2, 3],
                                 [1, 2, 2], "123", 7])
def test_ids_of_the_wrong_kind_fail_naming_inputs_ids(made, ids):
    record = _fresh(made)
    record["inputs"]["ids"] = ids
    fail_names(check_record(record), "inputs.ids")


def test_the_library_refuses_mixed_ids_in_one_line():
    with pytest.raises(InvalidOption, match="client ids"):
        release(UPDATES, epsilon=1, ids=["1", 2, 3])
    with pytest.raises(InvalidOption, match="client ids"):
        hamilton_weights([1, 1, 1], 256, [{"a": 1}, 2, 3])


def _set(path: str, value):
    def change(record):
        *parents, last = path.split(".")
        target = record
        for key in parents:
            target = target[key]
        target[last] = value(target[last]) if callable(value) else value
    return change


KIND_EDITS = {
    "public.private": _set("public.private", 1),
    "public.alpha": _set("public.alpha", 256.0),
    "public.clients": _set("public.clients", 3.0),
    "public.denominator": _set("public.denominator", float),
    "record.record_version": _set("record_version", 2.0),
    "record.secret": _set("secret", 1),
    "inputs.alpha": _set("inputs.alpha", 256.0),
    "inputs.no_noise": _set("inputs.no_noise", 0),
    "inputs.gamma": _set("inputs.gamma", True),
    "secret_values.encoded_sum": _set("secret_values.encoded_sum", lambda ys: [float(y) for y in ys]),
    "secret_values.noise_draws": _set("secret_values.noise_draws", lambda zs: [float(z) for z in zs]),
    "secret_values.integer_weights": _set("secret_values.integer_weights", lambda ws: [float(w) for w in ws]),
    "secret_values.salt": _set("secret_values.salt", str.upper),
}


@pytest.mark.parametrize("field", sorted(KIND_EDITS))
def test_a_value_of_another_json_kind_fails(made, field):
    record = _fresh(made)
    KIND_EDITS[field](record)
    result = check_record(record)
    fail_names(result)
    if field == "secret_values.salt":       # the salt's form, before anything is rebuilt from it
        assert result.failed == ("secret form",) and "lower-case" in result.checks[-1].detail


def test_an_upper_case_salt_is_refused_by_the_library():
    with pytest.raises(InvalidOption, match="lower-case"):
        release(UPDATES, epsilon=1, salt="AB" * 32)


# --- 4: the updates file's IDs and weights are the record's ---

def _with_columns(tmp_path, ids=(1, 2, 3), weights=None):
    path = tmp_path / "u.csv"
    head = "client," + ("weight," if weights else "") + "x,y"
    rows = [f"{i}," + (f"{w}," if weights else "") + ",".join(repr(float(x)) for x in row)
            for i, w, row in zip(ids, weights or [None] * 3, UPDATES)]
    path.write_text("\n".join([head, *rows]) + "\n")
    return path


@pytest.mark.parametrize(("field", "value"), [("ids", [1, 2, 4]), ("data_weights", ["1", "1", "2"])])
def test_record_inputs_edited_away_from_the_updates_file_fail(tmp_path, itsa_privacy, field, value):
    updates = _with_columns(tmp_path, weights=[1, 1, 1])
    record = tmp_path / "r.json"
    itsa_privacy("release", updates, "--epsilon", "1", "--engine", "exact", "--record", record)
    assert itsa_privacy("release", "--verify", record, updates).stdout.startswith("record check: PASS")
    edited = json.loads(record.read_text())
    edited["inputs"][field] = value
    bad = tmp_path / "edited.json"
    bad.write_text(json.dumps(edited))
    res = itsa_privacy("release", "--verify", bad, updates, check=False)
    assert res.returncode == 1 and "Traceback" not in res.stderr, res.stderr
    assert res.stdout.startswith("record check: FAIL") and f"inputs.{field}" in res.stdout, res.stdout


def test_a_record_with_ids_fails_against_a_file_without_them(tmp_path, itsa_privacy, updates_csv, made):
    record = tmp_path / "r.json"
    record.write_text(json.dumps(made.record()))
    res = itsa_privacy("release", "--verify", record, updates_csv(UPDATES), check=False)
    assert res.returncode == 1 and "inputs.ids" in res.stdout, res.stdout


def test_weights_given_twice_are_refused(tmp_path, itsa_privacy):
    res = itsa_privacy("release", _with_columns(tmp_path, weights=[1, 2, 3]), "--epsilon", "1", "--weights", "1,1,1",
                       check=False)
    assert "weight column" in one_line_exit_2(res)


# --- 3: inputs too long for exact arithmetic are refused up front; the clock is looked at in the loops ---

def test_long_fraction_weights_are_refused_up_front():
    with ends():
        with pytest.raises(InvalidOption, match=f"2\\^{MAX_WEIGHT_BITS}"):
            release(np.zeros((1000, 2)), LONG_WEIGHTS, epsilon=1, time_limit=5)
        with pytest.raises(InvalidOption, match="MAX_WEIGHT_BITS"):
            hamilton_weights([Fraction(1, 2**5000)], 256)


def test_long_fraction_weights_on_the_command_line_are_one_line(tmp_path, itsa_privacy):
    path = tmp_path / "w.csv"
    path.write_text("weight,x\n" + "".join(f"1/{w.denominator},0.5\n" for w in LONG_WEIGHTS))
    with ends():
        assert "MAX_WEIGHT_BITS" in one_line_exit_2(itsa_privacy("release", path, "--epsilon", "1", check=False))


def test_a_record_with_long_fraction_weights_fails_quickly(made):
    record = _fresh(made)
    record["inputs"]["ids"] = None
    record["inputs"]["data_weights"] = [f"1/{w.denominator}" for w in LONG_WEIGHTS]
    record["secret_values"]["integer_weights"] = [0] * len(LONG_WEIGHTS)
    with ends():
        fail_names(check_record(record, time_limit=5), "MAX_WEIGHT_BITS")


def test_the_long_loops_look_at_the_clock():
    with pytest.raises(TimeLimitReached):
        hamilton_weights([1] * 10, 256, deadline=Deadline.spent())
    with pytest.raises(TimeLimitReached):
        encode(np.zeros((3, 2)), 255, Deadline.spent())         # gamma not a power of 2: rationals, row by row


# --- 5: found on a second pass ---

def test_many_long_weight_texts_are_refused_before_they_are_read(made):
    """``1e-100000`` costs 40 ms to read and record: 200,000 of them were refused only after hours."""
    record = _fresh(made)
    record["inputs"].update(ids=None, data_weights=["1e-100000"] * 200_000)
    record["secret_values"]["integer_weights"] = [0] * 200_000
    with ends():
        fail_names(check_record(record), "inputs.data_weights", "MAX_WEIGHT_BITS")


def test_many_weights_stop_at_the_time_limit(made):
    record = _fresh(made)
    record["inputs"].update(ids=None, data_weights=["1"] * 400_000)
    record["secret_values"]["integer_weights"] = [0] * 400_000
    with ends():
        with pytest.raises(TimeLimitReached):
            check_record(record, time_limit=0.5)


def test_a_csv_of_too_many_lines_is_refused_while_it_is_read(tmp_path, monkeypatch):
    import itsa.privacy.updates as module

    monkeypatch.setattr(module, "MAX_ENTRIES", 100)
    path = tmp_path / "long.csv"
    path.write_text("x\n" + "\n" * 1000 + "0.5\n")          # blank lines: no entries, but lines to read
    with pytest.raises(InvalidInput, match="more than 100 entries"):
        module.load_updates(path)
    path.write_text("x,y\n" + "0.5,0.5\n" * 51)
    with pytest.raises(InvalidInput, match="more than 100 entries"):
        module.load_updates(path)


@pytest.mark.parametrize(("text", "message"), [("x\n1,2,3\n", "row 2 has 3 columns"), ("x,y\n1\n", "row 2 has 1"),
                                               ("client,client,x\n1,2,3\n", "2 'client' columns"),
                                               ("weight,x,weight\n1,2,3\n", "2 'weight' columns")])
def test_a_csv_whose_rows_do_not_fit_its_header_is_refused(tmp_path, text, message):
    from itsa.privacy.updates import load_updates

    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(InvalidInput, match=message):
        load_updates(path)


# --- 8: the seed is a whole number ---

@pytest.mark.parametrize(("args", "env"), [(["--seed", "abc"], None), (["--seed", "-1"], None), (["--seed", "1e3"], None),
                                           ([], {"ITSA_SEED": "round 7"}), (["--seed", "1" * 1300], None)])
def test_a_seed_that_is_not_a_whole_number_is_one_line_exit_2(tmp_path, itsa_privacy, updates_csv, args, env):
    record = tmp_path / "r.json"
    res = itsa_privacy("release", updates_csv(UPDATES), "--epsilon", "1", *args, "--record", record, env=env,
                       check=False)
    assert "seed: must be a whole number" in one_line_exit_2(res) and not record.exists()


def test_a_seed_file_holds_a_whole_number(tmp_path, itsa_privacy, updates_csv):
    seed_file = tmp_path / "seed"
    seed_file.write_text("a phrase\n")
    res = itsa_privacy("release", updates_csv(UPDATES), "--epsilon", "1", "--seed-file", seed_file, check=False)
    assert "seed: must be a whole number" in one_line_exit_2(res)


def test_the_seed_is_a_whole_number_in_the_record_and_the_noise_key():
    from itsa.privacy.commitment import check_seed, noise_key

    r = release(UPDATES, epsilon=1, seed="0042", salt="ab" * 32)
    assert r.seed == 42 and r.record()["secret_values"]["seed"] == 42
    assert r.noise.seed == noise_key("ab" * 32, 42) == "itsa-release-noise-v3:" + "ab" * 32 + ":42"
    assert release(UPDATES, epsilon=1, seed=42, salt="ab" * 32).noise.draws == r.noise.draws
    for bad in (True, -1, 2**4096, 1.0, "4 2", ""):
        with pytest.raises(InvalidOption, match="seed"):
            check_seed(bad)
    drawn = release(UPDATES, epsilon=1).seed
    assert type(drawn) is int and 0 <= drawn < 2**256


@pytest.mark.parametrize("seed", ["42", 42.0, True, -1])
def test_a_record_seed_that_is_not_a_whole_number_fails_its_form(made, seed):
    record = _fresh(made)
    record["secret_values"]["seed"] = seed
    result = check_record(record)
    assert result.failed == ("secret form",) and "secret_values.seed" in result.checks[-1].detail


def test_a_record_past_the_size_limit_is_not_written(tmp_path, monkeypatch, made):
    import itsa.privacy.commitment as commitment

    monkeypatch.setattr(commitment, "MAX_RECORD_BYTES", 1000)
    with pytest.raises(commitment.InvalidOutputPath, match="MAX_RECORD_BYTES"):
        commitment.write_record(tmp_path / "r.json", made.record())
    assert list(tmp_path.iterdir()) == []


HOSTILE_TEXT = "\ud800 \x1b[31mred\u202e"       # a lone surrogate, a terminal escape, a right-to-left override


@pytest.mark.parametrize("where", ["note", "public.engine", "public." + HOSTILE_TEXT, "secret_values.noise_sha256"])
def test_hostile_text_in_a_record_is_shown_escaped(tmp_path, made, itsa_privacy, where):
    record = _fresh(made)
    _set(where, HOSTILE_TEXT)(record)
    result = check_record(record)
    assert not result.ok and all(c.detail.isascii() and "\x1b" not in c.detail for c in result.checks)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(record))         # ASCII JSON: the surrogate is written \\ud800
    res = itsa_privacy("release", "--verify", path, check=False)
    assert res.returncode == 1 and "Traceback" not in res.stderr and "\x1b[31m" not in res.stdout, res.stderr


@pytest.mark.parametrize("key", ["[/bold]", "[bold red]PASS", "[link=https://example.org]x"])
def test_a_record_key_that_looks_like_markup_is_shown_as_text(tmp_path, made, itsa_privacy, key):
    record = _fresh(made)
    record["public"][key] = 1
    path = tmp_path / "[red]r.json"
    path.write_text(json.dumps(record))
    res = itsa_privacy("release", "--verify", path, check=False)
    assert res.returncode == 1 and "Traceback" not in res.stderr, res.stderr
    assert key in res.stdout.replace("\n", "") or key[:8] in res.stdout


def test_numpy_weights_and_ids_are_read_as_numbers():
    r = release(UPDATES, np.array([1.0, 2.0, 0.5]), epsilon=1, ids=np.array([5, 6, 7]))
    assert r.inputs["data_weights"] == ["1", "2", "1/2"] and r.inputs["ids"] == [5, 6, 7]
    assert check_record(r.record()).ok
