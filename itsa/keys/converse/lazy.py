"""The keys LP without symmetry past the size its rows allow as objects: elemental rows as arrays.

With no symmetry to merge them, the keys LP of ``K`` users has a column per
user set (``2^K - 1``) and ``K(K-1)·2^(K-3) + K`` elemental inequalities: 1.97
million at ``K = 16``, too many to build one :class:`~itsa.keys.converse.lp.Row`
at a time. :class:`ElementalRows` holds them as arrays: the four user sets of
``I(i; j | C) = h(C+i) + h(C+j) - h(C+i+j) - h(C) >= 0`` for every pair
``i < j`` and every ``C`` without them (one array operation per pair), handed
to HiGHS in bulk (:mod:`itsa.keys.converse.solver`). Only the rows a certificate
may use, those the optimal basis holds nonbasic or gives a nonzero dual, are
built as rows, each with its origin, from which the exact check rebuilds it.

The solver does not give HiGHS every row: it separates. It starts from the
*chain rows* (:meth:`ElementalRows.chain_rows`), the rows of chain-rule
proofs: ``I(i; j | C)`` with ``C`` a prefix of an order of the users plus at
most :data:`CHAIN_EXTRA` users, and every ``H(i | rest)``. Shearer's lemma,
``Σ_T w_T h(T) >= h(N)`` for a fractional cover, is proved by
``h(T) = Σ_{i∈T} h(i | T ∩ P_i) >= Σ_{i∈T} h(i | P_i)`` (``P_i`` the users
before ``i``), and the second step costs only such rows. Then it adds the
rows that the optimum violates, checked all at once by :meth:`ElementalRows.slack`
on the vector :func:`upper_fill` completes.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np

from itsa._util.display import user
from itsa.exceptions import InvalidInstance
from itsa.keys.converse.lp import Origin, Row, constraint_rows
from itsa.keys.converse.orbit import OrbitLP, identity_closure, lemma_rows, raw_rows
from itsa.keys.converse.problem import KEYS, EntropyProblem
from itsa.keys.model.instance import Instance

__all__ = ["lazy_lp", "ElementalRows", "MAX_LAZY_USERS", "CHAIN_EXTRA", "upper_fill"]

#: Largest K the array-held LP takes: 2^16 - 1 columns and 1,966,096 elemental rows.
MAX_LAZY_USERS = 16
#: Users a chain row's condition may hold beyond a prefix (:meth:`ElementalRows.chain_rows`).
CHAIN_EXTRA = 2


class ElementalRows:
    """Every elemental inequality of the keys LP on all user sets, as arrays (module notes)."""

    def __init__(self, K: int, column_of: np.ndarray):
        self.K = K
        self.column_of = column_of
        sets, pairs = [], []
        for i in range(K):
            for j in range(i + 1, K):
                C = _without(np.arange(1 << (K - 2), dtype=np.int64), i, j)
                sets.append(np.stack([C | 1 << i, C | 1 << j, C | 1 << i | 1 << j, C], axis=1))
                pairs.append(np.full(len(C), i * K + j, dtype=np.int32))
        full = (1 << K) - 1
        rest = np.array([full & ~(1 << i) for i in range(K)], dtype=np.int64)
        sets.append(np.stack([np.full(K, full), rest, rest, rest], axis=1))   # H(i | rest): h(N) - h(N - i)
        pairs.append(-1 - np.arange(K, dtype=np.int32))
        self.sets = np.concatenate(sets)
        self.pair = np.concatenate(pairs)          # i*K + j, or -1 - i for H(i | rest)
        self.n = len(self.sets)
        #: Each row's coefficients on its four sets: ``+1 +1 -1 -1``, or ``+1 -1`` for ``H(i | rest)``.
        self.values = np.tile(np.array([1.0, 1.0, -1.0, -1.0]), (self.n, 1))
        self.values[-K:] = [1.0, -1.0, 0.0, 0.0]
        #: The rows the separation starts from (:meth:`chain_rows` of the forward and reverse orders).
        self.seed = self.chain_rows([list(range(K)), list(range(K))[::-1]])
        self.built: dict[int, int] = {}

    def add_to(self, h, which: np.ndarray) -> None:
        """Add the rows ``which`` (array indices) to the HiGHS model ``h`` (as ``>= 0``)."""
        import highspy

        which = np.asarray(which)
        cols = self.column_of[self.sets[which]] - 1                # -1: the empty set
        vals = self.values[which]
        keep = (cols >= 0) & (vals != 0)
        starts = np.concatenate(([0], np.cumsum(keep.sum(axis=1))[:-1])).astype(np.int32)
        h.addRows(len(which), np.zeros(len(which)), np.full(len(which), highspy.kHighsInf), int(keep.sum()),
                  starts, cols[keep].astype(np.int32), vals[keep])

    def chain_rows(self, orders, extra: int = CHAIN_EXTRA) -> np.ndarray:
        """The rows ``I(i; j | C)`` whose ``C`` is a prefix of one of ``orders`` with at most ``extra``
        users added, and every ``H(i | rest)``: the rows of chain-rule proofs (module notes)."""
        K = self.K
        chains = np.zeros(1 << K, dtype=bool)
        for order in orders:
            prefix = 0
            for u in [None, *order]:
                prefix |= 0 if u is None else 1 << u
                rest = [1 << v for v in range(K) if not prefix >> v & 1]
                for r in range(extra + 1):
                    for added in itertools.combinations(rest, r):
                        chains[prefix | sum(added)] = True
        return np.flatnonzero(chains[self.sets[:, 3]] | (self.pair < 0))

    def slack(self, values: np.ndarray) -> np.ndarray:
        """Every row's left side at the entropy vector ``values`` (indexed by user set)."""
        return (values[self.sets] * self.values).sum(axis=1)

    def sets_of(self, which: np.ndarray) -> np.ndarray:
        """The user sets the rows ``which`` name."""
        return self.sets[np.asarray(which)].ravel()

    def materialise(self, which, lp: OrbitLP) -> list[int]:
        """The rows ``which`` (array indices) built into ``lp.rows``, once each; their indices there."""
        out = []
        for t in np.asarray(which).tolist():
            k = self.built.get(t)
            if k is None:
                k = self.built[t] = self._append(t, lp)
                lp.sizes["rows_built"] = lp.sizes.get("rows_built", 0) + 1
            out.append(k)
        return out

    def _append(self, t: int, lp: OrbitLP) -> int:
        a, b, ab, C = (int(v) for v in self.sets[t])
        p = int(self.pair[t])
        terms: tuple[tuple[int, int], ...]
        if p < 0:
            i, j, terms = -1 - p, -1, ((a, 1), (b, -1))
            C = b
        else:
            i, j, terms = p // self.K, p % self.K, ((a, 1), (b, 1), (ab, -1), (C, -1))
        acc: dict[int, int] = {}
        for s, w in terms:
            o = int(self.column_of[s])
            if o:
                acc[o] = acc.get(o, 0) + w
        lp.rows.append(Row(tuple(sorted((o, w) for o, w in acc.items() if w)), ">=", Fraction(0),
                           (Origin.SHANNON, C, i, j)))
        return len(lp.rows) - 1


