"""Plain references for the tree and matrix mechanisms: every participation pattern, enumerated.

Written from the definitions with no code shared with :mod:`itsa.privacy.matrix`:

- the nodes of tree aggregation are the dyadic intervals ``[j 2^l, (j + 1) 2^l)`` of each segment's
  rounds that lie inside it (the Gboard notebook's "complete subtrees of the ``2^⌈log2 T⌉``-leaf tree");
- a pattern is a set of rounds, at most ``E``, two of them more than ``ξ`` apart, at most ``k`` in a segment;
- the tree's squared sensitivity of a pattern is ``Σ_node |pattern ∩ node|²``, and a matrix mechanism's
  is ``‖Σ_{t ∈ pattern} C[:, t]‖²`` (every update in one direction), at most ``Σ_{i,j} |⟨C[:, i], C[:, j]⟩|``.

Exponential in the rounds: for small cases only.
"""

from __future__ import annotations

from fractions import Fraction

__all__ = ["patterns", "tree_nodes", "brute_tree_sensitivity", "brute_matrix_sensitivity"]


def patterns(rounds: int, max_participations: int, min_separation: int, segments=None, per_segment=None):
    """Every admissible non-empty pattern of rounds ``0..rounds-1``, as a tuple."""
    seg_of = []
    for s, length in enumerate(segments or [rounds]):
        seg_of += [s] * length

    def grow(pattern):
        if pattern:
            yield tuple(pattern)
        if len(pattern) == max_participations:
            return
        start = pattern[-1] + min_separation + 1 if pattern else 0
        for r in range(start, rounds):
            if per_segment is not None and sum(seg_of[x] == seg_of[r] for x in pattern) >= per_segment:
                continue
            yield from grow(pattern + [r])

    yield from grow([])


def tree_nodes(segments) -> list[range]:
    """The nodes of tree aggregation restarted after each segment: dyadic intervals inside each."""
    nodes, start = [], 0
    for length in segments:
        size = 1
        while size <= length:
            nodes += [range(start + j, start + j + size) for j in range(0, length - size + 1, size)]
            size *= 2
        start += length
    return nodes


def brute_tree_sensitivity(rounds: int, max_participations: int, min_separation: int, segments=None,
                           per_segment=None) -> tuple[int, tuple[int, ...]]:
    """The largest ``Σ_node |pattern ∩ node|²`` over every pattern, and the first pattern attaining it."""
    nodes = tree_nodes(segments or [rounds])
    best, where = -1, ()
    for pattern in patterns(rounds, max_participations, min_separation, segments, per_segment):
        chosen = set(pattern)
        value = sum(len(chosen.intersection(node)) ** 2 for node in nodes)
        if value > best:
            best, where = value, pattern
    return best, where


def brute_matrix_sensitivity(columns, max_participations: int, min_separation: int, absolute: bool = False
                             ) -> tuple[Fraction, tuple]:
    """The largest ``‖Σ_{t ∈ pattern} C[:, t]‖²`` over every pattern (``columns[t]``: column ``t`` of ``C``), or with
    ``absolute`` the largest ``Σ_{i,j ∈ pattern} |⟨C[:, i], C[:, j]⟩|`` (what updates of any directions reach at most)."""
    rounds = len(columns)
    best, where = Fraction(-1), ()
    for pattern in patterns(rounds, max_participations, min_separation):
        value = Fraction(0)
        if absolute:
            for i in pattern:
                for j in pattern:
                    value += abs(sum((Fraction(a) * Fraction(b) for a, b in zip(columns[i], columns[j])), Fraction(0)))
        else:
            total = [Fraction(0)] * len(columns[0])
            for t in pattern:
                total = [a + Fraction(b) for a, b in zip(total, columns[t])]
            for x in total:
                value += x * x
        if value > best:
            best, where = value, pattern
    return best, where
