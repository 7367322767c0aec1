"""Benchmark: `itsa.analyze` quantities against the deliberately plain reference.

Run:  python benchmarks/bench_analyze.py [--seed 0] [--security-sets 100] [--t 3] [--smoke]

The generated instance has U = 5 servers and K = 40 users; S is a seeded
random family, T is every set of at most t users (t = 3 gives 10,701 sets),
so there are U·M·N configurations (5.35 million by default). Both
implementations run on the same instance in the same process, and their
results are compared before the times are printed.
"""

from __future__ import annotations

import argparse
import random
import time

import itsa
from itsa.testing.oracles import plain_quantities


def make_instance(seed: int, M: int, t: int) -> itsa.Instance:
    rng = random.Random(seed)
    servers = (8, 8, 8, 8, 8)
    inst = itsa.parse_instance({"servers": list(servers), "security_sets": ["all"],
                                "collusion_sets": {"all_users_up_to": t}})
    K = inst.K
    S = tuple(sum(1 << i for i in rng.sample(range(K), rng.randint(1, 6))) for _ in range(M))
    return itsa.Instance(servers, S, inst.collusion_sets, name=f"bench-seed{seed}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--security-sets", type=int, default=100)
    ap.add_argument("--t", type=int, default=3)
    ap.add_argument("--smoke", action="store_true", help="a tiny input, seconds (the smoke test)")
    args = ap.parse_args()
    if args.smoke:
        args.security_sets, args.t = 3, 1
    inst = make_instance(args.seed, args.security_sets, args.t)
    n_conf = inst.U * inst.M * inst.N
    print(f"instance: U={inst.U} K={inst.K} M={inst.M} N={inst.N}: {n_conf:,} configurations")

    runs = []
    for _ in range(3):   # best of three: the first run also pays for page faults
        t0 = time.perf_counter()
        sets = itsa.set_quantities(itsa.configurations(inst))
        runs.append(time.perf_counter() - t0)
    t_fast = min(runs)

    S = [set(inst.labels(s)) for s in inst.security_sets]
    T = [set(inst.labels(t)) for t in inst.collusion_sets]
    t0 = time.perf_counter()
    ref = plain_quantities(inst.servers, S, T)
    t_plain = time.perf_counter() - t0

    assert (sets.a_star, sets.e_star) == (ref["a_star"], ref["e_star"])
    for key in ("S_I", "S_bar", "Q1", "Q2", "Q"):
        assert set(inst.labels(getattr(sets, key))) == ref[key], key
    print(f"itsa (packed uint64, NumPy): {t_fast:8.3f} s  (best of 3; first run {runs[0]:.3f} s)")
    print(f"plain frozensets, loop     : {t_plain:8.3f} s")
    print(f"speed-up                   : {t_plain / t_fast:8.1f}x  (results identical)")


if __name__ == "__main__":
    main()
