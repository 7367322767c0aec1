"""A corrected key-rate lower bound: **itsa's finding, not the paper's**.

The paper prints the converse ``R_ZΣ >= min{e*, K-1}`` (MODEL.md §3). Verified
schemes beat it on some instances (see ``docs/audit.md`` and
``instances/audit/``), so it is not a valid lower bound in general. This module
replaces it by a bound with a proof, for the scheme class itsa builds and
verifies. Nothing here comes from the paper.

Scope of the proof
------------------
Schemes with ``X_{u,v} = W_{u,v} + Z_{u,v}`` and ``Y_u = Σ_v X_{u,v}`` over
``F_q^L`` whose keys sum to zero, ``Σ Z = 0``. Every scheme of the paper
(MODEL.md §4) and every scheme :func:`itsa.verify.verify` accepts is of this
form (for these linear schemes correctness forces ``Σ Z = 0``: the only
combination of a server's view whose input part is ``Σ W`` is ``Σ X``). The keys
may have any joint distribution. For encoders outside this class the bound is
a conjecture, supported only by the same evidence.

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

Proof. ``Z_Y`` (with ``Z_T``) determines ``B_j`` for the groups inside ``Y``
and, because ``Σ Z = 0``, also ``Σ_{j∈R} B_j = -ΣZ_T - Σ_{G_j⊆Y} B_j``. Let
``Λ`` be the functionals ``e_j`` (``j ∈ P_Y``), plus ``1_R`` when every group of
``R`` is pure. Each ``λ·A`` (``λ ∈ Λ``) is a function of ``W_{S'}``, and
``λ·O`` is a function of the view and of ``W_T, Z_T``. Security gives
``I(Λ·O; Λ·A | ΣW, W_T, Z_T) = 0``, hence
``H(Λ·A | ΣW, W_T) = H(Λ·A | Λ·O, ...) <= H(Λ·B | Z_T) <= H(Z_Y | Z_T)``
(keys are independent of inputs). ``Λ·A`` is uniform over ``L·r`` symbols
where ``r`` is the rank of ``Λ`` modulo the all-ones functional (the only
relation among the ``A_j``); ``r`` is the ``gain`` above. ∎

Theorem (chain). Define over user sets ``X``:
``g(∅) = 0``, ``g(X) = max(0, max_{(k,m,n): X ⊄ T_n} g(X ∩ T_n) + gain(k,m,n; X \\ T_n))``.
Then ``H(Z_X) >= g(X)·L`` and ``R_ZΣ >= g(K)``.

Proof. ``H(Z_X) = H(Z_{X∩T}) + H(Z_{X\\T} | Z_{X∩T}) >= H(Z_{X∩T}) +
H(Z_{X\\T} | Z_T)`` (conditioning on more), then the Lemma and induction on
``|X|``; ``L_ZΣ >= H(Z_Σ) >= H(Z_K)``. ∎

The bound is reported as ``min{g(K), K-1}``: the Condition-1 scheme (``K-1``
independent key symbols) is secure on every instance, so ``g(K) <= K-1`` is
itself a consistency check and the cap never changes a correct value.

Security criterion (the converse of the Lemma for linear schemes). For a
linear scheme, configuration ``(k, m, n)`` is secure iff
``rank[B_P; Z_T] - rank[Z_T] = (|P| - [every group is pure])·L``, ``P`` the
pure groups. :mod:`itsa.search` uses this as a fast pre-filter and then runs
the real verifier.

How it relates to the paper's formula (the hypotheses that led here): the
per-configuration term ``|P|`` is ``|S'∩K_k| + |U'\\{k}|`` with ``S'`` in place
of ``S_m`` and ``U' = U^(m,n)`` minus the servers lying inside ``T_n``; the
``-1`` is the paper's ``D = K`` case with ``S'``; and the paper's
``|T_n ∩ S̄|`` (Lemma 4, which needs security against ``T_n`` minus one user,
not a constraint of the problem) is replaced by ``g(T_n)``, a bound proved from
the constraints actually given.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

from .bitset import members
from .instance import Instance
from .quantities import configurations

LABEL = "itsa finding (not in the paper): corrected converse"
SCOPE = ("proved for schemes X = W + Z, Y_u = Σ_v X_{u,v} with Σ Z = 0 (every linear scheme itsa "
         "verifies, every scheme of the paper); a conjecture for other encoders")

Config = tuple[int, int, int]


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


@dataclass(frozen=True)
class ChainStep:
    """``H(Z_X | Z_{X∩T}) >= gain``, from configuration ``config`` with ``T = T_n``."""

    X: int
    config: Config
    T: int
    gain: int


@dataclass(frozen=True)
class CorrectedBound:
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

    def describe(self, instance: Instance) -> list[str]:
        out = []
        for st in self.chain:
            k, m, n = st.config
            out.append(f"H(Z_X | Z_(X∩T{n})) >= {st.gain} from configuration ({k},{m},{n}), "
                       f"X = {instance.labels(st.X)}")
        return out


class _Chain:
    def __init__(self, instance: Instance):
        self.instance = instance
        self.structs = structures(instance)
        self.memo: dict[int, tuple[int, ChainStep | None]] = {0: (0, None)}

    def g(self, X: int) -> int:
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


def corrected_lower_bound(instance: Instance) -> CorrectedBound:
    """itsa's corrected key-rate lower bound ``min{g(K), K-1}`` (module notes).

    Examples
    --------
    >>> from itsa import load_instance
    >>> b = corrected_lower_bound(load_instance("instances/homogeneous-U3-V2-t1.yaml"))
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
    return CorrectedBound(Fraction(value), gK, K, chain, reason)


