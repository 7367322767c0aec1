"""A protocol is one room: a protocol registered in ``PROTOCOLS`` alone reaches the file, the plan and its verdict."""

import ast
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import ClassVar

import pytest

import itsa.planning.protocols.registry as registry
from itsa.exceptions import InvalidDeployment, InvalidOption
from itsa.planning import parse_deployment, plan
from itsa.planning.protocols import AggregationProtocol, ProtocolKeys, protocol_reasons
from itsa.planning.protocols.run import check_protocol_simulation, with_protocol

ROOT = Path(__file__).resolve().parents[2]
SMALL = {"clients": 40, "dimension": 16, "clip": 1, "dropout": "1/10", "noise": {"kind": "central", "sigma": 4},
         "privacy": {"delta": "1e-6"}, "encoding": {"word_bits": 16, "gamma": 4}, "overflow": "1e-6"}


@dataclass(frozen=True, kw_only=True, repr=False)
class ToyKeys(ProtocolKeys):
    clients: int
    words: int

    def headline(self) -> str:
        return f"toy for {self.clients}"

    def rows(self) -> list[tuple[str, str]]:
        return [("toy", f"{self.words} words")]

    def fixes(self) -> dict:
        return {"toy": {"text": "fewer clients"}} if self.reasons else {}

    def to_dict(self) -> dict:
        return {"protocol": "toy", "toy": {"clients": self.clients, "words": self.words},
                "reasons": list(self.reasons)}


@dataclass(frozen=True, kw_only=True)
class Toy(AggregationProtocol):
    name: ClassVar[str] = "toy"
    fields: ClassVar[frozenset[str]] = frozenset({"most"})
    most: int = 100

    @classmethod
    def from_body(cls, body: dict) -> "Toy":
        return cls(most=body.get("most", 100))

    def check(self, clients: int) -> None:
        if clients < 2:
            raise InvalidDeployment("protocol.toy: needs 2 clients")

    def to_dict(self) -> dict:
        return {"toy": {"most": self.most}}

    def size(self, *, clients, dropout, dimension, name, bits_per_round, payload_bits, time_limit, seed,
             report) -> ToyKeys:
        reasons = () if clients <= self.most else (f"the toy takes at most {self.most} clients",)
        return ToyKeys(clients=clients, words=dimension, reasons=reasons)

    def sum_space(self, payload_bits: int, clients: int) -> str:
        return f"2^{payload_bits}"


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(registry.PROTOCOLS, "toy", Toy)


def test_a_registered_protocol_reaches_the_plan_and_its_verdict(toy):
    d = parse_deployment({**SMALL, "protocol": {"toy": {"most": 50}}})
    p = plan(d)
    assert isinstance(d.protocol, Toy) and isinstance(p.keys, ToyKeys) and p.verdict.feasible
    assert p.keys.clients == 40 and p.keys.words == 16
    q = plan(parse_deployment({**SMALL, "protocol": {"toy": {"most": 30}}}))
    assert not q.verdict.feasible and "the toy takes at most 30 clients" in q.verdict.reasons
    assert q.verdict.fixes["toy"] == {"text": "fewer clients"}
    assert protocol_reasons(q.keys) == (["the toy takes at most 30 clients"], {"toy": {"text": "fewer clients"}})


def test_a_registered_protocol_is_checked_and_refused_in_one_line(toy):
    with pytest.raises(InvalidDeployment, match="protocol.toy: unknown key 'least'"):
        parse_deployment({**SMALL, "protocol": {"toy": {"least": 1}}})
    with pytest.raises(InvalidOption, match="toy has no simulated round"):
        check_protocol_simulation(parse_deployment({**SMALL, "protocol": {"toy": {}}}))
    p = plan(parse_deployment({**SMALL, "protocol": {"toy": {}}}))
    with pytest.raises(InvalidOption, match="toy has no simulated round"):
        with_protocol(p, {})


def test_a_protocol_the_registry_does_not_hold_is_unknown():
    with pytest.raises(InvalidDeployment, match=r"unknown protocol 'toy' \(known: multi-server, secagg\+, willow\)"):
        parse_deployment({**SMALL, "protocol": {"toy": {}}})


def test_no_module_outside_the_room_dispatches_on_a_protocols_class():
    names = {"SecAggProtocol", "MultiServerProtocol", "WillowProtocol", "SecAggKeys", "MultiServerKeys",
             "WillowKeys", "SecAggRun", "SchemeRun"}
    wrong = []
    for path in (ROOT / "itsa" / "planning").rglob("*.py"):
        if "protocols" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance":
                text = ast.unparse(node.args[1])
                wrong += [f"{path.name}:{node.lineno} {text}" for n in names if n in text]
    assert not wrong, wrong


def test_the_rates_helper_refuses_one():
    from itsa.planning.protocols.base import rate

    assert rate("x", "0") == Fraction(0)
    with pytest.raises(InvalidDeployment, match="x: must lie in"):
        rate("x", 1)
