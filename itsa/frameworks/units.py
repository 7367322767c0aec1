"""The frameworks' own numbers a plan prints: Flower's ``num_shares`` and DP wrapper, one home for the plan and the export.

Flower's ``SecAggPlusWorkflow`` counts a client's neighbourhood with the
client itself: a SecAgg+ graph of degree ``k`` is ``num_shares = k + 1``
(:func:`num_shares`; the layout Flower draws from a given ``num_shares`` is
:func:`itsa.frameworks._flower_rules.resolve_shares`).

Flower's DP wrappers add ``N(0, (z C/N)²)`` to the mean (``C =
clipping_norm``, ``N = num_sampled_clients``) and release a round only when
every sampled client reported (any failure drops it): on the sum of those
``K`` clients, ``z = σ/(γ S)`` (:func:`flower_noise_multiplier`, rounded up
to a double) puts at least the plan's ``σ/γ``. Flower has no distributed
noise of its own (:mod:`itsa.frameworks.flower_dp` adds it).

This module takes plain numbers and imports nothing of the planner: the
plan's frameworks section (:mod:`itsa.planning.frameworks_units`) and the
export (:mod:`itsa.frameworks.export`) both call it, so a number the plan
prints is the number the export writes.

Examples
--------
>>> from fractions import Fraction
>>> central_wrappers(sigma=Fraction(3), gamma=Fraction(2), clip=Fraction(1), clients=10, distributed=False
...                  )["flower"]["noise_multiplier"]
'1.5'
>>> central_wrappers(sigma=Fraction(3), gamma=Fraction(2), clip=Fraction(1), clients=10, distributed=True)
{'flower': None}
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from itsa._util.certified import float_up
from itsa._util.plain import frac

__all__ = ["num_shares", "flower_noise_multiplier", "central_wrappers", "wrapper_rows", "CENTRAL_NOTE", "population_note"]

#: What the frameworks' central noise is, beside the plan's.
CENTRAL_NOTE = "TFF's and Flower's central noise is a float Gaussian, not the plan's discrete Gaussian"


def num_shares(degree: int) -> int:
    """Flower's ``num_shares`` for a SecAgg+ graph of ``degree`` neighbours: ``degree + 1`` (itself counted).

    >>> num_shares(36)
    37
    """
    return degree + 1


def flower_noise_multiplier(*, sigma: Fraction, gamma: Fraction, clip: Fraction) -> float:
    """Flower's ``noise_multiplier`` for central noise ``σ`` (integer units): the least double ``≥ σ/(γ S)``.

    Flower's wrapper adds ``z S/K`` to the mean of the ``K`` clients of a round it releases (every sampled
    client reported), ``z S`` on their sum: at least the plan's ``σ/γ``.

    >>> flower_noise_multiplier(sigma=Fraction(3), gamma=Fraction(2), clip=Fraction(1))
    1.5
    """
    return float_up(Fraction(sigma) / (Fraction(gamma) * Fraction(clip)))


def central_wrappers(*, sigma: Fraction, gamma: Fraction, clip: Fraction, clients: int, distributed: bool
                     ) -> dict[str, dict[str, Any] | None]:
    """Each framework's DP wrapper for the plan's central noise, by the framework's key in the plan's frameworks
    section (``None``: distributed noise, which no wrapper adds)."""
    if distributed:
        return {"flower": None}
    return {"flower": {"noise_multiplier": repr(flower_noise_multiplier(sigma=sigma, gamma=gamma, clip=clip)),
                       "clipping_norm": frac(clip),
                       "num_sampled_clients": clients,
                       "wrapper": "DifferentialPrivacyClientSideFixedClipping (with SecAgg+; the server-side one "
                                  "clips on the server)"}}


def wrapper_rows(wrappers: dict[str, dict[str, Any] | None]) -> list[tuple[str, str]]:
    """The plan's rows for :func:`central_wrappers`'s result."""
    f = wrappers.get("flower")
    return [("Flower DP wrapper", "none for distributed noise (--export flower writes the client mods that add it)"
             if f is None else
             f"noise_multiplier {f['noise_multiplier']} (the least double >= sigma/(gamma S); Flower releases "
             f"rounds with every client), clipping_norm {f['clipping_norm']}, "
             f"num_sampled_clients {f['num_sampled_clients']}; certified only with equal client weights "
             "(num_examples = 1: Flower's mean weighs clients by it, see --export flower's premise)")]


def population_note(*, clients: int, population: int) -> str:
    """The plan's note when its clients are a Poisson sample of a population (the frameworks sample otherwise)."""
    return (f"the plan's epsilon counts the {clients} clients as a Poisson sample of the population of "
            f"{population:,}; Flower samples a fixed cohort of num_sampled_clients, for which this epsilon is not "
            "certified (the export refuses it)")
