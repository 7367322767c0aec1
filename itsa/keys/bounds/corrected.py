"""A corrected key-rate lower bound: **itsa's finding, not the paper's**.

The paper prints the converse ``R_ZΣ >= min{e*, K-1}`` (docs/model.md §3). Verified
schemes beat it on some instances (see ``docs/audit.md`` and
``instances/audit/``), so it is not a valid lower bound in general. This module
replaces it by a bound with a proof, for the scheme class itsa builds and
verifies. Nothing here comes from the paper.

Scope of the proof
------------------
Every scheme of the model (docs/model.md §1): any encoders
``X_{u,v} = f(W_{u,v}, Z_{u,v})``, any relays ``Y_u = g(X_{u,·})``, any
joint distribution of the keys. The proof below is written for
``X = W + Z`` and ``Y_u = Σ_v X_{u,v}``, where the view is a sum per group;
docs/converse.md §3 proves the same Lemma for every encoder (the *general
group lemma*: correctness alone makes each group's input sum a function of
the view and the group's keys), and the chain below uses nothing else.

Groups of a configuration
-------------------------
Fix a configuration ``(k, m, n)``: server ``k`` with colluders ``T = T_n``,
protecting ``S_m``. Inputs of ``S_m ∩ T`` are conditioned on anyway, so only
``S' = S_m \\ T`` matters. After subtracting what the colluders know
(``W_T, Z_T``) the adversary's view is one observation ``O_j = A_j + B_j`` per
*group* ``G_j`` (``A_j = Σ_{i∈G_j} W_i``, ``B_j = Σ_{i∈G_j} Z_i``):

* ``{i}`` for every user ``i`` of server ``k`` outside ``T`` (the ``X_{k,v}``);
* ``K_u \\ T`` for every other server ``u`` with ``K_u ⊄ T`` (the ``Y_u``);
  servers inside ``T`` contribute nothing: the adversary knows their ``Y_u``.

The groups partition ``K \\ T``. A group is *pure* if ``G_j ⊆ S_m``. Given
``ΣW`` and ``W_T`` the ``A_j`` are uniform subject to one linear relation
``Σ_j A_j = ΣW - ΣW_T``, and each pure ``A_j`` is a function of ``W_{S'}``.

Lemma (one configuration). For every ``Y ⊆ K \\ T``,
``H(Z_Y | Z_T) >= gain(k, m, n; Y) · L``, where with ``P_Y`` the pure groups
contained in ``Y`` and ``R`` the groups not contained in ``Y``:

* ``R = ∅``:                     ``gain = |P_Y| - [every group is pure]``;
* ``R ≠ ∅``, every group of R pure: ``gain = |P_Y| + [some non-pure group ⊆ Y]``;
* otherwise:                     ``gain = |P_Y|``.

Proof. ``Z_Y`` (with ``Z_T``) determines ``B_j`` for the groups inside ``Y``.
The view determines ``Σ X`` (the server's own ``X`` plus every ``Y_u``), so
with ``ΣW`` it determines ``Σ Z = Σ X - Σ W``, and then
``Σ_{j∈R} B_j = Σ Z - ΣZ_T - Σ_{G_j⊆Y} B_j`` is a function of
``(Z_Y, Z_T, view, ΣW)``. Let ``Λ`` be the functionals ``e_j`` (``j ∈ P_Y``),
plus ``1_R`` when every group of ``R`` is pure. Each ``λ·A`` (``λ ∈ Λ``) is a
function of ``W_{S'}``, and ``λ·O`` is a function of the view and of
``W_T, Z_T``. Security gives ``I(view; Λ·A | ΣW, W_T, Z_T) = 0``; keys are
independent of inputs; hence, writing ``C = (view, ΣW, W_T, Z_T)``,
``H(Λ·A | ΣW, W_T) = H(Λ·A | C) = H(Λ·B | C) <= H(Z_Y | Z_T)``. ``Λ·A`` is uniform over ``L·r`` symbols
where ``r`` is the rank of ``Λ`` modulo the all-ones functional (the only
relation among the ``A_j``); ``r`` is the ``gain`` above. ∎

Theorem (chain). Define over user sets ``X``:
``g(∅) = 0``, ``g(X) = max(0, max_{(k,m,n): X ⊄ T_n} g(X ∩ T_n) + gain(k,m,n; X \\ T_n))``.
Then ``H(Z_X) >= g(X)·L`` and ``R_ZΣ >= g(K)``.

Proof. ``H(Z_X) = H(Z_{X∩T}) + H(Z_{X\\T} | Z_{X∩T}) >= H(Z_{X∩T}) +
H(Z_{X\\T} | Z_T)`` (conditioning on more), then the Lemma and induction on
``|X|``; ``L_ZΣ >= H(Z_Σ) >= H(Z_K)``, all entropies in q-ary symbols
(``L_ZΣ`` counts symbols of ``F_q``, and ``H(Z_Σ) <= L_ZΣ`` in that unit). ∎

The bound is reported as ``min{g(K), K-1}``. The cap never binds: the
Computation notes below show ``g(K) <= K-1`` for every instance (if
``Y = K \\ T`` some group is impure or the ``-1`` applies), which also
agrees with the Condition-1 scheme (``K-1`` independent key symbols, secure
on every instance). It is kept as a consistency guard.

Computation
-----------
With ``Y_in`` the union of the groups inside ``Y``, ``IU`` that of the impure
groups and ``|P_Y|`` counted with one representative user per group, the
Lemma reads ``gain = |P_Y| + [Y_in ∩ IU ≠ ∅ and IU ⊆ Y_in] - [Y_in = K \\ T]``.
:class:`_Chain` evaluates it for every ``(m, k)`` of a batch of collusion sets
at once on packed ``uint64`` words (arrays ``(N, M, U, W)`` built once), and
prunes with bounds that follow from the notes above:

* ``gain <=`` the number of groups inside ``Y``, so ``g(X) <= |X|``, and
  ``g(K) <= K-1`` (if ``Y = K \\ T`` one group is impure or the ``-1`` applies);
* pure groups lie inside ``A = ∪ S_m``, and a "+1" in a chain below ``X`` needs
  ``S_m ∪ T_n ∪ X = K`` for some ``(m, n)``; without such a pair
  ``g(Z) <= |Z ∩ A|`` for every ``Z ⊆ X``;
* per collusion set, without looking at ``m``: ``gain <=`` the groups inside
  ``Y`` that are pure for some ``m``, plus one if a "+1" is possible.

Collusion sets are taken in index order, in batches of 16, 64, 256, ...; in a
batch, by decreasing bound ``bound(g(X ∩ T)) + gain``, and ``g(X ∩ T)`` is only
computed (on an explicit stack, memoised) when that bound beats the best value so far;
the search stops once the cap ``|X|`` (``K-1``, ``|X ∩ A|``) is reached. The step
recorded for ``X`` is the first configuration ``(n, m, k)``, in lexicographic
order, of positive gain attaining ``g(X)``; :class:`itsa.testing.oracles.ReferenceChain`
computes values and chains from the definition alone, and the tests hold the two equal.

Security criterion (the converse of the Lemma for linear schemes). For a
linear scheme **whose** ``ΣZ`` **is a function of** ``Z_T`` (for example
``ΣZ = 0``, which every correct linear scheme satisfies), configuration
``(k, m, n)`` is secure iff
``rank[B_P; Z_T] - rank[Z_T] = (|P| - [every group is pure])·L``, ``P`` the
pure groups. Without that precondition the criterion can answer "secure" for
a leaking scheme (one key ``Z_(1,1) = N`` alone, ``T = ∅``).
:mod:`itsa.keys.search.scalar` builds only candidates with ``ΣZ = 0``, uses the criterion
as a fast pre-filter and then runs the real verifier;
:func:`itsa.keys.search.scalar.fast_secure` checks the precondition and otherwise falls
back to the exact verifier.

How it relates to the paper's formula (the hypotheses that led here): the
per-configuration term ``|P|`` is ``|S'∩K_k| + |U'\\{k}|`` with ``S'`` in place
of ``S_m`` and ``U' = U^(m,n)`` minus the servers lying inside ``T_n``; the
``-1`` is the paper's ``D = K`` case with ``S'``; and the paper's
``|T_n ∩ S̄|`` (Lemma 4, which needs security against ``T_n`` minus one user,
not a constraint of the problem) is replaced by ``g(T_n)``, a bound proved from
the constraints actually given.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from itsa._util import display
from itsa._util.bitset import members, pack, popcount, union_reduce
from itsa._util.display import Displayable
from itsa._util.plain import frac, users
from itsa.keys.model.instance import Instance
from itsa.keys.model.quantities import configurations
from itsa.typing import Config

LABEL = "itsa finding (not in the paper): corrected converse"
#: The schemes every lower bound of itsa holds for (the general group lemma, docs/converse.md §3).
EVERY_SCHEME = "every scheme of the model (any encoders, relays and keys)"
SCOPE = f"proved for {EVERY_SCHEME}, by the general group lemma"



@dataclass(frozen=True)
class Structure:
    """The groups of one configuration ``(k, m, n)`` (1-based), see the module notes.

    ``groups[j]`` is a user bitmask, ``pure[j]`` says ``groups[j] ⊆ S_m``.
    Server ``k``'s singletons come first, then the other servers in order.
    """

    config: Config
    T: int
    groups: tuple[int, ...]
    pure: tuple[bool, ...]

    @property
    def n_pure(self) -> int:
        return sum(self.pure)

    @property
    def all_pure(self) -> bool:
        return all(self.pure)

    @property
    def term(self) -> int:
        """``gain`` with ``Y = K \\ T``: ``|P| - [all groups pure]``."""
        return self.n_pure - (1 if self.all_pure else 0)

    def gain(self, Y: int) -> int:
        """The Lemma's ``gain(k, m, n; Y)`` for ``Y ⊆ K \\ T`` (bits of ``T`` are ignored)."""
        Y &= ~self.T
        inside = [(g & ~Y) == 0 for g in self.groups]
        p_y = sum(1 for g_in, p in zip(inside, self.pure) if g_in and p)
        rest_pure = [p for g_in, p in zip(inside, self.pure) if not g_in]
        if not rest_pure:
            return p_y - (1 if self.all_pure else 0)
        if all(rest_pure):
            impure_inside = any(g_in and not p for g_in, p in zip(inside, self.pure))
            return p_y + (1 if impure_inside else 0)
        return p_y


