"""Every converse LP itsa can run, by name: the one home of the registry.

The entries are defined beside their builders (:data:`~itsa.keys.converse.problem.KEYS`,
:data:`~itsa.keys.converse.problem.MODEL`, :data:`~itsa.keys.converse.linear.LINEAR`);
this module only collects them, cheapest first, and looks them up by name or
by the name an LP had before (``additive`` is now ``keys``, ``general`` is
now ``model``).

>>> lookup("additive").name, lookup("keys").max_users
('keys', 64)
>>> CLASSES
('keys', 'model', 'linear')
"""

from __future__ import annotations

from itsa._util.checks import choice, unknown
from itsa.exceptions import InvalidOption
from itsa.keys.bounds.corrected import EVERY_SCHEME
from itsa.keys.converse.classes import LINEAR_KEYS, ConverseClass
from itsa.keys.converse.linear import LINEAR
from itsa.keys.converse.problem import KEYS, MODEL, EntropyProblem
from itsa.keys.model.instance import Instance

__all__ = ["REGISTRY", "CLASSES", "SOLVE_CLASSES", "ALIASES", "SCOPE_NAMES", "lookup", "resolve", "scope_of",
           "scope_name", "build_problem"]

#: Every converse LP, cheapest first (the order ``solve`` runs them in).
REGISTRY: dict[str, ConverseClass] = {c.name: c for c in (KEYS, MODEL, LINEAR)}

#: The names of :data:`REGISTRY`, cheapest first.
CLASSES: tuple[str, ...] = tuple(REGISTRY)

#: The LPs ``itsa.solve`` runs by default, cheapest first.
SOLVE_CLASSES: tuple[str, ...] = tuple(n for n, c in REGISTRY.items() if c.in_solve)

#: Old names, still accepted.
ALIASES = {c.alias: c.name for c in REGISTRY.values() if c.alias}


def lookup(name: str) -> ConverseClass:
    """The registry entry of ``name`` (an LP name or an old alias)."""
    entry = REGISTRY.get(ALIASES.get(name, name))
    if entry is None:
        raise InvalidOption(unknown("converse LP", name, CLASSES))
    return entry


def scope_of(name: str | None) -> str | None:
    """The schemes a lower bound recorded under ``name`` holds for (``None`` for none).

    ``name`` is a converse LP (or its old name), ``"corrected"`` (the chain
    bound of :mod:`itsa.keys.bounds.corrected`) or ``"general"``, as census tables
    and JSON record them; a name no LP has (from a newer table) is named as it is.
    Census reports and ``itsa solve`` take scopes from here, so that they never
    disagree on what was proved.

    >>> scope_of("additive") == scope_of("corrected") == EVERY_SCHEME, scope_of(None)
    (True, None)
    >>> scope_of("tomorrow")
    'lower-bound class tomorrow'
    """
    if name is None:
        return None
    if name in ("corrected", "general"):
        return EVERY_SCHEME
    entry = REGISTRY.get(ALIASES.get(name, name))
    return entry.scope if entry is not None else f"lower-bound class {name}"


#: A short name for each scope, for the places a whole sentence does not fit (figure axes):
#: the head of the sentence, which the report prints in full beside it.
SCOPE_NAMES = {EVERY_SCHEME: "every scheme", LINEAR_KEYS: "linear keys"}


def scope_name(scope: str) -> str:
    """The short name of ``scope`` (:data:`SCOPE_NAMES`), or the scope itself if it has none.

    >>> scope_name(EVERY_SCHEME)
    'every scheme'
    """
    return SCOPE_NAMES.get(scope, scope)


def resolve(lp: str | None, old_name: str | None = None) -> ConverseClass:
    """The LP named by ``lp`` or by its old name ``old_name`` (the keys LP when neither is given).

    >>> resolve(None, "general").name, resolve(None).name
    ('model', 'keys')
    >>> resolve("keys", "general")
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOption: the old name general is the model LP, not the keys LP
    """
    if old_name is not None:
        choice("old LP name", old_name, ALIASES)
        if lp is not None and ALIASES[old_name] != lookup(lp).name:
            raise InvalidOption(f"the old name {old_name} is the {ALIASES[old_name]} LP, not the {lookup(lp).name} LP")
    return lookup(lp or (ALIASES[old_name] if old_name else KEYS.name))


def build_problem(instance: Instance, method: str) -> EntropyProblem:
    """The problem of the converse LP ``method`` (a name of :data:`CLASSES`, or an old alias)."""
    return lookup(method).build(instance)
