"""Hypothesis strategies for itsa instances, shared by the tests and by users.

Needs hypothesis (``pip install '.[testing]'``).

Examples
--------
>>> from hypothesis import given
>>> from itsa.testing import instances
>>> @given(instances(max_users=5))
... def test_something(inst):
...     assert inst.K <= 5
"""

from __future__ import annotations

from itsa._util.extras import require
from itsa.keys.model.instance import Instance

st = require("hypothesis.strategies")

__all__ = ["instances", "relabellings"]


@st.composite
def instances(draw, min_servers: int = 3, max_servers: int = 4, max_users: int = 7,
              max_security_sets: int = 4, max_collusion_sets: int = 5) -> Instance:
    """Random small instances: ``U`` servers, at most ``max_users`` users in all,
    families of random subsets (``∅`` and repeated sets allowed)."""
    U = draw(st.integers(min_servers, max_servers))
    extra = draw(st.integers(0, max(0, max_users - U)))
    cuts = sorted(draw(st.lists(st.integers(0, U - 1), min_size=extra, max_size=extra)))
    servers = [1 + cuts.count(u) for u in range(U)]
    K = sum(servers)
    subset = st.integers(0, (1 << K) - 1)
    S = draw(st.lists(subset, min_size=1, max_size=max_security_sets))
    T = draw(st.lists(subset, min_size=1, max_size=max_collusion_sets))
    return Instance(tuple(servers), tuple(S), tuple(T), name="hypothesis")


@st.composite
def relabellings(draw, instance: Instance) -> dict[int, int]:
    """A permutation of user bits that only renames users within each server."""
    perm: dict[int, int] = {}
    for mask in instance.server_masks:
        bits = [i for i in range(instance.K) if mask >> i & 1]
        for a, b in zip(bits, draw(st.permutations(bits))):
            perm[a] = b
    return perm
