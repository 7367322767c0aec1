"""Distributed DP in Flower, as planned: a client mod that encodes the update, and a SecAgg+ fit workflow.

A plan's flat encoding runs in a Flower federation (``itsa[flower]``):

- :func:`distributed_dp_mod` sits inside Flower's ``secaggplus_mod``
  (``ClientApp(mods=[secaggplus_mod, distributed_dp_mod])``). It takes the
  update (the returned parameters minus the global model the client received,
  so the model itself is never clamped), clips it to the plan's ``ℓ2`` norm
  ``S``, rotates it with the round's public signs, scales by ``γ``, rounds it
  as the plan rounds (to nearest, stochastically, or conditionally), adds the
  client's noise share (the exact sampler of its mechanism,
  :mod:`itsa.privacy.samplers`, from a secret seed) and hands SecAgg+ the
  resulting word with ``num_examples = 1``;
- :func:`fit_workflow` builds, from the export alone, a
  ``SecAggPlusWorkflow`` that sends the plan and the round's public seed in
  every client's fit configuration, reads the sum modulo ``M = 2^b`` back
  from Flower's aggregate, takes the offset off, centres it, un-rotates,
  divides by ``γ`` and the clients that reported, and gives the strategy the
  global model plus that mean update (FedAvg then ends the round as without
  secure aggregation, plus the plan's noise).

**Flower's quantization is the identity on the words.** With
``max_weight = 1`` and ``num_examples = 1`` Flower's weight ratio is exactly
1; with ``quantization_range = Q`` and ``clipping_range = Q/2`` its quantizer
``Q/(2 c)`` is exactly 1, so a client that sends ``w − Q/2`` for an integer
``0 ≤ w ≤ Q`` has ``w`` summed, unrounded and unclamped, modulo
``modulus_range = M``. ``Q = M − 1`` carries every residue when
``M ≤ 2^31`` (Flower casts to ``int32``); a wider word sends the centred
residue shifted by ``Q/2``, ``Q = 2^31 − 2``, and a client whose word leaves
that window (a noise draw beyond about ``2^30``) raises: it drops out of the
round rather than send a clamped value. Flower's own float arithmetic on the
aggregate (the offset and the weight ratio ``Q/(nQ mod M)``) is undone
exactly: before the ratio it is a half-integer of magnitude at most ``2^48``
(:data:`EXACT_FLOAT`), recovered by rounding.

**Dropouts.** The plan's ε counts the noise of its fewest survivors ``K_eff``
(``⌈(1 − dropout) K⌉``): a round is released when between ``K_eff`` and
``K`` clients sent their masked word, with the noise of those who did; with
fewer (or more) the workflow releases nothing and the global model stays.

**Who sees what.** The server is honest but curious: it follows the
protocol (it sends the plan and a fresh public seed each round) and sees only
the sum modulo ``M`` of the reporting clients' noisy words (SecAgg+'s
masks hide each word, under SecAgg+'s own bounds). The rotation's signs are
public randomness (they need not be secret; they must be fresh each round and
not chosen after the updates). What stays secret on a client: its update,
its rounding's coins and its noise seed (drawn from the operating system's
randomness each round). Central noise is drawn by the server on the sum: it
sees the sum before the noise. :func:`pinned_mod` keeps a client to its own
copy of the plan.

Examples
--------
>>> p = FlowerPlan(clients=4, dimension=3, clip=1, gamma=8, modulus=2**10)
>>> p.secaggplus_kwargs(num_shares=1.0, threshold=2)["quantization_range"]
1023
>>> import numpy as np
>>> w = [encode_update(p, np.array([0.5, -0.25, 0.0]), round_seed=1) for _ in range(4)]
>>> decode_sum(p, flower_aggregate(p, w), reporting=4, round_seed=1)
array([ 0.5 , -0.25,  0.  ])
"""

from __future__ import annotations

import json
import logging
import math
import secrets
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from itsa._util.certified import Certified, Direction, arb_to_fractions, exact_text, precision, to_arb
from itsa._util.extras import require
from itsa.exceptions import InvalidOption, VerificationError
from itsa.frameworks._flower_rules import MIN_THRESHOLD, resolve_shares
from itsa.planning.mechanisms import mechanism
from itsa.planning.rotation import Rotation
from itsa.planning.run.setup import SimulationSetup
from itsa.planning.run.transforms import centred, norm_cap, rotate, rotation_signs, round_rows, unrotate
from itsa.planning.vocabulary import NoiseKind
from itsa.privacy.neighbours import Rounding
from itsa.privacy.sampler import SamplerEngine
from itsa.privacy.shares import survivors_under
from itsa.privacy.tails import certified_tail