def structure(instance: Instance, k: int, m: int, n: int) -> Structure:
    """Groups and purity of configuration ``(k, m, n)`` (1-based)."""
    S = instance.security_sets[m - 1]
    T = instance.collusion_sets[n - 1]
    groups: list[int] = [1 << i for i in members(instance.server_masks[k - 1] & ~T)]
    for u, Ku in enumerate(instance.server_masks, 1):
        if u != k and Ku & ~T:
            groups.append(Ku & ~T)
    return Structure((k, m, n), T, tuple(groups), tuple((g & ~S) == 0 for g in groups))


def structures(instance: Instance) -> list[Structure]:
    """One :class:`Structure` per distinct ``(T, groups, pure)``, first configuration kept."""
    seen: dict[tuple, Structure] = {}
    for n in range(1, instance.N + 1):
        for m in range(1, instance.M + 1):
            for k in range(1, instance.U + 1):
                s = structure(instance, k, m, n)
                seen.setdefault((s.T, s.groups, s.pure), s)
    return list(seen.values())


@dataclass(frozen=True, repr=False)
class ChainStep:
    """``H(Z_X | Z_{X∩T}) >= gain``, from configuration ``config`` with ``T = T_n``."""

    X: int
    config: Config
    T: int
    gain: int

    def __repr__(self) -> str:
        return (f"<ChainStep gain {self.gain} from configuration {display.config(self.config)}, "
                f"{self.X.bit_count()} users in X>")

