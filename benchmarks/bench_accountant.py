"""Benchmark: itsa's certified RDP accountant against dp-accounting's RdpAccountant, on the same events.

Run:  python benchmarks/bench_accountant.py [--events 300] [--json]
      python benchmarks/bench_accountant.py --smoke        # a few events, seconds

For each of a seeded sweep of events (T rounds of the Gaussian mechanism at
noise multiplier z) both accountants compose the event and are asked ε at
δ = 1e-5: itsa's :class:`~itsa.privacy.CksAccountant` (a float search picks
the order, the CKS conversion is evaluated in ball arithmetic at that one
order: a certified upper bound) and dp-accounting's ``RdpAccountant`` (floats
over its default orders, the same conversion). Both are warmed once before
timing (imports and lazy set-up are not counted). The ratio
itsa/dp-accounting is printed (below 1: itsa is faster), with the relative
gap between the two ε (itsa's is never above theirs by more than float noise
when its order is at least as good as their grid's).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from fractions import Fraction

import numpy as np

from itsa.privacy import CksAccountant, GaussianEvent

DELTA = Fraction(1, 10**5)


def events(n: int) -> list[tuple[str, int]]:
    """``n`` (noise multiplier, rounds) pairs, seeded; z as short decimals (read exactly by itsa)."""
    rng = np.random.default_rng(7)
    return [(f"{z:.4f}", int(t)) for z, t in zip(rng.uniform(0.5, 5, n), rng.integers(1, 500, n))]


def ours(cases) -> list[float]:
    return [float(CksAccountant().compose(GaussianEvent(z, t)).epsilon(DELTA).epsilon.upper()) for z, t in cases]


def theirs(dpa, cases) -> list[float]:
    out = []
    for z, t in cases:
        acc = dpa.rdp.RdpAccountant()
        acc.compose(dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(float(z)), t))
        out.append(acc.get_epsilon(float(DELTA)))
    return out


def timed(run, repeats: int) -> tuple[float, list[float]]:
    """The least of ``repeats`` timings of ``run()`` (seconds), and its values."""
    best, values = float("inf"), []
    for _ in range(repeats):
        start = time.perf_counter()
        values = run()
        best = min(best, time.perf_counter() - start)
    return best, values


def bench(n: int, repeats: int) -> dict:
    cases = events(n)
    ours(cases[:2])                                   # warm: imports, lazy set-up
    itsa_seconds, mine = timed(lambda: ours(cases), repeats)
    out: dict = {"events": n, "delta": "1e-5", "itsa_seconds": itsa_seconds}
    try:
        import dp_accounting as dpa
    except ImportError:
        out["dp_accounting"] = "not installed (pip install 'itsa[crosscheck]')"
        return out
    theirs(dpa, cases[:2])
    base, other = timed(lambda: theirs(dpa, cases), repeats)
    gaps = [(a - b) / b for a, b in zip(mine, other)]
    out.update({"dp_accounting_seconds": base, "itsa_over_dp_accounting_time": itsa_seconds / base,
                "max_relative_gap": max(gaps), "min_relative_gap": min(gaps)})
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=300, help="(z, T) events accounted")
    parser.add_argument("--repeats", type=int, default=3, help="timings taken (the least is kept)")
    parser.add_argument("--smoke", action="store_true", help="tiny input: a few events, one timing")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.smoke:
        args.events, args.repeats = 5, 1
    result = bench(args.events, args.repeats)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"accountant, {result['events']} events at delta = 1e-5: itsa (certified) {result['itsa_seconds']:.3f} s",
          end="")
    if "dp_accounting_seconds" in result:
        print(f", dp-accounting RdpAccountant {result['dp_accounting_seconds']:.3f} s, ratio itsa/dp-accounting "
              f"{result['itsa_over_dp_accounting_time']:.2f}x; itsa's eps relative to theirs in "
              f"[{result['min_relative_gap']:+.2e}, {result['max_relative_gap']:+.2e}]")
    else:
        print(f"; dp-accounting {result['dp_accounting']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