__all__ = ["FlowerPlan", "encode_update", "word_sum", "decode_sum", "flower_aggregate", "distributed_dp_mod",
           "equal_weights_mod", "check_secagg_round",
           "pinned_mod", "fit_workflow", "fresh_secret",
           "CLIENT_MODS", "FIT_WORKFLOW", "PINNED_MOD", "CONFIG_PLAN", "CONFIG_SEED", "INT32_WINDOW", "EXACT_FLOAT"]

#: The mods of a ``ClientApp``, in the order ``ClientApp(mods=[...])`` takes them (importable names).
CLIENT_MODS = ("flwr.client.mod:secaggplus_mod", "itsa.frameworks.flower_dp:distributed_dp_mod")
#: The callable that takes the parsed export and returns ``DefaultWorkflow``'s ``fit_workflow``.
FIT_WORKFLOW = "itsa.frameworks.flower_dp:fit_workflow"
#: A client's own copy of the export pinned: ``load(PINNED_MOD)(export)`` takes the last client mod's place.
PINNED_MOD = "itsa.frameworks.flower_dp:pinned_mod"
#: The fit configuration's keys: the plan (JSON text) and the round's public seed.
CONFIG_PLAN = "itsa.plan"
CONFIG_SEED = "itsa.round_seed"
#: The widest word Flower's ``int32`` cast carries: ``0..2^31 − 1``.
INT32_WINDOW = 2**31
#: Flower's float aggregate is read back exactly while ``max(M, K Q)`` is at most this (three float64
#: roundings of relative ``2^-53`` each leave under a quarter of a half-integer).
EXACT_FLOAT = 2**48

log = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class FlowerPlan:
    """The part of a plan a Flower round runs: the cohort, the encoding and the noise.

    Parameters
    ----------
    clients, dropout
        ``K`` and the fraction that may drop out (the round is released for ``K_eff ≤ n ≤ K`` reporting clients).
    dimension, clip, gamma, modulus
        ``d`` (the model's parameters, all arrays flattened), ``S``, ``γ`` and ``M = 2^b``.
    sigma_client, noise, mechanism
        The noise (integer units): a share per client (``distributed``) or one draw on the sum (``central``);
        the mechanisms whose room draws exactly (``exact_draws``: the discrete Gaussian, Skellam,
        Bin(N, 1/2) − N/2).
    rotation, rounding, beta
        As the plan encodes (:class:`~itsa.planning.run.setup.SimulationSetup`).
    engine : str
        The sampler's engine: ``exact``, the only one (the table engine's law is not the plan's, whose ε
        is claimed for exact shares; it is refused).
    """

    clients: int
    dimension: int
    clip: Fraction | int | str
    gamma: Fraction | int | str
    modulus: int
    dropout: Fraction | int | str = 0
    sigma_client: Fraction | int | str = 0
    noise: str = NoiseKind.DISTRIBUTED
    mechanism: str = "dgauss"
    rotation: str = Rotation.NONE
    rounding: str = Rounding.NEAREST
    beta: Any = None
    engine: str = SamplerEngine.EXACT
    row: SimulationSetup = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        if not mechanism(self.mechanism).exact_draws:
            raise InvalidOption(f"mechanism: Flower's mod draws shares with itsa's exact samplers; "
                                f"{self.mechanism} shares have none")
        row = SimulationSetup(clients=1, dimension=self.dimension, clip=Fraction(str(self.clip)),
                              gamma=Fraction(str(self.gamma)), sigma_client=Fraction(str(self.sigma_client)),
                              modulus=self.modulus, noise=self.noise, rotation=self.rotation, rounding=self.rounding,
                              beta=self.beta, mechanism=self.mechanism, dropout=Fraction(str(self.dropout)))
        if self.modulus <= self.clients:
            raise InvalidOption(f"modulus: Flower divides by its weight entry, K Q mod M, which vanishes for a word "
                                f"of {self.clients} clients or fewer values; the word must exceed K, not "
                                f"{self.modulus}")
        object.__setattr__(self, "row", row)
        if max(self.modulus, self.clients * (self.quantization_range + 1)) > EXACT_FLOAT:
            raise InvalidOption(f"modulus: Flower's aggregate is a float64 of magnitude up to max(M, K Q); it is read "
                                f"back exactly up to 2^48, not {self.modulus:,} for {self.clients:,} clients")
        if self.shift and self.largest_rounded > self.shift:
            raise InvalidOption(f"gamma: a rounded coordinate reaches {self.largest_rounded}, beyond Flower's int32 "
                                f"window (|w| <= {self.shift}) for a word wider than 31 bits")
        object.__setattr__(self, "dropout", row.dropout)
        survivors_under(self.clients, self.dropout)             # checks clients
        if SamplerEngine(self.engine) is not SamplerEngine.EXACT:
            raise InvalidOption("engine: Flower's mod draws exact shares (the plan's epsilon is claimed for the exact "
                                "law; the table engine's is another), not table")
        object.__setattr__(self, "engine", str(SamplerEngine(self.engine)))

    @classmethod
    def from_plan(cls, plan) -> FlowerPlan:
        """A plan's flat encoding, read as :func:`itsa.planning.run.from_plan.setup_from_plan` reads it (one client's
        row: a real cohort is not bounded by the simulation's cells)."""
        d, enc = plan.deployment, plan.encoding
        if d.encoding.layered:
            raise InvalidOption("plan: Flower's SecAgg+ sums one flat word, not a layering")
        return cls(clients=d.clients, dropout=d.dropout, dimension=d.dimension, clip=d.clip, gamma=enc.gamma,
                   modulus=enc.modulus, sigma_client=plan.noise.sigma_client, noise=str(d.noise.kind),
                   mechanism=str(d.noise.mechanism or "dgauss"), rotation=str(d.encoding.rotation),
                   rounding=str(d.encoding.rounding), beta=d.encoding.beta)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FlowerPlan:
        """The inverse of :meth:`to_dict`."""
        fields: dict[str, Any] = {k: (int(v) if k == "modulus" else v) for k, v in data.items()}
        return cls(**fields)

    def to_dict(self) -> dict[str, Any]:
        r = self.row
        return {"clients": self.clients, "dropout": str(self.dropout), "dimension": self.dimension,
                "clip": str(r.clip), "gamma": str(r.gamma), "modulus": str(self.modulus),
                "sigma_client": str(r.sigma_client), "noise": r.noise, "mechanism": r.mechanism,
                "rotation": r.rotation, "rounding": r.rounding,
                "beta": r.beta_text() if r.rounding == Rounding.CONDITIONAL else None, "engine": self.engine}

    @property
    def survivors(self) -> int:
        """``K_eff``: the fewest reporting clients whose noise the plan's ε counts."""
        return survivors_under(self.clients, self.dropout)

    @property
    def quantization_range(self) -> int:
        """``Q``: ``M − 1`` (every residue), or ``2^31 − 2`` for a word wider than Flower's ``int32``."""
        return self.modulus - 1 if self.modulus <= INT32_WINDOW else INT32_WINDOW - 2

    @property
    def shift(self) -> int:
        """What a client adds to its residue: 0 (``0 ≤ r < M``), or ``Q/2`` for a centred residue."""
        return 0 if self.modulus <= INT32_WINDOW else self.quantization_range // 2

    def secaggplus_kwargs(self, *, num_shares, threshold) -> dict[str, Any]:
        """``SecAggPlusWorkflow``'s keyword arguments under which Flower's quantization is the identity."""
        q = self.quantization_range
        return {"num_shares": num_shares, "reconstruction_threshold": threshold, "max_weight": 1.0,
                "clipping_range": q / 2, "quantization_range": q, "modulus_range": self.modulus}

    @property
    def largest_rounded(self) -> int:
        """``A``: the largest ``|round(γ y)|`` of a coordinate ``|y| ≤ S`` (a rotation keeps ``|y_j| ≤ ‖y‖ ≤ S``):
        ``⌊γS + 1/2⌋`` to nearest, ``⌈γS⌉`` for a stochastic or conditional rounding."""
        top = self.row.gamma * self.row.clip
        return math.floor(top + Fraction(1, 2)) if self.row.rounding == Rounding.NEAREST else math.ceil(top)

    def window_drop(self) -> Certified:
        """The probability that a client's centred word leaves Flower's ``int32`` window in a round (it then
        drops out rather than send a clamped value): exactly 0 for a word of at most 31 bits (every residue is
        carried) or without shares; else at most ``2 d' exp(−(Q/2 − A)²/(2v))``, a share being ``v``-subgaussian
        (the mechanism room's proxy: ``σ²`` for a discrete Gaussian share, ``N/4`` for ``N`` fair coins, Hoeffding),
        over the ``d'`` words; a Skellam share's by the Chernoff bound of its moment generating function
        (:func:`itsa.privacy.tails.certified_tail`)."""
        if self.shift == 0 or self.row.noise != NoiseKind.DISTRIBUTED or self.row.sigma_client == 0:
            why = "every residue is carried" if self.shift == 0 else "the words hold no noise share"
            return Certified.exact("window drop", 0, f"exact: {why}")
        room = self.shift - self.largest_rounded
        proxy, poisson = mechanism(self.mechanism).wrap_noise(self.row.sigma_client, 1)
        if poisson:         # a Poisson-type share (Skellam): the Chernoff bound of its moment generating function
            words = self.row.rotated_dimension
            tail = certified_tail(room=room, proxy=proxy, poisson=poisson, coordinates=words,
                                  method=f"a share's log-MGF is at most m (cosh l - 1), m = {exact_text(poisson)}: "
                                         f"the Chernoff bound of P[|Z| >= {room}], union over the {words} words")
            return Certified("window drop", tail.lower(), tail.upper(), Direction.UPPER, tail.method)
        with precision():
            ball = 2 * self.row.rotated_dimension * (-(to_arb(room) ** 2) / (2 * to_arb(proxy))).exp()
        what = "sigma^2" if proxy == self.row.sigma_client ** 2 else f"v = {exact_text(proxy)}"
        method = (f"a share is {what}-subgaussian: P[|Z| >= {room}] <= 2 exp(-t^2/(2 {what.split(' = ')[0]})), "
                  f"union over the {self.row.rotated_dimension} words (at most 1)")
        low, high = arb_to_fractions(ball)
        return Certified("window drop", min(low, Fraction(1)), min(high, Fraction(1)), Direction.UPPER, method)

    def signs(self, round_seed: int) -> np.ndarray | None:
        """The round's public signs of the rotation (``None`` without one)."""
        return rotation_signs(np.random.default_rng(round_seed), self.row)


