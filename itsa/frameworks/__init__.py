"""Into the frameworks: Flower's SecAgg+ configurations checked and written, TFF's distributed-DP aggregator's
arguments, dp-accounting's events written.

    check_flower(clients=..., num_shares=..., ...) -> FlowerCheck        # itsa check flower
    secaggplus_kwargs(degree=..., threshold=..., ...) -> FlowerExport     # SecAggPlusWorkflow(**kwargs), a snippet
    tff_computes(noise_multiplier=..., ..., dimension=...) -> TffComputation   # what DistributedDpSumFactory computes
    events_from_pair(pair) -> PairExport                                  # a plan's dominating Gaussian pair
    dp_accounting_events(rho=..., xi=..., rounds=..., ...) -> DpAccountingExport   # dp-accounting's named tuples
    export_plan(plan, "flower" | "dp-accounting" | "tff") -> PlanExport    # itsa plan --export

Neither Flower, TFF nor dp-accounting is imported to write these; Flower's and
dp-accounting's results can build the real object when the package is
installed (``itsa[flower]``, ``itsa[crosscheck]``).

The package imports each name from its home on first use (importing it
loads no export). The planner imports nothing of it: the numbers a plan
prints in each framework's units are the plan's frameworks section
(:mod:`itsa.planning.frameworks_units`), which the exports read.
"""

import importlib

#: Every public name, by the module that is its home (imported on first use).
_HOMES = {
    "itsa.frameworks.dp_accounting": ("DpAccountingExport", "PairExport", "dp_accounting_events", "events_from_curve",
                                      "events_from_event", "events_from_pair", "named_tuple_from_json"),
    "itsa.frameworks.export": ("Framework", "PlanExport", "export_plan", "write_export"),
    "itsa.frameworks.flower": ("FlowerCheck", "FlowerExport", "FlowerVerdict", "check_flower", "secaggplus_kwargs"),
    "itsa.frameworks.tff": ("TffComputation", "TffExport", "tff_computes", "tff_export"),
}
_HOME = {name: module for module, names in _HOMES.items() for name in names}

__all__ = ["FlowerCheck", "FlowerExport", "FlowerVerdict", "check_flower", "secaggplus_kwargs",
           "DpAccountingExport", "dp_accounting_events", "events_from_curve", "events_from_event",
           "named_tuple_from_json", "Framework", "PlanExport", "export_plan", "write_export", "PairExport",
           "events_from_pair", "TffComputation", "TffExport", "tff_computes", "tff_export"]


def __getattr__(name: str):
    if name in _HOME:
        value = getattr(importlib.import_module(_HOME[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
