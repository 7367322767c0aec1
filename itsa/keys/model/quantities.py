"""The paper's combinatorial quantities, for every configuration ``(u, m, n)``.

Definitions: docs/model.md §2 (paper Sec. II-A and IV-C3). All sets are bitmasks;
the per-configuration work is vectorised over packed ``uint64`` words, so one
code path serves every ``K``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from itsa._util.bitset import n_words, pack, popcount, union_reduce, unpack
from itsa._util.checks import choice
from itsa._util.display import Displayable, Kind
from itsa.exceptions import InvalidInstance
from itsa.keys.model.instance import Instance


class QRule(Kind):
    """The two readings of ``Q`` (docs/model.md §6.1): union and intersection."""

    UNION = "union"
    INTERSECTION = "intersection"


Q_RULES = tuple(QRule)

#: Largest ``U·M·N·W`` (configurations times 64-bit words per set) analysed;
#: each per-configuration array takes 8 bytes per unit.
MAX_CONFIGURATION_WORDS = 30_000_000


@dataclass(kw_only=True, frozen=True, eq=False, repr=False)
class Configurations:
    """Every configuration ``(u, m, n)`` of an instance, as arrays.

    Arrays are indexed ``[u-1, m-1, n-1]``. ``in_U[u-1, m-1, n-1]`` says
    whether server ``u`` is in ``U^(m,n)`` (it does not depend on the first
    index of the configuration, only on ``(m, n)``), likewise ``in_F``.
    """

    instance: Instance
    in_U: np.ndarray        # (U, M, N) bool: server u in U^(m,n)
    in_F: np.ndarray        # (U, M, N) bool: server u in F^(m,n)
    D: np.ndarray           # (U, M, N, W) uint64: D_{u,m,n}
    D_size: np.ndarray      # (U, M, N) int
    A_size: np.ndarray      # (U, M, N) int: |D ∩ S̄|
    c: np.ndarray           # (U, M, N) int
    S_I: int
    S_bar: int

    @property
    def shape(self) -> tuple[int, int, int]:
        return self.D_size.shape

    @cached_property
    def critical(self) -> np.ndarray:
        """``|A_{u,m,n}| = |S̄|``: the configuration covers all of ``S̄``."""
        return self.A_size == self.S_bar.bit_count()

    def D_mask(self, u: int, m: int, n: int) -> int:
        """``D_{u,m,n}`` as an int (1-based indices)."""
        return unpack(self.D[u - 1, m - 1, n - 1])

    def U_servers(self, m: int, n: int) -> list[int]:
        """``U^(m,n)`` as sorted 1-based servers."""
        return [int(u) + 1 for u in np.flatnonzero(self.in_U[:, m - 1, n - 1])]

    def F_servers(self, m: int, n: int) -> list[int]:
        """``F^(m,n)`` as sorted 1-based servers."""
        return [int(u) + 1 for u in np.flatnonzero(self.in_F[:, m - 1, n - 1])]

    def where(self, mask: np.ndarray) -> list[tuple[int, int, int]]:
        """1-based ``(u, m, n)`` of the configurations selected by a boolean array."""
        return [(int(u) + 1, int(m) + 1, int(n) + 1) for u, m, n in np.argwhere(mask)]

    def union_of_D(self, mask: np.ndarray) -> int:
        """Union of ``D_{u,m,n}`` over the configurations selected by ``mask``."""
        return union_reduce(self.D[mask])

    def __repr__(self) -> str:
        U, M, N = self.in_U.shape
        return f"<Configurations of {self.instance.name or 'an instance'}: {U} x {M} x {N} (u, m, n)>"

@dataclass(kw_only=True, frozen=True, repr=False)
class SetQuantities(Displayable):
    """``S_I``, ``S̄``, ``a*``, ``e*``, ``Q_1``, ``Q_2`` and ``Q`` (bitmasks).

    ``instance`` (not compared) lets the sets print as ``(u, v)`` users.

    Examples
    --------
    >>> from itsa import configurations, examples
    >>> s = set_quantities(configurations(examples.example1()))
    >>> s
    <SetQuantities a* = 2, e* = 2, S_I = {(1,3)}, S̄ = {(1,1), (1,3), (2,1)}, Q = ∅ (union rule)>
    >>> s.S_I                  # a bitmask: user (1,3) is bit 2
    4
    """

    S_I: int
    S_bar: int
    a_star: int
    e_star: int
    Q1: int
    Q2: int
    Q: int
    q_rule: str
    instance: Instance | None = field(default=None, compare=False)

    def _set(self, mask: int) -> str:
        return self.instance.describe(mask) if self.instance is not None else bin(mask)

    def headline(self) -> str:
        return (f"a* = {self.a_star}, e* = {self.e_star}, S_I = {self._set(self.S_I)}, "
                f"S̄ = {self._set(self.S_bar)}, Q = {self._set(self.Q)} ({self.q_rule} rule)")

    def rows(self) -> list[tuple[str, str]]:
        return [("S_I", self._set(self.S_I)), ("S̄", self._set(self.S_bar)),
                ("a*", str(self.a_star)), ("e*", str(self.e_star)),
                ("Q_1", self._set(self.Q1)), ("Q_2", self._set(self.Q2)),
                (f"Q ({self.q_rule} rule)", self._set(self.Q))]


def check_size(instance: Instance) -> None:
    """Raise :class:`InvalidInstance` if the configuration arrays would be too large."""
    U, M, N, W = instance.U, instance.M, instance.N, n_words(instance.K)
    if U * M * N * W > MAX_CONFIGURATION_WORDS:
        raise InvalidInstance(
            f"{U}·{M}·{N} = {U * M * N:,} configurations of {W} word(s) each exceed the limit "
            f"of {MAX_CONFIGURATION_WORDS:,} words (about {8 * MAX_CONFIGURATION_WORDS // 2**20} MiB per array)")


def configurations(instance: Instance) -> Configurations:
    """Compute ``U^(m,n)``, ``F^(m,n)``, ``D``, ``|A|`` and ``c`` for all configurations.

    Notes
    -----
    docs/model.md §2: ``U^(m,n) = {u : S_m ∩ K_u ≠ ∅, (S_m ∪ T_n) ∩ K_u = K_u}``,
    ``F^(m,n) = {u : S_m ∩ K_u = ∅, T_n ∩ K_u = K_u}``,
    ``D_{u,m,n} = (S_m ∩ K_u) ∪ K_{U^(m,n)} ∪ T_n``,
    ``c_{u,m,n} = |((S_m ∩ K_u) ∪ T_n) ∩ S̄| + |U^(m,n) \\ {u}|``.

    The paper defines ``U^(m,n)``, ``F^(m,n)``, ``S_I`` (its Definition 2),
    ``S̄`` and ``A_{u,m,n}`` in Sec. II-A, with Example 1 worked through
    there; ``c`` is the term the converse of Sec. IV-C3 maximises.
    """
    K = instance.K
    S = pack(instance.security_sets, K)          # (M, W)
    T = pack(instance.collusion_sets, K)         # (N, W)
    Ks = pack(instance.server_masks, K)          # (U, W)
    U, M, N, W = instance.U, S.shape[0], T.shape[0], S.shape[1]
    check_size(instance)

    SK = S[None, :, :] & Ks[:, None, :]                       # (U, M, W): S_m ∩ K_u
    has_S = SK.any(axis=-1)                                   # (U, M)
    T_full = ((T[None, :, :] & Ks[:, None, :]) == Ks[:, None, :]).all(axis=-1)   # (U, N)
    in_U = np.empty((U, M, N), dtype=bool)
    KU = np.zeros((M, N, W), dtype=np.uint64)
    for u in range(U):
        cov = ((S[:, None, :] | T[None, :, :]) & Ks[u]) == Ks[u]
        in_U[u] = has_S[u][:, None] & cov.all(axis=-1)
        KU[in_U[u]] |= Ks[u]
    in_F = (~has_S)[:, :, None] & T_full[:, None, :]

    SKT = SK[:, :, None, :] | T[None, None, :, :]             # (U, M, N, W)
    D = SKT | KU[None]
    D_size = popcount(D, np.int16)       # counts <= K + U: int16 keeps the arrays small

    full = (1 << K) - 1
    explicit = union_reduce(S)
    near = D_size == K - 1
    missing = union_reduce(~D[near] & pack([full], K)[0]) if near.any() else 0
    S_I = missing & ~explicit
    S_bar = explicit | S_I
    Sb = pack([S_bar], K)[0]

    # one server u at a time: temporaries stay 1/U of an array
    A_size = np.empty_like(D_size)
    c = np.empty_like(D_size)
    for u in range(U):
        A_size[u] = popcount(D[u] & Sb, np.int16)
        c[u] = popcount(np.bitwise_and(SKT[u], Sb, out=SKT[u]), np.int16)
    del SKT
    c += in_U.sum(axis=0, dtype=np.int16)[None]               # + |U^(m,n)|
    c -= in_U                                                 # - [u in U^(m,n)]
    return Configurations(instance=instance, in_U=in_U, in_F=in_F, D=D, D_size=D_size, A_size=A_size, c=c, S_I=S_I, S_bar=S_bar)


def set_quantities(conf: Configurations, q_rule: str = "union") -> SetQuantities:
    """Reduce the configuration arrays to the paper's named sets and numbers.

    ``q_rule`` chooses how ``Q_1`` and ``Q_2`` combine (docs/model.md §6.1):
    ``"union"`` gives ``Q_1 ∪ Q_2`` when ``Q_1 ≠ ∅`` and ``∅`` otherwise;
    ``"intersection"`` gives ``Q_1 ∩ Q_2``.
    """
    choice("q_rule", q_rule, Q_RULES)
    a_star = int(conf.A_size.max())
    e_star = int(conf.c.max())
    Q1 = conf.union_of_D(conf.critical)
    Q2 = conf.union_of_D(conf.c == e_star)
    Q = (Q1 | Q2 if Q1 else 0) if q_rule == QRule.UNION else Q1 & Q2
    return SetQuantities(S_I=conf.S_I, S_bar=conf.S_bar, a_star=a_star, e_star=e_star, Q1=Q1, Q2=Q2, Q=Q, q_rule=q_rule, instance=conf.instance)
