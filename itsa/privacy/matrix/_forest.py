"""The forest of tree aggregation: TF Privacy's layout of the rounds into complete binary trees.

``T`` rounds (leaves) without restarts make the forest of ``T``'s binary
decomposition, the largest tree first: ``T = 2000 = 1024 + 512 + 256 + 128 +
64 + 16`` is six trees, on the rounds ``0..1023``, ``1024..1535``, ... Every
node of a tree sums the leaves below it; a leaf of the tree of ``2^h`` leaves
lies in ``h + 1`` nodes (its depth). This is the forest TF Privacy's
``tree_aggregation_accountant`` recurses on (``size = 2^floor(log2 size) +
rest``, the rest a forest again) and the one of Google's Gboard notebook (the
complete subtrees of the ``2^ceil(log2 T)``-leaf tree inside the first ``T``
leaves): the same nodes, the dyadic intervals inside ``[0, T)``.

Restarts (``restarts=[T_1, ..., T_k]``, TF Privacy's ``steps_list``) start a
new forest after each ``T_i`` rounds: segment ``i`` is the forest of ``T_i``.

Examples
--------
>>> f = Forest.of(2000)
>>> [t.size for t in f.trees], f.rounds
([1024, 512, 256, 128, 64, 16], 2000)
>>> f.depth(0), f.depth(1999)
(11, 5)
>>> [t.base for t in Forest.of(12, restarts=[5, 7]).trees]
[0, 4, 5, 9, 11]
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from itsa._util.checks import whole_number
from itsa.exceptions import InvalidOption

__all__ = ["Forest", "Tree", "MAX_ROUNDS", "check_restarts"]

#: The most rounds a schedule may have (the exact dynamic programme keeps a few states per round).
MAX_ROUNDS = 10**6


@dataclass(frozen=True)
class Tree:
    """One complete binary tree of the forest: ``2^height`` leaves from round ``base``, in segment ``segment``."""

    base: int
    height: int
    segment: int

    @property
    def size(self) -> int:
        return 1 << self.height


def check_restarts(rounds: int | None, restarts: Sequence[int] | None) -> tuple[int, tuple[int, ...]]:
    """``(T, segments)``: the rounds and the tree lengths, checked (one line, exit 2 otherwise).

    Without ``restarts`` the schedule is one segment of ``rounds``; with them ``rounds`` may be left out (it is
    their sum) and, given, must equal it.

    >>> check_restarts(None, [400, 400])
    (800, (400, 400))
    >>> check_restarts(5, None)
    (5, (5,))
    """
    if restarts is None or len(restarts) == 0:
        if restarts is not None:
            raise InvalidOption("restarts: give at least one tree length")
        if rounds is None:
            raise InvalidOption("rounds: give the number of rounds (or the restarts' tree lengths)")
        whole_number("rounds", rounds, minimum=1, maximum=MAX_ROUNDS)
        return rounds, (rounds,)
    segments = tuple(whole_number("restarts: a tree length", t, minimum=1, maximum=MAX_ROUNDS) for t in restarts)
    total = sum(segments)
    if total > MAX_ROUNDS:
        raise InvalidOption(f"restarts: {total:,} rounds in all is more than {MAX_ROUNDS:,}")
    if rounds is not None and rounds != total:
        raise InvalidOption(f"rounds: {rounds} is not the sum of the restarts' tree lengths ({total})")
    return total, segments


@dataclass(frozen=True)
class Forest:
    """The trees of a schedule, in order of their rounds.

    Parameters
    ----------
    segments : tuple of int
        The tree lengths between restarts (one segment: no restart).
    trees : tuple of Tree
        Every tree, the largest of each segment first.
    """

    segments: tuple[int, ...]
    trees: tuple[Tree, ...]

    @classmethod
    def of(cls, rounds: int | None = None, restarts: Sequence[int] | None = None) -> Forest:
        """The forest of ``rounds`` leaves, restarted after each of ``restarts`` (TF Privacy's layout)."""
        _, segments = check_restarts(rounds, restarts)
        trees, base = [], 0
        for s, length in enumerate(segments):
            for h in range(length.bit_length() - 1, -1, -1):
                if length >> h & 1:
                    trees.append(Tree(base, h, s))
                    base += 1 << h
        return cls(segments, tuple(trees))

    @property
    def rounds(self) -> int:
        return sum(self.segments)

    def _bases(self) -> list[int]:
        return [t.base for t in self.trees]

    def tree_of(self, leaf: int) -> int:
        """The index of the tree ``leaf`` (a round, from 0) is in."""
        if not 0 <= leaf < self.rounds:
            raise InvalidOption(f"round {leaf} is outside 0..{self.rounds - 1}")
        return bisect_right(self._bases(), leaf) - 1

    def depth(self, leaf: int) -> int:
        """The nodes ``leaf`` lies in: its tree's height plus one."""
        return self.trees[self.tree_of(leaf)].height + 1

    def nodes(self) -> Iterator[tuple[int, int]]:
        """Every node as the rounds ``[first, last + 1)`` it sums."""
        for t in self.trees:
            for level in range(t.height + 1):
                for j in range(1 << (t.height - level)):
                    yield t.base + (j << level), t.base + ((j + 1) << level)

    def sensitivity_squared_of_all(self) -> int:
        """``Σ_node size²``: a client in every round (each tree of ``2^h`` leaves gives ``2^h (2^(h+1) − 1)``).

        >>> Forest.of(8).sensitivity_squared_of_all()
        120
        """
        return sum(t.size * (2 * t.size - 1) for t in self.trees)

    def sensitivity_squared(self, rounds: Sequence[int]) -> int:
        """``Σ_node (rounds in node)²``: the squared ℓ2 sensitivity of a client taking part in ``rounds``.

        >>> Forest.of(8).sensitivity_squared([0, 1])
        14
        """
        total = 0
        trees = [self.tree_of(r) for r in rounds]
        for r, t in zip(rounds, trees):
            tree = self.trees[t]
            for s, u in zip(rounds, trees):
                if u == t:
                    # the nodes holding both: levels from the one where their offsets first agree up to the root
                    total += tree.height + 1 - ((r - tree.base) ^ (s - tree.base)).bit_length()
        return total
