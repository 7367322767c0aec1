"""Into the frameworks: Flower's SecAgg+ configurations checked and written, dp-accounting's events written.

    check_flower(clients=..., num_shares=..., ...) -> FlowerCheck        # itsa check flower
    secaggplus_kwargs(degree=..., threshold=..., ...) -> FlowerExport     # SecAggPlusWorkflow(**kwargs), a snippet
    dp_accounting_events(rho=..., xi=..., rounds=..., ...) -> DpAccountingExport   # dp-accounting's named tuples
    export_plan(plan, "flower" | "dp-accounting") -> PlanExport            # itsa plan --export

Neither Flower nor dp-accounting is imported to write these; each result
can build the real object when its package is installed (``itsa[flower]``,
``itsa[crosscheck]``).
"""

from itsa.frameworks.dp_accounting import (
    DpAccountingExport,
    dp_accounting_events,
    events_from_curve,
    events_from_event,
    named_tuple_from_json,
)
from itsa.frameworks.export import Framework, PlanExport, export_plan, write_export
from itsa.frameworks.flower import FlowerCheck, FlowerExport, FlowerVerdict, check_flower, secaggplus_kwargs

__all__ = ["FlowerCheck", "FlowerExport", "FlowerVerdict", "check_flower", "secaggplus_kwargs",
           "DpAccountingExport", "dp_accounting_events", "events_from_curve", "events_from_event",
           "named_tuple_from_json", "Framework", "PlanExport", "export_plan", "write_export"]
