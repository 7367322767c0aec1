"""The float solve of a reduced LP: HiGHS, with the optimal basis kept for the exact certificate.

Small LPs are solved whole by dual simplex. Larger ones start from the
problem's own constraints and add, each round, the rows the current optimum
violates most; HiGHS goes on from the basis it has, so a round costs a few
pivots, not a new solve. Past :data:`MAX_CUT_ROWS` rows in the LP the whole LP
is solved by interior point, and rows held as arrays
(:attr:`ReducedLP.implicit <itsa.keys.converse.lp.ReducedLP>`, :mod:`itsa.keys.converse.lazy`)
go to HiGHS that way from the start.

The answer keeps the optimal **basis**: which rows are tight and nonbasic,
which columns are basic. :mod:`itsa.keys.converse.certificate` solves the square
system of that basis exactly; the float duals are only a hint.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from itsa._util.deadline import Deadline
from itsa._util.native import quiet_native_stdout
from itsa.keys.converse.lazy import upper_fill
from itsa.keys.converse.lp import Origin, ReducedLP

__all__ = ["Basis", "FloatSolution", "solve_float", "CUTS_PER_ROUND", "CUT_TOL", "WHOLE_ROWS_PER_COLUMN",
           "MAX_CUT_ROWS", "SEPARATION_ROWS"]

#: Rows added per cutting-plane round, and the violation that counts.
CUTS_PER_ROUND = 2_000
CUT_TOL = 1e-9
#: Array-held rows added per separation round (:func:`_separated`).
SEPARATION_ROWS = 10_000
#: LPs with at most this many rows per column are solved whole by dual simplex, without
#: cutting planes (orbit LPs, whose rows are few; the model LP, about 25 rows per column,
#: is faster with cuts).
WHOLE_ROWS_PER_COLUMN = 12
#: Past this many rows in the LP, dual simplex from the last basis loses to interior point
#: on the whole LP (on the keys LP of 4,095 columns and 68,479 rows of
#: ``python benchmarks/bench_certify.py``: 13 to 20 s against 62 s when this route was chosen).
MAX_CUT_ROWS = 6_000


@dataclass(frozen=True)
class Basis:
    """An optimal basis of the LP solved last, in the reduced LP's indices.

    ``rows`` are the rows (indices into ``rlp.rows``) whose slack is nonbasic;
    ``columns`` the basic columns (orbit ids, from 1). A valid basis has as many
    of one as of the other: the square system ``Σ_r y_r A[r, j] = c_j`` over them
    gives the basic dual.
    """

    rows: tuple[int, ...]
    columns: tuple[int, ...]


@dataclass(frozen=True, kw_only=True)
class FloatSolution:
    """HiGHS's answer: objective, primal ``x`` (per column), row duals ``y >= 0`` for ``>=`` and the basis."""

    value: float
    x: np.ndarray
    duals: np.ndarray
    status: str
    seconds: float
    timed_out: bool = False       # the time limit stopped the solve (``status`` says where)
    basis: Basis | None = None
    #: Why the optimum is of a relaxation (some rows left out), or ``None``: the LP's own optimum.
    #: A relaxation's bound still holds; it may be below the LP's.
    relaxed: str | None = None


