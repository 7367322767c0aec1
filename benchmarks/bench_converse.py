"""Benchmark: the converse LPs at scale, reduce / solve / certify seconds, orbit columns against 2^K.

Run:  python benchmarks/bench_converse.py [--part keys,structured,model] [--max-users 64]
                                          [--plain-max-users 10] [--time-limit 600] [--json]
      python benchmarks/bench_converse.py --smoke        # tiny inputs, a few seconds

Three parts, one run, one table each:

* ``keys``: the keys LP (one column per orbit of user sets, itsa.keys.converse.orbit)
  on homogeneous instances U servers of V users, any t colluding, up to
  ``--max-users``; its value against the known optimum min{U+V+t-2, UV-1}; its
  columns against 2^K - 1; and, for K <= ``--plain-max-users``, the same LP
  without symmetry (2^K - 1 columns), whose total time over the orbit LP's is
  the ratio reported (both measured in this run).
* ``structured``: heterogeneous K = 48..64 instances: whole servers as
  security sets, any t users colluding.
* ``model``: the model LP (every variable of the model, K <= 4) against the
  keys LP on the same instance, with the time estimate of
  itsa.keys.converse.estimate_seconds against the measured solve + certify time.

Timings are wall-clock seconds on whatever the machine is doing; compare
ratios within one run. The script is deterministic (no randomness).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from fractions import Fraction

from itsa.keys.converse import converse, estimate_seconds
from itsa.keys.model.io import parse_instance


def homogeneous(U: int, V: int, t: int):
    return parse_instance({"name": f"homogeneous-U{U}-V{V}-t{t}", "servers": [V] * U,
                           "security_sets": ["all"], "collusion_sets": {"all_users_up_to": t}})


def servers_protected(servers: list[int], t: int):
    """Each server's inputs form a security set; any ``t`` users collude."""
    sets = [[[u + 1, v + 1] for v in range(V)] for u, V in enumerate(servers)]
    return parse_instance({"name": f"servers-{'-'.join(map(str, servers))}-each-protected-t{t}",
                           "servers": servers, "security_sets": sets,
                           "collusion_sets": {"all_users_up_to": t}})


def formula(U: int, V: int, t: int) -> Fraction:
    return Fraction(min(U + V + t - 2, U * V - 1))


def run(inst, method: str, limit: float | None, symmetry: bool = True) -> dict:
    t0 = time.perf_counter()
    b = converse(inst, method, time_limit=limit, symmetry=symmetry)
    s = b.seconds
    return {"name": inst.name, "K": inst.K, "method": method, "symmetry": symmetry,
            "value": None if b.value is None else str(b.value), "status": b.status,
            "columns": b.sizes.get("columns"), "rows": b.sizes.get("rows"),
            "count_vectors": b.sizes.get("count_vectors"), "proof_steps": None if b.certificate is None
            else b.certificate.size, "reduce": s.get("reduce"), "solve": s.get("solve"),
            "certify": s.get("certify"), "estimate": estimate_seconds(b.sizes) if b.sizes else None,
            "total": time.perf_counter() - t0}


def secs(r: dict) -> str:
    return "/".join("-" if r[k] is None else f"{r[k]:.2f}" for k in ("reduce", "solve", "certify"))


def keys_cases(args):
    if args.smoke:
        return [(3, 2, 1), (2, 3, 1)]
    cases = [(U, V, t) for U, V, t in ((3, 2, 1), (4, 2, 1), (3, 3, 2), (4, 3, 2), (4, 4, 2), (4, 8, 2),
                                       (3, 16, 2), (4, 12, 3), (4, 16, 2)) if U * V <= args.max_users]
    return cases


