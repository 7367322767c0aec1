"""The verifier's two engines: exact ranks over F_q, and the enumeration of every source value.

:func:`rank_engine` computes each leakage as a difference of ranks of the
scheme's matrices (python-flint); :func:`enumeration_engine` enumerates the
``q^dim`` source values and computes each conditional mutual information
exactly from the counts. :func:`itsa.keys.schemes.verifier.verify` picks one.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np

from itsa._util.bitset import members
from itsa._util.progress import Tick
from itsa.exceptions import InvalidOption
from itsa.keys.schemes.linalg import Matrices
from itsa.keys.schemes.plan import Plan, exact

__all__ = ["rank_engine", "enumeration_engine", "ENUM_MAX_SOURCE"]

#: ``enumerate`` refuses more source values than this (memory).
ENUM_MAX_SOURCE = 50_000_000


# ---------------------------------------------------------------------------
# rank engine
def rank_engine(plan: Plan, progress: Tick | None, backend: str):
    """``I(A;B|C) = rk(B·N_C) - rk(B·N_{AC})`` with ``N_X`` a kernel basis of ``X``.

    This is ``rk[A;C] + rk[B;C] - rk[A;B;C] - rk[C]`` rewritten with
    ``rk[X;B] - rk X = rk(B·N_X)`` (see :meth:`itsa.keys.schemes.linalg.Matrices.kernel`):
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
    zero_val = exact(0)
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
                val = exact(hBC[e] - mt.rank(mt.rows(NAC, cols[e]))) if e else zero_val
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


def _atoms(plan: Plan):
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


def enumeration_engine(plan: Plan, progress: Tick | None):
    inst, sch = plan.inst, plan.sch
    q, ns, U = sch.field, plan.exact_samples, inst.U
    if ns is None:
        raise InvalidOption(f"cannot enumerate q^dim = {plan.samples_text} source values")
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
    zero: tuple[Fraction | None, float] = (Fraction(0), 0.0)
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
