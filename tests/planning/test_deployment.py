"""The deployment file: read exactly, every bad input refused in one line (exit 2)."""

from fractions import Fraction

import pytest

import itsa
from itsa.planning.deployment import Adjacency, NoiseKind, Overflow, load_deployment, parse_deployment
from itsa.planning.protocols import SecAggProtocol

BASE = {"clients": 1000, "dimension": 1290, "clip": 1, "privacy": {"epsilon": 4, "delta": "1e-6", "rounds": 150}}


def test_the_shipped_example_reads_exactly():
    d = load_deployment("k1000")
    assert (d.clients, d.dropout, d.survivors, d.dimension, d.clip) == (1000, Fraction(1, 10), 900, 1290, 1)
    assert d.privacy.epsilon == 4 and d.privacy.delta == Fraction(1, 10**6) and d.privacy.rounds == 150
    assert d.adjacency is Adjacency.REPLACE_ONE and d.noise.kind is NoiseKind.DISTRIBUTED
    assert d.encoding.word_bits == 32 and d.encoding.gamma is None
    assert d.overflow == Fraction(1, 10**6) and d.overflow_per is Overflow.ROUND
    assert d.servers is None and d.protocol == SecAggProtocol(corrupt=Fraction(1, 20), adversary="semi-honest")


@pytest.mark.parametrize("dropout, clients, survivors", [(0, 7, 7), ("1/3", 7, 5), ("1/10", 1000, 900),
                                                         ("0.999", 1000, 1)])
def test_survivors_are_the_ceiling(dropout, clients, survivors):
    d = parse_deployment({**BASE, "clients": clients, "dropout": dropout})
    assert d.survivors == survivors


def test_overflow_may_say_per_coordinate():
    d = parse_deployment({**BASE, "overflow": {"probability": "1/1000", "per": "coordinate"}})
    assert d.overflow == Fraction(1, 1000) and d.overflow_per is Overflow.COORDINATE


BAD = [
    ({"dimension": 4, "clip": 1}, "clients: missing"),
    ({**BASE, "clients": 0}, "clients: must be a whole number"),
    ({**BASE, "clients": 2.5}, "clients: must be a whole number"),
    ({**BASE, "dimension": -1}, "dimension: must be a whole number"),
    ({**BASE, "clip": 0}, "clip: must lie in"),
    ({**BASE, "clip": "abc"}, "clip: must be a number"),
    ({**BASE, "dropout": 1}, "dropout: must lie in [0, 1)"),
    ({**BASE, "dropout": "-1/10"}, "dropout: must lie in"),
    ({**BASE, "adjacency": "swap"}, "adjacency"),
    ({**BASE, "privacy": {"epsilon": 0}}, "privacy.epsilon: must lie in"),
    ({**BASE, "privacy": {"epsilon": 1, "delta": 1}}, "privacy.delta: must lie in"),
    ({**BASE, "privacy": {"epsilon": 1, "rounds": 0}}, "privacy.rounds"),
    ({**BASE, "privacy": {"delta": "1e-6"}}, "privacy.epsilon: missing"),
    ({**BASE, "privacy": [1]}, "privacy: must be a mapping"),
    ({**BASE, "privacy": {"epsilon": 1, "eps": 2}}, "unknown key 'eps'"),
    ({**BASE, "noise": "local"}, "noise"),
    ({**BASE, "noise": {"kind": "distributed", "sigma": "1/4"}}, "noise.sigma: a distributed share needs"),
    ({**BASE, "encoding": {"word_bits": 1}}, "encoding.word_bits"),
    ({**BASE, "encoding": {"word_bits": 32, "radix": 3}}, "not both"),
    ({**BASE, "encoding": {"radix": 4}}, "encoding.radix: must be odd"),
    ({**BASE, "encoding": {"radix": 3, "layers": 4, "stages": "4,2/3,1"}}, "encoding.stages"),
    ({**BASE, "encoding": {"layers": 4}}, "need a radix"),
    ({**BASE, "overflow": 1}, "overflow: must lie in [0, 1)"),
    ({**BASE, "overflow": {"probability": 1}}, "overflow.probability: must lie in [0, 1)"),
    ({**BASE, "overflow": -1}, "overflow: must lie in [0, 1]"),
    ({**BASE, "overflow": {"per": "round"}}, "overflow: a mapping needs probability"),
    ({**BASE, "overflow": {"probability": "1e-6", "per": "layer"}}, "overflow.per"),
    ({**BASE, "servers": 3}, "servers: must be the name"),
    ({**BASE, "gate": {"budget": 0}}, "gate.budget"),
    ({**BASE, "gate": {"flag_rate": 2}}, "gate.flag_rate"),
    ({**BASE, "colour": "red"}, "unknown key 'colour'"),
    ([1, 2], "deployment: must be a mapping"),
]


@pytest.mark.parametrize("raw, message", BAD)
def test_bad_input_is_one_line(raw, message):
    with pytest.raises(itsa.InvalidDeployment) as info:
        parse_deployment(raw)
    text = str(info.value)
    assert message in text and "\n" not in text


def test_bad_files_name_the_file(tmp_path):
    (tmp_path / "d.yaml").write_text("clients: 10\nclients: 11\n")
    with pytest.raises(itsa.InvalidDeployment, match="duplicate key"):
        load_deployment(tmp_path / "d.yaml")
    (tmp_path / "e.yaml").write_text("clients: [\n")
    with pytest.raises(itsa.InvalidDeployment, match="not valid YAML"):
        load_deployment(tmp_path / "e.yaml")
    with pytest.raises(itsa.InvalidDeployment, match="no such file"):
        load_deployment(tmp_path / "missing.yaml")


def test_servers_path_is_read_beside_the_file(tmp_path):
    (tmp_path / "servers.yaml").write_text(itsa.keys.examples.path("example-1").read_text())
    (tmp_path / "d.yaml").write_text("clients: 3\ndimension: 2\nclip: 1\nprivacy: {epsilon: 1}\nservers: servers.yaml\n")
    assert load_deployment(tmp_path / "d.yaml").servers == str(tmp_path / "servers.yaml")
