"""Benchmark: itsa's certified accountant against dp-accounting, and the sampler engines against NumPy.

Run:  python benchmarks/bench_privacy.py [--events 200] [--draws 20000] [--json]
      python benchmarks/bench_privacy.py --smoke        # a few events and draws, seconds

Two comparisons, each a ratio against a baseline timed in the same run:

- accounting: the certified ε (ball arithmetic, CKS conversion at a
  float-picked order) of T Gaussian rounds, for a sweep of (z, T), against
  dp-accounting's RDP accountant on the same events (when installed); the
  largest relative gap between the two values is printed too;
- sampling at σ = 14,924 (the PCU-FL page's ε = 1 setting): draws per second
  of the exact sampler (rationals) and of the table sampler (HMAC-SHA256
  stream, inverse-CDF table), against NumPy's float Gaussian rounded to
  integers (not a discrete Gaussian; only a speed baseline);
- scaling of the table sampler: the time of ``3n`` draws over the time of
  ``n`` (about 3 when reading the stream is linear; it was quadratic), and
  the one-off cost of the table's certified distance from the discrete
  Gaussian (what a release adds to its δ) against the table draws.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from fractions import Fraction

import numpy as np

from itsa.privacy import Conversion, gaussian_curve, to_epsilon
from itsa.privacy.sampler import sample
from itsa.privacy.table_law import table_distance

SIGMA = Fraction(14924)
DELTA = Fraction(1, 10**5)


def events(n: int) -> list[tuple[float, int]]:
    """``n`` (noise multiplier, rounds) pairs, seeded."""
    rng = np.random.default_rng(7)
    return [(float(round(z, 4)), int(t)) for z, t in zip(rng.uniform(0.5, 5, n), rng.integers(1, 500, n))]


def bench_accounting(n: int) -> dict:
    cases = events(n)
    start = time.perf_counter()
    ours = [float(to_epsilon(gaussian_curve(Fraction(str(z))) * t, DELTA, Conversion.CKS).epsilon.upper())
            for z, t in cases]
    itsa_seconds = time.perf_counter() - start
    out = {"events": n, "itsa_seconds": itsa_seconds}
    try:
        import dp_accounting as dpa
    except ImportError:
        out["dp_accounting"] = "not installed (pip install 'itsa[crosscheck]')"
        return out
    start = time.perf_counter()
    theirs = []
    for z, t in cases:
        acc = dpa.rdp.RdpAccountant()
        acc.compose(dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(z), t))
        theirs.append(acc.get_epsilon(float(DELTA)))
    base = time.perf_counter() - start
    gaps = [(a - b) / b for a, b in zip(ours, theirs)]
    out.update({"dp_accounting_seconds": base, "itsa_over_dp_accounting_time": itsa_seconds / base,
                "max_relative_gap": max(gaps), "min_relative_gap": min(gaps)})
    return out


def bench_sampling(n: int) -> dict:
    start = time.perf_counter()
    np.rint(np.random.default_rng(0).normal(0, float(SIGMA), n)).astype(np.int64)
    base = time.perf_counter() - start
    out: dict = {"draws": n, "sigma": int(SIGMA), "numpy_draws_per_second": n / base}
    for engine in ("table", "exact"):
        start = time.perf_counter()
        sample(SIGMA, n, "bench", engine)
        seconds = time.perf_counter() - start
        out[f"{engine}_draws_per_second"] = n / seconds
        out[f"{engine}_speed_vs_numpy"] = base / seconds
    return out


def bench_scaling(n: int) -> dict:
    times = []
    for count in (n, 3 * n):
        start = time.perf_counter()
        sample(SIGMA, count, f"scaling-{count}", "table")
        times.append(time.perf_counter() - start)
    start = time.perf_counter()
    table_distance(SIGMA + Fraction(1, 7))        # a sigma not cached yet
    distance_seconds = time.perf_counter() - start
    return {"draws": n, "time_3n_over_n": times[1] / times[0],
            "table_distance_seconds": distance_seconds, "table_distance_over_n_draws": distance_seconds / times[0]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=200, help="(z, T) events accounted")
    parser.add_argument("--draws", type=int, default=20_000, help="draws per sampler engine")
    parser.add_argument("--smoke", action="store_true", help="tiny input: a few events and draws")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.smoke:
        args.events, args.draws = 5, 200
    result = {"accounting": bench_accounting(args.events), "sampling": bench_sampling(args.draws),
              "scaling": bench_scaling(max(args.draws, 10_000) * 5)}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    acc, smp = result["accounting"], result["sampling"]
    print(f"accounting, {acc['events']} events: itsa {acc['itsa_seconds']:.3f} s", end="")
    if "dp_accounting_seconds" in acc:
        print(f", dp-accounting RDP {acc['dp_accounting_seconds']:.3f} s, ratio itsa/dp-accounting "
              f"{acc['itsa_over_dp_accounting_time']:.2f}x; itsa's eps relative to theirs in "
              f"[{acc['min_relative_gap']:+.2e}, {acc['max_relative_gap']:+.2e}]")
    else:
        print(f"; dp-accounting {acc['dp_accounting']}")
    print(f"sampling, {smp['draws']} draws at sigma = {smp['sigma']}: numpy {smp['numpy_draws_per_second']:,.0f}/s; "
          f"table {smp['table_draws_per_second']:,.0f}/s ({smp['table_speed_vs_numpy']:.3g}x numpy); "
          f"exact {smp['exact_draws_per_second']:,.0f}/s ({smp['exact_speed_vs_numpy']:.3g}x numpy)")
    sc = result["scaling"]
    print(f"table sampler scaling: {3 * sc['draws']:,} draws take {sc['time_3n_over_n']:.2f}x the time of "
          f"{sc['draws']:,} (3 is linear); the certified table distance costs {sc['table_distance_over_n_draws']:.2f}x "
          f"the {sc['draws']:,} draws")
    return 0


if __name__ == "__main__":
    sys.exit(main())
