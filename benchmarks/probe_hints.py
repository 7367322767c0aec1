"""Probe: does a regularised optimum of the keys LP guide the scheme search better than its vertex?

Run:  python benchmarks/probe_hints.py open/probe-seed42-testing-1 [more instances]
                                       [--rate R] [--time-limit 60] [--seed 0] [--json]
      python benchmarks/probe_hints.py --smoke      # one small instance, a few seconds

For each instance (a path or a shipped name, ``K <= 12``):

1. the ``keys`` LP (:func:`itsa.keys.converse.converse`) gives the bound and, as
   ``itsa solve`` uses it, the entropy vector of the vertex the solver returns;
2. the same LP on every user set, written out here with all elemental
   inequalities, is solved again with the bound as a constraint,
   ``h(Z_i) <= 1`` for every user, and the objective ``Σ_A h(Z_A)``: the
   optimum with the most dependence among the keys and no key longer than
   the input (``cap`` says whether the cap left the bound feasible);
3. :func:`itsa.keys.search.vector.search_vector_scheme` runs at the bound (``--rate``
   to choose another rate) with each vector as its hints, ``--time-limit``
   seconds each, the same seed.

It prints, per hint, whether a scheme was found, the candidates drawn and how
many key symbols the closest came short. A float solve: the vectors are
hints, no part of any proof.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from fractions import Fraction

import numpy as np
from scipy.optimize import linprog
from scipy.sparse import csr_matrix, vstack

from itsa import examples, load_instance
from itsa.keys.converse import converse
from itsa.keys.converse.lazy import ElementalRows
from itsa.keys.converse.problem import keys_problem
from itsa.keys.search.vector import search_vector_scheme


def lp_rows(inst):
    """``A h >= b`` over the ``2^K - 1`` non-empty user sets: elemental rows and the lemma's rows."""
    n = (1 << inst.K) - 1
    rows = ElementalRows(inst.K, np.arange(1 << inst.K))
    cols, vals = rows.sets.ravel() - 1, rows.values.ravel()
    keep = (cols >= 0) & (vals != 0)
    shannon = csr_matrix((vals[keep], (np.repeat(np.arange(rows.n), 4)[keep], cols[keep])), shape=(rows.n, n))
    cons = keys_problem(inst).constraints
    r, c, v = zip(*[(k, A - 1, float(x)) for k, con in enumerate(cons) for A, x in con.form])
    lemma = csr_matrix((v, (r, c)), shape=(len(cons), n))
    return vstack([shannon, lemma]).tocsr(), np.concatenate([np.zeros(rows.n), [float(x.rhs) for x in cons]])


def regularised(inst, bound: Fraction) -> tuple[dict[int, Fraction] | None, bool]:
    """The optimum with ``h(Z_i) <= 1`` and the least ``Σ_A h(Z_A)``; ``(None, False)`` if the cap is infeasible."""
    K, n = inst.K, (1 << inst.K) - 1
    A, b = lp_rows(inst)
    top = csr_matrix(([1.0], ([0], [n - 1])), shape=(1, n))
    single = csr_matrix((np.ones(K), (np.arange(K), [(1 << i) - 1 for i in range(K)])), shape=(K, n))
    res = linprog(np.ones(n), A_ub=vstack([-A, top, single]).tocsr(),
                  b_ub=np.concatenate([-b, [float(bound) + 1e-9], np.ones(K)]), bounds=(0, None), method="highs")
    if res.status != 0:
        return None, False
    return {A_: Fraction(float(x)).limit_denominator(24) for A_, x in zip(range(1, n + 1), res.x)}, True


def probe(name: str, rate: Fraction | None, time_limit: float, seed: int) -> dict:
    inst = load_instance(examples.resolve(name))
    if inst.K > 12:
        raise SystemExit(f"{name}: K = {inst.K}; the LP on every user set is written out for K <= 12 only")
    bound = converse(inst, "keys")
    target = Fraction(rate) if rate is not None else bound.value
    reg, cap = regularised(inst, bound.value)
    hints = {"vertex": bound.key_entropies(inst.K), "regularised": reg}
    Ls = (target.denominator, 2 * target.denominator) if target.denominator > 1 else (1, 2)
    row: dict = {"instance": name, "K": inst.K, "bound": str(bound.value), "rate": str(target), "cap": cap}
    for label, h in hints.items():
        if h is None:
            row[label] = None
            continue
        t = time.perf_counter()
        r = search_vector_scheme(inst, target, L_values=Ls, hints=h, seed=seed, time_limit=time_limit,
                                 budget=10**9)
        row[label] = {"found": r.found, "shape": r.shape, "candidates": r.candidates,
                      "best_deficit": r.best_deficit, "seconds": round(time.perf_counter() - t, 1)}
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("instances", nargs="*")
    ap.add_argument("--rate", default=None, help="search at this rate (default: the keys LP's bound)")
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds of search per hint")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--smoke", action="store_true", help="audit/fractional-optimum, 2 s per hint")
    args = ap.parse_args(argv)
    names = ["audit/fractional-optimum"] if args.smoke else args.instances
    if not names:
        ap.error("name at least one instance (or --smoke)")
    for name in names:
        row = probe(name, args.rate, 2.0 if args.smoke else args.time_limit, args.seed)
        print(f"{name}: K = {row['K']}, bound {row['bound']}, search at {row['rate']}, "
              f"cap h(Z_i) <= 1 {'feasible' if row['cap'] else 'infeasible'}")
        for label in ("vertex", "regularised"):
            r = row[label]
            print(f"  {label:12s} " + ("-" if r is None else
                  f"found {r['found']} ({r['shape']}), {r['candidates']} candidates, "
                  f"closest {r['best_deficit']} short, {r['seconds']} s"))
        if args.json:
            print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
