"""Benchmark: one plan at deployment scale, and a sweep of plans when the sweep is installed.

Run:  python benchmarks/bench_plan.py [--clients 1000000] [--dimension 1000000] [--json]
      python benchmarks/bench_plan.py --smoke        # K = 10^4, d = 10^4: seconds

- one plan: ``itsa.plan`` of a deployment of K clients and dimension d (ε = 4
  at δ = 10⁻⁶ over 150 rounds, a 10% dropout, a 32-bit word, γ chosen): the
  seconds, and how many of them the noise calibration took (the accountant
  with the τ term of K_eff − 1 terms, evaluated at each bisection step);
- the sweep: 30 values of ``word_bits`` (``itsa.planning.explore.sweep_plan``:
  the k-sd rule's point and itsa's re-plan at each), at that K and d and at the
  documented example's K = 1000, d = 1290.

The accountant against dp-accounting is measured in bench_accountant.py.
"""

from __future__ import annotations

import argparse
import json
import time

import itsa
from itsa.planning.deployment import parse_deployment


def deployment(clients: int, dimension: int):
    return parse_deployment({"name": f"K{clients}-d{dimension}", "clients": clients, "dropout": "1/10",
                             "dimension": dimension, "clip": 1,
                             "privacy": {"epsilon": 4, "delta": "1e-6", "rounds": 150},
                             "encoding": {"word_bits": 32}, "overflow": "1e-6"})


def bench_one(clients: int, dimension: int) -> dict:
    seen = []
    start = time.perf_counter()
    plan = itsa.plan(deployment(clients, dimension), progress=seen.append)
    seconds = time.perf_counter() - start
    calibrations = sum(1 for e in seen if e.stage == "plan: calibrate")
    return {"clients": clients, "dimension": dimension, "seconds": round(seconds, 3), "calibrations": calibrations,
            "verdict": plan.verdict.headline(), "epsilon": plan.noise.epsilon.decimal(6),
            "gamma": str(plan.encoding.gamma), "wrap_probability": plan.encoding.wrap_probability.decimal(4)}


def bench_sweep(clients: int, dimension: int, points: int) -> dict:
    """A ``points``-value sweep of ``word_bits`` up to 32: the rule's curve and itsa's, each point re-planned."""
    from itsa.planning.explore import sweep_plan

    base = itsa.plan(deployment(clients, dimension))
    values = list(range(max(2, 33 - points), 33))
    start = time.perf_counter()
    result = sweep_plan(base, "word_bits", values)
    return {"clients": clients, "dimension": dimension, "points": len(result.points),
            "seconds": round(time.perf_counter() - start, 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=10**6)
    ap.add_argument("--dimension", type=int, default=10**6)
    ap.add_argument("--points", type=int, default=30)
    ap.add_argument("--smoke", action="store_true", help="K = d = 10^4 and 5-point sweeps: seconds")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.smoke:
        args.clients, args.dimension, args.points = 10**4, 10**4, 5
    out = {"plan": bench_one(args.clients, args.dimension),
           "sweep": bench_sweep(args.clients, args.dimension, args.points),
           "sweep_k1000": bench_sweep(1000, 1290, args.points)}
    if args.json:
        print(json.dumps(out, indent=2))
        return
    p = out["plan"]
    print(f"one plan at K = {p['clients']:,}, d = {p['dimension']:,}: {p['seconds']} s "
          f"({p['calibrations']} calibrations); {p['verdict']}; eps <= {p['epsilon']}, gamma {p['gamma']}, "
          f"wrap <= {p['wrap_probability']}")
    for s in (out["sweep"], out["sweep_k1000"]):
        print(f"sweep of {s['points']} values of word_bits at K = {s['clients']:,}, d = {s['dimension']:,}: "
              f"{s['seconds']} s")


if __name__ == "__main__":
    main()
