"""Benchmark: one Flower SecAgg+ round with itsa's distributed-DP pieces against plain SecAgg+, same cohort.

Run:  python benchmarks/bench_flower.py [--clients 20] [--dimension 1000] [--repeats 3] [--json]
      python benchmarks/bench_flower.py --smoke        # 4 clients, 16 parameters, one timing

Both runs drive Flower 1.42's own ``SecAggPlusWorkflow`` and ``secaggplus_mod``
in this process (:mod:`itsa.frameworks.flower_grid`: every message to its node's
``ClientApp``, no Ray), over the same clients and the same ordinary app
(it returns the global model plus an update of norm 0.9):

- ``plain``: the export's plain ``SecAggPlusWorkflow`` settings and
  ``ClientApp(mods=[secaggplus_mod])``;
- ``itsa``: wired from the export alone, ``client_mods`` and
  ``fit_workflow`` (clip, DFT rotation, conditional rounding, the exact
  discrete Gaussian share, the word read back exactly on the server).

The plan is distributed discrete Gaussian noise in a 20-bit word with a DFT
rotation and conditional rounding (ε 8 at δ 1e-5 over 2 rounds). The least of
``--repeats`` timings of one round is kept; the ratio itsa/plain is printed
(above 1: itsa's pieces cost that factor).
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import sys
import time

import numpy as np


def load(name: str):
    module, attribute = name.split(":")
    return getattr(importlib.import_module(module), attribute)


def the_export(clients: int, dimension: int) -> dict:
    from itsa.frameworks import export_plan
    from itsa.planning import parse_deployment, plan

    spec = {"clients": clients, "dimension": dimension, "clip": 1, "dropout": "1/10", "noise": "distributed",
            "privacy": {"epsilon": 8, "delta": "1e-5", "rounds": 2},
            "encoding": {"word_bits": 20, "rotation": "dft", "rounding": "conditional"}}
    return json.loads(json.dumps(export_plan(plan(parse_deployment(spec)), "flower").to_dict()))


def apps(export: dict, dimension: int):
    from flwr.client import ClientApp, NumPyClient
    from flwr.client.mod import secaggplus_mod

    class Ordinary(NumPyClient):
        def __init__(self, pid: int):
            u = np.random.default_rng(pid).normal(size=dimension)
            self.update = u * (0.9 / np.linalg.norm(u))

        def fit(self, parameters, config):
            return [parameters[0] + self.update], 1, {}

    def client_fn(context):
        return Ordinary(int(context.node_config["partition-id"])).to_client()

    plain = ClientApp(client_fn=client_fn, mods=[secaggplus_mod])
    ours = ClientApp(client_fn=client_fn, mods=[load(m) for m in export["client_mods"]])
    return plain, ours


def bench(clients: int, dimension: int, repeats: int) -> dict:
    from flwr.server.workflow import SecAggPlusWorkflow

    from itsa.frameworks.flower_grid import run_fit_rounds

    logging.getLogger("flwr").setLevel(logging.ERROR)
    export = the_export(clients, dimension)
    plain_app, our_app = apps(export, dimension)
    model = [np.full(dimension, 1.5)]
    runs = {"plain": (plain_app, lambda: SecAggPlusWorkflow(**export["SecAggPlusWorkflow"])),
            "itsa": (our_app, lambda: load(export["fit_workflow"])(export, seed=1))}
    seconds = {}
    for name, (app, workflow) in runs.items():
        best = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            run_fit_rounds(app, workflow(), clients=clients, model=model)
            best = min(best, time.perf_counter() - start)
        seconds[name] = best
    return {"clients": clients, "dimension": dimension, "repeats": repeats, "seconds": seconds,
            "ratio_itsa_over_plain": seconds["itsa"] / seconds["plain"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--dimension", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--smoke", action="store_true", help="4 clients, 16 parameters, one timing")
    args = parser.parse_args(argv)
    try:
        import flwr  # noqa: F401
    except ImportError:
        print("skipped: flwr is not installed (pip install '.[flower]')")
        return 0
    if args.smoke:
        args.clients, args.dimension, args.repeats = 4, 16, 1
    out = bench(args.clients, args.dimension, args.repeats)
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        s = out["seconds"]
        print(f"one SecAgg+ round, {out['clients']} clients, {out['dimension']} parameters (best of {out['repeats']}):"
              f" plain {s['plain']:.3f} s, itsa {s['itsa']:.3f} s, ratio itsa/plain "
              f"{out['ratio_itsa_over_plain']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
