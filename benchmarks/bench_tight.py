"""Benchmark: what the tightest certified plan costs in time (calibration on the PLD bound against the Renyi one).

Run:  python benchmarks/bench_tight.py [--clients 1000000] [--dimension 1000000] [--json]
      python benchmarks/bench_tight.py --smoke        # K = d = 10^4: seconds

At K clients and dimension d (ε = 4 at δ = 10⁻⁶ over 150 rounds, a 10 %
dropout, a 32-bit word, γ chosen, as ``bench_plan.py``'s deployment):

- the calibration of σ at the plan's γ on the Rényi bound alone
  (``itsa.privacy.calibrate``), and on the tightest certified bound (the Rényi
  one, then the privacy-loss distribution's below it:
  ``itsa.planning.noise.calibrated_sigma``): their seconds and the ratio
  (the tightness's cost), with both σ and the ratio of their noise variances;
- the whole plan's seconds (``itsa.plan``), with its error over the true limit.

Times are wall-clock seconds on this machine, printed as ratios of runs made
here; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import time

import itsa
from itsa.planning.deployment import parse_deployment
from itsa.planning.mechanism import round_event, sensitivity
from itsa.planning.noise import CALIBRATION_TOLERANCE, calibrated_sigma
from itsa.planning.planner import noise_inputs
from itsa.privacy.calibration import calibrate


def deployment(clients: int, dimension: int):
    return parse_deployment({"name": f"K{clients}-d{dimension}", "clients": clients, "dropout": "1/10",
                             "dimension": dimension, "clip": 1, "noise": {"mechanism": "dgauss"},
                             "privacy": {"epsilon": 4, "delta": "1e-6", "rounds": 150},
                             "encoding": {"word_bits": 32}, "overflow": "1e-6"})


def bench(clients: int, dimension: int) -> dict:
    d = deployment(clients, dimension)
    start = time.perf_counter()
    plan = itsa.plan(d, time_limit=0)
    plan_seconds = time.perf_counter() - start
    inputs, gamma = noise_inputs(d), plan.encoding.gamma
    make = round_event(inputs, sensitivity(inputs, gamma))
    start = time.perf_counter()
    renyi = calibrate(inputs.epsilon, inputs.delta, rounds=inputs.rounds, event_for=make, minimum_scale="1/2",
                      relative_tolerance=CALIBRATION_TOLERANCE).noise_multiplier.upper()
    renyi_seconds = time.perf_counter() - start
    start = time.perf_counter()
    tight = calibrated_sigma(inputs, gamma, progress=lambda _: None)     # not the remembered one: timed afresh
    tight_seconds = time.perf_counter() - start
    return {"clients": clients, "dimension": dimension, "gamma": str(gamma),
            "renyi": {"sigma": str(renyi), "seconds": round(renyi_seconds, 3)},
            "tightest": {"sigma": str(tight), "seconds": round(tight_seconds, 3)},
            "time_ratio": round(tight_seconds / renyi_seconds, 2),
            "variance_ratio": round(float((tight / renyi) ** 2), 4),
            "plan": {"seconds": round(plan_seconds, 3), "verdict": plan.verdict.headline(),
                     "error_over_limit": None if plan.error.ratio is None else round(float(plan.error.ratio), 4)}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=10**6)
    ap.add_argument("--dimension", type=int, default=10**6)
    ap.add_argument("--smoke", action="store_true", help="K = d = 10^4: seconds")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.smoke:
        args.clients, args.dimension = 10**4, 10**4
    out = bench(args.clients, args.dimension)
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"K = {out['clients']}, d = {out['dimension']}, gamma {out['gamma']}")
    print(f"  calibration on the Renyi bound: sigma {out['renyi']['sigma']} in {out['renyi']['seconds']} s")
    print(f"  on the tightest (Renyi, then PLD): sigma {out['tightest']['sigma']} in {out['tightest']['seconds']} s")
    print(f"  time ratio {out['time_ratio']}x; noise variance ratio {out['variance_ratio']}")
    print(f"  the whole plan: {out['plan']['seconds']} s; error / true limit {out['plan']['error_over_limit']}")


if __name__ == "__main__":
    main()