def solve_float(rlp: ReducedLP, time_limit: float | None = None, progress=None,
                target: float | None = None, separation_limit: float | None = None,
                floor: float | None = None) -> FloatSolution:
    """Solve the reduced LP with HiGHS (module notes); the answer carries the optimal basis.

    ``H(C) >= 0`` rows are column bounds. Three ways, by the LP's shape:

    * few rows per column (:data:`WHOLE_ROWS_PER_COLUMN`): every row at once, dual simplex;
    * otherwise, cutting planes by dual simplex from the last basis until the LP
      holds :data:`MAX_CUT_ROWS` rows, then every row by interior point;
    * rows held as arrays (:attr:`~itsa.keys.converse.lp.ReducedLP.implicit`): separation
      from the chain rows (:func:`_separated`), which stops early, with a relaxation's
      optimum, once the time limit passes, the value reaches ``target``, or a round
      ends past ``separation_limit`` seconds or no higher than ``floor``.

    Interior point ends with HiGHS's crossover, for the basis. (Re-solving only
    the rows of positive interior dual does not do: on the degenerate keys LPs
    that dual leans on most rows, 55,199 of 68,479 at ``K = 12``, and any
    cheaper cut of them loses the optimum.) ``progress``, an optional
    :class:`itsa._util.progress.Reporter`, hears of every round.
    """
    import highspy

    clock = Deadline(time_limit)
    pool = _Pool(rlp)
    h = _model(rlp)
    if rlp.implicit is not None:
        return _separated(h, rlp, pool.first(whole=False), clock, progress, target, separation_limit, floor)
    in_lp: list[int] = []
    new = pool.first(whole=pool.n_ineq <= WHOLE_ROWS_PER_COLUMN * rlp.n_columns)
    rounds, ipm = 0, False
    while True:
        if not ipm and len(in_lp) + len(new) > MAX_CUT_ROWS:
            new += pool.everything()
            ipm = True
            h.setOptionValue("solver", "ipm")
            h.setOptionValue("run_crossover", "on")
        where = f"in round {rounds + 1}, {len(in_lp) + len(new)} rows in the LP"
        if clock.expired():
            return _failed(rlp, f"time limit reached {where}", clock)
        _add_rows(h, rlp, new)
        in_lp += new
        rounds += 1
        if progress is not None:
            progress("solve", columns=rlp.n_columns, rows=h.getNumRow(), round=rounds, rows_added=len(new),
                     note="interior point" if ipm else "")
        status = _run(h, clock)
        if status == highspy.HighsModelStatus.kTimeLimit:
            return _failed(rlp, f"time limit reached {where}", clock)
        unbounded = (highspy.HighsModelStatus.kUnbounded, highspy.HighsModelStatus.kUnboundedOrInfeasible)
        if status in unbounded and pool.left():
            new = pool.everything()             # unbounded until the rows that bound it are in
            continue
        if status != highspy.HighsModelStatus.kOptimal:
            return _failed(rlp, h.modelStatusToString(status), clock, timed_out=False)
        new = [] if ipm else pool.violated(np.asarray(h.getSolution().col_value))
        if not new:
            break
    return _answer(_Optimum.read(h), rlp, in_lp, clock)


def _separated(h, rlp: ReducedLP, in_lp: list[int], clock: Deadline, progress,
               target: float | None, separation_limit: float | None = None,
               floor: float | None = None) -> FloatSolution:
    """The LP with array-held rows by separation: the chain rows first, then the violated ones.

    Each round solves the LP with the rows added so far (interior point and
    crossover: at ``K = 16`` the chain rows' LP takes 6 s, against 92 s by
    dual simplex, and dual simplex from the last basis lost on later rounds
    too) and checks **every** held row against the optimum, its free columns
    (sets no row in the LP names) filled by
    :func:`~itsa.keys.converse.lazy.upper_fill`. When no row is violated that
    vector is feasible for the whole LP (to the float tolerance) with the same
    objective: the optimum is the LP's. Each round's LP is a relaxation of the
    whole LP, so its optimum is a valid bound in any case, certified from its
    own basis; the last one is returned, with
    ``relaxed`` saying why, when the time limit passes, the value reaches
    ``target``, a round ends past ``separation_limit`` seconds or no higher
    than ``floor`` (a bound proved otherwise), or HiGHS fails on a later round.
    """
    import highspy

    held = rlp.implicit
    _add_rows(h, rlp, in_lp)
    masks = np.asarray(rlp.representatives)
    known = np.zeros(1 << held.K, dtype=bool)
    known[[0, -1]] = True
    known[[masks[o] for k in in_lp for o, _ in rlp.rows[k].coefs]] = True
    in_model = np.zeros(held.n, dtype=bool)
    order = np.zeros(0, dtype=np.int64)
    new, last, rounds = held.seed, None, 0
    stop: str | None = None
    h.setOptionValue("solver", "ipm")             # faster than dual simplex from the last basis, every round
    h.setOptionValue("run_crossover", "on")
    while True:
        held.add_to(h, new)
        in_model[new] = True
        known[held.sets_of(new)] = True
        order = np.concatenate((order, new))
        rounds += 1
        if progress is not None:
            progress("solve", columns=rlp.n_columns, rows=h.getNumRow(), round=rounds, rows_added=len(new),
                     note="separation")
        status = _run(h, clock)
        if status == highspy.HighsModelStatus.kTimeLimit:
            stop = f"time limit reached in round {rounds}"
            break
        if status != highspy.HighsModelStatus.kOptimal:
            stop = f"HiGHS: {h.modelStatusToString(status)} in round {rounds}"
            if last is None:
                return _failed(rlp, stop, clock, timed_out=False)
            break
        last = (_Optimum.read(h), order.copy(), f"round {rounds}, {len(order):,} of {held.n:,} elemental rows")
        values = np.zeros(1 << held.K)
        values[masks[1:]] = last[0].x
        slack = held.slack(upper_fill(values, known))
        slack[in_model] = 0.0
        violated = int((slack < -CUT_TOL).sum())
        if not violated:                          # the LP's own optimum (to the float tolerance)
            break
        if target is not None and last[0].value >= target - CUT_TOL:
            stop = "the bound sought reached"
            break
        if floor is not None and last[0].value <= floor + CUT_TOL:
            stop = f"no higher than the bound proved otherwise, {violated:,} held rows still violated"
            break
        if clock.expired() or (separation_limit is not None and clock.elapsed() >= separation_limit):
            stop = f"time for rounds used, {violated:,} held rows still violated"
            break
        new = np.argpartition(slack, min(SEPARATION_ROWS, held.n - 1))[:SEPARATION_ROWS]
        new = np.sort(new[slack[new] < -CUT_TOL])
    if last is None:
        return _failed(rlp, stop or "no optimum", clock)
    if stop is not None:
        stop = f"{stop}; the optimum of {last[2]}"
    return _answer(last[0], rlp, in_lp, clock, implicit_order=last[1], relaxed=stop)


