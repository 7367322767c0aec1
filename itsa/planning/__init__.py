"""Sizing a whole deployment (``itsa plan``): the noise, the encoding, the payload, the keys, the error.

The package is ``itsa.planning``; its function is exported as ``itsa.plan``
(a function, not a module: the package has another name so that importing
one of its modules never rebinds ``itsa.plan``).

>>> import itsa
>>> itsa.plan is itsa.planning.plan
True
"""

from itsa.planning.deployment import Deployment, load_deployment, parse_deployment
from itsa.planning.drivers.explore import ExploredPlan, explore_plan
from itsa.planning.planner import Plan, Verdict, plan

__all__ = ["Deployment", "load_deployment", "parse_deployment", "Plan", "Verdict", "plan", "ExploredPlan",
           "explore_plan"]