@dataclass(kw_only=True, frozen=True, repr=False)
class CorrectedBound(Displayable):
    """``R_ZΣ >= value``: itsa's corrected converse, with its chain of configurations.

    ``chain`` lists the steps from ``X = K`` down, each conditioning on a
    collusion set; their gains add up to ``g(K)``. ``label`` and ``scope``
    say what it is and where the proof applies.
    """

    value: Fraction
    g: int
    K: int
    chain: tuple[ChainStep, ...]
    reason: str
    label: str = LABEL
    scope: str = SCOPE
    instance: Instance | None = field(default=None, compare=False, repr=False)   # for (u, v) in output

    def headline(self) -> str:
        return f"R_ZΣ ≥ {self.value} (g(K) = {self.g}, K = {self.K}; {len(self.chain)} chain steps)"

    def rows(self) -> list[tuple[str, str]]:
        steps = self.describe(self.instance) if self.instance is not None else [
            f"configuration {display.config(st.config)}: gain {st.gain}" for st in self.chain]
        return [("what", self.label), ("holds for", self.scope), ("chain", "\n".join(steps) or "none")]

    def to_dict(self) -> dict[str, Any]:
        """Plain data: the bound, ``g(K)``, each chain step (users as ``[u, v]``), the reason."""
        inst = self.instance
        return {"value": frac(self.value), "g": self.g, "K": self.K, "reason": self.reason,
                "label": self.label, "scope": self.scope,
                "chain": [{"configuration": list(st.config), "gain": st.gain,
                           "X": users(inst, st.X) if inst is not None else list(members(st.X))}
                          for st in self.chain]}

    def describe(self, instance: Instance) -> list[str]:
        out = []
        for st in self.chain:
            out.append(f"H(Z_X | Z_(X∩T{st.config[2]})) >= {st.gain} from configuration "
                       f"{display.config(st.config)}, X = {instance.describe(st.X)}")
        return out


