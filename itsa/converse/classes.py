"""The converse LPs itsa can build: one registry entry each, the one home of their facts.

A converse *LP* is a way of writing the problem (which random variables, which
constraints); the *scope* of its bound is the set of schemes the bound holds
for. Both LPs below bound every scheme of the model (docs/model.md §1):

* ``keys``: one variable per key, the **general group lemma** and Shannon
  inequalities on the keys (docs/converse.md §3). The group lemma holds for
  any encoders, relays and keys, so this small LP is a theorem about every
  scheme. It is the default.
* ``model``: every variable of the model (inputs, keys, messages, relays),
  the model's own constraints and Shannon inequalities (docs/converse.md §2).
  Large (``2^(3K+U+1)`` coordinates before reduction); kept as an independent
  cross-check of ``keys`` on small instances.
* ``linear``: ``keys`` plus Ingleton's inequality among the keys, as cutting
  planes (:mod:`itsa.converse.linear`). Its bound holds for every scheme
  whose keys are linear functions of the source key (any encoders); ``solve``
  does not run it by default.

The names the LPs had before the group lemma was proved for every encoder,
``additive`` (now ``keys``) and ``general`` (now ``model``), are accepted as
aliases by :func:`lookup`.

Adding an LP is one :class:`ConverseClass` entry in :data:`REGISTRY` plus its
builder in :mod:`itsa.converse.problem`.
"""

from __future__ import annotations

from dataclasses import dataclass

from itsa.bounds.corrected import EVERY_SCHEME
from itsa.exceptions import InvalidOption


@dataclass(frozen=True)
class Lemma:
    """A result a proof cites, stated in full once at the top of the proof."""

    name: str
    statement: str
    where: str


GROUP_LEMMA = Lemma(
    "General group lemma",
    "Fix a server k, a security set S_m and a collusion set T_n. The groups of (k, m, n) are "
    "{i} for every user i of server k outside T_n, and K_u \\ T_n for every other server u "
    "with K_u ⊄ T_n; a group is pure if it lies inside S_m. For every union Y of groups, in "
    "every correct and secure scheme (any encoders X_i = f_i(W_i, Z_i), any relays "
    "Y_u = g_u(X_(u,·)), any keys): H(Z_Y | Z_(T_n)) ≥ gain · L, where, with P the pure "
    "groups inside Y and R the groups not inside Y, gain = |P| − 1 if R is empty and every "
    "group is pure; |P| + 1 if R is non-empty, every group of R is pure and some impure group "
    "lies inside Y; |P| otherwise.",
    "docs/converse.md §3",
)

INGLETON = Lemma(
    "Ingleton's inequality",
    "For keys that are linear functions of a uniform source over a field (so that the entropy of "
    "a set of keys is the dimension of the span of their coefficient rows), and any four sets "
    "A, B, C, D of keys: I(A; B) ≤ I(A; B | C) + I(A; B | D) + I(C; D).",
    "itsa/converse/linear.py",
)

#: The schemes the ``linear`` LP's bound holds for.
LINEAR_KEYS = "every scheme whose keys are linear functions of the source key (any encoders and relays)"

INJECTIVITY_LEMMA = Lemma(
    "Decodability lemma",
    "In every correct scheme W_i is a function of (X_i, Z_i) for every user i.",
    "docs/converse.md §2",
)


@dataclass(frozen=True)
class ConverseClass:
    """One converse LP: how it is built, how far it reaches, what its bound covers."""

    name: str
    builder: str            # the name of its builder in itsa.converse.problem
    max_users: int          # the largest K accepted (keys: the orbit count is the real limit)
    scope: str              # the schemes its bound holds for
    description: str
    lemmas: tuple[Lemma, ...]
    alias: str | None = None    # the name it had before
    runner: str | None = None   # "module:function" of itsa.converse that solves it, if not the generic one
    in_solve: bool = True       # whether itsa.solve runs it by default

    def build(self, instance):
        """The :class:`~itsa.converse.problem.EntropyProblem` of this LP for ``instance``."""
        from itsa.converse import problem

        return getattr(problem, self.builder)(instance)


#: Every converse LP, cheapest first (the order ``solve`` runs them in).
REGISTRY: dict[str, ConverseClass] = {c.name: c for c in (
    ConverseClass("keys", "keys_problem", 64, EVERY_SCHEME,
                  "key entropies with the general group lemma", (GROUP_LEMMA,), "additive"),
    ConverseClass("model", "model_problem", 4, EVERY_SCHEME,
                  "every variable of the model with its own constraints", (INJECTIVITY_LEMMA,),
                  "general"),
    ConverseClass("linear", "keys_problem", 12, LINEAR_KEYS,
                  "key entropies with the general group lemma and Ingleton's inequality",
                  (GROUP_LEMMA, INGLETON), runner="linear:linear_converse", in_solve=False),
)}

#: The names of :data:`REGISTRY`, cheapest first.
CLASSES: tuple[str, ...] = tuple(REGISTRY)

#: The LPs ``itsa.solve`` runs by default, cheapest first.
SOLVE_CLASSES: tuple[str, ...] = tuple(n for n, c in REGISTRY.items() if c.in_solve)

#: Old names, still accepted.
ALIASES = {c.alias: c.name for c in REGISTRY.values() if c.alias}


def lookup(name: str) -> ConverseClass:
    """The registry entry of ``name`` (an LP name or an old alias).

    >>> lookup("additive").name, lookup("keys").max_users
    ('keys', 64)
    """
    entry = REGISTRY.get(ALIASES.get(name, name))
    if entry is None:
        raise InvalidOption(f"unknown converse LP {name!r}; choose from {', '.join(CLASSES)}")
    return entry


def scope_of(name: str) -> str:
    """The schemes a lower bound recorded under ``name`` holds for.

    ``name`` is a converse LP (or its old name), ``"corrected"`` (the chain
    bound of :mod:`itsa.bounds.corrected`) or ``"general"``, as census tables and JSON
    record them.

    >>> scope_of("additive") == scope_of("corrected") == EVERY_SCHEME
    True
    """
    if name in ("corrected", "general"):
        return EVERY_SCHEME
    return lookup(name).scope
