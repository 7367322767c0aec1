"""Benchmark: the certified accountant against dp-accounting, one plan at deployment scale, and sweeps.

Run:  python benchmarks/bench_plan.py [--clients 1000000] [--dimension 1000000] [--json]
      python benchmarks/bench_plan.py --smoke        # K = 10^4, d = 10^4: seconds

- one plan: ``itsa.plan`` of a deployment of K clients and dimension d (ε = 4
  at δ = 10⁻⁶ over 150 rounds, a 10% dropout, a 32-bit word, γ chosen): the
  seconds, and how many of them the noise calibration took (the accountant
  with the τ term of K_eff − 1 terms, evaluated at each bisection step);
- the sweep: 30 values of ``word_bits`` (``itsa.planning.drivers.explore.sweep_plan``:
  the k-sd rule's point and itsa's re-plan at each), at that K and d and at the
  documented example's K = 1000, d = 1290.

- the accountant: the certified RDP accountant against dp-accounting's on the
  same events (``bench_accountant.py``), as a ratio of times in this run;
- the ε bracket: the certified privacy-loss-distribution bracket of the
  shipped plans' events against dp-accounting's PLD accountant on the same
  events (``bench_pld.py``), as a ratio of times in this run;
- the shipped plans: the seconds of ``itsa.plan`` on the cross-device
  deployment (d = 1.2 million, a rotation, 2,000 rounds) over those of the
  k1000 deployment, timed in this run.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

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
    from itsa.planning.drivers.explore import sweep_plan

    base = itsa.plan(deployment(clients, dimension))
    values = list(range(max(2, 33 - points), 33))
    start = time.perf_counter()
    result = sweep_plan(base, "word_bits", values)
    return {"clients": clients, "dimension": dimension, "points": len(result.points),
            "seconds": round(time.perf_counter() - start, 3)}


def accountant_ratio(events: int) -> dict:
    """The certified accountant against dp-accounting's on the same events (``bench_accountant.py``)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_accountant import bench

    return bench(events, 1 if events < 100 else 3)


def pld_ratio(names: list[str], repeats: int) -> dict:
    """The certified PLD bracket against dp-accounting's PLD accountant on the same events (``bench_pld.py``)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_pld import bench

    return bench(names, repeats)


def shipped_plans(names: tuple[str, ...] = ("k1000", "cross-device")) -> dict:
    """The cross-device plan's seconds against the k1000 plan's (the baseline), in this run."""
    out: dict = {}
    for name in names:
        d = itsa.load_deployment(name)
        start = time.perf_counter()
        plan = itsa.plan(d)
        out[name] = {"seconds": round(time.perf_counter() - start, 3), "verdict": plan.verdict.headline()}
    if "cross-device" in out:
        out["cross_device_over_k1000"] = round(out["cross-device"]["seconds"] / out["k1000"]["seconds"], 3)
    return out


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
    out = {"accountant": accountant_ratio(20 if args.smoke else 300),
           "pld": pld_ratio(["k1000"] if args.smoke else ["k1000", "cross-device"], 1 if args.smoke else 3),
           "shipped": shipped_plans(("k1000",) if args.smoke else ("k1000", "cross-device")),
           "plan": bench_one(args.clients, args.dimension),
           "sweep": bench_sweep(args.clients, args.dimension, args.points),
           "sweep_k1000": bench_sweep(1000, 1290, args.points)}
    if args.json:
        print(json.dumps(out, indent=2))
        return
    a = out["accountant"]
    if "itsa_over_dp_accounting_time" in a:
        print(f"certified accountant over dp-accounting's RDP accountant on the same {a['events']} events: "
              f"{a['itsa_over_dp_accounting_time']:.2f}x the time (ratio in this run; below 1 is faster)")
    else:
        print(f"certified accountant: {a['itsa_seconds']:.3g} s for {a['events']} events; {a['dp_accounting']}")
    for name, row in out["pld"]["events"].items():
        if "itsa_over_dp_accounting_time" in row:
            print(f"eps bracket of {name} over dp-accounting's PLD accountant on the same event: "
                  f"{row['itsa_over_dp_accounting_time']:.3f}x the time (upper/lower {row['ratio_upper_over_lower']:.5f})")
    s = out["shipped"]
    if "cross_device_over_k1000" in s:
        print(f"the cross-device plan: {s['cross-device']['seconds']} s, {s['cross_device_over_k1000']}x the k1000 "
              f"plan's {s['k1000']['seconds']} s in this run")
    p = out["plan"]
    print(f"one plan at K = {p['clients']:,}, d = {p['dimension']:,}: {p['seconds']} s "
          f"({p['calibrations']} calibrations); {p['verdict']}; eps <= {p['epsilon']}, gamma {p['gamma']}, "
          f"wrap <= {p['wrap_probability']}")
    for s in (out["sweep"], out["sweep_k1000"]):
        print(f"sweep of {s['points']} values of word_bits at K = {s['clients']:,}, d = {s['dimension']:,}: "
              f"{s['seconds']} s")


if __name__ == "__main__":
    main()