class _Chain:
    """``g(X)`` of the module notes, memoised, evaluated on packed arrays.

    See "Computation" in the module notes. ``memo[X] = (g(X), step)`` where
    ``step`` is the first configuration ``(n, m, k)`` attaining ``g(X)``
    (``None`` when ``g(X) = 0``). Collusion sets are indexed ``0..N-1`` over the
    *distinct* ``T_n`` (first ``n`` kept: a later copy never wins a tie).
    """

    CHUNK = 1 << 18      # configurations evaluated in one NumPy pass
    MEMO_MAX = 100_000   # memoised sets kept (the oldest are forgotten, then recomputed if needed)

    def __init__(self, instance: Instance):
        self.instance = instance
        K, self.U, self.full = instance.K, instance.U, instance.full_mask
        first: dict[int, int] = {}                                    # distinct T -> first n
        for n, T in enumerate(instance.collusion_sets, 1):
            first.setdefault(T, n)
        self.T_int, self.n_of = list(first), list(first.values())
        self.Ks = pack(instance.server_masks, K)                      # (U, W)
        self.T = pack(self.T_int, K)                                  # (N, W)
        self.full_w = pack([self.full], K)[0]
        S = pack(instance.security_sets, K)                           # (M, W)
        notT = self.full_w & ~self.T
        self.G = notT[:, None, :] & self.Ks[None]                     # (N, U, W): K_u \ T
        self.G_any = _nonzero(self.G)                                 # (N, U)
        low = pack([_low_bits(T, instance.server_masks) for T in self.T_int], K)
        rep = self.G | (low[:, None, :] & ~self.Ks[None])              # one user per group
        srv_pure = self.G_any[:, None, :] & ~_nonzero(self.G[:, None] & ~S[None, :, None])  # (N, M, U)
        # one server at a time, in place: temporaries stay 1/U of an (N, M, U, W) array
        N, M, U, W = len(self.T_int), S.shape[0], self.U, S.shape[1]
        PSG = np.zeros((N, M, W), dtype=np.uint64)                    # union of pure server groups
        for u in range(U):
            PSG |= np.where(srv_pure[:, :, u, None], self.G[:, None, u], np.uint64(0))
        PU = np.empty((N, M, U, W), dtype=np.uint64)
        for u in range(U):
            PU[:, :, u] = ((S[None] & self.G[:, None, u])               # pure own singletons
                           | (PSG & ~self.Ks[u]))                       # pure server groups
        self.PR = PU & rep[:, None]                                   # one user per pure group
        np.invert(PU, out=PU)
        PU &= notT[:, None, None]
        self.IU = PU                                                  # (N, M, U, W): impure groups
        self.srv_ever_pure = srv_pure.any(axis=1)                     # (N, U)
        self.S = np.unique(S, axis=0)
        self.A = union_reduce(S)                                      # users some S_m protects
        self.A_w = pack([self.A], K)[0]
        self.reach = (max(s.bit_count() for s in instance.security_sets)
                      + max(T.bit_count() for T in self.T_int))
        self.memo: dict[int, tuple[int, ChainStep | None]] = {0: (0, None)}

    def _bonus_possible(self, X: int) -> bool:
        """Whether ``S_m ∪ T_n ∪ X = K`` for some ``m, n``: needed by any "+1" gain below ``X``."""
        D = self.full & ~X
        if D.bit_count() > self.reach:
            return False
        Dw = pack([D], self.instance.K)[0]
        step = max(1, self.CHUNK // len(self.S))
        for lo in range(0, len(self.T_int), step):
            R = Dw & ~self.T[lo:lo + step]                                 # (B, W)
            if (~_nonzero(R[:, None, :] & ~self.S[None])).any():
                return True
        return False

    def _inside(self, Xw: np.ndarray, idx) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``Y = X \\ T``, which server groups ``K_u \\ T`` lie inside ``Y``, and their union."""
        T, G = self.T[idx], self.G[idx]
        Y = Xw & ~T                                                    # (B, W)
        inside = self.G_any[idx] & ~_nonzero(G & ~Y[:, None, :])       # (B, U)
        SG_in = np.bitwise_or.reduce(np.where(inside[..., None], G, 0), axis=1)
        return Y, inside, SG_in

    def _cheap_bounds(self, Xw: np.ndarray, Cw: np.ndarray, bonus: bool, lo: int, hi: int) -> np.ndarray:
        """An upper bound on ``g(X ∩ T) + gain`` for ``T`` number ``lo..hi-1`` (``-1`` if ``X ⊆ T``).

        ``gain <=`` (groups inside ``Y`` that are pure for some ``m``) ``+ [bonus]``.
        """
        Y, inside, _ = self._inside(Xw, slice(lo, hi))
        pure_in = inside & self.srv_ever_pure[lo:hi]                   # (B, U)
        own = popcount((Y & self.A_w)[:, None, :] & self.Ks[None])     # (B, U): |Y ∩ K_k ∩ A|
        gain = (own + pure_in.sum(axis=1, keepdims=True) - pure_in).max(axis=1) + int(bonus)
        ub = popcount(Xw & Cw & self.T[lo:hi]) + gain
        ub[~_nonzero(Y)] = -1
        return ub

    def _gains(self, Xw: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Best ``gain(k, m, n; X \\ T_n)`` for the collusion sets ``idx``, and its first ``(m, k)``."""
        Y, _, SG_in = self._inside(Xw, idx)
        Yin = ((Y[:, None, :] & self.Ks[None])                        # union of the groups
               | (SG_in[:, None, :] & ~self.Ks[None]))[:, None]        # inside Y: (B, 1, U, W)
        IU = self.IU[idx]
        IU_in = IU & Yin
        R_empty = ~_nonzero(self.full_w & ~Xw & ~self.T[idx])          # (B,)
        gain = (popcount(self.PR[idx] & Yin)                          # |P_Y|
                + (_nonzero(IU_in) & ~_nonzero(IU ^ IU_in))            # impure inside, R pure
                - R_empty[:, None, None])                              # (B, M, U)
        flat = gain.reshape(len(idx), -1)                              # (m, k) in m-major order
        return flat.max(axis=1), flat.argmax(axis=1)

    def g(self, X: int) -> int:
        """``g(X)``, computed without recursion: an explicit stack of :meth:`_solve` frames.

        A frame yields the sets ``X ∩ T`` whose value it needs; the loop
        answers from the memo or starts a frame for it, so the depth of the
        chain (up to ``K``) never meets Python's recursion limit.
        """
        hit = self.memo.get(X)
        if hit is not None:
            return hit[0]
        stack = [(X, self._solve(X))]
        reply = None
        while stack:
            x, frame = stack[-1]
            try:
                sub = frame.send(reply)
            except StopIteration:
                stack.pop()
                reply = self.memo[x][0]
                continue
            hit = self.memo.get(sub)
            if hit is not None:
                reply = hit[0]
            else:
                stack.append((sub, self._solve(sub)))
                reply = None
        return self.memo[X][0]

    def _remember(self, X: int, entry) -> None:
        """Store ``memo[X]``, forgetting the oldest entries beyond :attr:`MEMO_MAX` (recomputed on demand)."""
        memo = self.memo
        while len(memo) >= self.MEMO_MAX:
            del memo[next(iter(memo))]
        memo[X] = entry

    def _solve(self, X: int):
        """The computation of ``g(X)`` as a generator: ``value = yield Z`` asks for ``g(Z)``."""
        Xw = pack([X], self.instance.K)[0]
        bonus = self._bonus_possible(X)
        # g(Z) <= |Z ∩ C| for every Z ⊆ X, and g(K) <= K-1 (module notes)
        C, Cw = (self.full, self.full_w) if bonus else (self.A, self.A_w)
        cap = (X & C).bit_count() - (1 if X == self.full else 0)
        rows = max(1, self.CHUNK // (self.IU.shape[1] * self.U))    # T's per exact NumPy pass
        done = []                                   # (T indices, gains, flat (m, k), bounds)
        best, lo, size, N = 0, 0, 16, len(self.T_int)
        while lo < N and best < cap:                # 1. the value: batches in n order
            hi = min(N, lo + size)
            idx = lo + np.flatnonzero(self._cheap_bounds(Xw, Cw, bonus, lo, hi) > best)
            for a in range(0, len(idx), rows):
                part = idx[a:a + rows]
                gain, arg = self._gains(Xw, part)
                ub = popcount(Xw & Cw & self.T[part]) + gain
                done.append((part, gain, arg, ub))
                for j in np.argsort(-ub, kind="stable"):        # best bound first
                    if ub[j] <= best:
                        break
                    if gain[j] > 0:
                        best = max(best, (yield X & self.T_int[part[j]]) + int(gain[j]))
                        if best >= cap:
                            break
                if best >= cap:
                    break
            lo, size = hi, size * 4
        step = None
        for part, gain, arg, ub in done if best else ():    # 2. the first (n, m, k) attaining it
            for j in np.flatnonzero((ub >= best) & (gain > 0)):
                i = int(part[j])
                if (yield X & self.T_int[i]) + int(gain[j]) == best:
                    m, k = divmod(int(arg[j]), self.U)
                    step = ChainStep(X, (k + 1, m + 1, self.n_of[i]), self.T_int[i], int(gain[j]))
                    break
            if step is not None:
                break
        self._remember(X, (best, step))

    def steps(self, X: int) -> tuple[ChainStep, ...]:
        out = []
        while X:
            self.g(X)
            st = self.memo[X][1]
            if st is None:
                break
            out.append(st)
            X &= st.T
        return tuple(out)


def _nonzero(words: np.ndarray) -> np.ndarray:
    """Whether each packed set (last axis) is non-empty."""
    return (words != 0).any(axis=-1)


def _low_bits(T: int, server_masks: tuple[int, ...]) -> int:
    """The lowest user of every non-empty ``K_u \\ T``, as one mask."""
    out = 0
    for Ku in server_masks:
        g = Ku & ~T
        out |= g & -g
    return out


def corrected_lower_bound(instance: Instance) -> CorrectedBound:
    """itsa's corrected key-rate lower bound ``min{g(K), K-1}`` (module notes).

    Examples
    --------
    >>> from itsa import examples
    >>> b = corrected_lower_bound(examples.load("homogeneous-U3-V2-t1"))
    >>> b.value, b.label.startswith("itsa finding")
    (Fraction(4, 1), True)
    """
    ch = _Chain(instance)
    K = instance.K
    gK = ch.g(instance.full_mask)
    chain = ch.steps(instance.full_mask)
    value = min(gK, K - 1)
    parts = " + ".join(f"{s.gain} [({s.config[0]},{s.config[1]},{s.config[2]})]" for s in chain) or "0"
    reason = (f"{LABEL}: R_ZΣ >= g(K) = {parts} = {gK}"
              + (f", capped at K-1 = {K - 1}" if gK > K - 1 else "")
              + f"; {SCOPE}")
    return CorrectedBound(value=Fraction(value), g=gK, K=K, chain=chain, reason=reason, instance=instance)


def paper_lower_bound(instance: Instance) -> int:
    """The printed converse ``min{e*, K-1}`` (docs/model.md §3), for comparison."""
    return min(int(configurations(instance).c.max()), instance.K - 1)
