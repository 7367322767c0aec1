"""Canonical keys: one key per isomorphism class of instances.

Two instances are *isomorphic* when one becomes the other by renaming users
inside their servers, reordering the servers (each taking its users along),
and reordering the security sets and the collusion sets. Every quantity of the
paper, every bound and every optimal rate is invariant under these renamings,
so a census solves one instance per class.

The key is computed by nauty's canonical labelling (through pynauty) of a
vertex-coloured graph: one vertex per server, per user, per security set and
per collusion set (four colours, in this order), an edge from each user to
its server and to every set containing it. A bijection of users that maps
servers to servers and the families onto each other (as multisets) is exactly
a colour-preserving isomorphism of these graphs, so two instances get the
same certificate if and only if they are isomorphic; the key is a hash of
``(U, K, M, N)`` and the certificate.

:func:`brute_canonical_form` computes the same classes by trying every
relabelling (small instances only); the tests check that both agree.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterator

from itsa._util.bitset import mask_of, members
from itsa.keys.model.instance import Instance

__all__ = ["canonical_key", "brute_canonical_form"]


def _graph(instance: Instance):
    import pynauty

    U, K = instance.U, instance.K
    fams = instance.security_sets + instance.collusion_sets
    n = U + K + len(fams)
    adj: dict[int, list[int]] = {}
    for i in range(K):
        nbrs = [instance.server_of(i) - 1]
        nbrs += [U + K + j for j, s in enumerate(fams) if s >> i & 1]
        adj[U + i] = nbrs
    M = instance.M
    colouring = [set(range(U)), set(range(U, U + K)), set(range(U + K, U + K + M)),
                 set(range(U + K + M, n))]
    return pynauty.Graph(n, directed=False, adjacency_dict=adj, vertex_coloring=colouring)


def canonical_key(instance: Instance) -> str:
    """A key shared by exactly the instances isomorphic to ``instance``.

    The key reads ``U.K.M.N-<hash>``: sizes first (so keys sort by size), then
    20 hex digits of a SHA-256 of nauty's certificate.

    Examples
    --------
    >>> from itsa import Instance
    >>> a = Instance.from_users([2, 1, 1], [[(1, 1)]], [[], [(3, 1)]])
    >>> b = Instance.from_users([1, 1, 2], [[(3, 2)]], [[(2, 1)], []])   # servers and sets renamed
    >>> canonical_key(a) == canonical_key(b)
    True
    >>> canonical_key(a)[:8]
    '3.4.1.2-'
    """
    import pynauty

    cert = pynauty.certificate(_graph(instance))
    sizes = f"{instance.U}.{instance.K}.{instance.M}.{instance.N}"
    digest = hashlib.sha256(sizes.encode() + b":" + cert).hexdigest()[:20]
    return f"{sizes}-{digest}"


#: An instance as ``(servers, sorted S, sorted T)``: the server sizes and the two families of masks.
CanonicalForm = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]


def brute_canonical_form(instance: Instance) -> CanonicalForm:
    """The smallest relabelled ``(servers, sorted S, sorted T)`` over every relabelling.

    Exponential in ``K``: for tests and small instances (``K <= 6``).

    >>> from itsa import Instance
    >>> brute_canonical_form(Instance.from_users([1, 2, 1], [[(2, 2)]], [[]]))
    ((1, 1, 2), (4,), (0,))
    """
    return min(_relabelled_forms(instance))     # never empty: the identity is a relabelling


def _relabelled_forms(instance: Instance) -> Iterator[CanonicalForm]:
    """``(servers, sorted S, sorted T)`` under every relabelling of servers and of users within them."""
    masks = instance.server_masks
    for order in itertools.permutations(range(instance.U)):
        servers = tuple(instance.servers[u] for u in order)
        blocks = [list(members(masks[u])) for u in order]
        for inner in itertools.product(*(itertools.permutations(b) for b in blocks)):
            new = [i for block in inner for i in block]          # new bit j <- old bit new[j]
            perm = {old: j for j, old in enumerate(new)}
            move = lambda m, perm=perm: mask_of(perm[i] for i in members(m))   # noqa: E731
            yield (servers, tuple(sorted(map(move, instance.security_sets))),
                   tuple(sorted(map(move, instance.collusion_sets))))
