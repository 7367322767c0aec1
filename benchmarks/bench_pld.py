"""Benchmark: itsa's certified PLD bracket against dp-accounting's PLD accountant, on the same events.

Run:  python benchmarks/bench_pld.py [--repeats 3] [--json]
      python benchmarks/bench_pld.py --smoke        # one event, one timing

Events (each T rounds of one mechanism, asked ε at δ):

- ``k1000``: the shipped plan's distributed discrete Gaussian (900 shares of
  σ = 1,085,480, shift 2,097,187, 150 rounds, δ = 1e-6); dp-accounting is
  given the Gaussian event at the same noise multiplier (its discrete
  Gaussian PLD enumerates the support, about 10⁸ integers here);
- ``cross-device``: 7,000 shares of σ = 444.463, shift 1,127, 2,000 rounds,
  δ = 1e-7 (the 20-bit cross-device plan), the same way;
- ``discrete``: one discrete Gaussian of σ = 50, shift 10, 100 rounds,
  δ = 1e-6, in one dimension; dp-accounting's discrete-Gaussian PLD
  (``from_discrete_gaussian_mechanism``, pessimistic, its default grid).

itsa's time is the whole :func:`itsa.privacy.pld.epsilon_bracket` (the
certified lower bound, the pair's upper bound and the Rényi bound); theirs
is composing the event and asking ε (``PLDAccountant`` at its default
discretisation 1e-4). Both are warmed once; the least of ``--repeats``
timings is kept. The ratio itsa/dp-accounting is printed (below 1: itsa is
faster), with both ε.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from fractions import Fraction
from typing import Any

from itsa.privacy.pld import epsilon_bracket

EVENTS: dict[str, dict[str, Any]] = {
    "k1000": {"sigma": 1085480, "survivors": 900, "sensitivity": Fraction("2097187.91656999215"), "rounds": 150,
              "delta": Fraction(1, 10**6), "dimension": 1290},
    "cross-device": {"sigma": Fraction(444463, 1000), "survivors": 7000, "sensitivity": Fraction("1127.44511501033225"),
                     "rounds": 2000, "delta": Fraction(1, 10**7), "dimension": 1_200_000},
    "discrete": {"sigma": 50, "survivors": 1, "sensitivity": 10, "rounds": 100, "delta": Fraction(1, 10**6),
                 "dimension": 1},
}


def ours(event: dict):
    return epsilon_bracket(**event)


def theirs(dpa, event: dict, shift: int) -> float:
    rounds, delta = event["rounds"], float(event["delta"])
    if event["survivors"] == 1:
        from dp_accounting.pld import privacy_loss_distribution as pl

        pld = pl.from_discrete_gaussian_mechanism(float(event["sigma"]), sensitivity=shift)
        return float(pld.self_compose(rounds).get_epsilon_for_delta(delta))
    z = float(event["sigma"]) * math.sqrt(event["survivors"]) / shift
    acc = dpa.pld.PLDAccountant()
    acc.compose(dpa.GaussianDpEvent(z), rounds)
    return float(acc.get_epsilon(delta))


def timed(run, repeats: int):
    best, value = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        value = run()
        best = min(best, time.perf_counter() - start)
    return best, value


def bench(names: list[str], repeats: int) -> dict:
    try:
        import dp_accounting as dpa
    except ImportError:
        dpa = None
    out: dict = {"events": {}}
    for name in names:
        event = EVENTS[name]
        ours(event)                                          # warm
        seconds, bracket = timed(lambda e=event: ours(e), repeats)
        row = {"itsa_seconds": seconds, "epsilon_lower": float(bracket.epsilon_lower.lower()),
               "epsilon_upper": float(bracket.epsilon_upper.upper()), "upper_method": bracket.upper_method,
               "ratio_upper_over_lower": float(bracket.ratio.upper())}
        if dpa is None:
            row["dp_accounting"] = "not installed (pip install 'itsa[crosscheck]')"
        else:
            theirs(dpa, event, bracket.shift)
            base, eps = timed(lambda e=event, k=bracket.shift: theirs(dpa, e, k), repeats)
            row.update({"dp_accounting_seconds": base, "dp_accounting_epsilon": eps,
                        "itsa_over_dp_accounting_time": seconds / base})
        out["events"][name] = row
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="timings taken (the least is kept)")
    parser.add_argument("--smoke", action="store_true", help="tiny input: the k1000 event, one timing")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    names = ["k1000"] if args.smoke else list(EVENTS)
    result = bench(names, 1 if args.smoke else args.repeats)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    for name, row in result["events"].items():
        line = (f"{name}: itsa bracket [{row['epsilon_lower']:.6f}, {row['epsilon_upper']:.6f}] "
                f"({row['upper_method']}, ratio {row['ratio_upper_over_lower']:.4f}) in {row['itsa_seconds']:.3f} s")
        if "dp_accounting_seconds" in row:
            line += (f"; dp-accounting PLD eps {row['dp_accounting_epsilon']:.6f} (float) in "
                     f"{row['dp_accounting_seconds']:.3f} s; ratio itsa/dp-accounting "
                     f"{row['itsa_over_dp_accounting_time']:.3f}x")
        else:
            line += f"; dp-accounting {row['dp_accounting']}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
