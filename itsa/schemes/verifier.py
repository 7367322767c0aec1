"""Exact verification of a linear scheme: correctness and every security constraint.

Two engines compute, for every server ``k`` and every configuration
``(m, n)`` with ``S_m ≠ ∅``, the conditional mutual information (docs/model.md §1)

    I( view_k ; W_{S_m} | ΣW, W_{T_n}, Z_{T_n} )   in q-ary units,

with ``view_k = ({X_{k,v}}_v, {Y_u}_{u≠k})``, and check that ``ΣW`` is
recoverable from ``view_k``.

- ``rank``: every variable of a linear scheme is a linear map of the source
  ``s = (W, N)``; a set of variables with stacked matrix ``G`` is uniform on
  the image of ``G``, so ``H = rank G`` and
  ``I(A;B|C) = rk[A;C] + rk[B;C] - rk[A;B;C] - rk[C]`` (docs/model.md §7).
  Correctness is linear decodability,
  ``rk[view; ΣW] = rk[view]``.
- ``enumerate``: the ground truth. It runs through all ``q^(K·L+d)`` source
  values, evaluates every message, and computes entropies by exact counting;
  it uses no linearity (see :func:`verify` for how values are kept exact).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, lru_cache

import numpy as np

from itsa._util import display
from itsa._util.bitset import members
from itsa._util.checks import choice
from itsa._util.display import Displayable
from itsa.exceptions import InvalidOption, InvalidScheme
from itsa.model.instance import Instance
from itsa.schemes.linalg import Matrices
from itsa.schemes.scheme import Scheme
from itsa.typing import Progress

ENGINES = ("auto", "rank", "enumerate")
#: Leaks listed by :meth:`Verdict.summary` before "… N in all".
SHOWN_LEAKS = 10
#: ``auto`` enumerates when there are at most this many source values ...
AUTO_MAX_SOURCE = 100_000
#: ... and at most this much work (source values x histogram passes).
AUTO_MAX_WORK = 2 * 10**7
#: ``enumerate`` refuses more source values than this (memory).
ENUM_MAX_SOURCE = 50_000_000
#: ``enumerate`` refuses more work than this (source values x passes).
ENUM_BUDGET = 2 * 10**9
#: Both engines refuse more source symbols ``K·L + d`` than this: the rank
#: engine's kernel bases are ``dim x dim`` matrices (memory and time grow as
#: ``dim^2`` and ``dim^3``); enumeration stops far below.
MAX_VERIFY_DIM = 2048



@dataclass(frozen=True)
class Leak:
    """The measured information of one configuration ``(k, m, n)`` (1-based).

    ``symbols`` is the exact value of ``I(view_k; W_{S_m} | ΣW, W_{T_n}, Z_{T_n})``
    in **q-ary units** (symbols of ``F_q``), a :class:`~fractions.Fraction`;
    ``None`` only when the enumeration engine finds a value that is not a
    rational multiple of ``log q`` (impossible for linear schemes), in which
    case ``approx`` holds its float value. ``approx`` is always filled.
    """

    k: int
    m: int
    n: int
    symbols: Fraction | None
    approx: float

    @property
    def exact(self) -> bool:
        return self.symbols is not None

    @property
    def independent(self) -> bool:
        """True iff the information is exactly zero."""
        return self.symbols == 0


@dataclass(frozen=True, repr=False)
class Verdict(Displayable):
    """Outcome of :func:`verify`.

    Attributes
    ----------
    scheme : Scheme
    engine : str
        The engine that actually ran (``"rank"`` or ``"enumerate"``).
    correct : mapping
        1-based server ``k`` -> whether ``ΣW`` is recoverable from its view.
    measured : tuple of Leak
        The measured leakage of every checked configuration ``(k, m, n)``
        (``S_m ≠ ∅``), zero included, sorted by ``(k, m, n)``. (Before this
        name existed, ``leaks`` held this tuple.)
    leaks : tuple of Leak
        The leaks: the entries of ``measured`` whose leakage is not zero
        (``nonzero_leaks`` is an older name for the same tuple).
    trivial : int
        Configurations skipped because ``S_m = ∅`` (information 0).
    fallback : str or None
        Why ``auto`` did not enumerate, if it did not.
    source_dim : int
        ``K·L + d``.
    inferred : int
        Enumeration only: checked configurations whose zero value was
        deduced exactly rather than counted (``S_m ⊆ T_n``, or a zero for a
        larger ``S_m \\ T_n`` under the same ``(k, n)``: by the chain rule
        ``I(A;B|C) <= I(A;B,B'|C)``).
    """

    scheme: Scheme
    engine: str
    correct: Mapping[int, bool]
    measured: tuple[Leak, ...]
    trivial: int
    fallback: str | None = None
    source_dim: int = 0
    inferred: int = 0

    @property
    def leaks(self) -> tuple[Leak, ...]:
        """The configurations that leak: the entries of ``measured`` that are not zero.

        >>> from itsa import examples
        >>> inst, good = examples.example1(), examples.scheme("example-1")
        >>> v = verify(inst, good)
        >>> v.leaks, len(v.measured) == v.checked
        ((), True)
        """
        return tuple(lk for lk in self.measured if not lk.independent)

    @property
    def nonzero_leaks(self) -> tuple[Leak, ...]:
        """Deprecated name of :attr:`leaks` (the same tuple)."""
        return self.leaks

    @property
    def ok(self) -> bool:
        """All servers correct and every leak exactly zero."""
        return all(self.correct.values()) and not self.leaks

    @property
    def checked(self) -> int:
        return len(self.measured)

    @property
    def total(self) -> int:
        return len(self.measured) + self.trivial

    # -- display -----------------------------------------------------------
    def _headline(self) -> str:
        status = "ok" if self.ok else "FAILS"
        return (f"{status}: rate {self.scheme.rate} over F_{self.scheme.field}, {self.engine} engine, "
                f"{self.checked} configurations checked, {len(self.leaks)} leaking")

    def _rows(self) -> list[tuple[str, str]]:
        sch = self.scheme
        wrong = [k for k, ok in self.correct.items() if not ok]
        rows = [("scheme", f"F_{sch.field}, L = {sch.L}, {sch.key_symbols} key symbols, "
                           f"construction {sch.construction or 'not given'}"),
                ("correctness", "every server decodes ΣW" if not wrong else
                 "ΣW not decodable at server(s) " + ", ".join(map(str, wrong))),
                ("security", f"{self.checked} configurations (k,m,n) checked, {self.trivial} with "
                             f"S_m = ∅, {len(self.leaks)} leaking")]
        for lk in self.leaks[:SHOWN_LEAKS]:
            value = lk.symbols if lk.exact else f"≈ {lk.approx:.6g}"
            rows.append((f"leak {display.config((lk.k, lk.m, lk.n))}", f"{value} q-ary symbols"))
        if len(self.leaks) > SHOWN_LEAKS:
            rows.append(("leaks", f"… {len(self.leaks)} in all"))
        if self.fallback:
            rows.append(("engine", self.fallback))
        return rows

    def leak(self, k: int, m: int, n: int) -> Leak | None:
        """The entry of configuration ``(k, m, n)``, ``None`` if trivial."""
        for lk in self.measured:
            if (lk.k, lk.m, lk.n) == (k, m, n):
                return lk
        return None


# ---------------------------------------------------------------------------
def verify(instance: Instance, scheme: Scheme, engine: str = "auto",
           progress: Progress | None = None, *, rank_backend: str = "flint",
           enum_budget: int | None = None) -> Verdict:
    """Check a scheme's correctness and all security constraints exactly.

    Parameters
    ----------
    instance : Instance
    scheme : Scheme
    engine : {"auto", "rank", "enumerate"}
        ``auto`` enumerates when ``q^dim <= AUTO_MAX_SOURCE`` and the work is
        below ``AUTO_MAX_WORK``, otherwise uses ``rank`` and records why in
        ``Verdict.fallback``.
    progress : callable(done, total), optional
        Called periodically.
    rank_backend : {"flint", "galois"}
        Rank backend of the rank engine (``galois`` is the slow reference).
    enum_budget : int, optional
        Work limit of ``enumerate`` (source values x histogram passes),
        default :data:`ENUM_BUDGET`.

    Returns
    -------
    Verdict

    Raises
    ------
    InvalidScheme
        If the scheme names users outside the instance.
    InvalidOption
        If
        ``engine="enumerate"`` would exceed its budget (a request too large).

    Notes
    -----
    Correctness is the paper's constraint (6), security its constraint (7)
    (Sec. II; docs/model.md §1), every ``(k, m, n)``; ``S_m = ∅``
    gives 0 and is only counted (``Verdict.trivial``). ``W_{S_m ∩ T_n}`` is
    part of the condition, so configurations are grouped by
    ``S_m \\ T_n`` and each group is computed once.

    The rank engine uses docs/model.md §7 in the form
    ``I = rk(B·N_C) - rk(B·N_{[A;C]})``, ``N_X`` a basis of the right kernel
    of ``X`` (equal to the four-rank formula, see ``_rank_engine``).

    The enumeration engine counts, for each joint variable ``X``, the number
    ``n_x`` of source values giving each value ``x``, and keeps
    ``Σ_x n_x ln n_x`` as an exact integer combination of ``ln p`` over primes
    ``p`` (from the factorisations of the counts). Then
    ``I(A;B|C)·q^dim·ln q = S(ABC) + S(C) - S(AC) - S(BC)``; by unique
    factorisation it is zero iff every prime coefficient is zero (the test of
    conditional independence), and it is a rational number of q-ary units iff
    only ``p = q`` remains (then ``symbols`` is that rational; otherwise ``symbols``
    is ``None`` and ``approx`` is a float). Correctness by enumeration: every
    view value occurs with a single ``ΣW`` value.

    Examples
    --------
    >>> inst = Instance.from_users([1, 1, 1], [[(1, 1)]], [[]])
    >>> s = Scheme(3, 1, 2, {0: [[1, 0]], 1: [[0, 1]], 2: [[-1, -1]]})
    >>> v = verify(inst, s)
    >>> v.engine, v.ok, v.checked
    ('enumerate', True, 3)
    >>> v
    <Verdict ok: rate 2 over F_3, enumerate engine, 3 configurations checked, 0 leaking>
    >>> verify(inst, Scheme(3, 1, 0, {}), engine="rank").leaks[0]
    Leak(k=1, m=1, n=1, symbols=Fraction(1, 1), approx=1.0)
    """
    choice("engine", engine, ENGINES)
    scheme.check_fits(instance)
    check_verifiable(instance, scheme.L, scheme.key_symbols)
    plan = _Plan(instance, scheme)
    fallback = None
    if engine == "auto":
        if plan.samples <= AUTO_MAX_SOURCE and plan.work <= AUTO_MAX_WORK:
            engine = "enumerate"
        else:
            fallback = (f"q^dim = {scheme.field}^{plan.dim} = {plan.samples_text} source values "
                        f"x {plan.passes} passes exceeds the automatic enumeration limit "
                        f"({AUTO_MAX_SOURCE:.0e} values, {AUTO_MAX_WORK:.0e} work); used rank")
            engine = "rank"
    elif engine == "enumerate":
        budget = ENUM_BUDGET if enum_budget is None else enum_budget
        if plan.samples > ENUM_MAX_SOURCE or plan.work > budget:
            raise InvalidOption(
                f"exhaustive enumeration too large: q^dim = {scheme.field}^{plan.dim} = "
                f"{plan.samples_text} source values x {plan.passes} passes = {plan.work_text} "
                f"(limits: {ENUM_MAX_SOURCE:.0e} values, {budget:.0e} work); use the rank engine "
                f"or raise the budget")
    if engine == "rank":
        correct, values, inferred = _rank_engine(plan, progress, rank_backend)
    else:
        correct, values, inferred = _enum_engine(plan, progress)
    leaks = tuple(Leak(k + 1, m + 1, n + 1, *values[k, m, n]) for k, m, n in sorted(values))
    return Verdict(scheme, engine, {k + 1: c for k, c in enumerate(correct)}, leaks,
                   plan.trivial, fallback, plan.dim, inferred)


def check_verifiable(instance: Instance, L: int, key_symbols: int) -> None:
    """Refuse, before any allocation, more than :data:`MAX_VERIFY_DIM` source symbols ``K·L + d``.

    >>> check_verifiable(Instance((2, 1, 1), (1,), (0,)), 1, 5000)
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidScheme: too large to verify: K·L + key_symbols = 4·1 + 5000 = 5,004 source symbols (limit 2,048)
    """
    dim = instance.K * L + key_symbols
    if dim > MAX_VERIFY_DIM:
        raise InvalidScheme(
            f"too large to verify: K·L + key_symbols = {instance.K}·{L} + {key_symbols} "
            f"= {dim:,} source symbols (limit {MAX_VERIFY_DIM:,})")


def _sci(n: int) -> str:
    """``n`` in 3-digit scientific notation, also beyond the float range."""
    if n < 10**300:
        return f"{n:.3g}"
    e = len(str(n)) - 1
    return f"{int(str(n)[:3]) / 100:.3g}e+{e}"


def _pow_text(q: int, dim: int, times: int = 1) -> str:
    """``times · q^dim`` in scientific notation without computing a huge power."""
    log10 = dim * math.log10(q) + math.log10(times)
    e = math.floor(log10)
    return f"{10 ** (log10 - e):.3g}e+{e}"


class _Plan:
    """The configurations to check, grouped by ``n`` and ``eff = S_m \\ T_n``."""

    def __init__(self, inst: Instance, sch: Scheme):
        self.inst, self.sch = inst, sch
        self.dim = inst.K * sch.L + sch.key_symbols
        # q^dim exactly only when it is small enough to matter (enumeration); else infinite
        small = self.dim * sch.field.bit_length() <= 1024
        self.samples = sch.field ** self.dim if small else math.inf
        self.trivial = inst.U * sum(1 for s in inst.security_sets if s == 0) * inst.N
        # groups[n] = {eff: [m, ...]} over the m with S_m ≠ ∅
        self.groups: list[dict[int, list[int]]] = []
        for t in inst.collusion_sets:
            g: dict[int, list[int]] = {}
            for m, s in enumerate(inst.security_sets):
                if s:
                    g.setdefault(s & ~t, []).append(m)
            self.groups.append(g)
        n_eff = sum(len([e for e in g if e]) for g in self.groups)
        self.passes = inst.U + inst.N * (1 + inst.U) + n_eff * (1 + inst.U)
        self.work = self.samples * self.passes
        self.samples_text = _sci(self.samples) if small else _pow_text(sch.field, self.dim)
        self.work_text = _sci(self.work) if small else _pow_text(sch.field, self.dim, self.passes)
        self.n_configs = inst.U * sum(len(ms) for g in self.groups for ms in g.values())


@cache
def _exact(v: int) -> tuple[Fraction, float]:
    return Fraction(v), float(v)


# ---------------------------------------------------------------------------
# rank engine
def _rank_engine(plan: _Plan, progress: Progress | None, backend: str):
    """``I(A;B|C) = rk(B·N_C) - rk(B·N_{AC})`` with ``N_X`` a kernel basis of ``X``.

    This is ``rk[A;C] + rk[B;C] - rk[A;B;C] - rk[C]`` rewritten with
    ``rk[X;B] - rk X = rk(B·N_X)`` (see :meth:`itsa.schemes.linalg.Matrices.kernel`):
    one kernel per ``n`` and per ``(k, n)`` (``null[A;C] = N_C·null(A·N_C)``), and since ``B = W_{S_m \\ T_n}``
    is a set of unit rows, ``B·N`` is a row subset of ``N``.
    """
    inst, sch = plan.inst, plan.sch
    q, L, K, D = sch.field, sch.L, inst.K, plan.dim
    KL, d = K * L, sch.key_symbols
    F = {i: sch.key_matrix(i).tolist() for i in range(K)}
    rows: list[list[int]] = []

    def add(w_cols, key) -> int:
        r = [0] * D
        for j in w_cols:
            r[j] = 1
        r[KL:] = [x % q for x in key]
        rows.append(r)
        return len(rows) - 1

    zero = [0] * d
    servers = [members(mk) for mk in inst.server_masks]
    X = [[add([i * L + l], F[i][l]) for l in range(L)] for i in range(K)]
    Y = [[add([i * L + l for i in us], [sum(F[i][l][c] for i in us) for c in range(d)])
          for l in range(L)] for us in servers]
    SW = [add([i * L + l for i in range(K)], zero) for l in range(L)]
    W = [[add([i * L + l], zero) for l in range(L)] for i in range(K)]
    Z = [[add([], F[i][l]) for l in range(L) if any(F[i][l])] for i in range(K)]
    mt = Matrices(q, backend)
    G = mt.matrix(rows)
    view = [tuple(X[i][l] for i in servers[k] for l in range(L))
            + tuple(y for u in range(inst.U) if u != k for y in Y[u]) for k in range(inst.U)]

    A = [mt.rows(G, v) for v in view]

    def rk(idx):
        return mt.rank(mt.rows(G, idx, cache=False))

    correct = [rk(v + tuple(SW)) == rk(v) for v in view]
    cols = {}
    values, done = {}, 0
    zero_val = _exact(0)
    for n, t in enumerate(inst.collusion_sets):
        groups = plan.groups[n]
        effs = [e for e in groups if e]
        for e in effs:
            if e not in cols:
                cols[e] = tuple(i * L + l for i in members(e) for l in range(L))
        C = tuple(SW) + tuple(j for i in members(t) for j in W[i] + Z[i])
        if effs:
            NC = mt.kernel(mt.rows(G, C, cache=False))
            hBC = {e: mt.rank(mt.rows(NC, cols[e])) for e in effs}
        for k in range(inst.U):
            if effs:    # null[A;C] = N_C · null(A·N_C)
                NAC = mt.mul(NC, mt.kernel(mt.mul(A[k], NC)))
            for e, ms in groups.items():
                val = _exact(hBC[e] - mt.rank(mt.rows(NAC, cols[e]))) if e else zero_val
                for m in ms:
                    values[k, m, n] = val
        done += inst.U * sum(len(ms) for ms in groups.values())
        if progress:
            progress(done, plan.n_configs)
    return correct, values, 0


# ---------------------------------------------------------------------------
# enumeration engine
def _code_dtype(card: int):
    for dt in (np.uint8, np.uint16, np.uint32):
        if card <= np.iinfo(dt).max + 1:
            return dt
    return np.int64


def _atoms(plan: _Plan):
    """Evaluate every message on every source value, as codes in ``0..q^L-1``.

    Source value ``s`` is the point of the grid ``F_q^dim`` (axis ``j`` is
    source symbol ``j``: ``W_{user i}`` symbol ``l`` is ``j = i·L + l``, key
    symbol ``c`` is ``j = K·L + c``). Each variable is computed on the axes
    it is a function of, by evaluating the scheme's maps symbol by symbol,
    and then written out over the whole grid, flattened in C order.
    """
    inst, sch = plan.inst, plan.sch
    q, L, K, d, D = sch.field, sch.L, inst.K, sch.key_symbols, plan.dim
    KL = K * L
    shape = (q,) * D
    dt = _code_dtype(q ** L)

    def digit(j):
        sh = [1] * D
        sh[j] = q
        return np.arange(q, dtype=np.int64).reshape(sh)

    def code(symbols):
        out = symbols[0]
        for l in range(1, L):
            out = out + symbols[l] * q ** l
        return out

    def full(arr):
        return np.ascontiguousarray(np.broadcast_to(arr.astype(dt), shape)).reshape(-1)

    keys = [digit(KL + c) for c in range(d)]
    W = [[digit(i * L + l) for l in range(L)] for i in range(K)]
    Z = {}
    for i, mat in sch.keys:
        Z[i] = [sum((keys[c] * a for c, a in enumerate(row) if a), np.zeros((1,) * D, np.int64)) % q
                for row in mat]
    X = [[(W[i][l] + Z[i][l]) % q if i in Z else W[i][l] for l in range(L)] for i in range(K)]
    out = {}
    for i in range(K):
        out["W", i] = full(code(W[i]))
        out["X", i] = full(code(X[i]))
        if i in Z:
            out["Z", i] = full(code(Z[i]))
    for u, mk in enumerate(inst.server_masks):
        us = members(mk)
        out["Y", u] = full(code([sum(X[i][l] for i in us) % q for l in range(L)]))
    out["SW", 0] = full(code([sum(W[i][l] for i in range(K)) % q for l in range(L)]))
    return out


class _Counter:
    """Histograms and dense relabelling of joint variables over all source values.

    A joint label is a pair ``(labels, card)``: one int per source value,
    all below ``card``. Histograms use ``np.bincount`` over at most ``limit``
    cells at a time (a large label space is split into ranges, several
    passes); beyond ``_MAX_SPLIT`` ranges they sort.
    """

    _MAX_SPLIT = 24

    def __init__(self, samples: int):
        self.limit = min(1 << 27, max(1 << 22, 4 * samples))

    def fold(self, parts):
        """Joint label of ``[(labels, card), ...]`` (not densified)."""
        lab, card = parts[0]
        for x, cx in parts[1:]:
            if card * cx > self.limit:
                lab, card, _ = self.dense(lab, card)
            lab, card = _mul_add(lab, cx, x, card * cx), card * cx
        return lab, card

    def _ranges(self, card):
        step = self.limit
        return [(lo, min(card, lo + step)) for lo in range(0, card, step)]

    def dense(self, lab, card):
        """Relabel onto ``0..distinct-1``: ``(int32 labels, distinct, counts)``."""
        ranges = self._ranges(card)
        if len(ranges) == 1:
            cnt = np.bincount(lab, minlength=card)
            idx = np.flatnonzero(cnt)
            lut = np.empty(card, dtype=np.int32)
            lut[idx] = np.arange(len(idx), dtype=np.int32)
            return lut[lab], len(idx), cnt[idx]
        if len(ranges) > self._MAX_SPLIT:
            uniq, inv, cnt = np.unique(lab, return_inverse=True, return_counts=True)
            return inv.astype(np.int32), len(uniq), cnt
        out = np.empty(len(lab), dtype=np.int32)
        counts, offset = [], 0
        for lo, hi in ranges:
            sel = (lab >= lo) & (lab < hi)
            part = lab[sel] - lo
            cnt = np.bincount(part, minlength=hi - lo)
            idx = np.flatnonzero(cnt)
            lut = np.empty(hi - lo, dtype=np.int32)
            lut[idx] = np.arange(offset, offset + len(idx), dtype=np.int32)
            out[sel] = lut[part]
            counts.append(cnt[idx])
            offset += len(idx)
        return out, offset, np.concatenate(counts)

    def counts(self, lab, card):
        """The nonzero cell counts of the histogram of ``lab``."""
        ranges = self._ranges(card)
        if len(ranges) == 1:
            cnt = np.bincount(lab, minlength=card)
            return cnt[cnt > 0]
        if len(ranges) > self._MAX_SPLIT:
            return np.unique(lab, return_counts=True)[1]
        out = []
        for lo, hi in ranges:
            cnt = np.bincount(lab[(lab >= lo) & (lab < hi)] - lo, minlength=hi - lo)
            out.append(cnt[cnt > 0])
        return np.concatenate(out)


def _mul_add(lab, cx, x, card):
    """``lab * cx + x`` in the narrowest signed type that holds ``card`` codes."""
    dt = np.int32 if card < 2**31 else np.int64
    out = np.multiply(lab, cx, dtype=dt)
    out += x
    return out


@lru_cache(maxsize=4096)
def _factor(c: int) -> tuple[tuple[int, int], ...]:
    import sympy

    return tuple((int(p), int(e)) for p, e in sympy.factorint(c).items())


def _xlogx(counts: np.ndarray) -> dict[int, int]:
    """``Σ_x n_x ln n_x`` as ``{p: coefficient of ln p}`` (exact integers)."""
    if len(counts) <= 4096 or counts.max() > 4 * len(counts):
        vals, mult = np.unique(counts, return_counts=True)
    else:
        hist = np.bincount(counts)
        vals = np.flatnonzero(hist)
        mult = hist[vals]
    out: dict[int, int] = {}
    for c, mu in zip(vals.tolist(), mult.tolist()):
        for p, e in _factor(c):
            out[p] = out.get(p, 0) + mu * c * e
    return out


def _cmi(sabc, sc, sac, sbc, q: int, samples: int) -> tuple[Fraction | None, float]:
    coef: dict[int, int] = {}
    for sign, s in ((1, sabc), (1, sc), (-1, sac), (-1, sbc)):
        for p, e in s.items():
            coef[p] = coef.get(p, 0) + sign * e
    approx = sum(e * math.log(p) for p, e in coef.items()) / (samples * math.log(q))
    if any(e for p, e in coef.items() if p != q):
        return None, approx
    return Fraction(coef.get(q, 0), samples), approx


def _enum_engine(plan: _Plan, progress: Progress | None):
    inst, sch = plan.inst, plan.sch
    q, ns, U = sch.field, plan.samples, inst.U
    total = 1 + plan.n_configs
    atoms = _atoms(plan)
    if progress:
        progress(1, total)
    ca = q ** sch.L
    keyed = set(sch.key_map)
    ctr = _Counter(ns)

    def part(name, i):
        return atoms[name, i], ca

    servers = [members(mk) for mk in inst.server_masks]
    A = []
    for k in range(U):
        parts = [part("X", i) for i in servers[k]] + [part("Y", u) for u in range(U) if u != k]
        A.append(ctr.dense(*ctr.fold(parts))[:2])
    correct = [len(ctr.counts(*ctr.fold([a, part("SW", 0)]))) == a[1] for a in A]
    B_cache: dict[int, tuple[np.ndarray, int]] = {}

    def B(eff):
        if eff not in B_cache:
            if len(B_cache) * ns > 4 * ENUM_MAX_SOURCE:
                B_cache.clear()
            B_cache[eff] = ctr.dense(*ctr.fold([part("W", i) for i in members(eff)]))[:2]
        return B_cache[eff]

    values, inferred, done = {}, 0, 1
    zero = (Fraction(0), 0.0)
    for n, t in enumerate(inst.collusion_sets):
        tu = members(t)
        *C, cnt = ctr.dense(*ctr.fold([part("SW", 0)] + [part("W", i) for i in tu]
                                      + [part("Z", i) for i in tu if i in keyed]))
        sc = _xlogx(cnt)
        groups = plan.groups[n]
        effs = sorted((e for e in groups if e), key=lambda e: -e.bit_count())
        sbc = {e: _xlogx(ctr.counts(*ctr.fold([C, B(e)]))) for e in effs}
        for k in range(U):
            if 0 in groups:
                for m in groups[0]:
                    values[k, m, n] = zero
                inferred += len(groups[0])
            if effs:
                *AC, cnt = ctr.dense(*ctr.fold([A[k], C]))
                sac = _xlogx(cnt)
            zeros: list[int] = []
            for e in effs:
                if any(e & z == e for z in zeros):
                    val = zero
                    inferred += len(groups[e])
                else:
                    sabc = _xlogx(ctr.counts(*ctr.fold([AC, B(e)])))
                    val = _cmi(sabc, sc, sac, sbc[e], q, ns)
                    if val[0] == 0:
                        zeros.append(e)
                for m in groups[e]:
                    values[k, m, n] = val
            done += sum(len(ms) for ms in groups.values())
            if progress:
                progress(done, total)
    return correct, values, inferred
