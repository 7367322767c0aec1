"""Benchmark: the group criterion that scores every candidate of the scheme searches.

Run:  python benchmarks/bench_criterion.py [--draws 2000] [--json]
      python benchmarks/bench_criterion.py --smoke        # a few draws, a second

``GroupCriterion.deficit`` (itsa/keys/search/scalar.py) is where the vector search spends
most of its time: a rank over ``F_q`` per configuration per candidate. The
baseline, kept here, is the same criterion written the plain way (each
group's key sum by ``numpy.sum``, entries converted one by one). Both score
the same seeded random keys on a K = 12 instance and must agree on every
deficit; the ratio of their times is printed (same run, same machine).

A repair walk only asks whether a draw is worse than the walk's best, so it
calls ``deficit(Z, above=best)``, which stops once the sum exceeds ``best``.
The third column times that on the same draws with ``above`` the median
deficit, against the full sums (each bounded answer is checked: exact when
the deficit is at most the bound, above the bound otherwise).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time

import flint
import numpy as np

from itsa import Instance
from itsa.keys.search.scalar import GroupCriterion


def instance() -> Instance:
    """K = 12 on three servers, three security sets, five collusion sets (seeded)."""
    rng = random.Random(25)
    K = 12
    S = tuple(rng.randrange(1, 1 << K) for _ in range(3))
    T = tuple(rng.randrange(1 << K) & rng.randrange(1 << K) for _ in range(5))
    return Instance((4, 4, 4), S, T, name="criterion-K12")


def plain_deficit(crit: GroupCriterion, Z: np.ndarray) -> int:
    """The criterion the plain way: the baseline."""
    def rank(M):
        if M.shape[0] == 0 or M.shape[1] == 0:
            return 0
        return flint.nmod_mat(M.shape[0], M.shape[1], [int(x) for x in M.ravel()], crit.q).rank()
    total = 0
    for T, P, units, _ in crit.checks:
        L, d = Z.shape[1], Z.shape[2]
        need = units * L
        if need > d or d == 0:
            total += need
            continue
        zt = Z[T].reshape(-1, d) if T else np.zeros((0, d), dtype=np.int64)
        bp = np.concatenate([Z[g].sum(axis=0) % crit.q for g in P])
        total += need - (rank(np.concatenate([bp, zt])) - rank(zt))
    return total


def draws(K: int, q: int, n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        L, d = 2, 14
        Z = rng.integers(0, q, size=(K, L, d), dtype=np.int64)
        Z[rng.random(K) < 0.3] = 0                      # some users keyless
        Z[-1] = (-Z[:-1].sum(axis=0)) % q               # ΣZ = 0
        yield Z


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=2000)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--smoke", action="store_true", help="50 draws only")
    args = ap.parse_args(argv)
    n = 50 if args.smoke else args.draws
    inst = instance()
    crit = GroupCriterion(inst, 101)
    keys = list(draws(inst.K, crit.q, n))
    t0 = time.perf_counter()
    fast = [crit.deficit(Z) for Z in keys]
    t1 = time.perf_counter()
    plain = [plain_deficit(crit, Z) for Z in keys]
    t2 = time.perf_counter()
    if fast != plain:
        raise SystemExit("the two criteria disagree")
    above = sorted(fast)[len(fast) // 2]
    t3 = time.perf_counter()
    bounded = [crit.deficit(Z, above) for Z in keys]
    t4 = time.perf_counter()
    if any(b != f if f <= above else not above < b <= f for b, f in zip(bounded, fast)):
        raise SystemExit("a bounded deficit is neither exact nor above its bound")
    row = {"instance": inst.name, "checks": len(crit), "draws": n, "itsa_s": t1 - t0,
           "plain_s": t2 - t1, "speedup": (t2 - t1) / (t1 - t0), "secure": fast.count(0),
           "above": above, "bounded_s": t4 - t3, "bounded_speedup": (t1 - t0) / (t4 - t3)}
    print(f"{inst.name}: {len(crit)} checks, {n} draws ({row['secure']} secure): "
          f"itsa {row['itsa_s']:.2f} s, plain {row['plain_s']:.2f} s, {row['speedup']:.2f}x; "
          f"bounded at the median deficit {above}: {row['bounded_s']:.2f} s, "
          f"{row['bounded_speedup']:.2f}x the full sums")
    if args.json:
        print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
