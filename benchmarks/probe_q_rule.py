"""Probe: which reading of Q (docs/model.md §6.1) gives Condition-3 schemes that verify?

Run:  python benchmarks/probe_q_rule.py [--n 3000] [--seed 0] [--max-users 5] [--field 31] [--smoke]

For seeded random instances (the generator of probe_converse.py), under each
reading of Q whose regime is Condition 3, the Condition-3 construction is built
once for every user x outside S̄ allowed by that reading (x ∉ Q), with 50
coefficient draws over F_field. A failure means no draw passed the verifier.
"""

from __future__ import annotations

import argparse
from collections import Counter

from probe_converse import random_instance

import itsa
from itsa._util.bitset import members


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-users", type=int, default=5)
    ap.add_argument("--field", type=int, default=31)
    ap.add_argument("--smoke", action="store_true", help="a tiny input, seconds (the smoke test)")
    args = ap.parse_args()
    if args.smoke:
        args.n, args.max_users = 20, 4
    import random

    rng = random.Random(args.seed)
    count: Counter = Counter()
    examples: dict[str, str] = {}
    for _ in range(args.n):
        inst = random_instance(rng, args.max_users)
        for rule in itsa.Q_RULES:
            a = itsa.analyze(inst, q_rule=rule, corrected=False)
            if a.regime != "condition-3":
                continue
            count[f"{rule}: instances in condition-3"] += 1
            for x in members(inst.full_mask & ~a.S_bar & ~a.Q):
                count[f"{rule}: allowed x tried"] += 1
                try:
                    itsa.build_scheme(a, args.field, seed=0, max_tries=50, extra_user=x)
                except itsa.VerificationError:
                    count[f"{rule}: allowed x failing"] += 1
                    examples.setdefault(rule, f"{inst} x={inst.label(x)}")
    for key in sorted(count):
        print(f"{key:40s} {count[key]:6d}")
    for rule, ex in examples.items():
        print(f"first {rule} failure: {ex}")


if __name__ == "__main__":
    main()
