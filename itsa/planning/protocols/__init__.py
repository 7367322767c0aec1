"""A deployment's aggregation protocol, one room: the interface, each protocol, the registry, the simulated round.

- :mod:`~itsa.planning.protocols.base`: the interface every protocol implements;
- :mod:`~itsa.planning.protocols.secagg`: SecAgg+ (its finder and exact analysis are :mod:`itsa.keys.secagg`);
- :mod:`~itsa.planning.protocols.multi_server`: the key-rate model built from the deployment's clients;
- :mod:`~itsa.planning.protocols.registry`: the names a deployment file may give, and the dispatch;
- :mod:`~itsa.planning.protocols.run`: what every protocol's simulated round shares.
"""

from itsa.planning.protocols.base import AggregationProtocol, ProtocolKeys
from itsa.planning.protocols.multi_server import MultiServerKeys, MultiServerProtocol, split_clients
from itsa.planning.protocols.registry import PROTOCOLS, parse_protocol, protocol_reasons, size_protocol_keys
from itsa.planning.protocols.secagg import SecAggKeys, SecAggProtocol

__all__ = ["AggregationProtocol", "ProtocolKeys", "PROTOCOLS", "parse_protocol", "size_protocol_keys",
           "protocol_reasons", "SecAggProtocol", "SecAggKeys", "MultiServerProtocol", "MultiServerKeys",
           "split_clients"]
