"""Published closed forms for families of instances, recognised from the sets.

Only the homogeneous family is known to itsa so far: ``U`` servers with ``V``
users each, every input protected (the full set is a security set), and the
collusion sets are exactly all sets of at most ``t`` users. Its optimal
source key rate is ``min{U+V+t-2, UV-1}`` (Li, Zhang, Wan, Sun, Ji, Caire,
arXiv 2601.06836; docs/model.md §6.3).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import comb

from itsa.keys.model.instance import Instance

HOMOGENEOUS_SOURCE = "arXiv 2601.06836 (Li, Zhang, Wan, Sun, Ji, Caire): min{U+V+t-2, UV-1}"


@dataclass(frozen=True, repr=False)
class KnownOptimum:
    """An external result that applies to an instance."""

    family: str
    parameters: dict
    value: Fraction
    source: str

    def __repr__(self) -> str:
        return f"<KnownOptimum {self.value} ({self.family} {self.parameters}; {self.source})>"

    def to_dict(self) -> dict:
        """Plain data: the family, its parameters, the value and its source."""
        return {"family": self.family, "parameters": dict(self.parameters), "value": str(self.value),
                "source": self.source}

def homogeneous_parameters(instance: Instance) -> tuple[int, int, int] | None:
    """``(U, V, t)`` if the instance is in the homogeneous family, else ``None``.

    Recognised from the sets, not the name: equal ``V_u``; ``K`` itself is one
    of the security sets (protecting every input implies protecting every
    subset); the distinct collusion sets are exactly the sets of size ``<= t``.

    >>> from itsa import examples
    >>> homogeneous_parameters(examples.load("homogeneous-U3-V2-t1"))
    (3, 2, 1)
    """
    V = instance.servers[0]
    if any(v != V for v in instance.servers):
        return None
    if instance.full_mask not in instance.security_sets:
        return None
    distinct = set(instance.collusion_sets)
    t = max(x.bit_count() for x in distinct)
    if len(distinct) != sum(comb(instance.K, r) for r in range(t + 1)):
        return None
    return instance.U, V, t


def known_optimum(instance: Instance) -> KnownOptimum | None:
    """The published optimal source key rate, where one applies."""
    params = homogeneous_parameters(instance)
    if params is None:
        return None
    U, V, t = params
    value = Fraction(min(U + V + t - 2, U * V - 1))
    return KnownOptimum("homogeneous", {"U": U, "V": V, "t": t}, value, HOMOGENEOUS_SOURCE)