def fresh_secret() -> str:
    """A fresh secret seed (256 bits of the operating system's randomness, as hex): a client's noise seed and
    rounding coins each round (tests replace it to seed a run)."""
    return secrets.token_hex(32)


def _noise(plan: FlowerPlan, seed: str | None) -> np.ndarray:
    count = plan.row.rotated_dimension
    if plan.row.sigma_client == 0:
        return np.zeros(count, dtype=np.int64)
    text = seed if seed is not None else fresh_secret()
    return mechanism(plan.mechanism).draws(plan.row.sigma_client, count, text)


def encode_update(plan: FlowerPlan, update: np.ndarray, *, round_seed: int, rng=None,
                  noise_seed: str | None = None) -> np.ndarray:
    """One client's word for SecAgg+: the update clipped, rotated, scaled, rounded, noised, as Flower's floats.

    ``rng`` draws the rounding's coins and ``noise_seed`` seeds the noise share (both secret; fresh from the
    operating system when not given). The result ``x`` has ``d'`` entries with ``x + Q/2`` an integer in
    ``[0, Q]``; :class:`~itsa.exceptions.VerificationError` when a centred word leaves Flower's window.
    """
    x = np.asarray(update, dtype=np.float64).reshape(-1)
    if x.shape[0] != plan.dimension:
        raise InvalidOption(f"update: the plan's dimension is {plan.dimension}, the model sends {x.shape[0]}")
    if not np.all(np.isfinite(x)):
        raise InvalidOption("update: not finite")
    # the norm by einsum's own loop, not BLAS's dot: a multithreaded BLAS on a busy client stalls (10 ms at d = 1e5)
    s, norm = float(plan.row.clip), math.sqrt(float(np.einsum("i,i->", x, x)))
    if norm > s:
        x = x * (s / norm * (1 - 2.0**-40))
    signs = plan.signs(round_seed)
    y = (x if signs is None else rotate(x, signs, plan.row.rotation))[None, :]
    coins = rng if rng is not None else np.random.default_rng(int(fresh_secret(), 16))
    ints, _ = round_rows(coins, y, plan.row, norm_cap(plan.row))
    words = ints[0] + (_noise(plan, noise_seed) if plan.row.noise == NoiseKind.DISTRIBUTED else 0)
    q, shift = plan.quantization_range, plan.shift
    if shift == 0:
        words = np.mod(words, plan.modulus)
    elif np.abs(words).max(initial=0) > shift:
        raise VerificationError(f"a centred word is beyond Flower's int32 window (|w| <= {shift}): this client "
                                "drops out of the round")
    return (words + shift).astype(np.float64) - q / 2


