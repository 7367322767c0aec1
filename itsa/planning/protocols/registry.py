"""The protocols a deployment may name, by their name in the file: the one place a protocol is registered.

:data:`PROTOCOLS` maps the name of ``protocol: {NAME: {...}}`` to its class
(:class:`~itsa.planning.protocols.base.AggregationProtocol`); the file's
``protocol:`` mapping parses through it (:func:`parse_protocol`), and the
plan's keys section and verdict ask the protocol and its keys section
(:func:`size_protocol_keys`, :func:`protocol_reasons`), never their class.

Examples
--------
>>> sorted(PROTOCOLS)
['multi-server', 'secagg+', 'willow']
>>> parse_protocol({"multi-server": {"servers": 3, "collusion": 1}})
MultiServerProtocol(servers=3, collusion=1)
>>> parse_protocol({"secagg": {}})
Traceback (most recent call last):
...
itsa.exceptions.InvalidDeployment: protocol: unknown protocol 'secagg' (known: multi-server, secagg+, willow)
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from itsa._util.certified import Certified
from itsa._util.progress import Reporter
from itsa.exceptions import InvalidDeployment, excerpt
from itsa.planning.protocols.base import AggregationProtocol, ProtocolKeys
from itsa.planning.protocols.multi_server import MultiServerProtocol
from itsa.planning.protocols.secagg import SecAggProtocol
from itsa.planning.protocols.willow import WillowProtocol

__all__ = ["PROTOCOLS", "parse_protocol", "size_protocol_keys", "protocol_reasons"]

_ERR = InvalidDeployment
#: Every protocol a deployment may name, by its name in the file.
PROTOCOLS: dict[str, type[AggregationProtocol]] = {p.name: p for p in (SecAggProtocol, MultiServerProtocol,
                                                                         WillowProtocol)}


def parse_protocol(raw) -> AggregationProtocol | None:
    """The file's ``protocol:`` mapping (one key, a name of :data:`PROTOCOLS`), checked."""
    if raw is None:
        return None
    known = ", ".join(sorted(PROTOCOLS))
    if not isinstance(raw, dict) or len(raw) != 1:
        raise _ERR(f"protocol: must be a mapping with one key, one of {known}, not {excerpt(raw)}")
    (name, body), = raw.items()
    body = {} if body is None else body
    if not isinstance(body, dict):
        raise _ERR(f"protocol.{name}: must be a mapping, not {excerpt(body)}")
    if name not in PROTOCOLS:
        raise _ERR(f"protocol: unknown protocol {excerpt(name)} (known: {known})")
    kind = PROTOCOLS[name]
    extra = sorted(set(map(str, body)) - kind.fields)
    if extra:
        raise _ERR(f"protocol.{name}: unknown key {extra[0]!r} (known: {', '.join(sorted(kind.fields))})")
    return kind.from_body(body)


def size_protocol_keys(protocol: AggregationProtocol, *, clients: int, dropout: Fraction, dimension: int, name: str,
                       bits_per_round: Certified, payload_bits: int, time_limit, seed: int = 0,
                       report=None) -> ProtocolKeys:
    """The keys section of a deployment's ``protocol`` for its ``clients`` (``dropout`` of them may drop out).

    ``dimension`` is the number of words a client sends and ``payload_bits`` the bits of one (the word);
    ``name`` names the deployment (a multi-server instance built from it); ``time_limit`` bounds a
    multi-server solve (a forked child, :mod:`itsa.planning.keysolve`).
    """
    protocol.check(clients)
    keys = protocol.size(clients=clients, dropout=dropout, dimension=dimension, name=name,
                         bits_per_round=bits_per_round, payload_bits=payload_bits, time_limit=time_limit, seed=seed,
                         report=report if report is not None else Reporter(None))
    return replace(keys, sum_space=protocol.sum_space(payload_bits, clients))


def protocol_reasons(keys) -> tuple[list[str], dict]:
    """Why the protocol makes a plan infeasible, and its fixes (``[], {}`` for a keys section of no protocol)."""
    if not isinstance(keys, ProtocolKeys) or not keys.reasons:
        return [], {}
    return list(keys.reasons), keys.fixes()
