"""Flower's fit workflows driven in this process: a grid that hands each message to a ``ClientApp``, no Ray.

:func:`run_fit_rounds` runs a fit workflow (``SecAggPlusWorkflow``, or the
plan's from :func:`itsa.frameworks.flower_dp.fit_workflow`) for some rounds
over ``clients`` nodes of one ``ClientApp``, each with its own context, and
gives the global model after each round. A message is deep-copied on its
way to a node (as over the wire: Flower's mods change the records they
read), and an app that raises answers with an error reply, as Flower's
engines do, so a failing client is a dropout. Tests and benchmarks share it
(``pip install '.[flower]'``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from itsa._util.extras import require

__all__ = ["InProcessGrid", "run_fit_rounds", "task_identity"]


class InProcessGrid:
    """A grid whose ``send_and_receive`` hands each message to ``app`` on its node, in this process.

    Node ``i + 1`` has ``node_config = {"partition-id": i}`` and its own state.
    """

    def __init__(self, app, nodes: int):
        from flwr.app import Context, RecordDict

        self.app = app
        self.contexts = {n + 1: Context(run_id=1, node_id=n + 1, node_config={"partition-id": n},
                                        state=RecordDict(), run_config={}) for n in range(nodes)}

    def send_and_receive(self, messages, *, timeout=None) -> list:
        from flwr.app import Error, Message

        replies = []
        for sent in messages:
            msg = copy.deepcopy(sent)             # each node its own copy, as over the wire
            try:
                replies.append(self.app(msg, self.contexts[msg.metadata.dst_node_id]))
            except Exception as exc:              # the app's failure: an error reply, a dropout
                replies.append(Message(Error(code=0, reason=repr(exc)), reply_to=msg))
        return replies


@contextmanager
def task_identity(run_id: int = 1) -> Iterator[None]:
    """The run and node Flower stamps messages with (its engines set them; a plain process has none)."""
    TaskIdentity = require("flwr.supercore.task_identity").TaskIdentity

    before = (TaskIdentity._run_id, TaskIdentity._node_id, TaskIdentity._task_id)
    TaskIdentity.run_id, TaskIdentity.node_id, TaskIdentity.task_id = run_id, 0, 1
    try:
        yield
    finally:
        TaskIdentity._run_id, TaskIdentity._node_id, TaskIdentity._task_id = before


def run_fit_rounds(app, workflow: Callable[[Any, Any], None], *, clients: int, model: list[np.ndarray],
                   rounds: int = 1, strategy=None) -> list[list[np.ndarray]]:
    """``workflow`` (a fit workflow) for ``rounds`` rounds over ``clients`` nodes of ``app``: the model after each.

    The strategy is FedAvg over every client, failures accepted, no evaluation, unless given.
    """
    require("flwr")             # a missing Flower is one line naming the extra
    from flwr.app import ConfigRecord, Context, RecordDict
    from flwr.common import ndarrays_to_parameters, parameters_to_ndarrays
    from flwr.compat.common import recorddict_compat as compat
    from flwr.server import LegacyContext, ServerConfig
    from flwr.server.client_manager import SimpleClientManager
    from flwr.server.compat.grid_client_proxy import GridClientProxy
    from flwr.server.strategy import FedAvg
    from flwr.server.workflow.constant import MAIN_CONFIGS_RECORD, MAIN_PARAMS_RECORD, Key

    grid = InProcessGrid(app, clients)
    manager = SimpleClientManager()
    for node in grid.contexts:
        manager.register(GridClientProxy(node, grid, 1))    # type: ignore[arg-type]
    if strategy is None:
        strategy = FedAvg(fraction_fit=1.0, min_fit_clients=clients, min_available_clients=clients,
                          fraction_evaluate=0.0, accept_failures=True)
    base = Context(run_id=1, node_id=0, node_config={}, state=RecordDict(), run_config={})
    context = LegacyContext(context=base, config=ServerConfig(num_rounds=rounds), strategy=strategy,
                            client_manager=manager)
    context.state.array_records[MAIN_PARAMS_RECORD] = compat.parameters_to_arrayrecord(
        ndarrays_to_parameters(model), True)
    out = []
    with task_identity():
        for r in range(1, rounds + 1):
            context.state.config_records[MAIN_CONFIGS_RECORD] = ConfigRecord({Key.CURRENT_ROUND: r})
            workflow(grid, context)
            params = compat.arrayrecord_to_parameters(context.state.array_records[MAIN_PARAMS_RECORD],
                                                      keep_input=True)
            out.append(parameters_to_ndarrays(params))
    return out
