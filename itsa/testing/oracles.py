"""Deliberately plain references: the paper's quantities and itsa's ``g(X)``.

:func:`plain_quantities` uses frozensets of ``(u, v)`` pairs and one Python
loop per configuration, written straight from docs/model.md §2 with no shared
code with :mod:`itsa.keys.model.quantities`. :class:`ReferenceChain` is ``g(X)`` of
:mod:`itsa.keys.bounds.corrected` written from its definition, with no shared code
either. The tests use them as oracles and the benchmarks as baselines.
"""

from __future__ import annotations

from itertools import product


def plain_quantities(servers, S, T, q_rule: str = "union") -> dict:
    """``S_I, S̄, a*, e*, Q_1, Q_2, Q`` as frozensets/ints; S, T are lists of sets of (u, v)."""
    U = len(servers)
    Ku = {u: frozenset((u, v) for v in range(1, servers[u - 1] + 1)) for u in range(1, U + 1)}
    allK = frozenset().union(*Ku.values())
    K = len(allK)
    S = [frozenset(s) for s in S]
    T = [frozenset(t) for t in T]

    def U_mn(s, t):
        return {u for u in Ku if s & Ku[u] and (s | t) & Ku[u] == Ku[u]}

    def D(u, s, t):
        out = (s & Ku[u]) | t
        for w in U_mn(s, t):
            out |= Ku[w]
        return out

    configs = [(u, m, n) for u, m, n in product(range(1, U + 1), range(len(S)), range(len(T)))]
    Ds = {(u, m, n): D(u, S[m], T[n]) for u, m, n in configs}
    union_S = frozenset().union(*S)
    S_I: frozenset[tuple[int, int]] = frozenset()
    for d in Ds.values():
        if len(d) == K - 1:
            S_I |= allK - d
    S_I -= union_S
    S_bar = union_S | S_I
    a_star = max(len(d & S_bar) for d in Ds.values())
    cs = {}
    for (u, m, n) in configs:
        s, t = S[m], T[n]
        cs[(u, m, n)] = len(((s & Ku[u]) | t) & S_bar) + len(U_mn(s, t) - {u})
    e_star = max(cs.values())
    Q1 = frozenset().union(*[Ds[x] for x in configs if len(Ds[x] & S_bar) == len(S_bar)])
    Q2 = frozenset().union(*[Ds[x] for x in configs if cs[x] == e_star])
    Q = (Q1 | Q2 if Q1 else frozenset()) if q_rule == "union" else Q1 & Q2
    return {"S_I": S_I, "S_bar": S_bar, "a_star": a_star, "e_star": e_star, "Q1": Q1, "Q2": Q2, "Q": Q}


def _users(mask: int) -> frozenset[int]:
    """The users (0-based indices) of a bitmask, as a set."""
    return frozenset(i for i in range(mask.bit_length()) if mask >> i & 1)


def _mask(users: frozenset[int]) -> int:
    return sum(1 << i for i in users)


class ReferenceChain:
    """``g(X)`` written straight from the definition in :mod:`itsa.keys.bounds.corrected`' notes.

    Sets of users are frozensets; for every ``X`` every configuration ``(k, m, n)``
    is tried, its groups and their purity rebuilt from the instance's servers,
    security and collusion sets, nothing shared with the code it checks:

    * the groups of ``(k, m, n)``: ``{i}`` for each user ``i`` of server ``k``
      outside ``T_n``, and ``K_u \\ T_n`` for each other server ``u`` with
      ``K_u ⊄ T_n``; a group is pure when it lies inside ``S_m``;
    * ``gain(Y)``, ``Y ⊆ K \\ T_n``, with ``P`` the pure groups inside ``Y`` and ``R``
      the groups not inside ``Y``: ``|P| - [every group pure]`` if ``R`` is empty,
      ``|P| + [some impure group inside Y]`` if every group of ``R`` is pure, else ``|P|``;
    * ``g(∅) = 0``, ``g(X) = max(0, max over (k, m, n) with X ⊄ T_n of
      g(X ∩ T_n) + gain(k, m, n; X \\ T_n))``.

    The step kept for ``X`` is the first configuration, in the order ``(n, m, k)``,
    of positive gain attaining ``g(X)``: ``step(X)`` is ``(X, (k, m, n), T_n, gain)``
    as bitmasks, or ``None``. Slow on purpose: the oracle of the tests and the
    baseline of ``benchmarks/bench_bounds.py``.
    """

    def __init__(self, instance):
        self.K = instance.K
        self.servers = [_users(mask) for mask in instance.server_masks]
        self.security = [_users(mask) for mask in instance.security_sets]
        self.collusion = [_users(mask) for mask in instance.collusion_sets]
        self.memo: dict[frozenset[int], tuple[int, tuple | None]] = {frozenset(): (0, None)}

    def groups(self, k: int, m: int, n: int) -> list[tuple[frozenset[int], bool]]:
        """The groups of configuration ``(k, m, n)`` (1-based), each with whether it is pure."""
        T, S = self.collusion[n - 1], self.security[m - 1]
        groups = [frozenset([i]) for i in sorted(self.servers[k - 1] - T)]
        groups += [Ku - T for u, Ku in enumerate(self.servers, 1) if u != k and Ku - T]
        return [(G, G <= S) for G in groups]

    def gain(self, k: int, m: int, n: int, Y: frozenset[int]) -> int:
        groups = self.groups(k, m, n)
        pure_inside = sum(1 for G, pure in groups if pure and G <= Y)
        outside = [pure for G, pure in groups if not G <= Y]
        if not outside:
            return pure_inside - (1 if all(pure for _, pure in groups) else 0)
        if all(outside):
            return pure_inside + (1 if any(G <= Y and not pure for G, pure in groups) else 0)
        return pure_inside

    def value(self, X: frozenset[int]) -> int:
        if X not in self.memo:
            tried = [((k, m, n), T, self.value(X & T) + gain, gain)           # (n, m, k) order
                     for n, T in enumerate(self.collusion, 1) if not X <= T
                     for m in range(1, len(self.security) + 1)
                     for k in range(1, len(self.servers) + 1)
                     for gain in [self.gain(k, m, n, X - T)]]
            best = max([0] + [total for _, _, total, _ in tried])
            step = next(((_mask(X), config, _mask(T), gain) for config, T, total, gain in tried
                         if gain > 0 and total == best), None)
            self.memo[X] = (best, step)
        return self.memo[X][0]

    def g(self, X: int) -> int:
        """``g`` of the user bitmask ``X``."""
        return self.value(_users(X))

    def step(self, X: int) -> tuple | None:
        """The step kept for ``X``: ``(X, (k, m, n), T_n, gain)``, or ``None`` when ``g(X) = 0``."""
        self.g(X)
        return self.memo[_users(X)][1]

    def steps(self, X: int) -> tuple[tuple, ...]:
        """The chain from ``X`` down: each step conditions on its collusion set."""
        out = []
        while X and (st := self.step(X)) is not None:
            out.append(st)
            X &= st[2]
        return tuple(out)


def reference_g(instance):
    """``(g(K), chain)`` by the reference, each chain step ``(X, (k, m, n), T_n, gain)``."""
    ref = ReferenceChain(instance)
    return ref.g(instance.full_mask), ref.steps(instance.full_mask)
