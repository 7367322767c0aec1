"""Deliberately plain references: the paper's quantities and itsa's ``g(X)``.

:func:`plain_quantities` uses frozensets of ``(u, v)`` pairs and one Python
loop per configuration, written straight from docs/model.md §2 with no shared
code with :mod:`itsa.model.quantities`. :class:`ReferenceChain` is the plain loop
over :func:`itsa.bounds.corrected.structures` that defines ``g(X)``. The tests use them
as oracles and the benchmarks as baselines.
"""

from __future__ import annotations

from itertools import product

from itsa.bounds.corrected import ChainStep, structures


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


class ReferenceChain:
    """The original ``g(X)``: every structure for every ``X``, first strict maximum kept.

    The plain definition of :mod:`itsa.bounds.corrected`' notes, the oracle of the tests
    and the baseline of ``benchmarks/bench_bounds.py`` for the pruned,
    vectorised ``_Chain``.
    """

    def __init__(self, instance):
        self.structs = structures(instance)
        self.memo: dict[int, tuple[int, ChainStep | None]] = {0: (0, None)}

    def g(self, X):
        if X in self.memo:
            return self.memo[X][0]
        best, arg = 0, None
        for s in self.structs:
            if X & ~s.T == 0:
                continue
            gain = s.gain(X & ~s.T)
            if gain <= 0:
                continue
            val = self.g(X & s.T) + gain
            if val > best:
                best, arg = val, ChainStep(X, s.config, s.T, gain)
        self.memo[X] = (best, arg)
        return best

    def steps(self, X):
        out: list[ChainStep] = []
        while X:
            self.g(X)
            st = self.memo[X][1]
            if st is None:
                break
            out.append(st)
            X &= st.T
        return tuple(out)


def reference_g(instance):
    """``(g(K), chain)`` by the reference loop."""
    ref = ReferenceChain(instance)
    return ref.g(instance.full_mask), ref.steps(instance.full_mask)
