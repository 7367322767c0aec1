"""The block shapes of vector-linear key schemes: who sees which key symbols, and their draws.

A :class:`BlockShape` fixes, for each block of key symbols, the users with
generic entries on it and the user (the *absorber*) that cancels their sum;
:func:`draw_keys` draws a scheme of that shape. The searches of
:mod:`itsa.keys.search.vector` try the shapes that :func:`hint_shapes` reads off a
converse's optimum, the shapes around ``S̄`` and random ones.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from itsa._util.bitset import members
from itsa.keys.model.instance import Instance
from itsa.keys.model.quantities import configurations

__all__ = ["BlockShape", "draw_keys", "hint_shapes", "sbar_shapes", "random_shape", "unique"]


@dataclass(frozen=True)
class BlockShape:
    """Blocks of key symbols, who sees them and who absorbs them; ranks.

    ``blocks`` are ``(size, users, absorber)`` triples: ``users`` is the
    bitmask of the users with generic entries on the block's columns, the
    ``absorber`` (not in ``users``) takes ``-Σ`` of theirs there. ``ranks``
    are ``(user, r)`` pairs, the rank of a user's generic part.
    """

    name: str
    blocks: tuple[tuple[int, int, int], ...]
    ranks: tuple[tuple[int, int], ...]

    @property
    def d(self) -> int:
        return sum(b[0] for b in self.blocks)



def draw_keys(shape: BlockShape, rng: random.Random, q: int, K: int, L: int) -> np.ndarray:
    """Generic keys of ``shape`` as a ``K x L x d`` array, each block's absorber holding ``-Σ``.

    Examples
    --------
    >>> sh = BlockShape("two private symbols", ((1, 0b01, 2), (1, 0b10, 2)), ((0, 1), (1, 1)))
    >>> Z = draw_keys(sh, random.Random(0), 7, 3, 2)
    >>> Z.shape, int(Z.sum(axis=0).max() % 7), [int(np.count_nonzero(Z[i])) > 0 for i in range(3)]
    ((3, 2, 2), 0, [True, True, True])
    """
    d = shape.d
    Z = np.zeros((K, L, d), dtype=np.int64)
    starts, c = [], 0
    for s, _, _ in shape.blocks:
        starts.append(c)
        c += s
    for i, r in shape.ranks:
        if r <= 0:
            continue
        cols = [starts[j] + k for j, (s, users, _) in enumerate(shape.blocks) if users >> i & 1
                for k in range(s)]
        if not cols:
            continue
        n = len(cols)
        if r >= min(L, n):
            M = np.array([[rng.randrange(q) for _ in range(n)] for _ in range(L)], dtype=np.int64)
        else:
            C = np.array([[rng.randrange(q) for _ in range(r)] for _ in range(L)], dtype=np.int64)
            R = np.array([[rng.randrange(q) for _ in range(n)] for _ in range(r)], dtype=np.int64)
            M = (C @ R) % q
        Z[i][:, cols] = M
    for (s, users, a), c in zip(shape.blocks, starts):
        Z[a][:, c:c + s] = (-Z[members(users)][:, :, c:c + s].sum(axis=0)) % q
    return Z


def _label(instance: Instance, i: int) -> str:
    u, v = instance.label(i)
    return f"({u},{v})"


def hint_shapes(instance: Instance, hints: Mapping[int, Fraction], L: int, d: int,
                max_absorbers: int = 4, prefix: str = "hint") -> list[BlockShape]:
    """The hint-driven shapes at ``L`` with ``d`` symbols (see the module notes).

    Users missing from ``hints`` count as ``h = 1`` (full rank); with empty
    hints this gives the generic shared shapes, one per absorber.

    Examples
    --------
    >>> from itsa import examples
    >>> inst = examples.load("audit/fractional-optimum")
    >>> h = {1 << i: Fraction(x) for i, x in enumerate(["1/2", "1/2", "1", "1/2", "0"])}
    >>> [s.name for s in hint_shapes(inst, h, 2, 3)]
    ['hint/private, absorber (2,2)', 'hint/shared, absorber (2,2)']
    >>> hint_shapes(inst, h, 2, 3)[0].blocks      # (size, users, absorber)
    ((1, 1, 2), (1, 2, 2), (1, 8, 2))
    """
    K = instance.K
    h = {i: Fraction(hints.get(1 << i, 1)) for i in range(K)}
    r = {i: min(L, d, math.ceil(h[i] * L)) for i in range(K)}
    keyed = [i for i in range(K) if r[i] > 0]
    if len(keyed) < 2:
        return []
    full = [i for i in keyed if r[i] == min(L, d)]
    absorbers = (full or sorted(keyed, key=lambda i: (-r[i], i)))[:max_absorbers]
    out: list[BlockShape] = []
    for a in absorbers:
        others = [i for i in keyed if i != a]
        part = [i for i in others if r[i] < min(L, d)]
        fulls = [i for i in others if i not in part]
        ranks = tuple((i, r[i]) for i in others)
        tag = f"absorber {_label(instance, a)}"
        mask_full = sum(1 << i for i in fulls)
        # private: the Theorem-2 shape
        everyone = sum(1 << i for i in others)
        rest_mask = mask_full or everyone       # symbols left over: the full users', else all
        priv = [(r[i], 1 << i) for i in part]
        rest = d - sum(s for s, _ in priv)
        if part and rest >= 0 and (rest > 0 or not fulls):
            blocks = tuple((s, m, a) for s, m in priv + ([(rest, rest_mask)] if rest else []))
            out.append(BlockShape(f"{prefix}/private, {tag}", blocks, ranks))
        # pairs: common parts of pairs with h(Z_ij) < h(Z_i) + h(Z_j)
        pair_blocks, own = [], dict(r)
        for x in range(len(part)):
            for y in range(x):
                i, j = part[x], part[y]
                hij = hints.get((1 << i) | (1 << j))
                if hij is None:
                    continue
                c = min(math.floor((h[i] + h[j] - Fraction(hij)) * L), own[i], own[j])
                if c > 0:
                    pair_blocks.append((c, (1 << i) | (1 << j)))
                    own[i] -= c
                    own[j] -= c
        if pair_blocks:
            sized = pair_blocks + [(own[i], 1 << i) for i in part if own[i] > 0]
            rest = d - sum(s for s, _ in sized)
            if rest >= 0 and (rest > 0 or not fulls):
                sized += [(rest, rest_mask)] if rest else []
                out.append(BlockShape(f"{prefix}/pairs, {tag}", tuple((s, m, a) for s, m in sized), ranks))
        out.append(BlockShape(f"{prefix}/shared, {tag}", ((d, everyone, a),), ranks))
    return out


def sbar_shapes(instance: Instance, L: int, d: int, max_absorbers: int) -> list[BlockShape]:
    """Hint-free Theorem-2 shapes: users of ``S̄`` full rank, the others rank ``r < L``."""
    sbar = configurations(instance).S_bar
    out = []
    for r in range(1, L):
        pseudo = {1 << i: Fraction(1) if sbar >> i & 1 else Fraction(r, L) for i in range(instance.K)}
        out += hint_shapes(instance, pseudo, L, d, max_absorbers, f"S̄-full,others-rank-{r}")
    return out


def random_shape(instance: Instance, rng: random.Random, L: int, d: int, j: int,
                 hints: Mapping[int, Fraction] | None = None) -> BlockShape:
    """A seeded hint-free shape, by ``j mod 4``: ``split``, ``rank``, ``pseudo`` or ``sums``.

    ``split#j``: random blocks seen by random users, random ranks, one
    absorber; ``rank#j``: one shared block, random ranks; ``pseudo#j``: a hint
    shape for random entropies (each user keyless, full or ``r/L`` at
    random); ``sums#j``: every block has its own random support and absorber
    (keys such as ``Z_a = -Z_b``, ``Z_c = -Z_e`` on separate symbols). With
    ``hints``, the users they give a key always get one.
    """
    K = instance.K
    keep = {i for i in range(K) if hints and hints.get(1 << i, 1) > 0}
    if j % 4 == 2:
        for _ in range(20):
            pseudo = {1 << i: Fraction(rng.choice([0, L, L] + list(range(1, L))), L)
                      for i in range(K)}
            for i in keep:
                pseudo[1 << i] = max(pseudo[1 << i], Fraction(1, L))
            shapes = hint_shapes(instance, pseudo, L, d, 1, "x")
            if shapes:
                s = rng.choice(shapes)
                return BlockShape(f"pseudo#{j}/" + s.name[2:], s.blocks, s.ranks)
    support = sorted({i for i in range(K) if rng.random() < 0.75} | keep)
    while len(support) < 2:
        support = sorted(set(support) | {rng.randrange(K)})
    a = rng.choice(support)
    others = [i for i in support if i != a]
    ranks = tuple((i, rng.choice([L] * 2 + list(range(1, L)))) for i in others)
    if j % 4 == 1 or d < 2:
        return BlockShape(f"rank#{j}", ((d, sum(1 << i for i in others), a),), ranks)
    if d % L == 0 and d > L and rng.random() < 0.5:
        sizes = [L] * (d // L)
    else:
        cuts = sorted(rng.sample(range(1, d), rng.randint(2, min(d, 5)) - 1))
        sizes = [b - a_ for a_, b in zip([0] + cuts, cuts + [d])]
    blocks = []
    if j % 4 == 3:       # every block sums to zero on its own support
        for size in sizes:
            sup = rng.sample(support, rng.choice([2, rng.randint(2, len(support))]))
            blocks.append((size, sum(1 << i for i in sup[1:]), sup[0]))
        return BlockShape(f"sums#{j}", tuple(blocks), tuple((i, L) for i in support))
    for size in sizes:
        users = [i for i in others if rng.random() < 0.5] or [rng.choice(others)]
        blocks.append((size, sum(1 << i for i in users), a))
    return BlockShape(f"split#{j}", tuple(blocks), ranks)


def unique(shapes: list[BlockShape]) -> list[BlockShape]:
    seen, out = set(), []
    for s in shapes:
        key = (s.blocks, s.ranks)
        if key not in seen:
            seen.add(key)
            out.append(s)
    return out
