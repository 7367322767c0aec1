"""Benchmark: the exact certificate against the float solve, on asymmetric keys LPs.

Run:  python benchmarks/bench_certify.py [--sizes 8,10,12] [--json]
      python benchmarks/bench_certify.py --smoke        # K = 6 only, a few seconds

Instances with no symmetry at all (the keys LP has one column per user set,
2^K - 1 of them): one protected user, and every user or pair of users that a
seeded coin keeps as a collusion set. Their LPs are highly degenerate, and the
basic dual the float solver returns has large denominators, so rounding it
fails and the dual must be solved exactly on its support. For each instance,
in the same run:

* ``solve``: the float solve (HiGHS), the baseline;
* ``refine``: the exact dual by numeric iterative refinement (itsa's default);
* ``dixon``: the same system by dense p-adic lifting (python-flint), the method
  used before refinement.

The ratios ``refine/solve`` (the goal: below 1, a certificate cheaper than the
float solve) and ``dixon/refine`` are printed. Timings are wall-clock seconds
on whatever the machine is doing; compare ratios within one run.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import time

from itsa import Instance
from itsa.converse import _reduced
from itsa.converse import certificate as C
from itsa.converse.solver import solve_float


def one_protected_user(K: int, seed: int = 0) -> Instance:
    """Three or four servers, user 0 protected, each user and pair colluding with probability 0.6."""
    rng = random.Random(f"{K}:{seed}")
    U = 3 + K % 2
    servers = [K // U + (u < K % U) for u in range(U)]
    T = [sum(1 << i for i in c) for r in (1, 2) for c in itertools.combinations(range(K), r)
         if rng.random() < 0.6]
    return Instance(tuple(servers), (1,), tuple(T) or (0,), name=f"one-protected-K{K}-seed{seed}")


def _timed(f, *args):
    t0 = time.perf_counter()
    out = f(*args)
    return out, time.perf_counter() - t0


def run(inst: Instance) -> dict:
    rlp = _reduced(inst, "keys", True)
    sol, solve_s = _timed(solve_float, rlp)
    support = [r for r, y in enumerate(sol.duals) if abs(y) > C.SUPPORT_TOL]
    forms = {r: C.row_form(rlp, rlp.rows[r]) for r in support}
    system = C._support_system(rlp, support, forms)
    refined, refine_s = _timed(C._refined, rlp, support, forms, system)
    dixon, dixon_s = _timed(C._basis_solved, rlp, support, forms, system)
    if refined is None or dixon is None or refined.value != dixon.value:
        raise SystemExit(f"{inst.name}: the two exact solves disagree ({refined}, {dixon})")
    return {"name": inst.name, "K": inst.K, "columns": rlp.n_columns, "rows": rlp.sizes["rows"],
            "support": len(support), "value": str(refined.value),
            "largest_denominator_digits": max(len(str(w.denominator)) for _, w in refined.weights),
            "solve": solve_s, "refine": refine_s, "dixon": dixon_s}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="8,10,12", help="comma-separated K")
    ap.add_argument("--json", action="store_true", help="also print every row as JSON")
    ap.add_argument("--smoke", action="store_true", help="K = 6 only (a few seconds)")
    args = ap.parse_args(argv)
    sizes = [6] if args.smoke else [int(k) for k in args.sizes.split(",")]
    print(f"{'instance':28} {'K':>2} {'cols':>5} {'rows':>6} {'supp':>5} {'value':>6} {'digits':>6} "
          f"{'solve':>7} {'refine':>7} {'dixon':>7} {'refine/solve':>12} {'dixon/refine':>12}")
    rows = []
    for K in sizes:
        r = run(one_protected_user(K))
        rows.append(r)
        print(f"{r['name'][:28]:28} {r['K']:2d} {r['columns']:5d} {r['rows']:6d} {r['support']:5d} "
              f"{r['value']:>6} {r['largest_denominator_digits']:6d} {r['solve']:7.2f} {r['refine']:7.2f} "
              f"{r['dixon']:7.2f} {r['refine'] / r['solve']:12.2f} {r['dixon'] / r['refine']:12.1f}")
    if args.json:
        print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
