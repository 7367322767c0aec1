"""Shapes read off a converse's entropy vector, and local moves that repair a shape.

Two helpers of :func:`itsa.keys.search.vector.search_vector_scheme`:

* :func:`atom_shapes` turns a whole entropy vector ``h(Z_A)`` (every user set
  ``A``, in units of ``L``) into block shapes. The vector is split into
  *atoms* by Möbius inversion: with ``g(A) = h(V) - h(V \\ A)``,
  ``c_B = Σ_{A ⊆ B} (-1)^{|B \\ A|} g(A)``, so that
  ``h(A) = Σ_{B ∩ A ≠ ∅} c_B`` whenever ``h`` is a coverage function. Each
  atom ``B`` with ``c_B·L >= 1/2`` becomes a block of ``round(c_B·L)`` key
  symbols shared by the users of ``B`` (one of them absorbs ``-Σ``, so the
  block sums to zero); atoms of a single user (private randomness, impossible
  when ``Σ Z = 0``) join the block of the user's largest atom. This is the
  code an entropy vector asks for when it is a coverage function; otherwise
  it is a start for :func:`repair`.
* :func:`repair` walks from a shape to shapes with a smaller *deficit* (how
  far generic keys of the shape fall short of the group criterion, 0 iff
  secure) by local moves: add or drop a user on a block, change a block's
  absorber, change a user's rank, move one key symbol between blocks, split
  or merge blocks, change one key's support, copy one key's support onto
  another. Moves that keep the deficit are accepted too (plateaus); after
  ``patience`` moves without improvement the walk stops, unless the caller
  asks for a *scan*: every shape one deterministic move away
  (:func:`neighbours`) is scored, and the first better one restarts the walk.

Every draw is seeded; the same seed gives the same walk.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping
from fractions import Fraction

from itsa._util.bitset import members

__all__ = ["atoms", "atom_shapes", "moves", "neighbours", "repair"]

#: A shape as plain data: ``(blocks, ranks)``, see :class:`itsa.keys.search.blocks.BlockShape`.
Blocks = tuple[tuple[int, int, int], ...]


def atoms(h: Mapping[int, Fraction], K: int) -> dict[int, Fraction]:
    """Möbius atoms ``c_B`` of an entropy vector ``h`` over ``K`` users (nonzero ones only).

    Missing sets count as ``h = 0``. ``h(A) = Σ_{B ∩ A ≠ ∅} c_B`` for every ``A``.

    Examples
    --------
    Two users sharing one key of entropy 1, a third with a private half:

    >>> F = Fraction
    >>> h = {1: F(1), 2: F(1), 3: F(1), 4: F(1, 2), 5: F(3, 2), 6: F(3, 2), 7: F(3, 2)}
    >>> atoms(h, 3)
    {3: Fraction(1, 1), 4: Fraction(1, 2)}
    """
    full = (1 << K) - 1
    top = Fraction(h.get(full, 0))
    g = [top - Fraction(h.get(full & ~A, 0)) for A in range(1 << K)]
    for i in range(K):                       # Möbius transform over subsets, in place
        bit = 1 << i
        for A in range(1 << K):
            if A & bit:
                g[A] -= g[A ^ bit]
    return {B: c for B, c in enumerate(g) if c and B}


def atom_shapes(h: Mapping[int, Fraction], K: int, L: int, d: int,
                max_absorbers: int = 2) -> list[tuple[str, Blocks, tuple[tuple[int, int], ...]]]:
    """Block shapes ``(name, blocks, ranks)`` from the atoms of ``h`` at ``L`` with ``d`` symbols.

    Atom sizes are ``round(c_B·L)``; the sizes are then scaled so that they
    add up to ``d`` (the largest blocks give or take the rounding). Users
    get rank ``min(L, ⌈h(Z_i)·L⌉)``. One shape per absorber choice: each
    block's smallest user, then its largest.

    Examples
    --------
    >>> F = Fraction
    >>> h = {1: F(1), 2: F(1), 3: F(1), 4: F(1, 2), 5: F(3, 2), 6: F(3, 2), 7: F(3, 2)}
    >>> name, blocks, ranks = atom_shapes(h, 3, 2, 3)[0]
    >>> name, blocks           # (size, users, absorber): {0,1} share 2, user 2 joins user 0's block
    ('atoms/low', ((2, 2, 0), (1, 4, 0)))
    """
    if K < 2 or d < 1 or len(h) < (1 << K) - 1:
        return []
    sizes: dict[int, int] = {}
    for B, c in sorted(atoms(h, K).items(), key=lambda bc: (-bc[1], bc[0])):
        s = round(c * L)
        if s <= 0:
            continue
        if B.bit_count() == 1:               # private randomness: share it with a partner
            i = B.bit_length() - 1
            partner = max((b for b in sizes if b >> i & 1 and b != B), key=lambda b: sizes[b],
                          default=None)
            B = partner if partner is not None else B | (1 << ((i + 1) % K))
        sizes[B] = sizes.get(B, 0) + s
    if not sizes:
        return []
    _fit(sizes, d)
    ranks = tuple((i, max(1, min(L, -(-Fraction(h.get(1 << i, 1)) * L // 1)))) for i in range(K))
    out: list[tuple[str, Blocks, tuple[tuple[int, int], ...]]] = []
    for tag, pick in (("low", min), ("high", max))[:max_absorbers]:
        blocks = tuple((s, B & ~(1 << pick(members(B))), pick(members(B)))
                       for B, s in sorted(sizes.items()) if s > 0)
        if not any(o[1] == blocks for o in out):
            out.append((f"atoms/{tag}", blocks, ranks))
    return out


def _fit(sizes: dict[int, int], d: int) -> None:
    """Scale the sizes to add up to ``d``; the largest blocks take the rounding, one symbol at a time."""
    total = sum(sizes.values())
    for B in sizes:
        sizes[B] = round(Fraction(sizes[B] * d, total))
    while sum(sizes.values()) != d:
        step = 1 if sum(sizes.values()) < d else -1
        B = max((b for b in sizes if sizes[b] + step >= 0), key=lambda b: (sizes[b], -b))
        sizes[B] += step


# ---------------------------------------------------------------------------
def moves(blocks: Blocks, ranks: dict[int, int], K: int, L: int,
          rng: random.Random) -> tuple[str, Blocks, dict[int, int]] | None:
    """One random local move: ``(name, blocks, ranks)``, or ``None`` if the move does not apply."""
    bl = [list(b) for b in blocks]
    rk = dict(ranks)
    j = rng.randrange(len(bl))
    size, users, a = bl[j]
    kind = rng.choice(("toggle", "toggle", "absorber", "rank", "shift", "split", "merge",
                       "support", "copy"))
    if kind == "toggle":
        i = rng.choice([x for x in range(K) if x != a])
        users ^= 1 << i
        if not users:
            return None
        bl[j][1] = users
        rk.setdefault(i, L)
    elif kind == "absorber":
        i = rng.choice(members(users))
        bl[j][1:] = [(users & ~(1 << i)) | (1 << a), i]
        rk.setdefault(a, L)
    elif kind == "rank":
        i = rng.choice(members(users))
        r = rk.get(i, L) + rng.choice((-1, 1))
        if not 1 <= r <= L:
            return None
        rk[i] = r
    elif kind == "shift" and len(bl) > 1 and size > 1:
        k = rng.choice([x for x in range(len(bl)) if x != j])
        bl[j][0] -= 1
        bl[k][0] += 1
    elif kind == "split" and size > 1:
        s = rng.randint(1, size - 1)
        pool = members(users | (1 << a))
        sub = rng.sample(pool, rng.randint(2, len(pool))) if len(pool) >= 2 else None
        if sub is None:
            return None
        bl[j][0] -= s
        bl.append([s, sum(1 << x for x in sub[1:]), sub[0]])
    elif kind == "merge" and len(bl) > 1:
        k = rng.choice([x for x in range(len(bl)) if x != j])
        s2, u2, a2 = bl.pop(k)
        j = j if j < k else j - 1
        bl[j] = [bl[j][0] + s2, (bl[j][1] | u2 | (1 << a2)) & ~(1 << bl[j][2]), bl[j][2]]
    elif kind == "support":
        i = rng.randrange(K)
        for b in bl:
            if b[2] != i and rng.random() < 0.5:
                b[1] ^= 1 << i
        if any(not b[1] for b in bl):
            return None
        rk.setdefault(i, L)
    elif kind == "copy":
        i, k = rng.sample(range(K), 2)             # user k's support := user i's
        for b in bl:
            if b[2] == k:
                continue
            b[1] = (b[1] | (1 << k)) if (b[1] >> i & 1 or b[2] == i) else b[1] & ~(1 << k)
        if any(not b[1] for b in bl):
            return None
        rk[k] = rk.get(i, L)
    else:
        return None
    return kind, tuple((b[0], b[1], b[2]) for b in bl if b[0] > 0), rk


def neighbours(blocks: Blocks, ranks: dict[int, int], K: int, L: int) -> Iterator[tuple[Blocks, dict[int, int]]]:
    """Every shape one deterministic move away, in a fixed order.

    The moves: add or drop one user on one block, make one of a block's users
    its absorber, move one key symbol from one block to another, and raise or
    lower one user's rank by 1 (within ``1..L``).

    Examples
    --------
    >>> blocks = ((2, 0b01, 2), (1, 0b10, 2))       # (size, users, absorber)
    >>> shapes = list(neighbours(blocks, {0: 2, 1: 2}, 3, 2))
    >>> len(shapes), shapes[0][0]                   # 3 + 2 block moves, 2 rank moves; user 1 added to block 0
    (7, ((2, 3, 2), (1, 2, 2)))
    """
    def out(bl, rk):
        return tuple((b[0], b[1], b[2]) for b in bl if b[0] > 0), rk

    for j, (size, users, a) in enumerate(blocks):
        for i in range(K):
            if i != a and users ^ (1 << i):
                bl = [list(b) for b in blocks]
                bl[j][1] = users ^ (1 << i)
                yield out(bl, {i: L, **ranks})
        for i in members(users):
            bl = [list(b) for b in blocks]
            bl[j][1:] = [(users & ~(1 << i)) | (1 << a), i]
            yield out(bl, {a: L, **ranks})
        for k in range(len(blocks)):
            if k != j and size > 1:
                bl = [list(b) for b in blocks]
                bl[j][0] -= 1
                bl[k][0] += 1
                yield out(bl, dict(ranks))
    for i, r in ranks.items():
        for step in (-1, 1):
            if 1 <= r + step <= L:
                yield out([list(b) for b in blocks], {**ranks, i: r + step})


def repair(start: tuple[Blocks, dict[int, int]],
           score: Callable[[Blocks, dict[int, int], int | None], int],
           K: int, L: int, rng: random.Random, patience: int,
           scan: bool = False) -> Iterator[tuple[int, Blocks, dict]]:
    """Walk from ``start`` by :func:`moves`, yielding ``(deficit, blocks, ranks)`` of each shape scored.

    ``score(blocks, ranks, above)`` draws keys of a shape and returns their
    deficit (0: secure), or any number above ``above`` once the deficit is
    known to exceed it (the walk rejects such a move either way). The
    walk keeps a move when the deficit does not grow, stops at deficit 0 or
    after ``patience`` scored moves without a strict improvement; the caller
    may also stop it (it is a generator).

    With ``scan``, a walk gone stale scores every :func:`neighbours` shape
    (random moves sample only some of them): the first that improves on
    ``best`` restarts the walk from there, and a scan without one ends it.
    """
    blocks, ranks = start
    best = score(blocks, ranks, None)
    yield best, blocks, ranks
    stale = 0
    while best:
        if stale >= patience:
            if not scan:
                return
            better = None
            for nb, nr in neighbours(blocks, ranks, K, L):
                s = score(nb, nr, best - 1)
                yield s, nb, nr
                if s < best:
                    better = nb, nr, s
                    break
            if better is None:
                return
            blocks, ranks, best = better
            stale = 0
            continue
        m = moves(blocks, ranks, K, L, rng)
        if m is None:
            stale += 1
            continue
        _, nb, nr = m
        s = score(nb, nr, best)
        yield s, nb, nr
        stale = 0 if s < best else stale + 1
        if s <= best:
            blocks, ranks, best = nb, nr, s
