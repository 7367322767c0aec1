"""SecAgg+ for a deployment: the open-source parameter finder reproduced, its bounds certified, a round simulated.

- :func:`secagg_parameters`: the degree and threshold for ``n`` clients, a
  corrupt and a dropout fraction and an adversary class, with certified
  failure bounds, the dropout tolerated and the per-client cost;
- :func:`secagg_bounds`: the certified bounds of a degree and threshold chosen by hand;
- :func:`harary_graph_parameters`: the open-source finder itself, in doubles;
- :func:`simulate_round`: one round of the protocol run end to end.
"""

from itsa.keys.secagg.finder import Adversary, check_full_graph_parameters, harary_graph_parameters
from itsa.keys.secagg.parameters import (
    SecAggBounds,
    SecAggCost,
    SecAggParameters,
    secagg_bounds,
    secagg_cost,
    secagg_parameters,
)
from itsa.keys.secagg.simulate import SecAggRound, simulate_round

__all__ = ["Adversary", "SecAggBounds", "SecAggCost", "SecAggParameters", "secagg_bounds", "secagg_cost",
           "secagg_parameters", "harary_graph_parameters", "check_full_graph_parameters", "SecAggRound",
           "simulate_round"]
