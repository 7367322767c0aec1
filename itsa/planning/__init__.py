"""Sizing a whole secure-aggregation deployment: the plan, the heuristic beside it, a simulation and sweeps."""
