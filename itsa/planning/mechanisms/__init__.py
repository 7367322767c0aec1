"""The plan's noise mechanisms: one module each, found here; the planner asks the registry.

Every module of this package (``base`` aside) that defines a
:class:`NoiseMechanism` registers it by being here: nothing in this file
names one. ``Mechanism`` is the vocabulary (the deployment file's words),
built from the registry; :func:`mechanism` turns a word into its
:class:`NoiseMechanism` (an unknown one is one line). The registry's order
is the order the plan compares them: the default first, then those the plan
compares when the file names none (``auto``), then the rest, each by name.
To add a mechanism, see docs/architecture.md ("Add a noise mechanism to the
plan").

Examples
--------
>>> registered()[0].name, mechanism("dgauss").describe(central=True)
('dgauss', 'discrete Gaussian')
>>> Mechanism("dgauss") is DEFAULT
True
"""

from __future__ import annotations

import importlib
import pkgutil
from enum import StrEnum
from fractions import Fraction

from itsa._util.checks import choice
from itsa.planning.mechanisms.base import NoiseMechanism, Premises

__all__ = ["Mechanism", "NoiseMechanism", "Premises", "REGISTRY", "DEFAULT", "mechanism", "registered"]

#: The mechanism when none is named and none was picked yet (its file word).
DEFAULT_NAME = "dgauss"


def _found() -> list[NoiseMechanism]:
    """One instance of every mechanism a module of this package defines, in the plan's order."""
    for module in sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name != "base"):
        importlib.import_module(f"{__name__}.{module}")
    rooms = {cls.name: cls() for cls in NoiseMechanism.__subclasses__() if cls.__module__.startswith(__name__ + ".")}
    return sorted(rooms.values(), key=lambda m: (m.name != DEFAULT_NAME, not m.auto, m.name))


#: Every mechanism of the plan, by its file word, in the order the plan compares them.
REGISTRY: dict[str, NoiseMechanism] = {m.name: m for m in _found()}

#: Which noise (the deployment file's word; ``None`` in a file: the plan picks): a member per registered
#: mechanism, its name the word in capitals (``Mechanism.DGAUSS``).
Mechanism = StrEnum("Mechanism", [(name.upper(), name) for name in REGISTRY])  # type: ignore[misc]
Mechanism.__doc__ = "Which noise (the deployment file's word; ``None`` in a file: the plan picks)."

#: The mechanism when none is named and none was picked yet.
DEFAULT = Mechanism(DEFAULT_NAME)


def mechanism(name) -> NoiseMechanism:
    """The registered mechanism of ``name`` (a :class:`Mechanism` or its text); unknown: one line, exit 2."""
    return REGISTRY[str(choice("mechanism", name if name is not None else DEFAULT, Mechanism))]


def registered() -> list[NoiseMechanism]:
    """Every registered mechanism, in the plan's order."""
    return list(REGISTRY.values())


def never_wrap_fix(current: NoiseMechanism) -> str:
    """What an overflow target of 0 asks of ``current``'s noise, in words ("" when its shares are bounded).

    >>> never_wrap_fix(mechanism("dgauss")).startswith("only noise of bounded support")
    True
    """
    if current.largest_share(Fraction(1)) is not None:
        return ""
    bounded = [m.name for m in registered() if m.largest_share(Fraction(1)) is not None]
    return ("only noise of bounded support never wraps: noise mechanism " + " or ".join(bounded) if bounded
            else "no registered noise has bounded support: an overflow target above 0")
