"""The YAML loader: the public format, its generators, and every kind of bad input."""

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

import itsa
from itsa import InvalidInstance, parse_instance

BASE = {"servers": [2, 1, 1], "security_sets": ["all"], "collusion_sets": [[]]}


def with_(**kw):
    d = dict(BASE)
    d.update(kw)
    return d


def test_generators_order_by_size_then_lexicographic():
    inst = parse_instance(with_(collusion_sets={"subsets_of": [[3, 1], [1, 2], [1, 1]], "max_size": 2}))
    got = [inst.labels(t) for t in inst.collusion_sets]
    assert got == [[], [(1, 1)], [(1, 2)], [(3, 1)], [(1, 1), (1, 2)], [(1, 1), (3, 1)], [(1, 2), (3, 1)]]


def test_all_users_up_to_and_min_size():
    inst = parse_instance(with_(collusion_sets={"all_users_up_to": 2}))
    assert inst.N == 1 + 4 + 6
    inst = parse_instance(with_(collusion_sets={"subsets_of": [[1, 1], [1, 2], [2, 1]], "min_size": 2}))
    assert [t.bit_count() for t in inst.collusion_sets] == [2, 2, 2, 3]


def test_all_keyword_and_explicit_order_kept():
    inst = parse_instance(with_(security_sets=[[[2, 1]], "all", []]))
    assert inst.security_sets == (0b0100, 0b1111, 0)


def test_duplicate_user_is_merged_with_warning():
    inst = parse_instance(with_(security_sets=[[[1, 1], [1, 1]]]))
    assert inst.security_sets == (1,)
    assert inst.warnings == ("1 duplicate user(s) merged in 1 set(s) (first: security_sets[0]: [1, 1])",)


def test_fewer_than_three_servers_is_flagged_not_refused():
    inst = parse_instance(with_(servers=[1, 1], security_sets=[[[1, 1]]]))
    assert inst.U == 2 and inst.outside_assumptions()
    assert itsa.analyze(inst).regime in itsa.REGIMES


@pytest.mark.parametrize("data, fragment", [
    (with_(colluders=[[]]), "unknown key 'colluders'"),
    (with_(security_sets=[[[4, 1]]]), "user [4, 1] is outside the topology"),
    (with_(security_sets=[[[1, 3]]]), "user [1, 3] is outside the topology"),
    (with_(servers=[2, 0, 1]), "server 2 has 0 users"),
    (with_(collusion_sets={"subsets_of": [[1, 1]], "min_size": -1}), "min_size: must be a whole number >= 0, not -1"),
    (with_(collusion_sets={"subsets_of": [[1, 1], [1, 2]], "min_size": 2, "max_size": 1}),
     "min_size 2 > max_size 1"),
    (with_(collusion_sets="everyone"), "a family is a list of sets or a generator"),
    (with_(collusion_sets={"choose": 2}), "unknown generator key 'choose'"),
    (with_(security_sets=[[[1, "a"]]]), "a user is a pair [u, v]"),
    (with_(security_sets=[]), "the family is empty"),
    ({"servers": [1, 1, 1]}, "missing key 'security_sets'"),
    ([1, 2], "the top level must be a mapping"),
])
def test_bad_input_gives_one_clear_message(data, fragment):
    with pytest.raises(InvalidInstance) as info:
        parse_instance(data)
    assert fragment in str(info.value)


def test_file_errors_name_the_file(tmp_path):
    with pytest.raises(InvalidInstance, match="no such file"):
        itsa.load_instance(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("servers: [1, 2\n")
    with pytest.raises(InvalidInstance, match=r"bad\.yaml: not valid YAML"):
        itsa.load_instance(bad)


scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 5), st.floats(allow_nan=False),
                    st.text(max_size=4), st.sampled_from(["all", "servers", "subsets_of"]))
yamlish = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4),
    st.dictionaries(st.sampled_from(["servers", "security_sets", "collusion_sets", "name",
                                     "subsets_of", "min_size", "max_size", "all_users_up_to", "x"]),
                    inner, max_size=4)), max_leaves=12)
# near the format: small topologies, users in and out of them, each kind of family: many are read
user = st.tuples(st.integers(1, 4), st.integers(1, 3)).map(list)
family = st.one_of(
    st.lists(st.one_of(st.lists(user, max_size=3), st.just("all")), min_size=1, max_size=3),
    st.fixed_dictionaries({"subsets_of": st.lists(user, max_size=3)},
                          optional={"min_size": st.integers(-1, 3), "max_size": st.integers(-1, 3)}),
    st.fixed_dictionaries({"all_users_up_to": st.integers(-1, 3)}))
near_valid = st.fixed_dictionaries({"servers": st.lists(st.integers(1, 3), min_size=1, max_size=4),
                                    "security_sets": family, "collusion_sets": family})


@given(st.fixed_dictionaries({"servers": st.one_of(st.lists(st.integers(-1, 3), max_size=4), yamlish),
                              "security_sets": yamlish, "collusion_sets": yamlish}) | yamlish | near_valid)
def test_loader_fuzz_only_raises_invalid_instance(data):
    try:
        inst = parse_instance(data)
    except InvalidInstance:
        return
    # what is accepted is what was written: the servers as given, and the sets, written back in
    # the public format ([u, v] pairs), read as the same instance
    assert list(inst.servers) == data["servers"]
    families = {key: [[list(user) for user in inst.labels(s)] for s in getattr(inst, key)]
                for key in ("security_sets", "collusion_sets")}
    assert parse_instance({"servers": data["servers"], "name": inst.name, **families}) == inst


@given(yamlish)
def test_loader_fuzz_through_yaml_text(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / "i.yaml"
    path.write_text(yaml.safe_dump(data))
    try:
        itsa.load_instance(path)
    except InvalidInstance:
        pass