def part_keys(args, rows):
    print("\n== keys LP (orbit columns) vs min{U+V+t-2, UV-1}; plain = no symmetry (2^K - 1 columns)")
    print(f"{'U':>2} {'V':>2} {'t':>2} {'K':>2} {'formula':>7} {'keys':>5} {'cols':>6} {'2^K-1':>20} "
          f"{'vectors':>7} {'rows':>6} {'r/s/c orbit':>16} {'plain total':>11} {'plain/orbit':>11}")
    for U, V, t in keys_cases(args):
        inst = homogeneous(U, V, t)
        r = run(inst, "keys", args.time_limit)
        r["formula"] = str(formula(U, V, t))
        rows.append(r)
        plain, ratio = "-", "-"
        if inst.K <= args.plain_max_users:
            p = run(inst, "keys", args.time_limit, symmetry=False)
            rows.append(p)
            plain, ratio = f"{p['total']:.2f}", f"{p['total'] / r['total']:.1f}"
            if p["value"] != r["value"]:
                ratio += f" (plain {p['value']}!)"
        print(f"{U:2d} {V:2d} {t:2d} {inst.K:2d} {r['formula']:>7} {r['value'] or r['status'][:5]:>5} "
              f"{r['columns']:6d} {(1 << inst.K) - 1:20d} {r['count_vectors']:7d} {r['rows']:6d} "
              f"{secs(r):>16} {plain:>11} {ratio:>11}", flush=True)


def part_structured(args, rows):
    print("\n== keys LP, heterogeneous K = 48..64: each server's inputs a security set, any t collude")
    cases = [([16, 16, 16], 1), ([16, 16, 16], 2), ([16, 16, 16, 16], 1), ([20, 16, 12], 1)]
    if args.smoke:
        cases = [([2, 2, 1], 1)]
    for servers, t in cases:
        inst = servers_protected(servers, t)
        if inst.K > args.max_users:
            continue
        r = run(inst, "keys", args.time_limit)
        rows.append(r)
        print(f"{inst.name:40} K={inst.K:2d} bound {r['value'] or r['status']:>6} cols {r['columns']:6d} "
              f"rows {r['rows']:6d} r/s/c {secs(r)} total {r['total']:.1f} s", flush=True)


def part_model(args, rows):
    print("\n== model LP vs keys LP (K <= 4); estimate = itsa.keys.converse.estimate_seconds")
    print(f"{'instance':28} {'K':>2} {'model':>5} {'keys':>5} {'cols':>6} {'rows':>7} "
          f"{'r/s/c model':>18} {'s+c':>7} {'estimate':>8} {'keys total':>10}")
    cases = [homogeneous(3, 1, 1)] if args.smoke else [
        homogeneous(3, 1, 1), homogeneous(2, 2, 1), homogeneous(4, 1, 1),
        parse_instance({"name": "servers-2-1-1-t1", "servers": [2, 1, 1], "security_sets": ["all"],
                        "collusion_sets": {"all_users_up_to": 1}})]
    for inst in cases:
        m, k = run(inst, "model", args.time_limit), run(inst, "keys", args.time_limit)
        rows += [m, k]
        sc = (m["solve"] or 0) + (m["certify"] or 0)
        print(f"{inst.name[:28]:28} {inst.K:2d} {m['value'] or m['status'][:5]:>5} {k['value']:>5} "
              f"{m['columns']:6d} {m['rows']:7d} {secs(m):>18} {sc:7.2f} {m['estimate']:8.2f} "
              f"{k['total']:10.2f}", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", default="keys,structured,model")
    ap.add_argument("--max-users", type=int, default=64)
    ap.add_argument("--plain-max-users", type=int, default=10,
                    help="largest K on which the keys LP is also run without symmetry")
    ap.add_argument("--time-limit", type=float, default=600.0, help="seconds per converse")
    ap.add_argument("--smoke", action="store_true", help="tiny inputs only (a few seconds)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    rows: list[dict] = []
    converse(homogeneous(2, 1, 0), "keys")          # warm-up: imports (nauty, HiGHS) not timed
    t0 = time.perf_counter()
    parts = {"keys": part_keys, "structured": part_structured, "model": part_model}
    for p in args.part.split(","):
        parts[p](args, rows)
    print(f"\nwall {time.perf_counter() - t0:.1f} s")
    if args.json:
        print(json.dumps(rows, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
