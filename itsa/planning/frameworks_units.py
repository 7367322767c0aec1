"""A plan in each framework's own parameters: TensorFlow Federated, dp-accounting and Opacus, Flower.

The plan's noise is ``σ`` per client (distributed: every client adds a share;
central: added once) in integer units at scale ``γ``; each framework names
its noise differently:

- **TensorFlow Federated** reads ``noise_multiplier`` as the *central*
  standard deviation in the data's units over the clip (add-remove): its
  distributed-DP aggregator splits ``z S`` into ``expected_clients_per_round``
  shares of ``z S/√K`` (times its scale), so the plan's shares are
  ``z = σ √K/(γ S)``; its central Gaussian (``gaussian_fixed``) adds ``z S``
  once, so ``z = σ/(γ S)``. TFF refuses more than 22 bits.
- **dp-accounting and Opacus** read the noise multiplier as the standard
  deviation over the sensitivity: ``σ_sum/Δ`` (the plan's ``noise
  multiplier``), with the sensitivity ``Δ/γ`` in data units (the rounding
  and, for replace-one, the factor 2 included).
- **Flower**'s DP wrappers add ``N(0, (z C/N)²)`` to the mean
  (``C = clipping_norm``, ``N = num_sampled_clients``) and release a round
  only when every sampled client reported (any failure drops it): on the
  sum of those ``K`` clients, ``z = σ/(γ S)`` (:func:`flower_noise_multiplier`,
  rounded up to a double) puts at least the plan's ``σ/γ``. Flower has no
  distributed noise of its own (``itsa.frameworks.flower_dp`` adds it).

Examples
--------
>>> from itsa.planning import parse_deployment, plan
>>> p = plan(parse_deployment({"clients": 100, "dimension": 10, "clip": 1, "noise": "central",
...                            "privacy": {"epsilon": 2, "delta": "1e-6", "rounds": 10},
...                            "encoding": {"word_bits": 32, "gamma": 256}}))
>>> from itsa.planning.planner import noise_inputs
>>> f = frameworks_section(noise_inputs(p.deployment), p.noise, p.encoding)
>>> f.tff_noise_multiplier.lower() <= p.noise.sigma_client / 256 <= f.tff_noise_multiplier.upper()
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint

from itsa._util.certified import Certified, Direction, precision, to_arb
from itsa._util.display import Displayable
from itsa._util.plain import frac
from itsa.planning.deployment import NoiseKind
from itsa.planning.mechanism import NoiseInputs

__all__ = ["FrameworkUnits", "frameworks_section", "tff_noise_multiplier", "flower_noise_multiplier", "TFF_MAX_BITS"]

#: TFF's distributed-DP aggregator refuses wider words (its arithmetic is float32).
TFF_MAX_BITS = 22


def tff_noise_multiplier(*, sigma: Fraction, distributed: bool, clients: int, gamma: Fraction, clip: Fraction
                         ) -> Certified:
    """TFF's ``noise_multiplier`` for the plan's noise: ``σ √K/(γ S)`` (distributed shares over the expected
    ``K`` clients) or ``σ/(γ S)`` (central), an enclosure.

    >>> tff_noise_multiplier(sigma=Fraction(8), distributed=False, clients=4, gamma=Fraction(2), clip=Fraction(1)).decimal()
    '4'
    """
    with precision():
        ball = to_arb(sigma) / to_arb(gamma * clip)
        if distributed:
            ball *= flint.arb(clients).sqrt()
    return Certified.from_arb("noise_multiplier", ball, Direction.ENCLOSURE,
                              "sigma sqrt(K) / (gamma S): TFF splits z S into K shares of z S/sqrt(K)" if distributed
                              else "sigma / (gamma S): TFF's central z")


@dataclass(frozen=True, kw_only=True, repr=False)
class FrameworkUnits(Displayable):
    """The plan in TFF's, dp-accounting's and Opacus's, and Flower's parameters."""

    tff_noise_multiplier: Certified
    tff: dict[str, Any]
    gaussian_noise_multiplier: Certified
    sensitivity_data: Certified
    flower: dict[str, Any] | None
    notes: tuple[str, ...] = ()

    def headline(self) -> str:
        return f"TFF noise_multiplier {self.tff_noise_multiplier.decimal(6)}"

    def rows(self) -> list[tuple[str, str]]:
        t = self.tff
        bits = "none (no word)" if t["bits"] is None else str(t["bits"]) + (
            f" (TFF refuses more than {TFF_MAX_BITS})" if t["bits"] > TFF_MAX_BITS else "")
        rows = [("TFF", f"{t['factory']}: noise_multiplier {self.tff_noise_multiplier.decimal(6)} "
                        f"({self.tff_noise_multiplier.direction}; central sigma in data units over the clip), "
                        f"expected_clients_per_round {t['expected_clients_per_round']}, bits {bits}, "
                        f"l2_clip {t['l2_clip']}" + (f", mechanism {t['mechanism']}" if t["mechanism"] else "")),
                ("dp-accounting / Opacus", f"noise_multiplier {self.gaussian_noise_multiplier.decimal(6)} "
                                           f"({self.gaussian_noise_multiplier.direction}) = sigma of the sum / "
                                           f"sensitivity, the sensitivity {self.sensitivity_data.decimal(6)} in "
                                           "data units (max_grad_norm)")]
        f = self.flower
        rows.append(("Flower DP wrapper", "none for distributed noise (--export flower writes the client mods that add it)" if f is None else
                     f"noise_multiplier {f['noise_multiplier']} (the least double >= sigma/(gamma S); Flower releases "
                     f"rounds with every client), clipping_norm {f['clipping_norm']}, "
                     f"num_sampled_clients {f['num_sampled_clients']}"))
        return rows + [("frameworks note", n) for n in self.notes]

    def to_dict(self) -> dict:
        return {"tff": {**self.tff, "noise_multiplier": self.tff_noise_multiplier.to_dict()},
                "dp_accounting": {"noise_multiplier": self.gaussian_noise_multiplier.to_dict(),
                                  "event": "GaussianDpEvent(noise_multiplier)",
                                  "sensitivity": self.sensitivity_data.to_dict()},
                "opacus": {"noise_multiplier": self.gaussian_noise_multiplier.to_dict(),
                           "max_grad_norm": self.sensitivity_data.to_dict()},
                "flower": self.flower, "notes": list(self.notes)}


def flower_noise_multiplier(*, sigma: Fraction, gamma: Fraction, clip: Fraction) -> float:
    """Flower's ``noise_multiplier`` for central noise ``σ`` (integer units): the least double ``≥ σ/(γ S)``.

    Flower's wrapper adds ``z S/K`` to the mean of the ``K`` clients of a round it releases (every sampled
    client reported), ``z S`` on their sum: at least the plan's ``σ/γ``.

    >>> flower_noise_multiplier(sigma=Fraction(3), gamma=Fraction(2), clip=Fraction(1))
    1.5
    """
    exact = Fraction(sigma) / (Fraction(gamma) * Fraction(clip))
    z = float(exact)
    return z if Fraction(z) >= exact else math.nextafter(z, math.inf)


def frameworks_section(inputs: NoiseInputs, noise, encoding) -> FrameworkUnits:
    """The plan's noise, clip, clients and word in each framework's parameters (see the module's text)."""
    distributed = noise.kind is NoiseKind.DISTRIBUTED
    gamma, clip, K = encoding.gamma, inputs.clip, inputs.clients
    z = tff_noise_multiplier(sigma=noise.sigma_client, distributed=distributed, clients=K, gamma=gamma, clip=clip)
    mechanism = str(inputs.mechanism or "dgauss")
    bits = None if inputs.layered else encoding.word_bits
    rotation = str(inputs.rotation)
    tff = {"factory": "tff.aggregators.DistributedDpSumFactory" if distributed
           else "tff.aggregators.DifferentiallyPrivateFactory.gaussian_fixed",
           "expected_clients_per_round": K, "bits": bits if distributed else None, "l2_clip": frac(clip),
           "mechanism": f"distributed_{mechanism}" if distributed else None,
           "rotation_type": {"hadamard": "hd", "dft": "dft"}.get(rotation) if distributed else None}
    if not distributed:
        tff["clients_per_round"] = K
    with precision():
        sens = noise.sensitivity.arb() / to_arb(gamma)
    sensitivity = Certified.from_arb("sensitivity", sens, Direction.UPPER, "Delta / gamma: the integer sensitivity "
                                     "in data units (rounding and adjacency included)")
    notes = []
    if distributed:
        notes.append(f"TFF sizes the shares for the expected {K} clients; the plan's epsilon counts the fewest "
                     f"{inputs.survivors} survivors' shares")
        if rotation == "none":
            notes.append("TFF always rotates (rotation_type hd or dft); the plan assumes no rotation")
    else:
        notes.append("TFF's and Flower's central noise is a float Gaussian, not the plan's discrete Gaussian")
    if inputs.population is not None:
        notes.append(f"the plan's epsilon counts the {K} clients as a Poisson sample of the population of "
                     f"{inputs.population:,}; Flower samples a fixed cohort of num_sampled_clients, for which this "
                     "epsilon is not certified (the export refuses it)")
    flower = None
    if not distributed:
        flower = {"noise_multiplier": repr(flower_noise_multiplier(sigma=noise.sigma_client, gamma=gamma, clip=clip)),
                  "clipping_norm": frac(clip),
                  "num_sampled_clients": K,
                  "wrapper": "DifferentialPrivacyClientSideFixedClipping (with SecAgg+; the server-side one clips on "
                             "the server)"}
    return FrameworkUnits(tff_noise_multiplier=z, tff=tff, gaussian_noise_multiplier=noise.noise_multiplier,
                          sensitivity_data=sensitivity, flower=flower, notes=tuple(notes))
