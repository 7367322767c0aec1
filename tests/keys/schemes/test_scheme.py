"""Scheme data model and JSON format: round trips and every kind of malformed input."""

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from itsa.exceptions import InvalidOption, InvalidScheme
from itsa.keys.model.io import load_instance
from itsa.keys.schemes.scheme import Scheme, dumps_scheme, load_scheme, save_scheme, scheme_from_dict, scheme_to_dict
from itsa.testing import instances

ROOT = Path(__file__).resolve().parents[3]
EX1, EX2 = ROOT / "instances/example-1.yaml", ROOT / "instances/example-2.yaml"
EX1_SCHEME = ROOT / "instances/example-1.scheme.json"
EX2_SCHEME = ROOT / "instances/example-2.scheme.json"


@pytest.fixture(scope="module")
def ex1():
    return load_instance(EX1)


@pytest.fixture(scope="module")
def ex2():
    return load_instance(EX2)


def good():
    return {"field": 7, "L": 1, "key_symbols": 2,
            "keys": {"1,1": [[1, 0]], "1,3": [[0, 1]], "2,1": [[6, 6]]},
            "construction": "condition-2", "seed": 0}


# -- the shipped schemes -------------------------------------------------------
def test_example_1_scheme_is_the_printed_one(ex1):
    s = load_scheme(ex1, EX1_SCHEME)
    assert (s.field, s.L, s.key_symbols, s.rate) == (7, 1, 2, Fraction(2))
    assert s.key_matrix(ex1.index(1, 1)).tolist() == [[1, 0]]
    assert s.key_matrix(ex1.index(1, 3)).tolist() == [[0, 1]]
    assert s.key_matrix(ex1.index(2, 1)).tolist() == [[6, 6]]          # -(N1 + N2)
    assert s.key_users == (ex1.index(1, 1), ex1.index(1, 3), ex1.index(2, 1))
    total = sum(s.key_matrix(i) for i in range(ex1.K)) % 7
    assert not total.any()


def test_example_2_scheme_is_the_printed_one(ex2):
    s = load_scheme(ex2, EX2_SCHEME)
    assert (s.field, s.L, s.key_symbols, s.rate) == (7, 2, 7, Fraction(7, 2))
    F = {ex2.label(i): s.key_matrix(i).tolist() for i in range(ex2.K)}
    assert F[1, 3] == [[1, 0, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0, 0]]
    assert F[1, 4] == [[0, 1, 0, 0, 0, 0, 0], [0, 2, 0, 0, 0, 0, 0]]
    assert F[2, 1] == [[0, 0, 1, 0, 0, 0, 0], [0, 0, 0, 1, 0, 0, 0]]
    assert F[2, 2] == [[0, 0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 0, 1, 0]]
    assert F[3, 1] == [[0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0, 3]]
    assert F[1, 2] == F[2, 3] == [[0] * 7, [0] * 7]
    # Z_{1,1} = (-(N1+N2+N3+N5+N7), -(N1+2N2+N4+N6+3N7)) mod 7
    assert F[1, 1] == [[6, 6, 6, 0, 6, 0, 6], [6, 5, 0, 6, 0, 6, 4]]


def test_field_override_rereads_the_integers(ex1):
    s = load_scheme(ex1, EX1_SCHEME, field=5)
    assert s.field == 5 and s.key_matrix(ex1.index(2, 1)).tolist() == [[4, 4]]
    with pytest.raises(InvalidOption, match="prime power"):
        load_scheme(ex1, EX1_SCHEME, field=25)


# -- data model --------------------------------------------------------------------
def test_normalisation_and_zero_keys_dropped():
    s = Scheme(field=5, L=2, key_symbols=1, keys={3: [[-1], [7]], 1: [[0], [5]]})
    assert s.keys == ((3, ((4,), (2,))),)
    assert s.key_matrix(1).tolist() == [[0], [0]]
    assert s.key_matrix(3).dtype == np.int64
    assert s == Scheme(field=5, L=2, key_symbols=1, keys=[(3, [[4], [2]])])
    assert hash(s) == hash(Scheme(field=5, L=2, key_symbols=1, keys={3: ((4,), (2,))}))