@dataclass(frozen=True)
class ConfigExplanation:
    """Per configuration: the paper's ``c``, the hypothesis' ``c'`` and the proved term."""

    config: Config
    paper_c: int
    hypothesis_c: int
    pure_groups: int
    all_pure: bool
    term: int            # H(Z_{K\\T} | Z_T) >= term (Lemma with Y = K \\ T)
    chained: int         # g(T_n) + term


def explain(instance: Instance) -> list[ConfigExplanation]:
    """One row per configuration ``(k, m, n)``: how the three formulas see it."""
    conf = configurations(instance)
    sbar = conf.S_bar
    ch = _Chain(instance)
    out = []
    for n in range(1, instance.N + 1):
        T = instance.collusion_sets[n - 1]
        gT = ch.g(T)
        for m in range(1, instance.M + 1):
            for k in range(1, instance.U + 1):
                s = structure(instance, k, m, n)
                out.append(ConfigExplanation((k, m, n), int(conf.c[k - 1, m - 1, n - 1]),
                                             _hyp_c(instance, sbar, k, m, n), s.n_pure, s.all_pure,
                                             s.term, gT + s.term))
    return out


def _hyp_c(instance: Instance, sbar: int, k: int, m: int, n: int) -> int:
    S = instance.security_sets[m - 1]
    T = instance.collusion_sets[n - 1]
    Sp = S & ~T
    Ks = instance.server_masks
    Uset = [u for u, Ku in enumerate(Ks, 1) if Sp & Ku and (S | T) & Ku == Ku]
    KU = 0
    for u in Uset:
        KU |= Ks[u - 1]
    D = (Sp & Ks[k - 1]) | KU | T
    c = (((Sp & Ks[k - 1]) | T) & sbar).bit_count() + len([u for u in Uset if u != k])
    return c - (1 if D == instance.full_mask else 0)


def hypothesis_bound(instance: Instance) -> int:
    """The brief's first hypothesis (kept for the record; **not** a proved bound).

    ``min{max c', K-1}`` with ``c' = |((S'∩K_k) ∪ T) ∩ S̄| + |U'\\{k}| - [D' = K]``,
    ``S' = S_m \\ T_n``, ``U'`` without servers inside ``T_n``, ``S̄`` the paper's.
    ``docs/audit.md`` records where verified schemes beat it.
    """
    conf = configurations(instance)
    best = max(_hyp_c(instance, conf.S_bar, k, m, n)
               for n in range(1, instance.N + 1) for m in range(1, instance.M + 1)
               for k in range(1, instance.U + 1))
    return min(best, instance.K - 1)


def paper_lower_bound(instance: Instance) -> int:
    """The printed converse ``min{e*, K-1}`` (MODEL.md §3), for comparison."""
    return min(int(configurations(instance).c.max()), instance.K - 1)
