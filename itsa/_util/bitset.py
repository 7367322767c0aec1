"""User sets as integer bitmasks, and their packing into NumPy words.

User ``i`` (0-based, in the order ``(1,1) < (1,2) < ... < (U,V_U)``) is bit
``i``. A set of any size is a Python ``int``; for vectorised work a batch of
sets is an array of shape ``(..., W)`` of ``uint64`` words, ``W = ceil(K/64)``,
so the same code serves every ``K``.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

WORD_BITS = 64
_WORD_MASK = (1 << WORD_BITS) - 1


def n_words(n_bits: int) -> int:
    """Number of 64-bit words needed for ``n_bits`` bits (at least one)."""
    return max(1, -(-n_bits // WORD_BITS))


def members(mask: int) -> list[int]:
    """Indices of the set bits of ``mask``, in increasing order.

    >>> members(0b1011)
    [0, 1, 3]
    """
    out = []
    i = 0
    while mask:
        if mask & 1:
            out.append(i)
        mask >>= 1
        i += 1
    return out


def mask_of(indices: Iterable[int]) -> int:
    """The bitmask with exactly the given bits set.

    >>> mask_of([0, 3])
    9
    """
    m = 0
    for i in indices:
        m |= 1 << i
    return m


def pack(masks: Iterable[int], n_bits: int) -> np.ndarray:
    """Pack Python-int masks into a ``(len, W)`` array of ``uint64`` words."""
    w = n_words(n_bits)
    masks = list(masks)
    out = np.zeros((len(masks), w), dtype=np.uint64)
    for r, m in enumerate(masks):
        for j in range(w):
            out[r, j] = (m >> (WORD_BITS * j)) & _WORD_MASK
    return out


def unpack(words: np.ndarray) -> int:
    """Inverse of :func:`pack` for one row of words."""
    m = 0
    for j, x in enumerate(np.asarray(words, dtype=np.uint64).tolist()):
        m |= int(x) << (WORD_BITS * j)
    return m


def popcount(words: np.ndarray, dtype=np.int64) -> np.ndarray:
    """Number of set bits of each packed set (sums over the last axis), as ``dtype``."""
    counts = np.bitwise_count(words)
    if counts.shape[-1] == 1:   # the common case K <= 64: no reduction needed
        return counts[..., 0].astype(dtype)
    return counts.sum(axis=-1, dtype=dtype)


def union_reduce(words: np.ndarray) -> int:
    """Union of a batch ``(n, W)`` of packed sets, as a Python int (0 if empty)."""
    if words.shape[0] == 0:
        return 0
    return unpack(np.bitwise_or.reduce(words, axis=0))
