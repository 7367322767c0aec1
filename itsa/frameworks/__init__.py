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
"""

from itsa.frameworks.dp_accounting import (
    DpAccountingExport,
    PairExport,
    dp_accounting_events,
    events_from_curve,
    events_from_event,
    events_from_pair,
    named_tuple_from_json,
)
from itsa.frameworks.export import Framework, PlanExport, export_plan, write_export
from itsa.frameworks.flower import FlowerCheck, FlowerExport, FlowerVerdict, check_flower, secaggplus_kwargs
from itsa.frameworks.tff import TffComputation, TffExport, tff_computes, tff_export

__all__ = ["FlowerCheck", "FlowerExport", "FlowerVerdict", "check_flower", "secaggplus_kwargs",
           "DpAccountingExport", "dp_accounting_events", "events_from_curve", "events_from_event",
           "named_tuple_from_json", "Framework", "PlanExport", "export_plan", "write_export", "PairExport",
           "events_from_pair", "TffComputation", "TffExport", "tff_computes", "tff_export"]