def upper_fill(values: np.ndarray, known: np.ndarray) -> np.ndarray:
    """``values`` on the ``known`` user sets, and on each other set the least value of a known superset.

    The entropy vector a separation round checks: the LP's columns that no row
    in it names are free, so their own values say nothing. ``values`` and
    ``known`` are indexed by user set; the set of all users must be known.
    """
    n = len(values)
    least = np.where(known, values, np.inf)        # then the least over known supersets, bit by bit
    masks = np.arange(n)
    for bit in (1 << i for i in range(n.bit_length() - 1)):
        low = masks[(masks & bit) == 0]
        least[low] = np.minimum(least[low], least[low | bit])
    return np.where(known, values, least)


def _without(a: np.ndarray, i: int, j: int) -> np.ndarray:
    """Spread the bits of ``a`` over the positions other than ``i < j``: every set without ``i`` and ``j``."""
    low = a & ((1 << i) - 1)
    mid = (a >> i) & ((1 << (j - i - 1)) - 1)
    high = a >> (j - 1)
    return low | (mid << (i + 1)) | (high << (j + 1))


def lazy_lp(instance: Instance) -> OrbitLP:
    """The keys LP of ``instance`` without symmetry, its elemental rows held as arrays.

    Raises
    ------
    InvalidInstance
        Past :data:`MAX_LAZY_USERS` users.

    Examples
    --------
    >>> from itsa import examples
    >>> lp = lazy_lp(examples.load("example-1"))
    >>> lp.n_columns, lp.implicit.n              # K = 7: 2^7 - 1 columns, 7·6·2^4 + 7 rows
    (127, 679)
    """
    K = instance.K
    if K > MAX_LAZY_USERS:
        raise InvalidInstance(f"the keys LP without symmetry takes at most {MAX_LAZY_USERS} users; "
                              f"this instance has K = {K}")
    cells = tuple((i,) for i in range(K))
    n = 1 << K
    masks = np.arange(n, dtype=np.int64)
    reps = masks[np.lexsort((masks, np.bitwise_count(masks)))]
    column_of = np.zeros(n, dtype=np.int64)
    column_of[reps] = np.arange(n)

    def orbit(mask: int) -> int:
        return int(column_of[mask])
    cons, origins = lemma_rows(instance, cells, orbit)
    names = tuple(f"Z{user(*instance.label(i))}" for i in range(K))
    problem = EntropyProblem(names=names, dependencies=(), constraints=tuple(cons),
                             objective=((instance.full_mask, Fraction(1)),), generators=(), method="keys",
                             keys=tuple(range(K)), kind=KEYS)
    lp = OrbitLP(problem=problem, closure=identity_closure, orbit_of={}, representatives=reps.tolist(), orbit_sizes=[],
                 rows=[], objective={}, instance=instance, cells=cells, radix=[2] * K, column_of=column_of,
                 lemma_origins=tuple(origins))
    lp.rows = constraint_rows(lp) + [Row(((o, 1),), ">=", Fraction(0), (Origin.NONNEG, int(reps[o])))
                                      for o in range(1, n)]
    lp.objective = lp.coords(problem.objective)
    lp.implicit = ElementalRows(K, column_of)
    lp.sizes = {"variables": K, "columns_raw": n - 1, "rows_raw": raw_rows(K), "columns_closure": n - 1,
                "columns": n - 1, "rows": len(cons) + raw_rows(K), "rows_built": len(cons),
                "group_generators": 0, "cells": K, "count_vectors": n,
                "rows_seeded": len(cons) + len(lp.implicit.seed),
                "columns_seeded": int(np.unique(lp.implicit.sets_of(lp.implicit.seed)).size)}
    return lp
