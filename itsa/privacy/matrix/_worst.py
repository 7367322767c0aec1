"""The exact worst case of tree aggregation: the participation pattern whose Σ_node count² is largest.

A client takes part in at most ``E`` rounds, two of them at least ``ξ + 1``
rounds apart (``ξ`` rounds strictly between: TF Privacy's ``min_separation``),
and, with restarts and ``per_segment = k``, in at most ``k`` rounds of each
segment. Zeroing its contributions changes every node holding ``c`` of its
rounds by at most ``c`` (its clipped updates have norm at most 1), so the
squared ℓ2 sensitivity of the forest's node sums is ``Σ_node c²``, whose
largest value over patterns :func:`worst_case` computes exactly, with a
pattern that attains it.

The programme runs over the rounds in order. Adding a round ``q`` after the
pattern's last round ``p`` adds ``Σ_{node ∋ q} (2 c + 1)``, ``c`` the rounds
already in the node; a node holding ``q`` and an earlier round holds ``p``
too (nodes are intervals), so the earlier rounds matter only through the
counts on ``p``'s ancestors above the lowest common one. Below level
``l0 = ⌈log2(ξ + 2)⌉`` a node (fewer than ``ξ + 2`` rounds) never holds two
rounds of a client: the state is the counts on the ancestors of levels
``l0`` and up, a handful of numbers. Candidates ``p`` are swept in as they
become separated enough from ``q`` (``p ≤ q − ξ − 1``) into one table per
(tree, level, left child): the best value for each count vector. Every
pattern is reached (the sweep is exhaustive over the states; a state is
dropped only when another of the same round dominates it: no more rounds
used, counts at least as large, a value at least as large), so the maximum is
exact; the witness is rebuilt from back-pointers and its value recomputed
from the nodes.

Examples
--------
>>> from itsa.privacy.matrix._forest import Forest
>>> worst_case(Forest.of(24), 8, 2)[0]          # TF Privacy's table: 88 (greedy gives less)
88
>>> worst_case(Forest.of(2000), 6, 313)
(79, (0, 314, 628, 942, 1256, 1570))

Notes
-----
Kairouz, McMahan, Song, Thakkar, Thakurta, Xu, "Practical and private (deep)
learning without sampling or shuffling", ICML 2021 (arXiv 2103.00039 v3),
Appendix D.2 (the worst case over participation patterns, Theorem D.3);
TF Privacy's ``_max_tree_sensitivity_square_sum`` recurses on the trees with
the first and last admissible rounds as its state (``(ξ + 1)²`` states per
tree size); this programme sweeps the rounds instead, with the counts as its
state.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from itsa._util.deadline import Deadline
from itsa.privacy.matrix._forest import Forest

__all__ = ["worst_case", "first_big_level", "Schedule"]

#: Rounds swept between two looks at the clock.
CLOCK_EVERY = 256


@dataclass(frozen=True)
class Schedule:
    """What a client may do: at most ``max_participations`` rounds, ``min_separation`` rounds strictly between two,
    at most ``per_segment`` in one segment (``None``: no such limit)."""

    max_participations: int
    min_separation: int
    per_segment: int | None = None


def first_big_level(min_separation: int) -> int:
    """``l0``: the lowest level whose nodes (``2^l0`` rounds) can hold two rounds ``ξ + 1`` apart.

    >>> first_big_level(0), first_big_level(2), first_big_level(313)
    (1, 2, 9)
    """
    return (min_separation + 1).bit_length()


@dataclass
class _Best:
    """The best values of the states of one table: key -> (value, round, state at that round)."""

    entries: dict = field(default_factory=dict)
    pruned: int = 0

    def offer(self, key, value: int, where) -> None:
        old = self.entries.get(key)
        if old is None or value > old[0]:
            self.entries[key] = (value, *where)

    def read(self) -> dict:
        """The entries, the dominated ones dropped (once the table has grown by half since the last time)."""
        if len(self.entries) > 1 and 2 * len(self.entries) > 3 * self.pruned:
            self.entries = _pareto(self.entries)
            self.pruned = len(self.entries)
        return self.entries


def worst_case(forest: Forest, max_participations: int, min_separation: int, per_segment: int | None = None,
               deadline: Deadline | None = None) -> tuple[int, tuple[int, ...]]:
    """The largest ``Σ_node c²`` over the patterns a client may follow, and the first pattern found attaining it.

    Parameters
    ----------
    forest : Forest
        The trees (:class:`~itsa.privacy.matrix._forest.Forest`).
    max_participations : int
        ``E >= 1``.
    min_separation : int
        ``ξ >= 0``: rounds strictly between two of the client's.
    per_segment : int, optional
        At most this many rounds in one segment (restarts).
    deadline : Deadline, optional
        Checked every :data:`CLOCK_EVERY` rounds.

    Returns
    -------
    (int, tuple of int)
        The exact worst case and its rounds (from 0).
    """
    if min_separation == 0 and max_participations >= forest.rounds and (
            per_segment is None or per_segment >= max(forest.segments)):
        # every round is admissible at once, and each node's count is then the largest it can be
        every = tuple(range(forest.rounds))
        return forest.sensitivity_squared_of_all(), every
    clock = deadline or Deadline(None)
    gap = min_separation + 1
    l0 = first_big_level(min_separation)
    cap = max_participations if per_segment is None else per_segment
    trees = forest.trees
    # states[q]: (participations, in this segment, counts on levels l0..h) -> (value, previous round, previous key)
    states: list[dict] = []
    pending: list[tuple] = []            # the tables of the tree the sweep is in: (tree, key tables) merged on leaving
    before_same = _Best()                # earlier trees of the current segment: (i, k) -> best
    before_other = _Best()               # earlier segments: i -> best
    lca: dict[tuple[int, int, int], _Best] = {}      # (tree, level l, left child at l - 1) -> (i, k, counts >= l)
    segment = trees[0].segment
    tree_of = [0] * forest.rounds
    for t, tree in enumerate(trees):
        tree_of[tree.base:tree.base + tree.size] = [t] * tree.size
    for q in range(forest.rounds):
        if q % CLOCK_EVERY == 0:
            clock.check(f"round {q} of {forest.rounds} (the worst-case participation pattern)")
        tq = tree_of[q]
        tree = trees[tq]
        p = q - gap
        if p >= 0:
            _admit(p, states[p], trees[tree_of[p]], tree_of[p], l0, lca, pending)
        # the admitted rounds of trees before q's: their best moves to the aggregates
        while pending and pending[0][0] < tq:
            t, table = pending.pop(0)
            for (i, k), (value, r, key) in table.entries.items():
                if trees[t].segment == tree.segment:
                    before_same.offer((i, k), value, (r, key))
                else:
                    before_other.offer(i, value, (r, key))
        if tree.segment != segment:                   # a new segment: its earlier trees are now other segments
            segment = tree.segment
            for (i, _k), (value, r, key) in before_same.entries.items():
                before_other.offer(i, value, (r, key))
            before_same = _Best()
        h = tree.height
        depth = h + 1
        here: dict = {}
        width = max(0, h - l0 + 1)
        _put(here, (1, 1, (1,) * width), depth, (None, None))
        for i, (value, r, key) in before_other.entries.items():
            if i < max_participations:
                _put(here, (i + 1, 1, (1,) * width), value + depth, (r, key))
        for (i, k), (value, r, key) in before_same.entries.items():
            if i < max_participations and k < cap:
                _put(here, (i + 1, k + 1, (1,) * width), value + depth, (r, key))
        offset = q - tree.base
        for level in range(l0, h + 1):
            if not offset >> (level - 1) & 1:
                continue                                  # q in the left child: no earlier round shares this LCA
            table = lca.get((tq, level, (offset >> (level - 1)) - 1))
            if table is None:
                continue
            ones = (1,) * (level - l0)
            for (i, k, upper), (value, r, key) in table.read().items():
                if i < max_participations and k < cap:
                    _put(here, (i + 1, k + 1, ones + tuple(c + 1 for c in upper)), value + depth + 2 * sum(upper),
                         (r, key))
        states.append(_pareto(here))
    best = max(((v[0], q, key) for q, table in enumerate(states) for key, v in table.items()),
               key=lambda x: x[0])
    value, q, key = best
    rounds: list[int] = []
    while q is not None:
        rounds.append(q)
        _, q, key = states[q][key]
    pattern = tuple(reversed(rounds))
    assert forest.sensitivity_squared(pattern) == value, "the witness does not attain the worst case"
    return value, pattern


def _put(table: dict, key, value: int, prev) -> None:
    """Keep the best value of ``key`` in ``table``, with the back-pointer ``prev``."""
    old = table.get(key)
    if old is None or value > old[0]:
        table[key] = (value, *prev)


def _pareto(table: dict) -> dict:
    """The states no other state of the same round dominates (at most as many rounds used, in all and in the
    segment, counts at least as large on every level, a value at least as large): a dominated state's every
    continuation is open to its dominator and gains no more there, so dropping it keeps the maximum."""
    if len(table) < 2:
        return table
    order = sorted(table.items(), key=lambda item: (-item[1][0], item[0][0], item[0][1], tuple(-c for c in item[0][2])))
    kept: list = []
    for key, value in order:
        i, k, counts = key
        if not any(j <= i and m <= k and all(a >= b for a, b in zip(upper, counts)) for (j, m, upper), _ in kept):
            kept.append((key, value))
    return dict(kept)


def _admit(p: int, table: dict, tree, t: int, l0: int, lca: dict, pending: list) -> None:
    """Round ``p``'s states become candidates for every later round (``p ≤ q − ξ − 1``)."""
    offset = p - tree.base
    if not pending or pending[-1][0] != t:
        pending.append((t, _Best()))
    whole = pending[-1][1]
    for key, (value, _r, _k) in table.items():
        i, k, counts = key
        whole.offer((i, k), value, (p, key))
        for level in range(l0, tree.height + 1):
            if offset >> (level - 1) & 1:
                continue                                  # p in a right child: no later round has it as LCA's left
            slot = (t, level, offset >> (level - 1))
            lca.setdefault(slot, _Best()).offer((i, k, counts[level - l0:]), value, (p, key))
