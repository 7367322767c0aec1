"""Probe: the printed converse min{e*, K-1} vs. itsa's corrected bound vs. verified schemes.

Run:  python benchmarks/probe_converse.py [--n 500] [--seed 0] [--max-users 5] [--field 31] [--smoke]

Draws N seeded random small instances (same distribution as
``itsa.testing.instances``: 3-4 servers, at most --max-users users, 1-4
security sets, 1-5 collusion sets, uniform random subsets), and for each one:

* the paper's printed lower bound ``min{e*, K-1}``;
* the first hypothesis formula (``hypothesis_formula.hypothesis_bound``);
* itsa's corrected lower bound (``itsa.keys.bounds.corrected.corrected_lower_bound``);
* the smallest rate of a verified scheme found by ``itsa.keys.search.scalar.search_min_rate``.

It prints how often the printed bound is beaten by a verified scheme, how often
each bound is violated (a valid lower bound never is), and how often the
corrected bound is met (tightness evidence), then lists the instances with a
gap and the first few where the printed bound is beaten.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter

from hypothesis_formula import hypothesis_bound

from itsa import Instance
from itsa.keys.bounds.corrected import corrected_lower_bound, paper_lower_bound
from itsa.keys.search.scalar import search_min_rate


def random_instance(rng: random.Random, max_users: int) -> Instance:
    U = rng.randint(3, 4)
    extra = rng.randint(0, max(0, max_users - U))
    servers = [1] * U
    for _ in range(extra):
        servers[rng.randrange(U)] += 1
    K = sum(servers)
    S = tuple(rng.randrange(1 << K) for _ in range(rng.randint(1, 4)))
    T = tuple(rng.randrange(1 << K) for _ in range(rng.randint(1, 5)))
    return Instance(tuple(servers), S, T, name="probe")


def describe(inst: Instance) -> str:
    def fam(masks):
        return "[" + ", ".join("{" + " ".join(f"{u}{v}" for u, v in inst.labels(m)) + "}" for m in masks) + "]"
    return f"V={list(inst.servers)} S={fam(inst.security_sets)} T={fam(inst.collusion_sets)}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-users", type=int, default=5)
    ap.add_argument("--field", type=int, default=31)
    ap.add_argument("--tries", type=int, default=4)
    ap.add_argument("--show", type=int, default=5, help="examples of each kind to print")
    ap.add_argument("--smoke", action="store_true", help="a tiny input, seconds (the smoke test)")
    args = ap.parse_args(argv)
    if args.smoke:
        args.n, args.max_users, args.tries = 3, 4, 1

    rng = random.Random(f"probe:{args.seed}")
    c = Counter()
    gaps, beaten, hyp_bad, invalid = [], [], [], []
    t0 = time.time()
    for _ in range(args.n):
        inst = random_instance(rng, args.max_users)
        paper = paper_lower_bound(inst)
        hyp = hypothesis_bound(inst)
        corr = corrected_lower_bound(inst).value
        res = search_min_rate(inst, field=args.field, seed=args.seed, tries=args.tries)
        c["instances"] += 1
        if not res.found:
            c["no scheme found"] += 1
            continue
        rate = res.rate
        c["scheme found"] += 1
        c["scheme needs L=2 (fractional)"] += rate.denominator > 1
        if rate < paper:
            c["printed bound beaten"] += 1
            beaten.append((inst, paper, rate, corr))
        if rate < hyp:
            c["hypothesis beaten"] += 1
            hyp_bad.append((inst, hyp, rate, corr))
        if rate < corr:
            c["CORRECTED BOUND VIOLATED"] += 1
            invalid.append((inst, corr, rate))
        if rate == corr:
            c["corrected bound met"] += 1
        else:
            gaps.append((inst, corr, rate, res.shape))
        c["corrected > printed"] += corr > paper
        c["corrected < printed"] += corr < paper
    dt = time.time() - t0

    n = c["scheme found"]
    print(f"probe_converse: N = {args.n}, seed = {args.seed}, max_users = {args.max_users}, "
          f"F_{args.field}, tries = {args.tries}, {dt:.1f} s")
    print(f"{'statistic':40s} {'count':>7s} {'share':>8s}")
    for key in ("instances", "scheme found", "no scheme found", "scheme needs L=2 (fractional)",
                "printed bound beaten", "hypothesis beaten", "CORRECTED BOUND VIOLATED",
                "corrected bound met", "corrected < printed", "corrected > printed"):
        share = f"{c[key] / n:8.1%}" if n and key not in ("instances", "scheme found", "no scheme found") else ""
        print(f"{key:40s} {c[key]:7d} {share}")
    if invalid:
        print("\nINVALID (corrected bound above a verified rate):")
        for inst, corr, rate in invalid[:args.show]:
            print(f"  corrected {corr} > verified {rate}: {describe(inst)}")
    print(f"\nprinted bound beaten (first {args.show}, smallest K first):")
    for inst, paper, rate, corr in sorted(beaten, key=lambda x: x[0].K)[:args.show]:
        print(f"  printed {paper}, verified {rate}, corrected {corr}: {describe(inst)}")
    print(f"\nhypothesis beaten (first {args.show}):")
    for inst, hyp, rate, corr in sorted(hyp_bad, key=lambda x: x[0].K)[:args.show]:
        print(f"  hypothesis {hyp}, verified {rate}, corrected {corr}: {describe(inst)}")
    print(f"\ngaps: corrected < best verified rate (first {args.show}):")
    for inst, corr, rate, shape in sorted(gaps, key=lambda x: x[0].K)[:args.show]:
        print(f"  corrected {corr}, verified {rate} ({shape}): {describe(inst)}")
    return 1 if invalid else 0


if __name__ == "__main__":
    sys.exit(main())
