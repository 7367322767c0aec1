"""Benchmark: itsa's exact samplers against OpenDP's exact sampler and NumPy's float normal, in one run.

Run:  python benchmarks/bench_samplers.py [--draws 1200000] [--opendp-draws 100000] [--workers 1] [--json]
      python benchmarks/bench_samplers.py --smoke       # small counts, seconds

For each law, draws per second of

- itsa: :func:`itsa.privacy.samplers.discrete_gaussian`,
  :func:`~itsa.privacy.samplers.skellam` or
  :func:`~itsa.privacy.samplers.fair_coins` (exact; ChaCha20 stream), at
  ``--draws`` (the cross-device client share: 1.2 million);
- OpenDP 0.16's exact discrete Gaussian (``make_gaussian`` on integers: CKS
  in exact arithmetic) at the same σ (for the binomial and Skellam, at their
  standard deviation: OpenDP 0.16 has no binomial, Poisson or Skellam sampler
  in its Python API), at ``--opendp-draws`` (its rate is per draw; 1.2
  million OpenDP draws take minutes on this machine);
- NumPy's float sampler of the same law where NumPy has one (the difference
  of two ``Generator.poisson`` for Skellam: a float sampler, not an exact
  one), else its float normal rounded to integers (not a discrete Gaussian):
  a speed floor.

The ratios (itsa over OpenDP, NumPy over itsa) are what to read: both sides
run on the same machine in the same minute. OpenDP is optional (``pip
install '.[bench]'``, OpenDP 0.16): without it the script says so and times the rest.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from fractions import Fraction

import numpy as np

from itsa.privacy.samplers import discrete_gaussian, fair_coins, skellam

#: (label, law, parameter): σ for the discrete Gaussian, N for the binomial, the variance V for Skellam.
CASES = [("dgauss sigma=1000", "dgauss", 1000), ("dgauss sigma=1,739,710 (k1000's shares)", "dgauss", 1_739_710),
         ("dgauss sigma^2=5/2", "dgauss", Fraction(5, 2)), ("binomial N=4e9", "binomial", 4 * 10**9),
         ("skellam V=1e6", "skellam", 10**6), ("skellam V=3e12 (k1000-like shares)", "skellam", 3 * 10**12),
         ("skellam V=5/2", "skellam", Fraction(5, 2))]


def _ours(law: str, parameter, count: int, workers: int) -> float:
    start = time.perf_counter()
    if law == "binomial":
        fair_coins(parameter, count, seed="bench", workers=workers)
    elif law == "skellam":
        skellam(parameter, count, seed="bench", workers=workers)
    else:
        discrete_gaussian(Fraction(parameter) ** 2, count, seed="bench", workers=workers)
    return count / (time.perf_counter() - start)


def _sigma(law: str, parameter) -> float:
    if law == "binomial":
        return math.sqrt(parameter) / 2
    return math.sqrt(parameter) if law == "skellam" else float(parameter)


def _numpy(law: str, parameter, count: int) -> float:
    rng = np.random.default_rng(1)
    start = time.perf_counter()
    if law == "skellam":
        rng.poisson(float(parameter) / 2, count) - rng.poisson(float(parameter) / 2, count)
    else:
        np.rint(rng.normal(0.0, _sigma(law, parameter), count)).astype(np.int64)
    return count / (time.perf_counter() - start)


def _opendp(sigma: float, count: int) -> float | None:
    try:
        import opendp.prelude as dp
    except ImportError:
        return None
    dp.enable_features("contrib")
    m = dp.m.make_gaussian(dp.vector_domain(dp.atom_domain(T=int)), dp.l2_distance(T=int), scale=sigma)
    start = time.perf_counter()
    m([0] * count)
    return count / (time.perf_counter() - start)


def run(draws: int, opendp_draws: int, workers: int) -> dict:
    for _, law, parameter in CASES:             # warm up: imports, tables, the first cipher
        _ours(law, parameter, 1000, 1)
    rows = []
    for label, law, parameter in CASES:
        sigma = _sigma(law, parameter)
        ours, theirs = _ours(law, parameter, draws, workers), _opendp(sigma, opendp_draws)
        floats = _numpy(law, parameter, draws)
        rows.append({"case": label, "itsa_draws_per_second": round(ours), "itsa_seconds_for_draws": draws / ours,
                     "opendp_draws_per_second": None if theirs is None else round(theirs),
                     "itsa_over_opendp": None if theirs is None else ours / theirs,
                     "numpy_draws_per_second": round(floats), "numpy_over_itsa": floats / ours})
    return {"draws": draws, "opendp_draws": opendp_draws, "workers": workers, "rows": rows,
            "baselines": "OpenDP: its exact discrete Gaussian at the law's standard deviation (OpenDP 0.16 has no "
                         "binomial, Poisson or Skellam sampler); NumPy: two float Poisson draws for Skellam, a "
                         "rounded float normal otherwise",
            "opendp": "installed" if rows[0]["opendp_draws_per_second"] is not None else
                      "not installed (pip install 'opendp==0.16.*'): its column is skipped"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--draws", type=int, default=1_200_000)
    ap.add_argument("--opendp-draws", type=int, default=100_000)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--smoke", action="store_true", help="small counts (seconds)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    if a.smoke:
        a.draws, a.opendp_draws = 20_000, 2_000
    out = run(a.draws, a.opendp_draws, a.workers)
    if a.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"{out['draws']:,} itsa and NumPy draws, {out['opendp_draws']:,} OpenDP draws, {out['workers']} worker(s); "
          f"OpenDP {out['opendp']}\n{out['baselines']}")
    for r in out["rows"]:
        vs = "" if r["itsa_over_opendp"] is None else (f"  OpenDP {r['opendp_draws_per_second']:>10,}/s"
                                                       f"  itsa/OpenDP {r['itsa_over_opendp']:6.1f}x")
        print(f"{r['case']:<42} itsa {r['itsa_draws_per_second']:>10,}/s ({r['itsa_seconds_for_draws']:.2f} s){vs}"
              f"  NumPy/itsa {r['numpy_over_itsa']:5.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
