"""Probe: how often `itsa.solve` settles random instances, by class of the lower end.

Run:  python benchmarks/probe_solve.py [--n 150] [--seed 0] [--time-limit 60] [--jobs 2]
                                       [--ensemble testing|theorem2|both] [--max-users 6]
                                       [--classes keys,model] [--only 1,2,7] [--json]
      python benchmarks/probe_solve.py --smoke      # a few small instances, a few seconds

Two seeded ensembles of random instances:

* ``testing``: the distribution of the hypothesis strategy
  ``itsa.testing.instances(max_users=6)`` (3-4 servers, at most 6 users,
  1-4 security sets and 1-5 collusion sets, uniform random subsets,
  ``∅`` and repeats allowed), drawn with ``random.Random``;
* ``theorem2``: instances built to land in the paper's Theorem-2 regime often:
  a small protected core ``B`` (1-2 users), security sets a random non-empty
  family of subsets of ``B`` (so nested sets are frequent, as in the paper's
  Example 2), collusion sets a random family of the subsets of size <= 2 of
  all users (each kept with probability 0.6). The share that really is in the
  Theorem-2 regime (``itsa.analyze(inst).regime``) is printed.

For each instance :func:`itsa.keys.optimum.solve` runs with ``--time-limit``. The
script prints, per ensemble, the share certified optimal by the class of the
lower end (keys / model LP, or the corrected bound), the share left open, every open
instance with its interval and a one-line YAML description that
``itsa solve`` reads back, why its search stopped, and the time per
instance (median, max, by stage). ``--only`` reruns chosen instances (their
index in each ensemble) of the same draw, e.g. the open ones of a larger run.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import statistics
import sys
import time
from collections import Counter
from multiprocessing import Pool

from itsa import Instance, analyze
from itsa.keys.optimum import solve


def testing_instance(rng: random.Random, max_users: int) -> Instance:
    """One draw from the distribution of ``itsa.testing.instances(max_users=...)``."""
    U = rng.randint(3, 4)
    cuts = [rng.randint(0, U - 1) for _ in range(rng.randint(0, max(0, max_users - U)))]
    servers = [1 + cuts.count(u) for u in range(U)]
    K = sum(servers)
    S = tuple(rng.randrange(1 << K) for _ in range(rng.randint(1, 4)))
    T = tuple(rng.randrange(1 << K) for _ in range(rng.randint(1, 5)))
    return Instance(tuple(servers), S, T, name="testing")


def _mask(bits) -> int:
    return sum(1 << i for i in bits)


def theorem2_instance(rng: random.Random, max_users: int) -> Instance:
    """An instance with a small protected core and many small collusion sets."""
    U = rng.randint(3, 4)
    servers = [1] * U
    for _ in range(rng.randint(0, max(0, max_users - U))):
        servers[rng.randrange(U)] += 1
    K = sum(servers)
    core = rng.sample(range(K), rng.randint(1, min(2, K - 1)))
    S = [_mask(c) for r in range(1, len(core) + 1) for c in itertools.combinations(core, r)
         if rng.random() < 0.7] or [_mask(core)]
    T = [_mask(c) for r in range(3) for c in itertools.combinations(range(K), r)
         if rng.random() < 0.6] or [0]
    return Instance(tuple(servers), tuple(S), tuple(T), name="theorem2")


ENSEMBLES = {"testing": testing_instance, "theorem2": theorem2_instance}


def to_yaml(inst: Instance) -> str:
    """One-line YAML (flow style) that ``itsa.load_instance`` reads back."""
    def fam(masks):
        return "[" + ", ".join("[" + ", ".join(f"[{u}, {v}]" for u, v in inst.labels(m)) + "]"
                               for m in masks) + "]"
    return (f"{{servers: {list(inst.servers)}, security_sets: {fam(inst.security_sets)}, "
            f"collusion_sets: {fam(inst.collusion_sets)}}}")


def run_one(job):
    ens, i, inst, limit, seed, classes = job
    regime = analyze(inst, corrected=False).regime
    t0 = time.perf_counter()
    try:
        s = solve(inst, time_limit=limit, seed=seed, classes=classes)
    except Exception as exc:  # a crash is a finding: report it, do not stop the probe
        return {"ensemble": ens, "i": i, "K": inst.K, "regime": regime, "error": repr(exc),
                "yaml": to_yaml(inst), "seconds": time.perf_counter() - t0}
    return {"ensemble": ens, "i": i, "K": inst.K, "regime": regime, "verdict": s.verdict,
            "lower": str(s.lower.value), "class": s.lower.method,
            "certified": s.lower.certified,
            "upper": None if s.upper is None else str(s.upper.value),
            "upper_source": None if s.upper is None else s.upper.source,
            "converses": {b.method: None if b.value is None else str(b.value)
                          for b in s.converses},
            "why": (s.search.why() if s.verdict == "open" and getattr(s, "search", None) is not None
                    else None),
            "timings": s.timings, "notes": list(s.notes), "yaml": to_yaml(inst),
            "seconds": time.perf_counter() - t0}


def report(ens: str, rows: list[dict]) -> None:
    n = len(rows)
    print(f"\n== ensemble {ens}: {n} instances, K: "
          + ", ".join(f"{k}x{c}" for k, c in sorted(Counter(r["K"] for r in rows).items())))
    reg = Counter(r["regime"] for r in rows)
    print("   regimes: " + ", ".join(f"{k} {v} ({100 * v / n:.1f}%)" for k, v in sorted(reg.items())))
    errors = [r for r in rows if "error" in r]
    ok = [r for r in rows if "error" not in r]
    opt = Counter(r["class"] for r in ok if r["verdict"] == "optimal")
    n_open = sum(r["verdict"] == "open" for r in ok)
    print(f"   {'verdict / lower class':28} {'count':>6} {'share':>7}")
    for cls in ("model", "keys", "corrected"):
        print(f"   {'optimal, ' + cls:28} {opt[cls]:6d} {100 * opt[cls] / n:6.1f}%")
    print(f"   {'optimal, total':28} {sum(opt.values()):6d} {100 * sum(opt.values()) / n:6.1f}%")
    print(f"   {'open':28} {n_open:6d} {100 * n_open / n:6.1f}%")
    print(f"   {'error':28} {len(errors):6d} {100 * len(errors) / n:6.1f}%")
    t2 = [r for r in ok if r["regime"] == "theorem-2"]
    if t2:
        k = sum(r["verdict"] == "optimal" for r in t2)
        print(f"   theorem-2 regime only: {k}/{len(t2)} optimal ({100 * k / len(t2):.1f}%)")
    secs = sorted(r["seconds"] for r in rows)
    print(f"   seconds per instance: median {statistics.median(secs):.2f}, "
          f"p90 {secs[int(0.9 * (n - 1))]:.2f}, max {secs[-1]:.2f}, total {sum(secs):.1f}")
    stages = Counter()
    for r in ok:
        stages.update(r["timings"])
    print("   time by stage (total s): " + ", ".join(f"{k} {v:.1f}" for k, v in stages.most_common()))
    both = [r for r in ok if r["converses"].get("model") and r["converses"].get("keys")]
    if both:
        lt = [r for r in both if r["converses"]["model"] != r["converses"]["keys"]]
        print(f"   model and keys both certified: {len(both)}; they differ on {len(lt)}")
        for r in lt:
            print(f"   DIFF #{r['i']} model {r['converses']['model']} keys "
                  f"{r['converses']['keys']} verdict {r['verdict']}: {r['yaml']}")
    for r in ok:
        if r["verdict"] == "open":
            print(f"   OPEN #{r['i']} K={r['K']} {r['regime']}: {r['lower']} ({r['class']}) <= R* <= "
                  f"{r['upper'] or '?'} ({r['upper_source']}); notes: {'; '.join(r['notes']) or '-'}")
            print(f"        why: {r['why']}")
            print(f"        {r['yaml']}")
    for r in errors:
        print(f"   ERROR #{r['i']} K={r['K']}: {r['error']}\n        {r['yaml']}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=150, help="instances per ensemble")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per instance")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--max-users", type=int, default=6)
    ap.add_argument("--ensemble", choices=["testing", "theorem2", "both"], default="both")
    ap.add_argument("--classes", default="keys,model",
                    help="converse classes solve may use (comma-separated)")
    ap.add_argument("--only", default="", help="comma-separated instance indices to run (of each ensemble)")
    ap.add_argument("--json", action="store_true", help="also print every row as JSON")
    ap.add_argument("--smoke", action="store_true",
                    help="tiny run: 3 instances per ensemble, at most 5 users, 1 job")
    args = ap.parse_args(argv)
    if args.smoke:
        args.n, args.max_users, args.jobs, args.time_limit = 3, 5, 1, 20.0
        args.classes = "keys"
    only = {int(x) for x in args.only.split(",") if x}
    classes = tuple(c for c in args.classes.split(",") if c)
    names = list(ENSEMBLES) if args.ensemble == "both" else [args.ensemble]
    jobs = []
    for ens in names:
        rng = random.Random(f"probe_solve:{ens}:{args.seed}")
        drawn = [ENSEMBLES[ens](rng, args.max_users) for _ in range(args.n)]
        jobs += [(ens, i, inst, args.time_limit, args.seed, classes)
                 for i, inst in enumerate(drawn) if not only or i in only]
    t0 = time.perf_counter()
    if args.jobs == 1:
        rows = [run_one(j) for j in jobs]
    else:
        with Pool(args.jobs) as pool:
            rows = list(pool.imap(run_one, jobs, chunksize=1))
    print(f"probe_solve: seed {args.seed}, {args.n} per ensemble"
          f"{', only #' + ','.join(map(str, sorted(only))) if only else ''}, time limit {args.time_limit} s, "
          f"classes {','.join(classes)}, {args.jobs} jobs, wall {time.perf_counter() - t0:.1f} s")
    for ens in names:
        report(ens, [r for r in rows if r["ensemble"] == ens])
    if args.json:
        print(json.dumps(rows, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