def _model(rlp: ReducedLP):
    """A HiGHS model with the LP's columns (``>= 0``) and objective, and no rows."""
    import highspy

    h = new_highs()
    ncol = rlp.n_columns
    h.addVars(ncol, np.zeros(ncol), np.full(ncol, highspy.kHighsInf))
    cost = np.zeros(ncol)
    for o, w in rlp.objective.items():
        cost[o - 1] = float(w)
    h.changeColsCost(ncol, np.arange(ncol, dtype=np.int32), cost)
    return h


def new_highs():
    """A silent HiGHS model: the one place itsa constructs one.

    HiGHS prints a banner on file descriptor 1 at construction (1.16 and
    newer), before ``output_flag`` can be set; it is sent to the null device
    (:func:`itsa._util.native.quiet_native_stdout`), so ``--json`` stays JSON.
    """
    import highspy

    with quiet_native_stdout():
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
    return h


def _run(h, clock: Deadline):
    import highspy

    left = clock.left()
    h.setOptionValue("time_limit", highspy.kHighsInf if left is None else h.getRunTime() + left)
    h.run()
    return h.getModelStatus()


class _Pool:
    """The built rows not yet in the LP, checked against ``x`` as one sparse product (built on first use)."""

    def __init__(self, rlp: ReducedLP):
        self.rlp = rlp
        held = set(rlp.implicit.built.values()) if rlp.implicit is not None else set()   # already in the arrays
        self.ineq = np.array([k for k, r in enumerate(rlp.rows)
                              if r.origin[0] not in (Origin.CONSTRAINT, Origin.NONNEG) and k not in held],
                             dtype=np.int64)
        self.n_ineq = len(self.ineq)
        self.waiting = np.ones(self.n_ineq, dtype=bool)
        self._matrix: tuple[Any, np.ndarray] | None = None

    def _slack(self, x: np.ndarray) -> np.ndarray:
        """``form·x - rhs`` of every pooled row."""
        if self._matrix is None:
            from scipy.sparse import csr_matrix

            rows = [self.rlp.rows[k] for k in self.ineq.tolist()]
            data = [float(w) for r in rows for _, w in r.coefs]
            ri = [n for n, r in enumerate(rows) for _ in r.coefs]
            ci = [o - 1 for r in rows for o, _ in r.coefs]
            self._matrix = (csr_matrix((data, (ri, ci)), shape=(self.n_ineq, self.rlp.n_columns)),
                            np.array([float(r.rhs) for r in rows]))
        G, g = self._matrix
        return G @ x - g

    def first(self, whole: bool) -> list[int]:
        """The problem's own constraints (and every built row when ``whole``)."""
        out = [k for k, r in enumerate(self.rlp.rows) if r.origin[0] == Origin.CONSTRAINT]
        if whole:
            out += self.everything()
        return out

    def left(self) -> bool:
        return bool(self.waiting.any())

    def everything(self) -> list[int]:
        out = self.ineq[self.waiting].tolist()
        self.waiting[:] = False
        return out

    def violated(self, x: np.ndarray) -> list[int]:
        if self.waiting.any():
            slack = self._slack(x)
            slack[~self.waiting] = 0.0
            worst = np.argsort(slack)[:CUTS_PER_ROUND]
            worst = worst[slack[worst] < -CUT_TOL]
            if len(worst):
                self.waiting[worst] = False
                return self.ineq[worst].tolist()
        return []


