"""Orbit LPs for the key-entropy problem: one column per orbit of key subsets, never 2^K.

The keys LP (:func:`~itsa.keys.converse.problem.keys_problem`)
has one variable ``Z_k`` per user and no dependencies, so its plain LP has a
column for every one of the ``2^K`` user sets. Symmetric instances need far
fewer: the LP may be restricted to vectors that are constant on the orbits
of the instance's automorphism group (averaging over the group keeps a
feasible vector feasible and the objective fixed), and the orbits are found
here from the group itself.

**Twins and cells.** Users ``i`` and ``j`` are *twins* when the transposition
``(i j)`` is an automorphism. Twinship is an equivalence relation (``(i k) =
(i j)(j k)(i j)``); its classes are the *cells*, and the product of the
symmetric groups on the cells is a subgroup of the automorphism group. Two
user sets with the same number of users in every cell (the same *count
vector*) are in one orbit of that subgroup. Every automorphism maps cells onto
cells, so the generators nauty returns act on count vectors; the orbits of
user sets are the connected components of that action, computed on the
``Π (|cell| + 1)`` count vectors (495 orbits for 4 servers of 8 users).

**Rows.** One elemental inequality ``I(i; j | C) >= 0`` per column
representative ``C`` and pair of cells of ``i`` and ``j`` (every elemental
inequality is the image of one of these under the group), ``H(i | rest) >= 0``
per cell, and the group-lemma rows of one configuration ``(k, m, n)`` per
class of configurations with the same number of users of each cell in ``K_k``,
``S_m`` and ``T_n`` (such configurations are images of one another), with
``Y`` chosen up to twins outside ``T_n``. Rows that coincide in orbit
coordinates are merged; each keeps its origin, from which the exact check
rebuilds it.

**Check.** :meth:`OrbitLP.check_structure` verifies, without enumerating user
sets: every cell transposition and every generator is an automorphism of the
instance, every generator maps cells onto cells, the columns are exactly the
orbits of count vectors under the generators, and every lemma row is rebuilt
from its configuration and ``Y`` (gain included) through :mod:`itsa.keys.bounds.corrected`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product

import numpy as np

from itsa._util.bitset import mask_of
from itsa._util.display import user
from itsa.exceptions import InvalidInstance, VerificationError
from itsa.keys.bounds.corrected import structure
from itsa.keys.converse.lp import Origin, ReducedLP, Row
from itsa.keys.converse.problem import KEYS, Constraint, EntropyProblem, sets_text
from itsa.keys.converse.symmetry import instance_automorphisms, is_automorphism
from itsa.keys.model.instance import Instance

#: Largest number of count vectors (``Π (|cell| + 1)``) the orbit search handles.
MAX_COUNT_VECTORS = 3_000_000
#: Largest ``columns × pairs of cells`` (the elemental rows generated) the orbit LP accepts:
#: 4 servers of 16 users give 48,440; no symmetry at K = 13 gives 745,472, at K = 14 1.7 million.
MAX_PAIR_ROWS = 1_000_000

__all__ = ["OrbitLP", "twin_cells", "orbit_lp", "orbit_count"]


def _swap_is_automorphism(instance: Instance, i: int, j: int) -> bool:
    """Whether the transposition ``(i j)`` of users maps the instance to itself."""
    both = (1 << i) | (1 << j)

    def closed(family, allowed) -> bool:
        return all(s ^ both in allowed for s in family if (s >> i ^ s >> j) & 1)
    servers = set(instance.server_masks)
    return (closed(instance.server_masks, servers)
            and closed(instance.security_sets, set(instance.security_sets))
            and closed(instance.collusion_sets, set(instance.collusion_sets)))


def twin_cells(instance: Instance) -> tuple[tuple[int, ...], ...]:
    """The classes of users that any transposition inside a class maps the instance to itself.

    Examples
    --------
    >>> from itsa import examples
    >>> twin_cells(examples.homogeneous(2, 3, 1))
    ((0, 1, 2), (3, 4, 5))
    """
    cells: list[list[int]] = []
    for i in range(instance.K):
        for cell in cells:
            if _swap_is_automorphism(instance, cell[0], i):
                cell.append(i)
                break
        else:
            cells.append([i])
    return tuple(tuple(c) for c in cells)


def _cell_action(gen: tuple[int, ...], cells, cell_of) -> tuple[int, ...] | None:
    """The permutation of cells a user permutation induces, or ``None`` if it does not map cells to cells."""
    out = []
    for c in cells:
        target = cell_of[gen[c[0]]]
        if sorted(cell_of[gen[i]] for i in c) != [target] * len(c) or len(cells[target]) != len(c):
            return None
        out.append(target)
    return tuple(out)


def _components(radix: list[int], actions) -> np.ndarray:
    """Label of every count vector: the smallest index of its orbit under the cell permutations."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n = int(np.prod(radix, dtype=np.int64))
    weights = np.cumprod([1] + radix[:-1]).astype(np.int64)
    idx = np.arange(n, dtype=np.int64)
    digits = [(idx // w) % r for w, r in zip(weights, radix)]
    src, dst = [], []
    for act in actions:
        img = sum(d * weights[act[j]] for j, d in enumerate(digits))
        moved = img != idx
        src.append(idx[moved])
        dst.append(img[moved])
    if not src or not sum(len(s) for s in src):
        return idx
    s, d = np.concatenate(src), np.concatenate(dst)
    graph = coo_matrix((np.ones(len(s), dtype=np.int8), (s, d)), shape=(n, n))
    _, comp = connected_components(graph, directed=False)
    smallest = np.full(comp.max() + 1, n, dtype=np.int64)
    np.minimum.at(smallest, comp, idx)
    return smallest[comp]


@dataclass(kw_only=True)
class OrbitLP(ReducedLP):
    """A :class:`~.lp.ReducedLP` whose columns are orbits of count vectors (module notes)."""

    instance: Instance
    cells: tuple[tuple[int, ...], ...] = ()
    radix: list[int] = field(default_factory=list)
    column_of: np.ndarray                      # count-vector index -> column (0: the empty set)
    lemma_origins: tuple[tuple, ...] = ()      # per constraint: ((k, m, n), Y)

    def index(self, mask: int) -> int:
        """The count vector of a user set, as a mixed-radix index."""
        return _count_index(mask, self.cell_masks, self.radix)

    @property
    def cell_masks(self) -> list[int]:
        return [mask_of(c) for c in self.cells]

    def orbit(self, mask: int) -> int:
        return int(self.column_of[self.index(mask)])

    def check_structure(self) -> None:
        """Raise :class:`VerificationError` unless the columns and lemma rows are what they claim."""
        inst, cells = self.instance, self.cells
        if sorted(i for c in cells for i in c) != list(range(inst.K)):
            raise VerificationError("the cells do not partition the users")
        for c in cells:
            for i in c[1:]:
                if not _swap_is_automorphism(inst, c[0], i):
                    raise VerificationError(f"users {c[0]} and {i} are not twins")
        if list(self.radix) != [len(c) + 1 for c in cells]:
            raise VerificationError("the count vectors' radix does not match the cells")
        cell_of = {i: n for n, c in enumerate(cells) for i in c}
        actions = []
        for g in self.problem.generators:
            if len(g) != inst.K or sorted(g) != list(range(inst.K)):
                raise VerificationError(f"symmetry {g} is not a permutation of the users")
            moved = [i for i in range(inst.K) if g[i] != i]
            ok = (_swap_is_automorphism(inst, *moved) if len(moved) == 2 and g[moved[0]] == moved[1]
                  else is_automorphism(inst, g))
            act = _cell_action(g, cells, cell_of) if ok else None
            if act is None:
                raise VerificationError(f"symmetry {g} is not an automorphism mapping cells to cells")
            actions.append(act)
        if int(self.column_of[0]) != 0:
            raise VerificationError("column 0 is not the empty set's")
        fresh = _components(self.radix, actions)
        pairs = set(zip(self.column_of.tolist(), fresh.tolist()))
        if len(pairs) != len({a for a, _ in pairs}) or len(pairs) != len({b for _, b in pairs}):
            raise VerificationError("the LP's orbits are not those of the symmetry group")
        if len(self.problem.constraints) != len(self.lemma_origins):
            raise VerificationError("a constraint of the LP is not a group-lemma row it can rebuild")
        for con, (cfg, Y) in zip(self.problem.constraints, self.lemma_origins):
            if con != _lemma_constraint(inst, cfg, Y, con.reason):
                raise VerificationError(f"constraint '{con.reason}' is not the group lemma it cites")
        if dict(self.problem.objective) != {inst.full_mask: 1}:
            raise VerificationError("the objective is not H(Z_K)")


def _lemma_constraint(instance: Instance, cfg, Y: int, reason: str) -> Constraint:
    """``H(Z_{Y ∪ T}) - H(Z_T) >= gain(k, m, n; Y)``, rebuilt from the bounds module."""
    st = structure(instance, *cfg)
    form = {Y | st.T: Fraction(1), st.T: Fraction(-1)} if st.T else {Y: Fraction(1)}
    return Constraint(tuple(sorted(form.items())), ">=", Fraction(st.gain(Y)), reason)


def cell_generators(instance: Instance, cells) -> list[tuple[int, ...]]:
    """User permutations that, with the twin transpositions, generate the automorphism group.

    Every family of the instance is a union of orbits of the product of the
    cells' symmetric groups, that is, a set of count vectors. A permutation
    of equal-sized cells that maps each family's count vectors onto
    themselves, lifted in order (the ``r``-th user of a cell to the ``r``-th
    of its image), is then an automorphism, and every automorphism is one of
    these times a product of permutations inside cells. When there are at
    most :data:`MAX_CELL_PERMUTATIONS` candidates they are tried directly
    (far faster than nauty on instances with thousands of collusion sets);
    otherwise nauty's generators are used.
    """
    from itertools import permutations
    from math import factorial, prod

    sizes: dict[int, list[int]] = {}
    for j, c in enumerate(cells):
        sizes.setdefault(len(c), []).append(j)
    if prod(factorial(len(v)) for v in sizes.values()) > MAX_CELL_PERMUTATIONS:
        return [tuple(g) for g in instance_automorphisms(instance)]
    masks = [mask_of(c) for c in cells]
    families = [{tuple((s & m).bit_count() for m in masks) for s in fam}
                for fam in (instance.server_masks, instance.security_sets, instance.collusion_sets)]
    groups = list(sizes.values())
    found: list[tuple[int, ...]] = []
    known = {tuple(range(len(cells)))}
    for choice in product(*(permutations(g) for g in groups)):
        images = list(range(len(cells)))
        for g, img in zip(groups, choice):
            for a, b in zip(g, img):
                images[a] = b
        act = tuple(images)
        if act in known or not all({tuple(v[act.index(j)] for j in range(len(act))) for v in fam} == fam
                                   for fam in families):
            continue
        found.append(act)
        known = _closure(found)
    out = []
    for act in found:
        perm = [0] * instance.K
        for j, c in enumerate(cells):
            for i, k in zip(c, cells[act[j]]):
                perm[i] = k
        out.append(tuple(perm))
    return out


#: Largest number of size-preserving cell permutations tried directly (else nauty).
MAX_CELL_PERMUTATIONS = 5040


def _closure(gens) -> set[tuple[int, ...]]:
    """Every element of the permutation group the ``gens`` generate (small groups only)."""
    seen = {tuple(range(len(gens[0])))}
    todo = list(seen)
    while todo:
        p = todo.pop()
        for g in gens:
            q = tuple(g[i] for i in p)
            if q not in seen:
                seen.add(q)
                todo.append(q)
    return seen


def _prepare(instance: Instance):
    cells = twin_cells(instance)
    cell_of = {i: n for n, c in enumerate(cells) for i in c}
    gens = cell_generators(instance, cells)
    actions = [_cell_action(g, cells, cell_of) for g in gens]
    if any(a is None for a in actions):
        raise VerificationError("an automorphism does not map twin cells to cells")
    radix = [len(c) + 1 for c in cells]
    return cells, gens, actions, radix


class TooManyRows(InvalidInstance):
    """The orbit LP would build more than :data:`MAX_PAIR_ROWS` elemental rows (:mod:`itsa.keys.converse.lazy` may take it)."""


def orbit_count(instance: Instance) -> tuple[int, str | None]:
    """Count vectors of ``instance`` and why the orbit LP is refused (``None`` when it fits)."""
    cells = twin_cells(instance)
    n = 1
    for c in cells:
        n *= len(c) + 1
    if n > MAX_COUNT_VECTORS:
        return n, (f"its symmetry leaves {len(cells)} classes of interchangeable users, "
                   f"{n:,} count vectors (the orbit LP takes at most {MAX_COUNT_VECTORS:,})")
    return n, None


def orbit_lp(instance: Instance) -> OrbitLP:
    """The orbit LP of the key problem of ``instance`` (module notes).

    Raises
    ------
    InvalidInstance
        When the instance has too many orbits (:data:`MAX_COUNT_VECTORS`, :data:`MAX_PAIR_ROWS`).

    Examples
    --------
    >>> from itsa import examples
    >>> lp = orbit_lp(examples.homogeneous(3, 2, 1))
    >>> lp.n_columns, lp.sizes["count_vectors"]
    (9, 27)
    """
    n, why = orbit_count(instance)
    if why:
        raise InvalidInstance(f"the orbit LP is not run: {why}")
    cells, gens, actions, radix = _prepare(instance)
    labels = _components(radix, actions)
    reps = np.unique(labels)
    total = _digit_sum(reps, radix)
    reps = reps[np.lexsort((reps, total))]
    m = len(cells)
    if len(reps) * m * (m + 1) // 2 > MAX_PAIR_ROWS:
        raise TooManyRows(f"the orbit LP is not run: {len(reps) - 1:,} orbits of user sets in "
                              f"{m} classes of interchangeable users give more than "
                              f"{MAX_PAIR_ROWS:,} elemental inequalities")
    col_of_rep = np.zeros(n, dtype=np.int64)
    col_of_rep[reps] = np.arange(len(reps))
    column_of = col_of_rep[labels]
    twins = tuple(_transposition(instance.K, c[0], i) for c in cells for i in c[1:])
    cell_masks = [mask_of(c) for c in cells]

    def orbit(mask: int) -> int:
        return int(column_of[_count_index(mask, cell_masks, radix)])
    cons, origins = lemma_rows(instance, cells, orbit)
    names = tuple(f"Z{user(*instance.label(i))}" for i in range(instance.K))
    problem = EntropyProblem(names=names, dependencies=(), constraints=tuple(cons), objective=((instance.full_mask, Fraction(1)),),
                             generators=tuple(gens) + twins, method="keys", keys=tuple(range(instance.K)), kind=KEYS)
    rep_masks = [_rep_mask(int(r), cells, radix) for r in reps]
    lp = OrbitLP(problem=problem, closure=identity_closure, orbit_of={}, representatives=rep_masks, orbit_sizes=[],
                 rows=[], objective={}, instance=instance, cells=cells,
                 radix=radix, column_of=column_of, lemma_origins=tuple(origins))
    from itsa.keys.converse.lp import constraint_rows
    lp.rows = (_shannon_rows(lp, reps) + constraint_rows(lp)
               + [Row(((o, 1),), ">=", Fraction(0), (Origin.NONNEG, rep_masks[o])) for o in range(1, len(reps))])
    lp.objective = lp.coords(problem.objective)
    lp.sizes = {"variables": instance.K, "columns_raw": (1 << instance.K) - 1,
                "rows_raw": raw_rows(instance.K), "columns_closure": (1 << instance.K) - 1,
                "columns": lp.n_columns, "rows": sum(r.origin[0] != Origin.NONNEG for r in lp.rows),
                "group_generators": len(problem.generators), "cells": len(cells), "count_vectors": n}
    return lp


def _count_index(mask: int, cell_masks: list[int], radix: list[int]) -> int:
    """The count vector of a user set (its number of users in each cell), as a mixed-radix index."""
    out, w = 0, 1
    for c, r in zip(cell_masks, radix):
        out += (mask & c).bit_count() * w
        w *= r
    return out


def raw_rows(n: int) -> int:
    """The elemental Shannon inequalities on ``n`` variables (the LP's rows before reduction)."""
    return n * (n - 1) * 2 ** (n - 3) + n if n >= 3 else n


def identity_closure(mask: int) -> int:
    """The closure of an LP on every user set: each set is its own."""
    return mask


def _transposition(K: int, i: int, j: int) -> tuple[int, ...]:
    perm = list(range(K))
    perm[i], perm[j] = j, i
    return tuple(perm)


def _digits(index: int, radix) -> list[int]:
    out = []
    for r in radix:
        out.append(index % r)
        index //= r
    return out


def _digit_sum(indices: np.ndarray, radix) -> np.ndarray:
    out = np.zeros(len(indices), dtype=np.int64)
    rest = indices.copy()
    for r in radix:
        out += rest % r
        rest //= r
    return out


def _rep_mask(index: int, cells, radix) -> int:
    """The user set with the first ``d_j`` users of every cell ``j``."""
    return mask_of(i for c, d in zip(cells, _digits(index, radix)) for i in c[:d])


def _shannon_rows(lp: OrbitLP, reps: np.ndarray) -> list[Row]:
    """Elemental inequalities, one per representative and pair of cells, merged."""
    cells, radix, col = lp.cells, lp.radix, lp.column_of
    weights = [1]
    for r in radix[:-1]:
        weights.append(weights[-1] * r)
    seen: dict[tuple, Row] = {}
    for r in reps.tolist():
        d = _digits(r, radix)
        C = None
        for a in range(len(cells)):
            for b in range(a, len(cells)):
                need_a = d[a] + (2 if a == b else 1)
                if need_a > len(cells[a]) or d[b] + 1 > len(cells[b]):
                    continue
                acc: dict[int, int] = {}
                for idx, w in ((r + weights[a], 1), (r + weights[b], 1),
                               (r + weights[a] + weights[b], -1), (r, -1)):
                    o = int(col[idx])
                    if o:
                        acc[o] = acc.get(o, 0) + w
                key = tuple(sorted((o, w) for o, w in acc.items() if w))
                if key and key not in seen:
                    C = _rep_mask(r, cells, radix) if C is None else C
                    j = cells[b][d[b] + (1 if a == b else 0)]
                    seen[key] = Row(key, ">=", Fraction(0), (Origin.SHANNON, C, cells[a][d[a]], j))
    full = (1 << sum(len(c) for c in cells)) - 1
    for c in cells:
        rest = full & ~(1 << c[0])
        key = tuple(sorted((o, w) for o, w in ((lp.orbit(full), 1), (lp.orbit(rest), -1)) if o))
        if key not in seen:
            seen[key] = Row(key, ">=", Fraction(0), (Origin.SHANNON, rest, c[0], -1))
    return list(seen.values())


def _signature(instance: Instance, cells_masks, cfg) -> tuple:
    """Users of each cell in each of the 8 combinations of ``K_k``, ``S_m``, ``T_n``."""
    k, m, n = cfg
    K_k, S, T = instance.server_masks[k - 1], instance.security_sets[m - 1], instance.collusion_sets[n - 1]
    out = []
    for c in cells_masks:
        for a in (K_k & c, c & ~K_k):
            for b in (a & S, a & ~S):
                out += [(b & T).bit_count(), (b & ~T).bit_count()]
    return tuple(out)


def lemma_rows(instance: Instance, cells, orbit) -> tuple[list[Constraint], list[tuple]]:
    """Group-lemma constraints, one configuration per signature and ``Y`` up to twins."""
    cell_masks = [mask_of(c) for c in cells]
    cell_of = {i: n for n, c in enumerate(cells) for i in c}
    reps: dict[tuple, tuple] = {}
    for n in range(1, instance.N + 1):
        for m in range(1, instance.M + 1):
            for k in range(1, instance.U + 1):
                reps.setdefault(_signature(instance, cell_masks, (k, m, n)), (k, m, n))
    best: dict[tuple[int, int], tuple[int, tuple, int]] = {}
    for cfg in reps.values():
        st = structure(instance, *cfg)
        singles: dict[tuple, list[int]] = {}
        others = []
        for g, pure in zip(st.groups, st.pure):
            if g.bit_count() == 1 and instance.server_masks[cfg[0] - 1] & g:
                singles.setdefault((cell_of[g.bit_length() - 1], pure), []).append(g)
            else:
                others.append(g)
        classes = list(singles.values())
        for counts in product(*(range(len(c) + 1) for c in classes)):
            base = 0
            for c, t in zip(classes, counts):
                for g in c[:t]:
                    base |= g
            for pick in range(1 << len(others)):
                Y = base
                for j, g in enumerate(others):
                    if pick >> j & 1:
                        Y |= g
                gain = st.gain(Y) if Y else 0
                if gain > 0:
                    key = (orbit(Y | st.T), orbit(st.T))
                    if key not in best or gain > best[key][0]:
                        best[key] = (gain, cfg, Y)
    cons, origins = [], []
    for _, (_gain, cfg, Y) in sorted(best.items()):
        k, m, n = cfg
        reason = f"general group lemma for server {k}, {sets_text(instance, m, n)}, Y = {instance.describe(Y)}"
        cons.append(_lemma_constraint(instance, cfg, Y, reason))
        origins.append((cfg, Y))
    return cons, origins
