"""The drivers wing: what re-plans a deployment, or runs a plan, above the planner.

A plan with its run and its sweep on one clock
(:mod:`~itsa.planning.drivers.explore`, which reads the plan into the run's
setup), a plan re-planned over one quantity beside the rule
(:mod:`~itsa.planning.drivers.sweep`), and a fleet of plans over a grid, on
Dask (:mod:`~itsa.planning.drivers.fleet`).
"""
