"""Shape generators of the scheme search (:func:`itsa.keys.search.scalar.search_min_rate`).

A *shape* says which users carry keys, and with which rank; each is drawn
with ``random.Random(f"{seed}:{L}:{d}:{shape}:{t}")``, so its name is part of
the seed.

Shapes (``L = 1``), each drawn ``tries`` times with
``random.Random(f"{seed}:{L}:{d}:{shape}:{t}")``:

* ``all``: every user has a key;
* ``sbar``: the paper's ``S̄``; ``sbar+x``: ``S̄ ∪ {x}`` for each ``x ∉ S̄``;
* ``union``: ``∪ S_m``; ``union+x`` likewise;
* ``random#j``: a random support of at least two users.

Keys are generic over the support, one support user (the last) absorbs
``-Σ`` of the others so that ``Σ Z = 0``. Then, for ``d >= 2``,
``columns:...``: each key symbol ``j`` has its own support ``B_j`` (generic
nonzero coefficients summing to 0 over ``B_j``); all multisets of supports
when there are at most ``max_patterns``, else a seeded sample. These reach
schemes such as ``Z_a = -Z_d = N_1``, ``Z_b = -Z_c = N_2`` that no single
generic support gives.

Shapes (``L = 2``): the same supports with full-rank ``2 x d`` keys; with
rank-1 keys (a column times a row, the shape of the Theorem-2 scheme's
fractional keys) for the users outside ``S̄``, for each single user, and for
random subsets; and ``private``: rank-1 users own one private key symbol each,
the others share the remaining symbols; and ``rank1-all-but-x``: every support
user but ``x`` rank-1, ``x`` full-rank absorbing ``-Σ`` (it reaches rate 3/2
on ``instances/audit/fractional-optimum.yaml``, where scalar keys need 2).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from itertools import combinations_with_replacement
from math import comb

from itsa._util import display
from itsa._util.bitset import members
from itsa.keys.model.instance import Instance
from itsa.keys.model.quantities import configurations

__all__ = ["Shape", "Plan", "supports", "shapes_L1", "shapes_L2"]


def _generic(rng, q, L, d, support, rank1=frozenset(), private=False, absorber=None):
    """Keys over ``support``: full-rank generic, or rank-1 (column x row) for ``rank1``.

    ``absorber`` (default: the last support user) takes ``-Σ`` of the others.
    """
    keys: dict[int, list[list[int]]] = {}
    if len(support) < 2 or d == 0:
        return {}
    if absorber is not None:
        support = [i for i in support if i != absorber] + [absorber]
    absorber = support[-1]
    if private:
        # rank-1 users own one private symbol each (the last columns); others share the rest
        owners = [i for i in support if i in rank1 and i != absorber]
        shared = d - len(owners)
        if shared < 0:
            return None
        col = shared
        for i in support[:-1]:
            if i in owners:
                c = [rng.randrange(q) for _ in range(L)]
                keys[i] = [[c[l] if j == col else 0 for j in range(d)] for l in range(L)]
                col += 1
            else:
                keys[i] = [[rng.randrange(q) if j < shared else 0 for j in range(d)] for _ in range(L)]
    else:
        for i in support[:-1]:
            if i in rank1:
                c = [rng.randrange(q) for _ in range(L)]
                r = [rng.randrange(q) for _ in range(d)]
                keys[i] = [[(c[l] * x) % q for x in r] for l in range(L)]
            else:
                keys[i] = [[rng.randrange(q) for _ in range(d)] for _ in range(L)]
    keys[absorber] = [[(-sum(keys[i][l][c] for i in support[:-1])) % q for c in range(d)]
                      for l in range(L)]
    return keys


def supports(instance: Instance, rng_seed: str, n_random: int,
              all_supports_up_to: int) -> list[tuple[str, list[int]]]:
    conf = configurations(instance)
    K = instance.K
    allu = list(range(K))
    sbar = members(conf.S_bar)
    union_mask = 0
    for s in instance.security_sets:
        union_mask |= s
    union = members(union_mask)
    out: list[tuple[str, list[int]]] = [("all", allu)]
    seen = {tuple(allu)}

    def add(name, sup):
        sup = sorted(set(sup))
        if len(sup) >= 2 and tuple(sup) not in seen:
            seen.add(tuple(sup))
            out.append((name, sup))

    for base_name, base in (("sbar", sbar), ("union", union)):
        add(base_name, base)
        for x in allu:
            if x not in base:
                add(f"{base_name}+{display.user(*instance.label(x))}", base + [x])
    if K <= all_supports_up_to:
        rest = [m for m in range(1, 1 << K) if m.bit_count() >= 2]
        rest.sort(key=lambda m: (-m.bit_count(), m))
        for m in rest:
            add(display.users(instance.labels(m), sep=","), members(m))
        return out
    rng = random.Random(f"{rng_seed}:supports")
    for j in range(n_random):
        size = rng.randint(2, K) if K >= 2 else 0
        if size:
            add(f"random#{j}", rng.sample(allu, size))
    return out


@dataclass(frozen=True)
class Shape:
    """One cell of a level: ``draws`` seeded draws of ``make(rng)`` (keys, or ``None`` to skip).

    ``complete`` says these draws are every candidate of the level.
    """

    name: str
    draws: int
    make: Callable[[random.Random], dict | None]
    complete: bool = False


@dataclass(kw_only=True, frozen=True)
class Plan:
    """What the shape generators need to know about one search."""

    instance: Instance
    field: int
    seed: int
    supports: list[tuple[str, list[int]]]
    sbar: frozenset[int]
    tries: int
    n_random_supports: int
    max_patterns: int
    pattern_tries: int


def _support_masks(K: int) -> list[int] | None:
    """Every support of at least two users, listed only for small ``K`` (``2^K`` masks)."""
    return [m for m in range(1, 1 << K) if m.bit_count() >= 2] if K <= 20 else None


def _random_support(rng: random.Random, K: int, masks: list[int] | None) -> int:
    if masks is not None:
        return rng.choice(masks)
    while True:
        m = rng.randrange(1, 1 << K)
        if m.bit_count() >= 2:
            return m


def _column_shapes(plan: Plan, d: int) -> list[Shape]:
    """Scalar shapes with one support per key symbol: all multisets if few, else a seeded sample."""
    inst, K = plan.instance, plan.instance.K
    masks = _support_masks(K)
    n = (1 << K) - 1 - K
    if masks is not None and comb(n + d - 1, d) <= plan.max_patterns:
        pats = list(combinations_with_replacement(masks, d))
    else:
        rng = random.Random(f"{plan.seed}:1:{d}:column-patterns")
        seen: set[tuple[int, ...]] = set()
        pats = []
        while len(pats) < plan.max_patterns:
            pat = tuple(sorted(_random_support(rng, K, masks) for _ in range(d)))
            if pat not in seen:
                seen.add(pat)
                pats.append(pat)
    out = []
    for pat in pats:
        if len(set(pat)) == 1:
            continue        # one common support: already a support shape
        name = "columns:" + "|".join(display.users(inst.labels(m), sep=",") for m in pat)
        out.append(Shape(name, plan.pattern_tries, partial(_columns, q=plan.field, d=d, pattern=pat)))
    return out


def shapes_L1(plan: Plan, d: int) -> list[Shape]:
    """Scalar (``L = 1``) shapes for ``d`` key symbols: supports, then column patterns."""
    if d == 0:
        return [Shape("zero", 1, lambda rng: {}, complete=True)]     # the only candidate
    out = [Shape(name, plan.tries, partial(_generic, q=plan.field, L=1, d=d, support=sup))
           for name, sup in plan.supports]
    if d >= 2:
        out += _column_shapes(plan, d)
    return out


def shapes_L2(plan: Plan, d: int) -> list[Shape]:
    """``L = 2`` shapes for ``d`` key symbols: full-rank, rank-1 and private-symbol keys."""
    inst, q, out = plan.instance, plan.field, []

    def shape(name, sup, rank1=frozenset(), private=False, absorber=None):
        out.append(Shape(name, plan.tries,
                          lambda rng: _generic(rng, q, 2, d, sup, rank1, private, absorber)))

    for name, sup in plan.supports:
        shape(f"{name}/full", sup)
        outside = frozenset(i for i in sup if i not in plan.sbar)
        if outside:
            shape(f"{name}/rank1-outside-S̄", sup, outside)
            shape(f"{name}/private-outside-S̄", sup, outside, True)
        for i in sup:
            who = display.user(*inst.label(i))
            shape(f"{name}/rank1-{who}", sup, frozenset([i]))
            if len(sup) > 2:
                shape(f"{name}/rank1-all-but-{who}", sup, frozenset(sup) - {i}, False, i)
    rng = random.Random(f"{plan.seed}:2:{d}:rank1-subsets")
    for j in range(plan.n_random_supports):
        name, sup = plan.supports[rng.randrange(len(plan.supports))]
        sub = frozenset(i for i in sup if rng.random() < 0.5)
        if sub:
            shape(f"{name}/rank1-random#{j}", sup, sub)
    return out


def _columns(rng, q, d, pattern):
    """Scalar keys, column ``j`` supported on ``pattern[j]`` with generic entries summing to 0."""
    keys: dict[int, list[list[int]]] = {}
    for j, m in enumerate(pattern):
        us = members(m)
        vals = [rng.randrange(1, q) for _ in us[:-1]]
        vals.append((-sum(vals)) % q)
        for i, x in zip(us, vals):
            keys.setdefault(i, [[0] * d])[0][j] = x
    return keys
