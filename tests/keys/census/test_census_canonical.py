"""Canonical keys: isomorphic instances share a key, non-isomorphic ones never do."""

import itertools
import random

from hypothesis import given
from hypothesis import strategies as st

from itsa import Instance
from itsa.keys.census import brute_canonical_form, canonical_key, parse_spec
from itsa.keys.census.universe import _compositions
from itsa.testing import instances


def renamed(inst: Instance, rng: random.Random) -> Instance:
    """Servers reordered, users renamed inside servers, both families shuffled."""
    order = list(range(inst.U))
    rng.shuffle(order)
    servers = tuple(inst.servers[u] for u in order)
    new_bits, base = {}, 0
    for u in order:
        bits = [i for i in range(inst.K) if inst.server_masks[u] >> i & 1]
        rng.shuffle(bits)
        for j, old in enumerate(bits):
            new_bits[old] = base + j
        base += len(bits)
    moved = inst.relabelled(new_bits)
    S, T = list(moved.security_sets), list(moved.collusion_sets)
    rng.shuffle(S)
    rng.shuffle(T)
    return Instance(servers, tuple(S), tuple(T))


@given(instances(max_users=6), st.integers(0, 2**32))
def test_renamed_instance_same_key(inst, seed):
    other = renamed(inst, random.Random(seed))
    assert canonical_key(other) == canonical_key(inst)
    assert brute_canonical_form(other) == brute_canonical_form(inst)


def _all_instances(U, K, Ms, Ns):
    for servers in _compositions(K, U):
        for M in Ms:
            for N in Ns:
                for S in itertools.combinations(range(2 ** K), M):
                    for T in itertools.combinations(range(2 ** K), N):
                        yield Instance(servers, S, T)


def test_keys_partition_like_brute_force():
    """Over every instance with U = 3, K <= 4 and M, N <= 1 (and K = 3, M = 2):
    equal keys exactly when the brute-force canonical forms are equal."""
    pool = list(_all_instances(3, 3, (1, 2), (1,))) + list(_all_instances(3, 4, (1,), (1,)))
    by_key, by_form = {}, {}
    for inst in pool:
        by_key.setdefault(canonical_key(inst), set()).add(brute_canonical_form(inst))
        by_form.setdefault(brute_canonical_form(inst), set()).add(canonical_key(inst))
    assert all(len(v) == 1 for v in by_key.values())     # no two classes collapse
    assert all(len(v) == 1 for v in by_form.values())    # no class is split
    assert len(by_key) == len(by_form) > 100


def test_exhaustive_universe_one_item_per_class():
    spec = parse_spec({"universe": {"exhaustive": {"U": 3, "K": 3, "M": [1, 2], "N": 1}}})
    items = spec.items()
    forms = {brute_canonical_form(inst) for inst in _all_instances(3, 3, (1, 2), (1,))}
    assert len(items) == len(forms) == len({i.key for i in items})


def test_key_distinguishes_security_from_collusion():
    a = Instance((1, 1, 1), (0b001,), (0,))
    b = Instance((1, 1, 1), (0,), (0b001,))
    assert canonical_key(a) != canonical_key(b)
