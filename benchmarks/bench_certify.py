"""Benchmark: the exact certificate against the float solve, on asymmetric keys LPs.

Run:  python benchmarks/bench_certify.py [--sizes 8,10,12] [--dixon] [--json]
      python benchmarks/bench_certify.py --sizes 13,14,15,16 --time-limit 60   # separation, K = 13 to 16
      python benchmarks/bench_certify.py --smoke            # K = 6 only, a few seconds

Instances with no symmetry at all (the keys LP has one column per user set,
2^K - 1 of them): one protected user, and every user or pair of users that a
seeded coin keeps as a collusion set. Their LPs are highly degenerate, and the
basic dual the float solver returns has large denominators, so rounding it
fails and the dual must be solved exactly. For each instance, in the same run:

* ``solve``: the float solve (HiGHS), the baseline;
* ``basis``: the certificate from the optimal basis's square system (itsa's default);
* ``refine``: the normal equations of the dual's support, by iterative refinement
  (the method before the basis was kept);
* ``dixon`` (with ``--dixon``): the same normal equations by dense p-adic lifting.

With ``--solve``, each instance is also given to ``itsa.solve`` (the keys LP
only, the same ``--time-limit``): its verdict, the two ends and its seconds.

``lemma`` counts the certificate's group-lemma rows, and ``ring`` is the size of the family of user sets that the sets named by the
certificate's own lemma rows (and the set of all users) generate under union
and intersection: the columns an LP restricted to that ring family would keep.

The ratio ``basis/solve`` (the goal: well below 1, a certificate cheaper than the
float solve) is printed, with ``refine/basis``. Up to K = 12 the LP is the orbit
LP (with no symmetry, one column per user set, rows built as objects) solved
whole; past it, the LP with elemental rows held as arrays, solved by separation
from the chain rows within ``--time-limit`` seconds. For it ``first`` is the
time of the first round's optimum (the chain rows alone), ``rounds`` the rounds
run, and ``relaxed`` whether the certified value is a relaxation's (the time
limit passed before no held row was violated). Timings are wall-clock seconds
on whatever the machine is doing; compare ratios within one run.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from itsa import Instance
from itsa.keys.converse import _reduced
from itsa.keys.converse import certificate as C
from itsa.keys.converse.lp import Origin
from itsa.keys.converse.solver import solve_float
from itsa.testing.families import one_protected_user

#: Past this K the ring family is not computed (its closure loop is quadratic in its size).
RING_MAX_USERS = 12


def _timed(f, *args):
    t0 = time.perf_counter()
    out = f(*args)
    return out, time.perf_counter() - t0


def run(inst: Instance, dixon: bool = False, time_limit: float | None = None) -> dict:
    rlp, reduce_s = _timed(_reduced, inst, "keys", True)
    rounds: list[float] = []
    t0 = time.perf_counter()

    def heard(stage, **kw):
        rounds.append(time.perf_counter() - t0)
    sol, solve_s = _timed(lambda: solve_float(rlp, time_limit=time_limit, progress=heard))
    basis, basis_s = _timed(C.from_basis, rlp, sol)
    if basis is None:
        raise SystemExit(f"{inst.name}: no certificate from the optimal basis")
    out = {"name": inst.name, "K": inst.K, "columns": rlp.n_columns, "rows": rlp.sizes["rows"],
           "rows_built": rlp.sizes.get("rows_built", rlp.sizes["rows"]), "certificate_rows": basis.size,
           "value": str(basis.value), "largest_denominator_digits": max(len(str(w.denominator)) for _, w in basis.weights),
           "reduce": reduce_s, "solve": solve_s, "basis": basis_s, "refine": None, "dixon": None,
           "rounds": len(rounds), "first": None if rlp.implicit is None else rounds[1] if len(rounds) > 1 else solve_s,
           "relaxed": sol.relaxed}
    out["lemma_rows"], out["ring"] = ring_size(rlp, basis, ring=inst.K <= RING_MAX_USERS)
    if rlp.implicit is None:
        support = [r for r, y in enumerate(sol.duals) if abs(y) > C.SUPPORT_TOL]
        forms = {r: C.row_form(rlp, rlp.rows[r]) for r in support}
        system = C._support_system(rlp, support, forms)
        refined, out["refine"] = _timed(C._refined, rlp, support, forms, system)
        if refined is not None and refined.value != basis.value:
            raise SystemExit(f"{inst.name}: the two exact solves disagree ({refined}, {basis})")
        if dixon:
            _, out["dixon"] = _timed(C._basis_solved, rlp, support, forms, system)
    return out


def ring_size(rlp, cert, ring: bool = True) -> tuple[int, int | None]:
    """Lemma rows of ``cert``, and the size of the ring family their sets and all users generate
    (``None`` unless ``ring``)."""
    used = [rlp.rows[r] for r, _ in cert.weights if rlp.rows[r].origin[0] == Origin.CONSTRAINT]
    if not ring:
        return len(used), None
    family = {0, (1 << rlp.problem.n) - 1} | {m for row in used for m, _ in rlp.problem.constraints[row.origin[1]].form}
    new = set(family)
    while new:
        grown = {op for a in new for b in list(family) for op in (a | b, a & b)} - family
        family |= grown
        new = grown
    return len(used), len(family)


def _count(v, width: int) -> str:
    return f"{v:{width}d}" if v is not None else f"{'-':>{width}}"


def _cell(v) -> str:
    return f"{v:7.2f}" if v is not None else f"{'-':>7}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="8,10,12", help="comma-separated K")
    ap.add_argument("--dixon", action="store_true", help="also time the dense p-adic lifting")
    ap.add_argument("--json", action="store_true", help="also print every row as JSON")
    ap.add_argument("--smoke", action="store_true", help="K = 6 only (a few seconds)")
    ap.add_argument("--time-limit", type=float, default=None, help="seconds for each float solve (separation stops)")
    ap.add_argument("--solve", action="store_true", help="also run itsa.solve on each instance")
    args = ap.parse_args(argv)
    sizes = [6] if args.smoke else [int(k) for k in args.sizes.split(",")]
    print(f"{'instance':26} {'K':>2} {'cols':>6} {'rows':>8} {'built':>7} {'cert':>5} {'lemma':>5} {'ring':>6} {'value':>6} {'digits':>6} "
          f"{'first':>7} {'rounds':>6} {'solve':>7} {'basis':>7} {'refine':>7} {'dixon':>7} {'basis/solve':>11} "
          f"{'refine/basis':>12} relaxed")
    rows = []
    for K in sizes:
        r = run(one_protected_user(K), args.dixon, args.time_limit)
        rows.append(r)
        ratio = f"{r['refine'] / r['basis']:12.1f}" if r["refine"] is not None and r["basis"] > 0 else f"{'-':>12}"
        print(f"{r['name'][:26]:26} {r['K']:2d} {r['columns']:6d} {r['rows']:8d} {r['rows_built']:7d} "
              f"{r['certificate_rows']:5d} {_count(r['lemma_rows'], 5)} {_count(r['ring'], 6)} {r['value']:>6} {r['largest_denominator_digits']:6d} "
              f"{_cell(r['first'])} {r['rounds']:6d} {_cell(r['solve'])} "
              f"{_cell(r['basis'])} {_cell(r['refine'])} {_cell(r['dixon'])} {r['basis'] / r['solve']:11.2f} {ratio} "
              f"{'yes' if r['relaxed'] else 'no'}",
              flush=True)
    if args.solve:
        from itsa.keys.optimum import solve

        for K in sizes:
            t0 = time.perf_counter()
            s = solve(one_protected_user(K), time_limit=args.time_limit, classes=("keys",))
            upper = s.upper.value if s.upper is not None else None
            print(f"solve K = {K}: {s.verdict}, {s.lower.value} ({s.lower.method}) <= R* <= {upper}, "
                  f"{time.perf_counter() - t0:.1f} s", flush=True)
    if args.json:
        print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
