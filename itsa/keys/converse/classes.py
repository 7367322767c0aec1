"""What a converse LP is: its entry type (:class:`ConverseClass`) and the lemmas proofs cite.

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
  planes (:mod:`itsa.keys.converse.linear`). Its bound holds for every scheme
  whose keys are linear functions of the source key (any encoders); ``solve``
  does not run it by default.

The names the LPs had before the group lemma was proved for every encoder,
``additive`` (now ``keys``) and ``general`` (now ``model``), are accepted as
aliases by :func:`lookup`.

Each entry is defined beside its builder (``KEYS`` and ``MODEL`` in
:mod:`itsa.keys.converse.problem`, ``LINEAR`` in :mod:`itsa.keys.converse.linear`);
:mod:`itsa.keys.converse.registry` collects them. Adding an LP is one entry and its
builder, named in ``registry.REGISTRY``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


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
    "itsa/keys/converse/linear.py",
)

#: The schemes the ``linear`` LP's bound holds for.
LINEAR_KEYS = "every scheme whose keys are linear functions of the source key (any encoders and relays)"

INJECTIVITY_LEMMA = Lemma(
    "Decodability lemma",
    "In every correct scheme W_i is a function of (X_i, Z_i) for every user i.",
    "docs/converse.md §2",
)


@dataclass(kw_only=True, frozen=True)
class ConverseClass:
    """One converse LP: how it is built, how far it reaches, what its bound covers."""

    name: str
    builder: Callable[[Any], Any]    # instance -> its EntropyProblem for this LP
    max_users: int          # the largest K accepted (keys: the orbit count is the real limit)
    scope: str              # the schemes its bound holds for
    description: str
    lemmas: tuple[Lemma, ...]
    alias: str | None = None    # the name it had before
    runner: Callable[..., Any] | None = None   # its own solve (-> ConverseBound), if not the generic one
    in_solve: bool = True       # whether itsa.solve runs it by default

    def build(self, instance):
        """The :class:`~itsa.keys.converse.problem.EntropyProblem` of this LP for ``instance``."""
        return self.builder(instance)