def _add_rows(h, rlp: ReducedLP, new: list[int]) -> None:
    import highspy

    inf = highspy.kHighsInf
    if not new:
        return
    lower: list[float] = []
    upper: list[float] = []
    value: list[float] = []
    starts: list[int] = []
    index: list[int] = []
    for k in new:
        r = rlp.rows[k]
        lower.append(float(r.rhs))
        upper.append(float(r.rhs) if r.sense == "=" else inf)
        starts.append(len(index))
        for o, w in r.coefs:
            index.append(o - 1)
            value.append(float(w))
    h.addRows(len(new), np.array(lower), np.array(upper), len(index), np.array(starts, dtype=np.int32),
              np.array(index, dtype=np.int32), np.array(value))


@dataclass(frozen=True)
class _Optimum:
    """What HiGHS holds after an optimal run, copied out (the model goes on changing)."""

    value: float
    x: np.ndarray
    row_dual: np.ndarray
    col_dual: np.ndarray
    tight: np.ndarray | None      # per row: nonbasic (None without a valid basis)
    basic_columns: tuple[int, ...]

    @classmethod
    def read(cls, h) -> _Optimum:
        import highspy

        sol, basis = h.getSolution(), h.getBasis()
        tight = np.array([s != highspy.HighsBasisStatus.kBasic for s in basis.row_status], dtype=bool) \
            if basis.valid else None
        cols = tuple(j + 1 for j, s in enumerate(basis.col_status) if s == highspy.HighsBasisStatus.kBasic) \
            if basis.valid else ()
        return cls(float(h.getInfo().objective_function_value), np.array(sol.col_value), np.array(sol.row_dual),
                   np.array(sol.col_dual), tight, cols)


def _answer(opt: _Optimum, rlp: ReducedLP, in_lp: list[int], clock: Deadline,
            implicit_order: np.ndarray | None = None, relaxed: str | None = None) -> FloatSolution:
    """The optimum with the duals laid out by ``rlp.rows`` and the basis.

    HiGHS's rows are ``in_lp`` (indices into ``rlp.rows``) and then, for an LP
    with :attr:`~itsa.keys.converse.lp.ReducedLP.implicit` rows, the held rows
    ``implicit_order``; of these only the nonbasic ones and those of nonzero
    dual are built into ``rlp.rows``.
    """
    y = opt.row_dual
    status = opt.tight if opt.tight is not None else np.zeros(len(y), dtype=bool)
    rows_of = list(in_lp)
    if implicit_order is not None:
        extra = np.flatnonzero(status[len(in_lp):] | (np.abs(y[len(in_lp):]) > 0))
        built = rlp.implicit.materialise(implicit_order[extra], rlp)
        keep = np.concatenate((np.arange(len(in_lp)), len(in_lp) + extra)).astype(np.int64)
        rows_of, y, status = rows_of + built, y[keep], status[keep]
    duals = np.zeros(len(rlp.rows))
    duals[rows_of] = y
    for k, r in enumerate(rlp.rows):
        if r.origin[0] == Origin.NONNEG:
            duals[k] = opt.col_dual[r.coefs[0][0] - 1]
    found = None
    if opt.tight is not None:
        rows = tuple(k for k, tight in zip(rows_of, status.tolist()) if tight)
        found = Basis(rows, opt.basic_columns) if len(rows) == len(opt.basic_columns) else None
    return FloatSolution(value=opt.value, x=opt.x, duals=duals, status="optimal", seconds=clock.elapsed(),
                         basis=found, relaxed=relaxed)


def _failed(rlp: ReducedLP, why: str, clock: Deadline, timed_out: bool = True) -> FloatSolution:
    return FloatSolution(value=float("nan"), x=np.zeros(rlp.n_columns), duals=np.zeros(len(rlp.rows)),
                         status=why, seconds=clock.elapsed(), timed_out=timed_out)
