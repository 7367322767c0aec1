"""The bounded YAML reader: limits hold while parsing, messages stay short."""

import pytest

import itsa.keys.model.io
from itsa import InvalidInput, InvalidInstance, load_instance
from itsa._util.safe_yaml import MAX_DEPTH, MAX_NODES, _Builder, load_yaml
from itsa.exceptions import EXCERPT_CHARS

HEAD = "servers: [2, 1, 1]\ncollusion_sets: [[]]\n"


def load(tmp_path, text):
    path = tmp_path / "x.yaml"
    path.write_text(text)
    return load_instance(path)


def refused(tmp_path, text, match, while_parsing=False):
    """Load ``text``: refused in one short line matching ``match``, by bounded work.

    The reader takes at most ``MAX_NODES + 1`` values from the parser (it stops at its limit,
    it does not read on); with ``while_parsing`` the refusal is the reader's own, before any
    instance is built from what it read.
    """
    values = 0

    def counted(method):
        def take(self, e):
            nonlocal values
            values += 1
            return method(self, e)
        return take

    def not_reached(*args, **kwargs):
        pytest.fail("the reader let the document through to the instance reader")

    with pytest.MonkeyPatch.context() as mp:
        for name in ("_on_scalar", "_on_alias", "_open"):     # every event that adds a value
            mp.setattr(_Builder, name, counted(getattr(_Builder, name)))
        if while_parsing:
            mp.setattr(itsa.keys.model.io, "parse_instance", not_reached)
        with pytest.raises(InvalidInstance, match=match) as info:
            load(tmp_path, text)
    msg = str(info.value)
    assert "\n" not in msg and len(msg) < 400, msg
    assert values <= MAX_NODES + 1, values
    return msg


def test_alias_bomb_inside_one_user_is_refused_while_parsing(tmp_path):
    # the bomb's anchors are unknown top-level keys; the check happens before the instance is read
    text = "servers: [2, 1, 1]\ncollusion_sets: [[]]\nsecurity_sets: [[" + "[1, *big]" + "]]\n"
    levels = "\n".join(f"x{i}: &{'big' if i == 8 else f'x{i}'} [" + ", ".join(
        [f"*x{i - 1}" if i else "1"] * 9) + "]" for i in range(9))
    refused(tmp_path, levels + "\n" + text, "values \\(after expanding aliases\\)", while_parsing=True)


def test_deep_nesting_is_one_line(tmp_path):
    # PyYAML >= 6.0.4 has a depth limit of its own, which may speak first: either is one line
    refused(tmp_path, "servers: " + "[" * 100_000,
            f"nesting deeper than {MAX_DEPTH}|exceeded maximum nesting depth", while_parsing=True)


def test_depth_after_alias_expansion_counts(tmp_path):
    text = "a: &a " + "[" * 40 + "1" + "]" * 40 + "\nb: " + "[" * 40 + "*a" + "]" * 40
    with pytest.raises(InvalidInput, match="after expanding aliases") as info:
        load_yaml(text)
    assert info.type is InvalidInput             # load_yaml's own error unless told another


def test_duplicate_key_names_key_and_lines(tmp_path):
    refused(tmp_path, HEAD + "security_sets: [[[1, 1]]]\nservers: [1, 1, 1]\n",
            r"line 4: duplicate key 'servers' \(first at line 1\)", while_parsing=True)


def test_huge_scalars_are_quoted_short(tmp_path):
    msg = refused(tmp_path, HEAD + "security_sets: [[[1, '" + "x" * 9000 + "']]]\n", "a user is a pair")
    assert msg.count("x") <= EXCERPT_CHARS
    refused(tmp_path, HEAD + "security_sets: [[[1, " + "9" * 5000 + "]]]\n", "cannot read the value",
            while_parsing=True)
    refused(tmp_path, HEAD + "security_sets: [[[1, " + "9" * 4000 + "]]]\n", "outside the topology")


def test_node_count_is_bounded(tmp_path):
    many = ", ".join(["[1, 1]"] * (MAX_NODES // 3 + 10))
    refused(tmp_path, HEAD + f"security_sets: [[{many}]]\n", f"more than {MAX_NODES:,} values",
            while_parsing=True)


@pytest.mark.parametrize("text,match", [
    ("servers: !!python/object:os.system [1]", "unsupported tag"),
    ("<<: {servers: [1]}", "merge keys"),
    ("servers: !!set {1: null}", "unsupported tag"),
    ("a: &a [*a]", "refers to no complete anchor"),
    ("a: 1\n---\nb: 2", "second YAML document"),
    ("? [1]\n: 2", "mapping key must be a plain value"),
])
def test_unsupported_yaml(text, match):
    with pytest.raises(InvalidInput, match=match) as info:
        load_yaml(text)
    assert info.type is InvalidInput


def test_plain_yaml_reads_like_safe_load():
    import yaml

    text = "a: [1, 2.5, true, null, '3', 2001-12-14]\nb: {c: &x [1], d: *x}\n"
    assert load_yaml(text) == yaml.safe_load(text)


def test_a_device_or_a_fifo_is_refused_unread(tmp_path):
    from tests.test_files import char_device, fifo, no_hang

    with no_hang(), pytest.raises(InvalidInstance, match="FIFO"):
        load_instance(fifo(tmp_path))
    with pytest.raises(InvalidInstance, match="character device"):
        load_instance(char_device(tmp_path))          # like /dev/zero: endless, never read
