"""Keys: the key material a secure aggregation needs, exactly.

The key-rate part of itsa: the model of multi-server secure aggregation
(:mod:`itsa.keys.model`), the paper's quantities and bounds
(:mod:`itsa.keys.bounds`), scheme constructions and their exact verifier
(:mod:`itsa.keys.schemes`), the certified converse LPs
(:mod:`itsa.keys.converse`), the searches for smaller schemes
(:mod:`itsa.keys.search`), the optimum that joins them
(:mod:`itsa.keys.optimum`), the audit (:mod:`itsa.keys.auditor`), the shipped
examples (:mod:`itsa.keys.examples`), reports and figures
(:mod:`itsa.keys.output`), the census (:mod:`itsa.keys.census`), and the
SecAgg+ graph's degree and threshold for a cohort (:mod:`itsa.keys.secagg`).

Its public names are re-exported by :mod:`itsa` (``itsa.analyze``,
``itsa.solve``, ...); this package itself imports nothing, so that each room
loads only when used.
"""

import importlib

#: The rooms of the key-rate part, each imported on first use (``itsa.keys.examples``).
ROOMS = ("auditor", "bounds", "census", "converse", "examples", "model", "optimum", "output",
         "schemes", "search", "secagg")


def __getattr__(name: str):
    if name in ROOMS:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
