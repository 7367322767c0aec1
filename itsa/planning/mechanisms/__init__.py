"""The plan's noise mechanisms: one module each, registered here by name; the planner asks the registry.

``Mechanism`` is the vocabulary (the deployment file's words), built from the
registry; :func:`mechanism` turns a word into its :class:`NoiseMechanism`
(an unknown one is one line). To add a mechanism, see docs/architecture.md
("Add a noise mechanism").

Examples
--------
>>> [m.name for m in registered()]
['dgauss', 'skellam', 'binomial']
>>> mechanism("dgauss").describe(central=True)
'discrete Gaussian'
"""

from __future__ import annotations

from enum import StrEnum

from itsa._util.checks import choice
from itsa.planning.mechanisms.base import NoiseMechanism, Premises
from itsa.planning.mechanisms.binomial import Binomial
from itsa.planning.mechanisms.dgauss import DiscreteGaussian
from itsa.planning.mechanisms.skellam import Skellam

__all__ = ["Mechanism", "NoiseMechanism", "Premises", "REGISTRY", "DEFAULT", "mechanism", "registered"]

#: Every mechanism of the plan, by its file word, in the order the plan compares them.
REGISTRY: dict[str, NoiseMechanism] = {m.name: m for m in (DiscreteGaussian(), Skellam(), Binomial())}


class Mechanism(StrEnum):
    """Which noise (the deployment file's word; ``None`` in a file: the plan picks)."""

    DGAUSS = "dgauss"               # discrete Gaussian (distributed: the sharp bound of its paper)
    SKELLAM = "skellam"             # Skellam (a sum of Skellam shares is Skellam: no tau)
    BINOMIAL = "binomial"           # centred fair coins (bounded support: a word that never wraps)


#: The mechanism when none is named and none was picked yet.
DEFAULT = Mechanism.DGAUSS


def mechanism(name) -> NoiseMechanism:
    """The registered mechanism of ``name`` (a :class:`Mechanism` or its text); unknown: one line, exit 2."""
    return REGISTRY[str(choice("mechanism", name if name is not None else DEFAULT, Mechanism))]


def registered() -> list[NoiseMechanism]:
    """Every registered mechanism, in the plan's order."""
    return list(REGISTRY.values())