def test_key_matrix_is_a_copy():
    s = Scheme(field=5, L=1, key_symbols=1, keys={0: [[1]]})
    s.key_matrix(0)[0, 0] = 3
    assert s.key_matrix(0).tolist() == [[1]]


def test_no_key_symbols():
    s = Scheme(field=3, L=2, key_symbols=0, keys={0: [[], []]})
    assert s.keys == () and s.rate == 0 and s.key_matrix(0).shape == (2, 0)


def test_scheme_outside_instance(ex1):
    with pytest.raises(InvalidScheme, match="only 7 users"):
        scheme_to_dict(ex1, Scheme(field=3, L=1, key_symbols=1, keys={7: [[1]]}))


# -- round trips -------------------------------------------------------------------
def test_dict_round_trip(ex1):
    s = scheme_from_dict(ex1, good())
    record = {"name": "example-1", "fingerprint": ex1.fingerprint}
    assert scheme_to_dict(ex1, s) == {**good(), "instance": record}
    assert scheme_from_dict(ex1, scheme_to_dict(ex1, s)) == s


def test_save_and_load(tmp_path, ex2):
    s = load_scheme(ex2, EX2_SCHEME)
    path = tmp_path / "s.json"
    save_scheme(ex2, s, path)
    assert load_scheme(ex2, path) == s
    data = json.loads(path.read_text())
    assert data["keys"]["3,1"] == [[0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0, 3]]
    assert [p.name for p in tmp_path.iterdir()] == ["s.json"]


def test_save_failure_leaves_old_file(tmp_path, ex1):
    path = tmp_path / "s.json"
    path.write_text("old")
    with pytest.raises(InvalidScheme):
        save_scheme(ex1, Scheme(field=3, L=1, key_symbols=1, keys={9: [[1]]}), path)
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["s.json"]


@st.composite
def schemes_for(draw, inst):
    q = draw(st.sampled_from([2, 3, 5, 7, 2**31 - 1]))
    L = draw(st.integers(1, 3))
    d = draw(st.integers(0, 3))
    entry = st.integers(-2 * q, 2 * q)
    users = draw(st.sets(st.integers(0, inst.K - 1)))
    keys = {i: draw(st.lists(st.lists(entry, min_size=d, max_size=d), min_size=L, max_size=L))
            for i in users}
    return Scheme(field=q, L=L, key_symbols=d, keys=keys, construction=draw(st.none() | st.text(max_size=5)),
                  seed=draw(st.none() | st.integers()))


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_round_trip_property(data):
    inst = data.draw(instances(max_users=6))
    s = data.draw(schemes_for(inst))
    assert scheme_from_dict(inst, scheme_to_dict(inst, s)) == s
    assert scheme_from_dict(inst, json.loads(dumps_scheme(inst, s))) == s


# -- malformed input -------------------------------------------------------------
def mutate(**changes):
    d = good()
    for k, v in changes.items():
        if v is KeyError:
            del d[k]
        else:
            d[k] = v
    return d


def keys(**kw):
    return mutate(keys=kw["k"])


