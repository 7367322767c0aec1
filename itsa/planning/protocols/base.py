"""What every aggregation protocol of a deployment says: the one interface the planner asks.

A protocol (``protocol: {NAME: {...}}`` in a deployment file) is a frozen
dataclass deriving from :class:`AggregationProtocol`. Its class says its
``name`` in the file and the ``fields`` its mapping may hold, and builds
itself from that mapping (:meth:`AggregationProtocol.from_body`). An
instance checks itself against the deployment's clients and dropout, sizes
the plan's keys section for them (:meth:`AggregationProtocol.size`: the
parameters for the deployment's clients, certified failure bounds, costs,
the reasons it makes a plan infeasible), says the modulus or plaintext
space it imposes on the word (:meth:`AggregationProtocol.sum_space`), and
gives the simulated round where one exists
(:meth:`AggregationProtocol.simulation`). The keys sections it returns
derive from :class:`ProtocolKeys`: their ``reasons`` and :meth:`~ProtocolKeys.fixes`
enter the plan's verdict.

The registry (:mod:`itsa.planning.protocols.registry`) maps the file's
names to these classes; the planner, the deployment reader and the
simulation ask it and the instance, never the class.

Examples
--------
>>> rate("protocol.x.corrupt", "1/20")
Fraction(1, 20)
>>> rate("protocol.x.corrupt", 1)
Traceback (most recent call last):
...
itsa.exceptions.InvalidDeployment: protocol.x.corrupt: must lie in [0, 1), not 1
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from itsa._util.checks import fraction
from itsa._util.display import Displayable
from itsa.exceptions import InvalidDeployment, InvalidOption, excerpt

__all__ = ["AggregationProtocol", "ProtocolKeys", "rate"]

_ERR = InvalidDeployment


def rate(name: str, raw) -> Fraction:
    """A fraction in ``[0, 1)`` of the file (a corrupt fraction, a dropout), one line if not."""
    if isinstance(raw, bool):
        raise _ERR(f"{name}: must be a fraction in [0, 1), not {excerpt(raw)}")
    value = fraction(name, str(raw) if isinstance(raw, Fraction) else raw, low=0, high=1, closed=True, error=_ERR)
    if value == 1:
        raise _ERR(f"{name}: must lie in [0, 1), not 1")
    return value


@dataclass(frozen=True, kw_only=True, repr=False)
class ProtocolKeys(Displayable):
    """The keys section a protocol sizes: ``reasons`` it makes the plan infeasible (empty: none) and
    ``sum_space``, the modulus or plaintext space the words are summed in (set by the registry from
    :meth:`AggregationProtocol.sum_space`)."""

    reasons: tuple[str, ...] = ()
    sum_space: str = ""

    def space_rows(self) -> list[tuple[str, str]]:
        return [("sum space", self.sum_space)] if self.sum_space else []

    def fixes(self) -> dict:
        """What would make the protocol's part feasible, keyed by fix (``{}``: none to offer)."""
        return {}


class AggregationProtocol:
    """The interface of a deployment's protocol (a frozen dataclass deriving from this class).

    Class attributes: ``name`` (the key in the file), ``fields`` (the keys its
    mapping may hold). A protocol that needs the plan's word (its vector
    length and bound) to be sized reads them in :meth:`size`.
    """

    name: ClassVar[str] = ""
    fields: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def from_body(cls, body: dict) -> AggregationProtocol:
        """The protocol of the file's mapping (its keys already checked against ``fields``)."""
        raise NotImplementedError

    def check(self, clients: int) -> None:
        """Refuse (one line, :class:`~itsa.exceptions.InvalidDeployment`) what the ``clients`` cannot have."""

    def check_rates(self, dropout: Fraction) -> None:
        """Refuse (one line) the deployment's ``dropout`` where the protocol's analysis does not hold."""

    def to_dict(self) -> dict:
        raise NotImplementedError

    def size(self, *, clients: int, dropout: Fraction, dimension: int, name: str, bits_per_round: Any,
             payload_bits: int, time_limit, seed: int, report) -> ProtocolKeys:
        """The keys section for the deployment's ``clients`` (``dropout`` of them leave): parameters,
        failure bounds, costs and ``reasons``. ``dimension`` words of ``payload_bits`` bits each per client;
        ``bits_per_round`` the payload per client per round (certified); ``name`` the deployment's."""
        raise NotImplementedError

    def sum_space(self, payload_bits: int, clients: int) -> str:
        """The modulus or plaintext space the protocol sums the clients' words in."""
        raise NotImplementedError

    def check_simulation(self, *, clients: int, word_bits: int | None, layered: bool) -> None:
        """Refuse (one line, :class:`~itsa.exceptions.InvalidOption`), before any work, a simulation the
        protocol cannot run for ``clients`` in the file's word (``word_bits``; ``None``: sized by the plan)
        or a layering."""
        raise InvalidOption(f"simulate: {self.name} has no simulated round (the plan's keys section bounds it)")

    def simulation(self, keys: ProtocolKeys, setup: dict, *, word_bits: int, seed: int, time_limit) -> dict:
        """The simulation setup's fields with the protocol's round for its ``keys`` section in the plan's
        ``word_bits`` (``protocol``, and the modulus or dropout it imposes; checked by
        :meth:`check_simulation` first); the run has ``describe``, ``check_setup``, ``seconds``, ``sum`` and
        ``stats`` (:mod:`itsa.planning.protocols.run`)."""
        raise InvalidOption(f"simulate: {self.name} has no simulated round (the plan's keys section bounds it)")
