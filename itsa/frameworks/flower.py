"""Flower's SecAgg+: a configuration certified for a cohort (``itsa check flower``), and a plan written for it.

Flower's ``SecAggPlusWorkflow(num_shares, reconstruction_threshold, *,
max_weight, clipping_range, quantization_range, modulus_range)`` maps each
coordinate of a client's update onto ``0..Q`` with an offset (``Q =
quantization_range``; zero sits at ``Q/2``) and sums the clients modulo
``M = modulus_range``. The sum of ``n`` clients is recovered only while it
stays below ``M``: with ``top`` the largest value one client can send (``Q``
at the clip), it never wraps, whatever the data, exactly when
``n · top ≤ M − 1``. Flower itself only warns when ``num_shares`` exceeds
``M/Q``, which is not the cohort.

:func:`check_flower` reports, exact or as a stated bound: whether the sum can
wrap for any data and for data at zero (the offset alone), the largest
cohort that never wraps, the ``int32`` limit of Flower's cast, the
quantization error per coordinate, what the per-coordinate clip means for an
``ℓ2`` clip, the SecAgg+ security and correctness failure bounds of the
neighbourhoods Flower builds, a verdict and the smallest fix.
:func:`secaggplus_kwargs` goes the other way: a degree, threshold, scale,
word and clip become ``SecAggPlusWorkflow``'s keyword arguments.

Examples
--------
>>> check_flower(clients=2000).can_wrap, check_flower(clients=2000).max_cohort
(True, 1023)
>>> str(check_flower(clients=500).verdict)
'passes'
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from itsa._util.certified import exact_text
from itsa._util.checks import fraction, whole_number
from itsa._util.display import Displayable
from itsa.exceptions import InvalidOption
from itsa.frameworks._flower_check import ADVERSARIES, FLOAT_ROUNDING, FlowerCheck, FlowerVerdict, check_flower
from itsa.frameworks._flower_rules import (
    DEFAULT_CLIPPING_RANGE,
    DEFAULT_MAX_WEIGHT,
    DEFAULT_MODULUS_RANGE,
    DEFAULT_NUM_SHARES,
    DEFAULT_QUANTIZATION_RANGE,
    DEFAULT_RECONSTRUCTION_THRESHOLD,
    FLOWER_DEFAULTS,
    FLOWER_VERSION,
    INT32_MAX,
    quantizer_levels,
)
from itsa.keys.secagg.parameters import num_shares

__all__ = ["FlowerCheck", "FlowerVerdict", "FlowerExport", "check_flower", "secaggplus_kwargs", "FLOWER_DEFAULTS",
           "FLOWER_VERSION", "FLOAT_ROUNDING", "ADVERSARIES", "CONVENTION", "DEFAULT_NUM_SHARES",
           "DEFAULT_RECONSTRUCTION_THRESHOLD", "DEFAULT_MAX_WEIGHT", "DEFAULT_CLIPPING_RANGE",
           "DEFAULT_QUANTIZATION_RANGE", "DEFAULT_MODULUS_RANGE"]


#: The two conventions, in one sentence (printed with every export).
CONVENTION = ("itsa's degree k counts a client's neighbours (the SecAgg+ paper's k-regular graph); Flower's num_shares "
              "counts its neighbourhood with the client itself, so num_shares = k + 1 (and 1.0, every client, for the "
              "complete graph); the threshold t is the same number in both: t shares rebuild a secret")
#: The Flower wrapper that adds central Gaussian noise to the aggregate of clipped updates.
CENTRAL_WRAPPER = "DifferentialPrivacyClientSideFixedClipping"
#: What makes Flower's central wrapper's z hold: every client weighs the same in FedAvg's mean.
WRAPPER_PREMISE = ("equal weights: the wrapper adds z C/N to FedAvg's mean, which weighs a client by its num_examples, "
                   "so the mean's sensitivity is C max_i w_i / sum(w): the C/N this z is calibrated for only when every "
                   "weight is equal (a client with twice the average weight doubles it); "
                   "itsa.frameworks.flower_dp:equal_weights_mod makes every fit reply weigh 1. Without SecAgg+: "
                   "fixedclipping_mod returns the whole model, which SecAggPlusWorkflow would quantize into "
                   "+-clipping_range (the plan's client_mods and fit_workflow are the path with SecAgg+)")
#: The wrapper's client mods, outermost first: the weight is set after the clipping.
WRAPPER_MODS = ("itsa.frameworks.flower_dp:equal_weights_mod", "flwr.client.mod:fixedclipping_mod")
NO_WRAPPER = ("Flower's DP wrappers have no counterpart for noise the clients add themselves (distributed discrete "
              "noise): they add central Gaussian noise on the server, so no wrapper is written; client_mods and "
              "fit_workflow add the plan's own shares")


@dataclass(frozen=True, kw_only=True, repr=False)
class FlowerExport(Displayable):
    """A planned deployment as ``SecAggPlusWorkflow`` keyword arguments, checked by :func:`check_flower`.

    Parameters
    ----------
    kwargs : dict
        Exactly ``SecAggPlusWorkflow``'s keyword arguments.
    check : FlowerCheck
        Those arguments checked for the cohort.
    dp_wrapper : dict or None
        Flower's DP wrapper (``class``, ``kwargs``, the client ``mod``) for central noise, else ``None``.
    dp_note : str
        What the noise placement maps to in Flower.
    notes : tuple of str
        Each choice made on the way (the quantization range from the scale, a word raised).
    """

    kwargs: dict[str, Any]
    check: FlowerCheck
    dp_wrapper: dict[str, Any] | None
    dp_note: str
    notes: tuple[str, ...] = ()
    client_mods: tuple[str, ...] = ()
    fit_workflow: str | None = None
    distributed_dp: dict[str, Any] | None = None
    plain_flower: str | None = None
    pinned_mod: str | None = None

    def snippet(self, export_path: str = "export.json") -> str:
        """Python a Flower user pastes into a server app (the wiring reads the export's JSON from ``export_path``)."""
        wiring = WIRING.replace('"export.json"', repr(str(export_path))).replace("export.json", str(export_path))
        lines = [wiring, "", "# plain Flower, without itsa's mods (see plain_flower):"] if self.fit_workflow else []
        lines += ["from flwr.server.workflow import SecAggPlusWorkflow", ""]
        lines += ["# " + part for part in _wrap(CONVENTION)]
        lines.append("secaggplus = SecAggPlusWorkflow(")
        lines += [f"    {key}={value!r}," for key, value in self.kwargs.items()]
        lines.append(")")
        if self.dp_wrapper is not None:
            kw = self.dp_wrapper["kwargs"]
            lines += ["", f"from flwr.server.strategy import {CENTRAL_WRAPPER}, FedAvg",
                      "# clients, without SecAgg+ (see dp_wrapper's premise): app = ClientApp(..., "
                      "mods=[equal_weights_mod, fixedclipping_mod])"]
            lines += ["# " + part for part in _wrap("premise: " + self.dp_wrapper["premise"])]
            lines += [f"dp_strategy = {CENTRAL_WRAPPER}(", "    FedAvg(),"]
            lines += [f"    {key}={value!r}," for key, value in kw.items()]
            lines.append(")")
        else:
            lines += [""] + ["# " + part for part in _wrap(self.dp_note)]
        return "\n".join(lines) + "\n"

    def headline(self) -> str:
        return f"SecAggPlusWorkflow for {self.check.clients:,} clients: {self.check.verdict}"

    def rows(self) -> list[tuple[str, str]]:
        rows = [(key, repr(value)) for key, value in self.kwargs.items()]
        rows += [("convention", CONVENTION), ("check", self.check.headline()),
                 ("dp wrapper", f"{CENTRAL_WRAPPER}({self.dp_wrapper['kwargs']})" if self.dp_wrapper else self.dp_note)]
        if self.fit_workflow is not None:
            rows += [("client_mods", ", ".join(self.client_mods)), ("fit_workflow", self.fit_workflow)]
        if self.plain_flower is not None:
            rows.append(("plain Flower", self.plain_flower))
        rows += [("note", note) for note in self.notes]
        return rows

    def to_dict(self) -> dict:
        return {"client_mods": list(self.client_mods), "fit_workflow": self.fit_workflow, "pinned_mod": self.pinned_mod,
                "distributed_dp": self.distributed_dp, "plain_flower": self.plain_flower,
                "SecAggPlusWorkflow": dict(self.kwargs), "dp_wrapper": self.dp_wrapper, "dp_note": self.dp_note,
                "convention": CONVENTION, "flower_version": FLOWER_VERSION, "check": self.check.to_dict(),
                "notes": list(self.notes), "snippet": self.snippet()}


#: Python that wires a federation from the export's JSON alone (``export.json``: ``itsa plan FILE --export flower``).
WIRING = """import importlib, json

from flwr.client import ClientApp
from flwr.server import LegacyContext, ServerApp, ServerConfig
from flwr.server.strategy import FedAvg
from flwr.server.workflow import DefaultWorkflow


def load(name):
    module, attribute = name.split(":")
    return getattr(importlib.import_module(module), attribute)


export = json.load(open("export.json"))
# each client keeps its own copy of export.json and pins it (export["pinned_mod"] in place of the last client mod):
# it sends its word only in the export's plan and SecAgg+ round, whatever the server sends
client_mods = [load(m) for m in export["client_mods"][:-1]] + [load(export["pinned_mod"])(export)]
client_app = ClientApp(client_fn=client_fn, mods=client_mods)   # your client_fn
server_app = ServerApp()


@server_app.main()
def main(grid, context):
    k = export["distributed_dp"]["plan"]["clients"]         # the plan's cohort, every client each round
    strategy = FedAvg(min_fit_clients=k, min_available_clients=k)
    context = LegacyContext(context=context, config=ServerConfig(num_rounds=3), strategy=strategy)
    DefaultWorkflow(fit_workflow=load(export["fit_workflow"])(export))(grid, context)
"""


def _wrap(text: str, width: int = 96) -> list[str]:
    """``text`` as comment lines of at most ``width`` characters (words kept whole)."""
    return textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)