MALFORMED = [
    ("top-list", [1, 2], "JSON object"),
    ("unknown-key", mutate(instances="x"), "unknown key 'instances'"),
    ("instance-record", mutate(instance="x"), "instance: must be"),
    ("other-instance", mutate(instance={"name": "y", "fingerprint": "0"}), "made for instance 'y'"),
    ("missing-keys", mutate(keys=KeyError), "missing key 'keys'"),
    ("missing-field", mutate(field=KeyError), "missing key 'field'"),
    ("non-prime", mutate(field=6), "field 6 is not a prime"),
    ("prime-power", mutate(field=9), "prime power"),
    ("field-one", mutate(field=1), "not a prime"),
    ("field-string", mutate(field="7"), "not an integer"),
    ("field-bool", mutate(field=True), "not an integer"),
    ("field-huge", mutate(field=2**89 - 1), "too large"),
    ("L-zero", mutate(L=0), "L: must be a whole number >= 1"),
    ("L-float", mutate(L=1.0), "L: must be a whole number"),
    ("d-negative", mutate(key_symbols=-1), "key_symbols: must be a whole number >= 0"),
    ("keys-list", keys(k=[[1, 0]]), "keys: must be a mapping"),
    ("bad-label", keys(k={"1-1": [[1, 0]]}), "not of the form"),
    ("label-three", keys(k={"1,1,1": [[1, 0]]}), "not of the form"),
    ("unknown-server", keys(k={"4,1": [[1, 0]]}), "unknown user '4,1'"),
    ("unknown-user", keys(k={"1,4": [[1, 0]]}), "unknown user '1,4'"),
    ("user-zero", keys(k={"0,1": [[1, 0]]}), "unknown user '0,1'"),
    ("duplicate", keys(k={"1,1": [[1, 0]], " 1, 1": [[0, 1]]}), "listed twice"),
    ("rows", keys(k={"1,1": [[1, 0], [0, 1]]}), "has 2 rows, expected L = 1"),
    ("no-rows", keys(k={"1,1": []}), "has 0 rows, expected L = 1"),
    ("matrix-int", keys(k={"1,1": 1}), "must be a list of 1 rows"),
    ("row-int", keys(k={"1,1": [1]}), "row 1 must be a list"),
    ("row-length", keys(k={"1,1": [[1, 0, 0]]}), "row 1 has 3 entries, expected key_symbols = 2"),
    ("entry-float", keys(k={"1,1": [[1.0, 0]]}), r"entry \(1, 1\) = 1.0 is not an integer"),
    ("entry-bool", keys(k={"1,1": [[True, 0]]}), r"entry \(1, 1\) = True is not an integer"),
    ("entry-string", keys(k={"1,1": [[1, "2"]]}), r"entry \(1, 2\) = '2' is not an integer"),
    ("entry-null", keys(k={"1,1": [[1, None]]}), "is not an integer"),
    ("construction", mutate(construction=3), "construction must be a string"),
    ("seed", mutate(seed="x"), "seed: must be a whole number"),
]


@pytest.mark.parametrize("name,data,message", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_dict(ex1, name, data, message):
    with pytest.raises(InvalidScheme, match=message) as info:
        scheme_from_dict(ex1, data)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("name,data,message", MALFORMED[:6] + MALFORMED[-6:],
                         ids=[m[0] for m in MALFORMED[:6] + MALFORMED[-6:]])
def test_malformed_file_names_the_file(tmp_path, ex1, name, data, message):
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InvalidScheme, match=message) as info:
        load_scheme(ex1, path)
    assert str(info.value).startswith(str(path) + ": ")
    assert "\n" not in str(info.value)


def test_not_json(tmp_path, ex1):
    path = tmp_path / "bad.json"
    path.write_text('{"field": 7,, }')
    with pytest.raises(InvalidScheme, match=r"bad.json: not valid JSON: .* \(line 1, column 13\)"):
        load_scheme(ex1, path)


def test_missing_file(tmp_path, ex1):
    with pytest.raises(InvalidScheme, match="nope.json: no such file"):
        load_scheme(ex1, tmp_path / "nope.json")


@pytest.mark.parametrize("kwargs,message", [
    (dict(field=4, L=1, key_symbols=0), "prime power"),
    (dict(field=3, L=0, key_symbols=0), "L: must be"),
    (dict(field=3, L=1, key_symbols=-1), "key_symbols: must be"),
    (dict(field=3, L=1, key_symbols=1, keys={-1: [[1]]}), "not a user bit index"),
    (dict(field=3, L=1, key_symbols=1, keys=[(0, [[1]]), (0, [[2]])]), "two keys"),
    (dict(field=3, L=1, key_symbols=1, keys={0: [[1, 2]]}), "2 entries"),
])
def test_malformed_constructor(kwargs, message):
    with pytest.raises(InvalidScheme, match=message):
        Scheme(**kwargs)


