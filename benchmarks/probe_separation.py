"""Probe: how close the separation's first round (the chain rows) comes to the keys LP, on random draws.

Run:  python benchmarks/probe_separation.py [--seed 41] [--n 30] [--max-users 12] [--time-limit 60]
      python benchmarks/probe_separation.py --smoke       # 4 draws per ensemble, at most 8 users

For each draw of the two ensembles of ``probe_solve.py`` with at least 6
users, in the same run:

* ``lp``: the keys LP's optimum, by the orbit LP solved whole (the baseline);
* ``first``: the optimum of the separation's first round, the chain rows alone
  (:mod:`itsa.keys.converse.lazy`), and its seconds;
* ``rounds``: the rounds the separation needs to reach ``lp`` (``-`` when the
  time limit passes first), and their seconds.

The first round's value is a certified bound whatever it is (a relaxation);
the probe measures how often it is already the LP's optimum.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from fractions import Fraction

from probe_solve import ENSEMBLES

from itsa.keys.converse import converse
from itsa.keys.converse.lazy import lazy_lp
from itsa.keys.converse.solver import solve_float

#: Draws with fewer users are skipped: their chain rows are nearly every row.
MIN_USERS = 6


def rounds_to(inst, target: float | None, time_limit: float) -> tuple[float, int, float, str | None]:
    """The separation stopped at ``target`` (or at the LP's optimum): its value, rounds, seconds and why."""
    heard: list[str] = []
    lp = lazy_lp(inst)
    t0 = time.perf_counter()
    sol = solve_float(lp, time_limit=time_limit, target=target, progress=lambda stage, **kw: heard.append(stage))
    return sol.value, len(heard), time.perf_counter() - t0, sol.relaxed


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=41)
    ap.add_argument("--n", type=int, default=30, help="draws per ensemble")
    ap.add_argument("--max-users", type=int, default=12)
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds for the separation to reach the LP")
    ap.add_argument("--smoke", action="store_true", help="4 draws per ensemble, at most 8 users")
    args = ap.parse_args(argv)
    if args.smoke:
        args.n, args.max_users, args.time_limit = 4, 8, 20.0
    print(f"{'ensemble':9} {'#':>3} {'K':>2} {'lp':>6} {'first':>6} {'secs':>6} {'rounds':>6} {'secs':>7}")
    tally: dict[str, list[int]] = {}
    for ens, draw in ENSEMBLES.items():
        rng = random.Random(f"probe_solve:{ens}:{args.seed}")
        drawn = [draw(rng, args.max_users) for _ in range(args.n)]
        for i, inst in enumerate(drawn):
            if inst.K < MIN_USERS:
                continue
            lp = converse(inst).value
            first, _, first_s, _ = rounds_to(inst, 0.0, args.time_limit)
            value, rounds, secs, _ = rounds_to(inst, float(lp), args.time_limit)
            reached = value >= float(lp) - 1e-7
            t = tally.setdefault(ens, [0, 0, 0])
            t[0] += 1
            t[1] += Fraction(first).limit_denominator(1000) == lp
            t[2] += reached
            print(f"{ens:9} {i:3d} {inst.K:2d} {str(lp):>6} {str(Fraction(first).limit_denominator(1000)):>6} "
                  f"{first_s:6.1f} {rounds if reached else '-':>6} {secs:7.1f}", flush=True)
    for ens, (n, first_ok, reached) in tally.items():
        print(f"{ens}: {n} draws; the first round has the LP's optimum on {first_ok}, "
              f"the separation reaches it within {args.time_limit:.0f} s on {reached}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