def secaggplus_kwargs(*, degree: int, threshold: int, gamma, word_bits: int, clip, clients: int,
                      max_weight: float = float(DEFAULT_MAX_WEIGHT), noise_kind: str | None = None,
                      noise_multiplier=None, dropout=0, corrupt=0, adversary: str = "semi-honest") -> FlowerExport:
    """``SecAggPlusWorkflow``'s keyword arguments for a planned degree, threshold, scale, word and clip.

    Parameters
    ----------
    degree : int
        ``k``, a client's neighbours (the SecAgg+ paper's convention): even (Flower's neighbourhoods are
        rings), or ``clients - 1`` and more for the complete graph.
    threshold : int
        ``t``, shares to rebuild a secret, ``2 <= t <= k``.
    gamma : number
        ``γ``, the scale of the integer encoding (levels per unit of an update):
        ``quantization_range = ⌈2 c γ⌉``, so Flower's step ``2c/Q`` is at most the plan's ``1/γ``.
    word_bits : int
        ``b``: ``modulus_range = 2^b``, raised to the smallest power of two whose sum never wraps under
        Flower's offset encoding if ``2^b`` does not suffice (said in the notes).
    clip : number
        ``S``, the ``ℓ2`` clip of an update: Flower's ``clipping_range`` (a coordinate of an update of norm
        ``≤ S`` is within ``[-S, S]``, so Flower never clamps it).
    clients : int
        ``n``, the clients in a round.
    max_weight : float
        Flower's ``max_weight`` (weights above it are Flower's overflow warning).
    noise_kind : str, optional
        The plan's noise placement: ``central`` writes Flower's central DP wrapper, ``distributed`` says it has
        no Flower counterpart.
    noise_multiplier : number, optional
        ``z`` for the central wrapper.
    dropout, corrupt, adversary
        For the SecAgg+ bounds of the check.

    Examples
    --------
    >>> e = secaggplus_kwargs(degree=34, threshold=20, gamma=1024, word_bits=32, clip=1, clients=1000)
    >>> e.kwargs["num_shares"], e.kwargs["quantization_range"], str(e.check.verdict)
    (35, 2048, 'passes')
    """
    n = whole_number("clients", clients, minimum=2)
    k = whole_number("degree", degree, minimum=2)
    t = whole_number("threshold", threshold, minimum=2)
    scale = fraction("gamma", gamma, low=0)
    s = fraction("clip", clip, low=0)
    bits = whole_number("word_bits", word_bits, minimum=2, maximum=62)
    notes: list[str] = []
    if k >= n - 1:
        shares: int | float = 1.0
        notes.append(f"degree {k} >= clients - 1: num_shares = 1.0 (every client: the complete graph)")
    elif k % 2:
        raise InvalidOption(f"degree: Flower's neighbourhoods are rings of k/2 clients on each side, so k must be "
                            f"even (or >= clients - 1 = {n - 1}), not {k}")
    else:
        shares = num_shares(k)
    if t > k:
        raise InvalidOption(f"threshold: must be at most the degree {k}, not {t}")
    c = float(s)
    if Fraction(c) != s:
        notes.append(f"clipping_range {c!r} is the clip {exact_text(s)} rounded to a double")
    q = math.ceil(2 * Fraction(c) * scale)
    if quantizer_levels(c, q).top > INT32_MAX:
        raise InvalidOption(f"gamma: quantization_range = ceil(2 clip gamma) = {q:,} overflows Flower's int32 "
                            f"cast (at most 2^31 - 1): lower gamma")
    modulus = 1 << bits
    levels = quantizer_levels(c, q)
    top = max(levels.top, levels.weight_top)
    if n * top >= modulus:
        fitted = (n * top).bit_length()
        notes.append(f"the word 2^{bits} wraps under Flower's offset encoding ({n:,} x {top:,} = {n * top:,}): "
                     f"modulus_range = 2^{fitted}")
        modulus = 1 << fitted
    kwargs = {"num_shares": shares, "reconstruction_threshold": t, "max_weight": float(max_weight),
              "clipping_range": c, "quantization_range": q, "modulus_range": modulus}
    check = check_flower(clients=n, dropout=dropout, corrupt=corrupt, adversary=adversary, clip=s, **kwargs)
    wrapper: dict[str, Any] | None = None
    if noise_kind == "central":
        if noise_multiplier is None:
            raise InvalidOption("noise_multiplier: central noise needs one for Flower's wrapper")
        z = fraction("noise multiplier", noise_multiplier, low=0)
        wrapper = {"class": CENTRAL_WRAPPER, "mod": "fixedclipping_mod", "client_mods": list(WRAPPER_MODS),
                   "premise": WRAPPER_PREMISE, "kwargs": {"noise_multiplier": float(z), "clipping_norm": c, "num_sampled_clients": n}}
        note = (f"central Gaussian noise of standard deviation z S on the sum ({CENTRAL_WRAPPER} adds z S / n to "
                "the mean; the server sees the aggregate before the noise)")
    elif noise_kind is None:
        note = "no noise planned: no DP wrapper"
    else:
        note = NO_WRAPPER
    return FlowerExport(kwargs=kwargs, check=check, dp_wrapper=wrapper, dp_note=note, notes=tuple(notes))