# -- size limits, checked before any allocation --------------------------------------
@pytest.mark.parametrize("L,d,message", [
    (10**8, 1, "L = 100000000 exceeds the limit"),
    (1, 10**8, "key_symbols = 100000000 exceeds the limit"),
    (4096, 4096, "entries exceed the limit"),
])
def test_scheme_size_limits(tmp_path, ex1, L, d, message):
    from itsa._util.files import read_text
    from itsa.keys.schemes.scheme import MAX_SCHEME_BYTES

    path = tmp_path / "big.json"
    path.write_text(json.dumps({"field": 7, "L": L, "key_symbols": d, "keys": {"1,1": []}}))

    def from_file():
        with pytest.raises(InvalidScheme, match=message):
            load_scheme(ex1, path)

    def from_constructor():
        with pytest.raises(InvalidScheme, match=message):
            Scheme(field=7, L=L, key_symbols=d, keys={0: [[1] * 0]})
    # refused before allocating: the smallest of these key matrices needs 16 MB even at one byte
    # an entry; nothing but reading the file (its bounded read's buffer) may come before the check
    reading = peak_bytes(lambda: read_text(path, InvalidScheme, max_bytes=MAX_SCHEME_BYTES))
    assert peak_bytes(from_file) < reading + 2**20
    assert peak_bytes(from_constructor) < 2**20


def peak_bytes(fn) -> int:
    """The most memory (bytes, as tracemalloc counts it, NumPy's arrays included) that ``fn()``
    holds at once beyond what was held before it."""
    import tracemalloc

    tracing = tracemalloc.is_tracing()
    if not tracing:
        tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        fn()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        if not tracing:
            tracemalloc.stop()


def test_verify_refuses_a_generator_matrix_too_large(ex1):
    from itsa import verify

    with pytest.raises(InvalidScheme, match="too large to verify"):
        verify(ex1, Scheme(field=7, L=1, key_symbols=3000, keys={}))


def test_json_nesting_and_huge_numbers_are_one_line(tmp_path, ex1):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000)
    with pytest.raises(InvalidScheme, match="nested too deeply|not valid JSON"):
        load_scheme(ex1, path)
    path.write_text('{"field": ' + "9" * 5000 + "}")
    with pytest.raises(InvalidScheme, match="not readable JSON"):
        load_scheme(ex1, path)


@settings(max_examples=40, deadline=None)
@given(instances(max_users=5), st.integers(0, 10**6))
def test_trimmed_scheme_has_the_same_verdict_on_its_rank(inst, seed):
    """Redundant key symbols (a column that is a combination of others) are dropped,
    and dropping them changes neither the verdict nor anything but the rate."""
    import random

    from itsa import verify
    from itsa.keys.schemes.linalg import rank

    rng = random.Random(seed)
    q, L, d = 5, rng.choice((1, 2)), rng.randint(1, 3)
    base = {i: [[rng.randrange(q) for _ in range(d)] for _ in range(L)] for i in range(inst.K)}
    a, b = rng.randrange(q), rng.randrange(q)
    wide = {i: [row + [(a * row[0] + b * row[-1]) % q, 0] for row in mat] for i, mat in base.items()}
    s = Scheme(field=q, L=L, key_symbols=d + 2, keys=wide)
    t = s.trimmed()
    stacked = [row for _, mat in s.keys for row in mat]
    assert t.key_symbols == (rank(stacked, q) if stacked else 0) <= d
    assert t.rate == Fraction(t.key_symbols, L) and t.trimmed() is t
    assert verify(inst, t).ok == verify(inst, s).ok
