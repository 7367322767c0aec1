"""Scan a grid of (n, corrupt, dropout, adversary) for decisions the finder's doubles get wrong.

For every point it runs the open-source finder reproduced in doubles
(``harary_graph_parameters``), the same search with every test decided in
exact or certified arithmetic (``certified_parameters``, the finder's order
of rules), and the same with the threshold raised to 2 before the
correctness test (``floor_first``); also the reproduction with Python's
``math.lgamma`` in place of the C library's. It prints one line per point
where two of them differ, and a summary.

Usage::

    python scripts/secagg_scan.py                 # the grid of docs/secagg.md
    python scripts/secagg_scan.py --small         # a quick grid
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from fractions import Fraction

from itsa.exceptions import Infeasible, InvalidOption
from itsa.keys.secagg import finder
from itsa.keys.secagg.certified import certified_parameters

RATES = ("0", "0.01", "0.05", "0.1", "0.2", "0.3", "0.33", "0.45")
CLASSES = ("semi-honest", "semi-malicious", "none")


def grid(small: bool):
    sizes = list(range(4, 61)) if small else [*range(4, 301), *range(310, 1001, 10), 2000, 5000, 10_000, 100_000]
    rates = RATES[:4] if small else RATES
    for n in sizes:
        for adversary in CLASSES:
            for g in rates:
                for d in rates:
                    yield n, g, d, adversary


def run(function, *args):
    try:
        return function(*args)
    except (Infeasible, InvalidOption) as exc:
        return type(exc).__name__


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true")
    args = parser.parse_args()
    start, points, differences = time.perf_counter(), 0, {"arithmetic": 0, "order": 0, "lgamma": 0}
    c_lgamma = finder._lgamma
    for n, g, d, adversary in grid(args.small):
        repro = run(finder.harary_graph_parameters, n, float(g), float(d), adversary)
        if repro == "InvalidOption":
            continue
        points += 1
        exact = run(certified_parameters, n, Fraction(g), Fraction(d), adversary)
        floor_first = run(certified_parameters, n, Fraction(g), Fraction(d), adversary, True)
        finder._lgamma = math.lgamma
        python = run(finder.harary_graph_parameters, n, float(g), float(d), adversary)
        finder._lgamma = c_lgamma
        for kind, other in (("arithmetic", exact), ("order", floor_first), ("lgamma", python)):
            reference = repro if kind != "order" else exact
            if other != reference:
                differences[kind] += 1
                print(f"{kind}: n={n} corrupt={g} dropout={d} {adversary}: {reference} vs {other}", flush=True)
    print(f"{points} points in {time.perf_counter() - start:.0f} s; differences: {differences}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
