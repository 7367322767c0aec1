"""Benchmark: a plan over a population (Poisson-sampled rounds) and the sampled bound behind it.

Run:  python benchmarks/bench_population.py [--population 1000000] [--json]
      python benchmarks/bench_population.py --smoke        # a small population: seconds

- the plan: ``itsa.plan`` of the shipped cross-device deployment with its
  round's clients drawn from ``population`` (add-remove neighbours, the noise
  central: what a population asks for), over the same deployment without a
  population (the baseline), timed in this run;
- the bound: the sampled bound (Zhu and Wang 2019, Theorem 6) at every whole
  order the accountant searches, as ``PoissonSampledEvent`` computes it (the
  rate's binomial rows times the weights, one product), over the same sum
  term by term at each order (the reference loop), on the same events, and
  the largest relative difference of their upper ends (0 where they agree).
"""

from __future__ import annotations

import argparse
import json
import time
from fractions import Fraction
from math import comb

import flint

import itsa
from itsa._util.certified import precision, to_arb
from itsa.planning.deployment import parse_deployment
from itsa.privacy.conversion import WHOLE_ORDERS
from itsa.privacy.events import GaussianEvent
from itsa.privacy.subsampled import PoissonSampledEvent


def deployments(population: int):
    """The cross-device deployment with and without a population (add-remove, central noise both)."""
    base = itsa.load_deployment("cross-device")
    text = {"name": "cross-device-population", "clients": base.clients, "dropout": str(base.dropout),
            "dimension": base.dimension, "clip": str(base.clip), "adjacency": "add-remove",
            "privacy": {"epsilon": 8, "delta": "1e-7", "rounds": 2000},
            "noise": {"mechanism": "dgauss", "placement": "central"},
            "encoding": {"word_bits": 20, "rotation": "dft", "rounding": "conditional"}, "overflow": "1e-6"}
    sampled = parse_deployment({**text, "population": population})
    full = parse_deployment(text)
    return sampled, full


def bench_plans(population: int) -> dict:
    out: dict = {}
    for name, d in zip(("population", "baseline"), deployments(population), strict=True):
        start = time.perf_counter()
        plan = itsa.plan(d)
        out[name] = {"seconds": round(time.perf_counter() - start, 3), "verdict": plan.verdict.headline(),
                     "epsilon": plan.noise.epsilon.decimal(6)}
    out["population_over_baseline"] = round(out["population"]["seconds"] / out["baseline"]["seconds"], 3)
    return out


def reference(event: PoissonSampledEvent, alpha: int) -> flint.arb:
    """The theorem's sum at one order, term by term (the loop the product replaces)."""
    with precision():
        inner = [flint.arb(0), flint.arb(0)] + [event.event.rdp(ell) for ell in range(2, alpha + 1)]
        g = to_arb(event.rate)
        h = 1 - g
        total = h ** (alpha - 1) * (alpha * g - g + 1) + comb(alpha, 2) * g**2 * h ** (alpha - 2) * inner[2].exp()
        for ell in range(3, alpha + 1):
            total += 3 * comb(alpha, ell) * h ** (alpha - ell) * g**ell * ((ell - 1) * inner[ell]).exp()
        return (total.log() / (alpha - 1)).min(inner[alpha])


def bench_bound(noises: list[Fraction], rate: Fraction, orders: tuple[int, ...]) -> dict:
    events = [PoissonSampledEvent(event=GaussianEvent(z), rate=rate) for z in noises]
    start = time.perf_counter()
    batched = [[e.rdp(q) for q in orders] for e in events]
    t_batched = time.perf_counter() - start
    start = time.perf_counter()
    loop = [[reference(e, q) for q in orders] for e in events]
    t_loop = time.perf_counter() - start
    with precision():
        worst = max(float(abs(b.upper() - r.upper()) / r.upper()) for bs, rs in zip(batched, loop, strict=True)
                    for b, r in zip(bs, rs, strict=True))
    return {"events": len(events), "orders": len(orders), "rate": str(rate), "batched_seconds": round(t_batched, 3),
            "loop_seconds": round(t_loop, 3), "batched_over_loop_time": round(t_batched / t_loop, 4),
            "largest_relative_difference": worst}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--population", type=int, default=10**6)
    ap.add_argument("--smoke", action="store_true", help="a population of 10^5, 2 events at 64 orders: seconds")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    orders = tuple(WHOLE_ORDERS)
    noises = [Fraction(1, 2), Fraction(3, 4), Fraction(1), Fraction(2), Fraction(4)]
    if args.smoke:
        args.population, orders, noises = 10**5, orders[:64], noises[:2]
    out = {"plan": bench_plans(args.population), "bound": bench_bound(noises, Fraction(1, 100), orders)}
    if args.json:
        print(json.dumps(out, indent=2))
        return
    p, b = out["plan"], out["bound"]
    print(f"the cross-device plan over a population of {args.population:,}: {p['population']['seconds']} s, "
          f"{p['population_over_baseline']}x the same plan without a population ({p['baseline']['seconds']} s) "
          f"in this run; eps <= {p['population']['epsilon']} against {p['baseline']['epsilon']}")
    print(f"the sampled bound at {b['orders']} orders for {b['events']} events (rate {b['rate']}): "
          f"{b['batched_over_loop_time']}x the term-by-term loop's time in this run; "
          f"upper ends differ by at most {b['largest_relative_difference']:.1e} (relative)")


if __name__ == "__main__":
    main()
