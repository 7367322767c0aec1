"""Benchmark: the Poisson-sampled Gaussian pair's certified grid against dp-accounting's PLD accountant.

Run:  python benchmarks/bench_sampled_pld.py [--json]
      python benchmarks/bench_sampled_pld.py --smoke        # one small case: seconds

For each case (noise multiplier ``z``, rate ``q``, rounds ``T``, δ): the certified upper bound
(``itsa.privacy.sampled_pair.sampled_gaussian_epsilon``, both orders, cold caches) and dp-accounting 0.6's
``PLDAccountant`` on ``SelfComposedDpEvent(PoissonSampledDpEvent(q, GaussianDpEvent(z)), T)`` (floats, its
default grid), the CPU seconds of each (least of 3), their ratio, and the relative gap of the ε's.
"""

from __future__ import annotations

import argparse
import json
import time
from fractions import Fraction

import dp_accounting as dp

from itsa.privacy import sampled_pair

#: (z, q, T, delta): a sampled central plan's pair, many rounds, a small rate, a large rate.
CASES = [(2.390565452347597, 0.05, 300, 1e-6), (1.0, 0.01, 3000, 1e-5), (0.8, 0.001, 10000, 1e-6),
         (5.0, 0.5, 1000, 1e-7)]


def _least(run, repeat: int = 3) -> tuple[float, object]:
    best, value = float("inf"), None
    for _ in range(repeat):
        start = time.process_time()
        value = run()
        best = min(best, time.process_time() - start)
    return best, value


def bench(z: float, q: float, rounds: int, delta: float) -> dict:
    def ours():
        sampled_pair._composed.cache_clear()
        sampled_pair._ladder.cache_clear()
        sampled_pair._grid.cache_clear()
        sampled_pair._bins.cache_clear()
        return sampled_pair.sampled_gaussian_epsilon(mu=1 / Fraction(z), rate=Fraction(q), rounds=rounds,
                                                     delta=Fraction(delta))

    def theirs():
        acc = dp.pld.PLDAccountant()
        acc.compose(dp.SelfComposedDpEvent(dp.PoissonSampledDpEvent(q, dp.GaussianDpEvent(z)), rounds))
        return acc.get_epsilon(delta)

    t_ours, eps = _least(ours)
    t_theirs, their_eps = _least(theirs)
    upper = float(eps.upper())
    return {"z": z, "q": q, "rounds": rounds, "delta": delta, "itsa_epsilon_upper": upper,
            "dp_accounting_pld": their_eps, "relative_gap": upper / their_eps - 1,
            "itsa_seconds": round(t_ours, 3), "dp_accounting_seconds": round(t_theirs, 3),
            "itsa_over_dp_accounting": round(t_ours / t_theirs, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--smoke", action="store_true", help="one small case (10 rounds)")
    args = parser.parse_args()
    rows = [bench(2.0, 0.05, 10, 1e-6)] if args.smoke else [bench(*case) for case in CASES]
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    for r in rows:
        print(f"z {r['z']:.4g} q {r['q']:g} T {r['rounds']} delta {r['delta']:g}: itsa {r['itsa_epsilon_upper']:.8f} "
              f"(upper bound), dp-accounting {r['dp_accounting_pld']:.8f} (gap {r['relative_gap']:+.2e}); "
              f"{r['itsa_seconds']} s against {r['dp_accounting_seconds']} s ({r['itsa_over_dp_accounting']}x)")


if __name__ == "__main__":
    main()