def flower_aggregate(plan: FlowerPlan, words: list[np.ndarray]) -> np.ndarray:
    """What Flower's ``SecAggPlusWorkflow`` hands the strategy for these clients' words: Flower's own
    ``quantize``, the weight entry, the sum modulo ``M``, ``dequantize``, the offset and the weight ratio
    (a reference without masks, for tests and the examples)."""
    quantization = require("flwr.common.secure_aggregation.quantization")
    q, c, m = plan.quantization_range, plan.quantization_range / 2, plan.modulus
    total, weights = np.zeros(plan.row.rotated_dimension, dtype=np.int64), 0
    for w in words:
        total = np.mod(total + quantization.quantize([w], c, q)[0].astype(np.int64), m)
        weights = (weights + round(1.0 * q)) % m
    vec = quantization.dequantize([total], c, q)[0]
    vec += -(len(words) - 1) * c
    vec *= q / np.int64(weights)
    return vec


def word_sum(plan: FlowerPlan, aggregate: np.ndarray, *, reporting: int) -> np.ndarray:
    """The sum modulo ``M`` of ``reporting`` clients' words (``d'`` integers in ``[0, M)``), read back exactly from
    Flower's float aggregate ``(Σw − n Q/2)·Q/(nQ mod M)`` (a half-integer of magnitude at most
    :data:`EXACT_FLOAT` before the ratio), the shift taken off."""
    n, q, m = reporting, plan.quantization_range, plan.modulus
    ratio = q / np.int64((n * q) % m)
    twice = 2 * np.asarray(aggregate, dtype=np.float64) / ratio
    halves = np.rint(twice)
    if np.abs(twice - halves).max(initial=0) >= 0.25:
        raise VerificationError("Flower's aggregate is not a sum of words (is max_weight 1 and num_examples 1?)")
    return np.mod((halves.astype(np.int64) + n * q) // 2 - n * plan.shift, m)


def decode_sum(plan: FlowerPlan, aggregate: np.ndarray, *, reporting: int, round_seed: int,
               noise_seed: str | None = None) -> np.ndarray:
    """The mean update (``d`` floats) from Flower's aggregate of ``reporting`` clients' words: their sum
    (:func:`word_sum`), the central draw added (central noise), centred, un-rotated and divided by ``γ n``.

    An aggregate that no ``reporting`` words can give (``nan``, ``inf``, or beyond ``n Q/2`` before Flower's
    ratio, where its integers would wrap) is refused (:class:`~itsa.exceptions.VerificationError`), never read.
    """
    if isinstance(reporting, bool) or not isinstance(reporting, int | np.integer) or not 1 <= reporting <= plan.clients:
        raise InvalidOption(f"reporting: the clients whose words are summed, a whole number in 1..{plan.clients}, "
                            f"not {reporting!r:.40}")
    n, m, q = int(reporting), plan.modulus, plan.quantization_range
    values = np.asarray(aggregate, dtype=np.float64)
    if values.shape != (plan.row.rotated_dimension,):
        raise VerificationError(f"Flower's aggregate has shape {values.shape}, not the plan's "
                                f"({plan.row.rotated_dimension},) words: it is not a sum of words")
    if not np.isfinite(values).all():
        raise VerificationError("Flower's aggregate holds nan or inf: it is not a sum of words")
    with np.errstate(over="ignore"):
        twice = 2 * values * float((n * q) % m) / q if (n * q) % m else values
    if np.abs(twice).max(initial=0) > n * q + 0.5:
        raise VerificationError(f"Flower's aggregate is beyond what {n} clients' words can sum to "
                                f"(|aggregate| up to {float(np.abs(values).max()):.3g}): it is not a sum of words")
    total = word_sum(plan, aggregate, reporting=n)
    if plan.row.noise == NoiseKind.CENTRAL:
        total = np.mod(total + _noise(plan, noise_seed), m)
    values = centred(total, m).astype(np.float64)
    signs = plan.signs(round_seed)
    if signs is not None:
        values = unrotate(values, signs, plan.row.rotation, plan.dimension)
    return values / (float(plan.row.gamma) * n)


def _flat(arrays) -> np.ndarray:
    return np.concatenate([np.asarray(a, dtype=np.float64).reshape(-1) for a in arrays]) if arrays else np.zeros(0)


def _shaped(flat: np.ndarray, like) -> list[np.ndarray]:
    out, start = [], 0
    for a in like:
        a = np.asarray(a)
        out.append(flat[start:start + a.size].reshape(a.shape).astype(a.dtype if a.dtype.kind == "f" else np.float64))
        start += a.size
    return out


def distributed_dp_mod(msg, ctxt, call_next):
    """Flower client mod: the app's update as the plan's word (place it after ``secaggplus_mod``).

    Reads the plan and the round's public seed from the fit configuration (:func:`fit_workflow` sends them),
    lets the app train, and replaces its parameters by :func:`encode_update` of (returned − received) with
    ``num_examples = 1``. Messages other than training pass through; a training message without the plan
    is refused (the server is not itsa's workflow, and the whole model would be quantized). The client takes
    the server's plan; :func:`pinned_mod` takes only its own.
    """
    return _encode_reply(msg, ctxt, call_next, None)


def pinned_mod(export: dict[str, Any]):
    """:func:`distributed_dp_mod` that refuses a round whose plan or SecAgg+ parameters are not ``export``'s (the
    client's own copy of the parsed export): a server cannot lower the noise, change the encoding, or weaken the
    SecAgg+ round that hides the word of a client that pins it.

    ``ClientApp(mods=[secaggplus_mod, pinned_mod(export)])``. The SecAgg+ parameters are read from the state
    ``secaggplus_mod`` keeps for the round (:func:`check_secagg_round`), before the app trains and before the word
    is sent: the shares of the client's mask secrets that the round's earlier stages handed out protect nothing
    when the word they would mask is never sent.
    """
    section = export.get("distributed_dp") or {}
    if "plan" not in section or "SecAggPlusWorkflow" not in section:
        raise InvalidOption("export: no distributed_dp section (export the plan with itsa plan FILE --export flower)")
    own = FlowerPlan.from_dict(section["plan"]).to_dict()
    keywords = dict(section["SecAggPlusWorkflow"])
    survivors = int(section.get("survivors", 0))

    def mod(msg, ctxt, call_next):
        return _encode_reply(msg, ctxt, call_next, own, keywords=keywords, survivors=survivors)

    return mod


def equal_weights_mod(msg, ctxt, call_next):
    """Flower client mod: every fit reply weighs 1 (``num_examples = 1``), so FedAvg's mean is unweighted.

    Flower's central DP wrapper adds ``z C / N`` to FedAvg's mean, which weighs client ``i`` by
    ``w_i / sum(w)``: the mean's sensitivity is ``C max_i w_i / sum(w)``, which is the ``C / N`` that ``z`` is
    calibrated for only when the weights are equal (a client with twice the average weight doubles it). This mod
    makes them equal. ``ClientApp(mods=[equal_weights_mod, fixedclipping_mod])``.
    """
    out = call_next(msg, ctxt)
    if msg.metadata.message_type != require("flwr.app.message_type").MessageType.TRAIN or out.has_error():
        return out
    if "fitres.num_examples" in out.content.metric_records:
        out.content.metric_records["fitres.num_examples"] = require("flwr.app").MetricRecord({"num_examples": 1})
    return out


def check_secagg_round(state: dict[str, Any] | None, keywords: dict[str, Any] | None = None,
                       survivors: int = 0) -> None:
    """Refuse a round whose SecAgg+ parameters cannot hide this client's word.

    ``state`` is what ``secaggplus_mod`` stored for the round (``None``: the mod is not running, and the word
    would reach the server in clear). Any round needs a reconstruction threshold of at least 2: Flower accepts
    ``reconstruction_threshold=0``, and a Shamir share of threshold 0 or 1 is the secret itself, so one corrupt
    neighbour with the server unmasks the word, which carries a single noise share, not the aggregate's noise.
    With ``keywords`` (the export's ``SecAggPlusWorkflow`` arguments) the round must also be the planned one:
    the threshold at least the planned one, exactly the planned number of shares (fewer disconnects the graph
    more easily, more with the same threshold makes ``t`` corrupt neighbours likelier: either weakens the
    certified security bound), the planned quantization, and at least the ``survivors`` the plan's noise counts.

    Raises
    ------
    InvalidOption
        One line naming each parameter that differs; the client then sends nothing.

    Examples
    --------
    >>> kw = {"num_shares": 5, "reconstruction_threshold": 3, "max_weight": 1.0, "clipping_range": 1.0,
    ...       "quantization_range": 100, "modulus_range": 2**20}
    >>> state = {"sample_num": 8, "share_num": 5, "threshold": 3, "clipping_range": 1.0, "target_range": 100,
    ...          "mod_range": 2**20, "max_weight": 1.0}
    >>> check_secagg_round(state, kw, survivors=6)
    >>> check_secagg_round({**state, "threshold": 0}, kw)
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOption: secagg+: reconstruction threshold 0 puts the secret in every share (at least 2): the client sends nothing
    """
    if state is None:
        raise InvalidOption("secagg+: no SecAgg+ round (place secaggplus_mod before this mod): the word would reach "
                            "the server in clear; the client sends nothing")
    threshold = int(state.get("threshold", 0))
    if threshold < MIN_THRESHOLD:
        raise InvalidOption(f"secagg+: reconstruction threshold {threshold} puts the secret in every share "
                            "(at least 2): the client sends nothing")
    if keywords is None:
        return
    samples = int(state.get("sample_num", 0))
    wrong = []
    layout = resolve_shares(keywords["num_shares"], keywords["reconstruction_threshold"], clients=max(samples, 2))
    shares, least_t = layout.shares_sent, layout.threshold
    if threshold < least_t:
        wrong.append(f"reconstruction threshold {threshold} < the export's {least_t}")
    if int(state.get("share_num", 0)) != shares:
        wrong.append(f"num_shares {state.get('share_num')} != the export's {shares}")
    for key, planned in (("clipping_range", "clipping_range"), ("target_range", "quantization_range"),
                         ("mod_range", "modulus_range"), ("max_weight", "max_weight")):
        if state.get(key) != keywords[planned]:
            wrong.append(f"{planned} {state.get(key)!r} != the export's {keywords[planned]!r}")
    if samples < survivors:
        wrong.append(f"a cohort of {samples} < the {survivors} survivors the plan's noise counts")
    if wrong:
        raise InvalidOption(f"pinned_mod: the server's SecAgg+ round differs from this client's export: "
                            f"{'; '.join(wrong)}: the client sends nothing")


def _secagg_state(ctxt) -> dict[str, Any] | None:
    """The SecAgg+ parameters ``secaggplus_mod`` keeps in the client's state for this round, if it runs."""
    constants = require("flwr.common.secure_aggregation.secaggplus_constants")
    records = getattr(getattr(ctxt, "state", None), "config_records", None)
    if records is None or constants.RECORD_KEY_STATE not in records:
        return None
    return dict(records[constants.RECORD_KEY_STATE])


def _encode_reply(msg, ctxt, call_next, own: dict[str, Any] | None, *, keywords: dict[str, Any] | None = None,
                  survivors: int = 0):
    flwr_app = require("flwr.app")
    compat = require("flwr.compat.common.recorddict_compat")
    common = require("flwr.common")
    if msg.metadata.message_type != require("flwr.app.message_type").MessageType.TRAIN:
        return call_next(msg, ctxt)
    ins = compat.recorddict_to_fitins(msg.content, keep_input=True)
    if CONFIG_PLAN not in ins.config or CONFIG_SEED not in ins.config:
        raise InvalidOption(f"distributed_dp_mod: the fit configuration has no {CONFIG_PLAN} and {CONFIG_SEED} "
                            "(the server must run itsa's fit workflow)")
    plan = FlowerPlan.from_dict(json.loads(str(ins.config[CONFIG_PLAN])))
    if own is not None and plan.to_dict() != own:
        changed = sorted(k for k, v in plan.to_dict().items() if own.get(k) != v)
        raise InvalidOption(f"pinned_mod: the server's plan differs from this client's export in "
                            f"{', '.join(changed)}: the client sends nothing")
    check_secagg_round(_secagg_state(ctxt), keywords, survivors)
    received = _flat(common.parameters_to_ndarrays(ins.parameters))
    out = call_next(msg, ctxt)
    if out.has_error():
        return out
    res = compat.recorddict_to_fitres(out.content, keep_input=True)
    update = _flat(common.parameters_to_ndarrays(res.parameters)) - received
    word = encode_update(plan, update, round_seed=int(ins.config[CONFIG_SEED]))
    out.content.array_records["fitres.parameters"] = compat.parameters_to_arrayrecord(
        common.ndarrays_to_parameters([word]), True)
    out.content.metric_records["fitres.num_examples"] = flwr_app.MetricRecord({"num_examples": 1})
    return out


class _PlanStrategy:
    """The strategy, with the plan in every fit configuration and the plan's mean update in every result."""

    def __init__(self, inner, plan: FlowerPlan, seeds, noise_seed: str | None = None):
        self._inner, self._plan, self._seeds, self._noise_seed = inner, plan, seeds, noise_seed
        self._global: list[np.ndarray] | None = None
        self._seed = 0

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def configure_fit(self, server_round, parameters, client_manager):
        common = require("flwr.common")
        self._global = common.parameters_to_ndarrays(parameters)
        self._seed = int(self._seeds.integers(0, 2**63 - 1))
        text = json.dumps(self._plan.to_dict())
        chosen = self._inner.configure_fit(server_round, parameters, client_manager)
        for _, ins in chosen:
            ins.config = {**ins.config, CONFIG_PLAN: text, CONFIG_SEED: self._seed}
        return chosen

    def aggregate_fit(self, server_round, results, failures):
        common = require("flwr.common")
        n, plan = len(results), self._plan
        if not plan.survivors <= n <= plan.clients:
            log.warning("round %s not released: %s clients reported, the plan counts %s to %s", server_round, n,
                        plan.survivors, plan.clients)
            return None, {}
        assert self._global is not None
        aggregate = _flat(common.parameters_to_ndarrays(results[0][1].parameters))
        central = None if self._noise_seed is None else f"{self._noise_seed}:{server_round}"
        mean = decode_sum(plan, aggregate, reporting=n, round_seed=self._seed, noise_seed=central)
        model = common.ndarrays_to_parameters(_shaped(_flat(self._global) + mean, self._global))
        for _, res in results:
            res.parameters, res.num_examples = model, 1
        return self._inner.aggregate_fit(server_round, results, failures)


def fit_workflow(export: dict[str, Any], *, seed: int | None = None, noise_seed: str | None = None):
    """``DefaultWorkflow(fit_workflow=...)`` for the plan in ``export`` (the parsed ``--export flower`` JSON).

    A ``SecAggPlusWorkflow`` of the export's keyword arguments whose strategy, for the round, sends the plan
    and a fresh public seed (``seed`` seeds them, for a reproducible run) and releases the plan's mean update.
    ``noise_seed`` fixes the central draw of round ``r`` to the sampler's stream of ``"{noise_seed}:{r}"``
    (tests that check the released value; a deployment leaves it unset: the draw is then secret).
    """
    workflow = require("flwr.server.workflow")
    section = export.get("distributed_dp")
    if not section:
        raise InvalidOption("export: no distributed_dp section (export the plan with itsa plan FILE --export flower)")
    plan = FlowerPlan.from_dict(section["plan"])
    seeds = np.random.default_rng(seed if seed is not None else int(fresh_secret(), 16))

    base: Any = workflow.SecAggPlusWorkflow

    class PlanSecAggPlusWorkflow(base):
        """Flower's SecAgg+ workflow running the plan's encoding (itsa.frameworks.flower_dp)."""

        def __call__(self, grid, context):
            inner = context.strategy
            context.strategy = _PlanStrategy(inner, plan, seeds, noise_seed)
            try:
                super().__call__(grid, context)
            finally:
                context.strategy = inner

    return PlanSecAggPlusWorkflow(**section["SecAggPlusWorkflow"])
