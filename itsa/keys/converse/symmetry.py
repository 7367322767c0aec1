"""Symmetries of an instance: user permutations that map the problem to itself.

A permutation ``π`` of the users is an *automorphism* of an instance when it
maps every server's users onto some server's users, and the families of
distinct security sets and of distinct collusion sets onto themselves. The
group is found with nauty (through pynauty) on a coloured graph: users,
servers, security sets and collusion sets are the four colour classes, and a
user is joined to its server and to every set that holds it. Each generator
nauty returns is checked against the definition before it is used.
"""

from __future__ import annotations

from itsa._util.bitset import mask_of, members
from itsa.exceptions import VerificationError
from itsa.keys.model.instance import Instance


def instance_automorphisms(instance: Instance) -> list[tuple[int, ...]]:
    """Generators of the instance's automorphism group, as user permutations.

    ``perm[i]`` is the image of user bit ``i``. The identity is left out.

    Examples
    --------
    >>> inst = Instance.from_users([1, 1, 1], [[(1, 1), (2, 1), (3, 1)]], [[]])
    >>> len(instance_automorphisms(inst)) >= 1
    True
    """
    import pynauty

    K, U = instance.K, instance.U
    S = sorted(set(instance.security_sets))
    T = sorted(set(instance.collusion_sets))
    n = K + U + len(S) + len(T)
    adj: dict[int, list[int]] = {v: [] for v in range(n)}
    for u, Ku in enumerate(instance.server_masks):
        for i in members(Ku):
            adj[i].append(K + u)
    for base, family in ((K + U, S), (K + U + len(S), T)):
        for j, s in enumerate(family):
            for i in members(s):
                adj[i].append(base + j)
    colours = [set(range(K)), set(range(K, K + U)), set(range(K + U, K + U + len(S))),
               set(range(K + U + len(S), n))]
    graph = pynauty.Graph(n, directed=False, adjacency_dict=adj,
                          vertex_coloring=[c for c in colours if c])
    gens = [tuple(g[:K]) for g in pynauty.autgrp(graph)[0]]
    gens = [g for g in gens if g != tuple(range(K))]
    for g in gens:
        if not is_automorphism(instance, g):
            raise VerificationError(f"nauty returned {g}, which is not an automorphism")
    return gens


def is_automorphism(instance: Instance, perm: tuple[int, ...]) -> bool:
    """Whether the user permutation ``perm`` maps the instance to itself."""
    def image(s: int) -> int:
        return mask_of(perm[i] for i in members(s))
    servers = set(instance.server_masks)
    return (sorted(perm) == list(range(instance.K))
            and all(image(Ku) in servers for Ku in instance.server_masks)
            and {image(s) for s in instance.security_sets} == set(instance.security_sets)
            and {image(t) for t in instance.collusion_sets} == set(instance.collusion_sets))


def permute_mask(mask: int, perm: tuple[int, ...]) -> int:
    """The image of a bitmask under a permutation of its bits."""
    return mask_of(perm[i] for i in members(mask))
