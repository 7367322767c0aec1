"""Probe: vector-linear schemes (L = 2..4) below the best scalar / L = 2 rate.

Run:  python benchmarks/probe_vector_search.py [--part example2|gaps|all] [--budget 20000]
                                              [--n 200] [--seed 0] [--json] [--smoke]

``--smoke``: the gaps part on 3 instances of at most 4 users, small budgets.

``example2``: the paper's Example 2 (``instances/example-2.yaml``), best known
scheme 7/2 at L = 2, corrected lower bound 3. For every rate ``r`` with
``3 <= r < 7/2`` and ``r·L`` whole for some ``L`` in 2..4 (3, 13/4, 10/3),
:func:`itsa.keys.search.vector.search_vector_scheme` runs with ``--budget``
candidates, once without hints and once with the key entropies of the
paper's 7/2 scheme as hints; 7/2 itself is the control. A verified scheme
below 7/2 would be saved as ``instances/example-2.better.scheme.json``.

None can exist for schemes with ``X = W + Z`` and ``Y_u = Σ_v X_{u,v}`` (any
keys, linear or not). Write ``a, b, c, e`` for users (1,1)..(1,4), ``f, g, h``
for (2,1)..(2,3), ``p`` for (3,1), and ``S_8 = {a, f, g}``:

1. Configuration (1, 8, 21), ``T = {b, c, h}``: server 1 sees ``X_a``, ``X_e``,
   ``Y_3 = X_p``, and ``Y_2 - X_h = X_f + X_g``; it knows ``Σ Z = Σ X - Σ W``.
   ``W_a + W_f + W_g`` is uniform (``L`` symbols) given ``ΣW, W_T``, and
   security makes it independent of the view, so
   ``L = H(Z_a + Z_f + Z_g | C) = H(Z_e + Z_p | C) <= H(Z_e + Z_p | Z_c)``,
   ``C`` the view with ``ΣW, W_T, Z_T``. Likewise (1, 8, 22), ``T = {b, e, h}``:
   ``H(Z_c + Z_p | Z_e) >= L``; and (1, 8, 23), ``T = {b, h, p}``:
   ``H(Z_c + Z_e | Z_p) >= L`` (the paper's three binding constraints).
2. With ``x = H(Z_c, Z_e, Z_p)``: ``x >= H(Z_c) + H(Z_e + Z_p | Z_c) >= H(Z_c) + L``,
   and the same for ``e`` and ``p``; so ``L <= H(Z_e + Z_p) <= H(Z_e) + H(Z_p)
   <= 2(x - L)``, i.e. ``x >= 3L/2``.
3. Configuration (2, 7, 25), ``T = {c, e, p}``, ``S_7 = {f, g}``: server 2 sees
   ``X_f, X_g``, so ``H(Z_f, Z_g | Z_c, Z_e, Z_p) >= 2L``.
4. ``L_ZΣ >= H(Z_all) >= x + 2L >= 7L/2``: ``R_ZΣ >= 7/2``, the paper's scheme
   is optimal, and the searches below 7/2 must (and do) come back empty.

``gaps``: ``--n`` seeded random instances (the distribution of
``benchmarks/probe_converse.py``). Where itsa's corrected lower bound is
below the best rate of ``itsa.keys.search.scalar.search_min_rate`` (scalar and L = 2),
the vector search tries every rate in between with ``L`` in 2..4, smallest
first; the table counts gaps closed or narrowed. A verified rate below the
corrected bound would contradict a proved bound: the probe reports it as an error.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from probe_converse import random_instance  # noqa: E402

from itsa import load_instance, load_scheme, save_scheme, verify  # noqa: E402
from itsa.keys.bounds.corrected import corrected_lower_bound  # noqa: E402
from itsa.keys.search.scalar import search_min_rate  # noqa: E402
from itsa.keys.search.vector import key_entropies, search_vector_scheme  # noqa: E402


def rates_between(lo: Fraction, hi: Fraction, L_values=(2, 3, 4)) -> list[Fraction]:
    """Rates ``lo <= r < hi`` with ``r·L`` whole for some ``L``, ascending."""
    out = set()
    for L in L_values:
        d = -(-lo.numerator * L // lo.denominator)        # ceil(lo·L)
        while Fraction(d, L) < hi:
            out.add(Fraction(d, L))
            d += 1
    return sorted(out)


def example2(budget: int, seed: int, save: bool) -> list[dict]:
    inst = load_instance(ROOT / "instances" / "example-2.yaml")
    paper = load_scheme(inst, ROOT / "instances" / "example-2.scheme.json")
    hints = key_entropies(paper, inst.K)
    rows = []
    for rate in rates_between(Fraction(3), Fraction(7, 2)) + [Fraction(7, 2)]:
        for label, h in (("none", None), ("paper 7/2 keys", hints)):
            t = time.time()
            res = search_vector_scheme(inst, rate, L_values=(2, 3, 4), seed=seed,
                                       budget=budget, hints=h)
            row = {"rate": str(rate), "hints": label, "L": list(res.L_tried),
                   "shapes": len(res.trials), "candidates": res.candidates,
                   "prefiltered": res.prefiltered, "found": res.found,
                   "shape": res.shape, "field": res.field, "seconds": round(time.time() - t, 1)}
            rows.append(row)
            if res.found and rate < Fraction(7, 2):
                assert verify(inst, res.scheme, engine="rank").ok
                if save:
                    save_scheme(inst, res.scheme, ROOT / "instances" / "example-2.better.scheme.json")
                row["saved"] = True
    return rows


def gaps(n: int, budget: int, seed: int, max_users: int = 5) -> dict:
    rng = random.Random(f"probe:{seed}")
    out = {"instances": n, "gaps": 0, "closed": 0, "narrowed": 0, "errors": 0, "open": []}
    for _ in range(n):
        inst = random_instance(rng, max_users)
        lb = corrected_lower_bound(inst).value
        best = search_min_rate(inst, field=31, seed=seed)
        if not best.found or best.rate <= lb:
            continue
        out["gaps"] += 1
        found = None
        for rate in rates_between(lb, best.rate):
            res = search_vector_scheme(inst, rate, seed=seed, budget=budget)
            if res.found:
                found = rate
                break
        if found is not None and found < lb:
            out["errors"] += 1
        if found == lb:
            out["closed"] += 1
        elif found is not None:
            out["narrowed"] += 1
        out["open"].append({"servers": list(inst.servers), "S": list(inst.security_sets),
                            "T": list(inst.collusion_sets), "lower": str(lb),
                            "scalar/L=2": str(best.rate),
                            "vector": None if found is None else str(found)})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=["example2", "gaps", "all"], default="all")
    ap.add_argument("--budget", type=int, default=20000, help="candidates per Example-2 search")
    ap.add_argument("--gap-budget", type=int, default=2000, help="candidates per gap search")
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--max-users", type=int, default=6)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--save", action="store_true", help="save a scheme below 7/2 if one is found")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--smoke", action="store_true", help="a tiny input, seconds (the smoke test)")
    args = ap.parse_args(argv)
    if args.smoke:
        args.part, args.n, args.max_users, args.gap_budget = "gaps", 3, 4, 50
    report = {}
    t0 = time.time()
    if args.part in ("example2", "all"):
        report["example2"] = example2(args.budget, args.seed, args.save)
    if args.part in ("gaps", "all"):
        report["gaps"] = gaps(args.n, args.gap_budget, args.seed, args.max_users)
    report["seconds"] = round(time.time() - t0, 1)
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    for row in report.get("example2", []):
        print(f"example-2 rate {row['rate']:>5} hints {row['hints']:<15} L {row['L']} "
              f"shapes {row['shapes']:>5} candidates {row['candidates']:>6} "
              f"prefiltered {row['prefiltered']:>4} found {row['found']!s:<5} "
              f"{row['shape'] or ''} ({row['seconds']} s)")
    if "gaps" in report:
        g = report["gaps"]
        print(f"gaps: {g['gaps']} of {g['instances']} instances between the corrected bound and "
              f"the scalar/L=2 search; vector search closed {g['closed']}, narrowed {g['narrowed']}, "
              f"errors (below a proved bound) {g['errors']}")
        for o in g["open"]:
            print("  ", o)
    print(f"total {report['seconds']} s")
    return 1 if report.get("gaps", {}).get("errors") else 0


if __name__ == "__main__":
    sys.exit(main())
