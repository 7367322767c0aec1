"""Seeded families of instances that tests and benchmarks share.

>>> inst = one_protected_user(8)
>>> inst.K, inst.security_sets
(8, (1,))
"""

from __future__ import annotations

import itertools
import random

from itsa.keys.model.instance import Instance

__all__ = ["one_protected_user"]


def one_protected_user(K: int, seed: int = 0) -> Instance:
    """No symmetry at all: 3 or 4 servers, user 0 protected, each user and pair colluding with probability 0.6.

    The keys LP of such an instance has a column per user set and is highly
    degenerate: its basic duals have large denominators.
    """
    rng = random.Random(f"{K}:{seed}")
    U = 3 + K % 2
    servers = [K // U + (u < K % U) for u in range(U)]
    T = [sum(1 << i for i in c) for r in (1, 2) for c in itertools.combinations(range(K), r)
         if rng.random() < 0.6]
    return Instance(tuple(servers), (1,), tuple(T) or (0,), name=f"one-protected-K{K}-seed{seed}")
