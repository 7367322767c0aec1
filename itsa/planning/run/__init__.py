"""The run wing: a planned deployment run on synthetic updates, round by round.

What a run takes (:mod:`~itsa.planning.run.setup`: the setup, and the
result's types), the run itself (:mod:`~itsa.planning.run.simulate`), its
blocks of clients and their shards on Dask (:mod:`~itsa.planning.run.shard`),
the client's array transforms that a framework's client mod runs too
(:mod:`~itsa.planning.run.transforms`), and the conversion from a plan to
a setup (:mod:`~itsa.planning.run.from_plan`), which the drivers call: the
run itself never reads a plan.
"""
