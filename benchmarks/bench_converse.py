"""Benchmark: the converse LPs' size after each reduction, solve and certify times, and the bounds.

Run:  python benchmarks/bench_converse.py [--part sizes,homogeneous,additive] [--time-limit 300]
                                          [--nosym-max-users 3] [--max-users-additive 12] [--json]

Three parts:

* ``sizes``: on the shipped instances (``instances/**/*.yaml``) and small
  homogeneous ones, for each class that fits (``general``: K <= 4,
  ``additive``: K <= 12), the LP size before and after each reduction
  (raw: every subset of the variables and every elemental Shannon inequality;
  closure: subsets merged by functional-dependence closure; symmetry: columns
  and rows kept per orbit), the reduce / solve / certify seconds and the bound.
  The same LP is also run with ``symmetry=False`` (for K <= --nosym-max-users),
  which gives the symmetry reduction's ratio measured in the same run.
* ``homogeneous``: the ``general`` bound against the published optimum
  ``min{U+V+t-2, UV-1}`` on every homogeneous instance with K <= 4 (U >= 2).
* ``additive``: the ``additive`` bound against the same formula on U in {3,4,5},
  V in {1,2,3}, t in {0..3} with K <= --max-users-additive.

``rows_raw`` counts the elemental Shannon inequalities only (n(n-1)2^(n-3) + n
for n variables); ``rows`` after the reductions also holds the problem's own
constraints. The script is deterministic (no randomness); timings vary.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from fractions import Fraction
from pathlib import Path

from itsa import load_instance
from itsa.converse import MAX_USERS, converse
from itsa.instance_io import parse_instance

ROOT = Path(__file__).resolve().parent.parent


def homogeneous(U: int, V: int, t: int):
    return parse_instance({"name": f"homogeneous-U{U}-V{V}-t{t}", "servers": [V] * U,
                           "security_sets": ["all"], "collusion_sets": {"all_users_up_to": t}})


def formula(U: int, V: int, t: int) -> Fraction:
    return Fraction(min(U + V + t - 2, U * V - 1))


def shipped():
    return [load_instance(p) for p in sorted(ROOT.glob("instances/**/*.yaml"))]


def small_general():
    """Small instances for the general class (K <= 4), homogeneous and not."""
    out = [homogeneous(3, 1, t) for t in (0, 1)] + [homogeneous(2, 2, t) for t in (0, 1)]
    for t in (0, 1):
        out.append(parse_instance({"name": f"servers-2-1-1-t{t}", "servers": [2, 1, 1],
                                   "security_sets": ["all"],
                                   "collusion_sets": {"all_users_up_to": t}}))
    out += [homogeneous(4, 1, t) for t in (0, 1)]
    return out


def run(inst, cls, limit, symmetry=True) -> dict:
    t0 = time.perf_counter()
    b = converse(inst, cls, time_limit=limit, symmetry=symmetry)
    return {"name": inst.name, "K": inst.K, "class": cls, "symmetry": symmetry,
            "value": None if b.value is None else str(b.value), "certified": b.certified,
            "status": b.status, "sizes": dict(b.sizes), "seconds": dict(b.seconds),
            "proof_steps": None if b.certificate is None else b.certificate.size,
            "total": time.perf_counter() - t0}


def fmt_secs(s: dict) -> str:
    return "/".join(f"{s.get(k, float('nan')):.2f}" for k in ("reduce", "solve", "certify"))


def part_sizes(args, rows):
    print("\n== LP sizes per reduction (columns / rows), seconds reduce/solve/certify")
    print(f"{'instance':34} {'K':>2} {'class':8} {'vars':>4} {'cols raw':>9} {'rows raw':>10} "
          f"{'cols clos':>9} {'cols sym':>8} {'rows sym':>8} {'cols nosym':>10} {'rows nosym':>10} "
          f"{'col ratio':>9} {'row ratio':>9} {'bound':>6} {'steps':>5} {'sym r/s/c':>16} "
          f"{'nosym r/s/c':>16}")
    insts = shipped() + small_general()
    for inst in insts:
        for cls in ("general", "additive"):
            if inst.K > MAX_USERS[cls]:
                continue
            r = run(inst, cls, args.time_limit)
            rows.append(r)
            n = None
            if inst.K <= args.nosym_max_users or cls == "additive":
                n = run(inst, cls, args.time_limit, symmetry=False)
                rows.append(n)
            s = r["sizes"]
            ns = n["sizes"] if n else {}
            cr = f"{ns['columns'] / s['columns']:.2f}" if n else "-"
            rr = f"{ns['rows'] / s['rows']:.2f}" if n else "-"
            agree = "" if n is None or n["value"] == r["value"] else f" (nosym {n['value']}!)"
            print(f"{inst.name[:34]:34} {inst.K:2d} {cls:8} {s['variables']:4d} {s['columns_raw']:9d} "
                  f"{s['rows_raw']:10d} {s['columns_closure']:9d} {s['columns']:8d} {s['rows']:8d} "
                  f"{ns.get('columns', '-'):>10} {ns.get('rows', '-'):>10} {cr:>9} {rr:>9} "
                  f"{r['value'] or r['status'][:6]:>6} {r['proof_steps'] or '-':>5} "
                  f"{fmt_secs(r['seconds']):>16} {fmt_secs(n['seconds']) if n else '-':>16}{agree}",
                  flush=True)


def part_homogeneous(args, rows):
    print("\n== general converse vs min{U+V+t-2, UV-1}, homogeneous, K <= 4")
    print(f"{'U':>2} {'V':>2} {'t':>2} {'K':>2} {'formula':>7} {'general':>8} {'agree':>5} {'seconds':>8}")
    for U, V in ((2, 1), (3, 1), (4, 1), (2, 2)):
        for t in range(0, min(U * V, args.max_t + 1)):
            inst = homogeneous(U, V, t)
            r = run(inst, "general", args.time_limit)
            r["formula"] = str(formula(U, V, t))
            rows.append(r)
            ok = "yes" if r["value"] == r["formula"] else "NO"
            print(f"{U:2d} {V:2d} {t:2d} {inst.K:2d} {r['formula']:>7} {r['value'] or r['status'][:8]:>8} "
                  f"{ok:>5} {r['total']:8.2f}", flush=True)


def part_additive(args, rows):
    print("\n== additive converse vs min{U+V+t-2, UV-1}, homogeneous U in {3,4,5}, V in {1,2,3}, t <= 3")
    print(f"{'U':>2} {'V':>2} {'t':>2} {'K':>2} {'formula':>7} {'additive':>8} {'agree':>5} "
          f"{'cols':>6} {'rows':>7} {'seconds':>8}")
    for U in (3, 4, 5):
        for V in (1, 2, 3):
            if U * V > args.max_users_additive:
                continue
            for t in range(4):
                if t >= U * V:
                    continue
                inst = homogeneous(U, V, t)
                r = run(inst, "additive", args.time_limit)
                r["formula"] = str(formula(U, V, t))
                rows.append(r)
                ok = "yes" if r["value"] == r["formula"] else "NO"
                print(f"{U:2d} {V:2d} {t:2d} {inst.K:2d} {r['formula']:>7} "
                      f"{r['value'] or r['status'][:8]:>8} {ok:>5} {r['sizes']['columns']:6d} "
                      f"{r['sizes']['rows']:7d} {r['total']:8.2f}", flush=True)
    print("\n== additive converse on the shipped instances")
    for inst in shipped():
        r = run(inst, "additive", args.time_limit)
        rows.append(r)
        print(f"{inst.name:40} K={inst.K:2d} additive {r['value'] or r['status']:>6} {r['total']:7.2f} s",
              flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", default="sizes,homogeneous,additive")
    ap.add_argument("--time-limit", type=float, default=300.0, help="seconds per LP solve")
    ap.add_argument("--nosym-max-users", type=int, default=3,
                    help="largest K on which the general LP is also run without symmetry")
    ap.add_argument("--max-users-additive", type=int, default=12)
    ap.add_argument("--max-t", type=int, default=2, help="largest t in the general homogeneous check")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    rows: list[dict] = []
    t0 = time.perf_counter()
    parts = {"sizes": part_sizes, "homogeneous": part_homogeneous, "additive": part_additive}
    for p in args.part.split(","):
        parts[p](args, rows)
    print(f"\nwall {time.perf_counter() - t0:.1f} s")
    if args.json:
        print(json.dumps(rows, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
