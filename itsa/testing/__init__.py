"""What tests of itsa, and of code built on it, can share.

- :mod:`itsa.testing.strategies`: hypothesis strategies for random instances
  (:func:`instances`, :func:`relabellings`; re-exported here, they need
  ``pip install '.[testing]'``);
- :mod:`itsa.testing.oracles`: deliberately plain re-implementations of the
  paper's quantities and of ``g(X)``, written with no code shared with the
  library, used as test oracles and benchmark baselines;
- :mod:`itsa.testing.families`: seeded families of instances (:func:`~.families.one_protected_user`,
  asymmetric keys LPs) shared by tests and benchmarks;
- :mod:`itsa.testing.hostile`: a corpus of hostile input files that every
  command must refuse with one line and exit code 2.

Nothing in the library imports this package.

Examples
--------
>>> from itsa.testing import oracles
>>> from itsa import examples
>>> inst = examples.example1()
>>> plain = oracles.plain_quantities(inst.servers, [inst.labels(m) for m in inst.security_sets],
...                                  [inst.labels(m) for m in inst.collusion_sets])
>>> sorted(plain["S_I"]), sorted(plain["S_bar"])
([(1, 3)], [(1, 1), (1, 3), (2, 1)])
"""

from __future__ import annotations

__all__ = ["instances", "relabellings", "strategies", "oracles", "hostile", "families"]

_STRATEGIES = ("instances", "relabellings")


def __getattr__(name: str):
    # The strategies import hypothesis: only on first use, so oracles and hostile work without it.
    import importlib

    if name in _STRATEGIES:
        return getattr(importlib.import_module(".strategies", __name__), name)
    if name in ("strategies", "oracles", "hostile", "families"):
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
