"""The deployment file of ``itsa plan``: what a secure aggregation is sized for, read exactly.

A deployment is a small YAML mapping (``docs/format.md``, "Deployment files")::

    clients: 1000
    dropout: 1/10
    dimension: 1290
    clip: 1
    adjacency: replace-one
    privacy: {epsilon: 4, delta: 1e-6, rounds: 150}
    noise: distributed
    encoding: {word_bits: 32}
    overflow: 1e-6
    servers: example-2

Every number is read exactly (``1e-6`` is the Fraction ``1/1000000``); every
bad input is one line (:class:`~itsa.exceptions.InvalidDeployment`, exit 2).

Examples
--------
>>> d = parse_deployment({"clients": 1000, "dropout": "1/10", "dimension": 1290, "clip": 1,
...                       "privacy": {"epsilon": 4, "delta": "1e-6", "rounds": 150},
...                       "encoding": {"word_bits": 32}, "overflow": "1e-6"})
>>> d.survivors, d.overflow, d.adjacency.value, d.noise.kind.value
(900, Fraction(1, 1000000), 'replace-one', 'distributed')
>>> parse_deployment({"clients": 0, "dimension": 1, "clip": 1})
Traceback (most recent call last):
...
itsa.exceptions.InvalidDeployment: clients: must be a whole number in 1..100000000, not 0
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from itsa._util.checks import choice, dropout_fraction, fraction, whole_number
from itsa._util.display import Displayable
from itsa._util.files import read_text
from itsa._util.plain import frac
from itsa._util.safe_yaml import load_yaml
from itsa.exceptions import InvalidDeployment, InvalidOption, excerpt
from itsa.keys.examples import resolve_deployment
from itsa.modular import parse_stages
from itsa.planning.mechanisms import mechanism
from itsa.planning.protocols import AggregationProtocol, MultiServerProtocol, SecAggProtocol, parse_protocol
from itsa.planning.rotation import Rotation, as_rotation
from itsa.planning.schedule import MatrixMechanism, matrix_refusal, parse_matrix
from itsa.planning.vocabulary import MAX_WORD_BITS, Mechanism, NoiseKind, Overflow, Sampling  # their home
from itsa.privacy.conversion import DEFAULT_DELTA  # its home is the privacy part
from itsa.privacy.neighbours import (  # their home is the privacy part
    DEFAULT_BETA,
    Adjacency,
    ExpBeta,
    Rounding,
    as_beta,
)
from itsa.privacy.shares import survivors_under  # its home is the privacy part

__all__ = ["SecAggProtocol", "MultiServerProtocol", "Adjacency", "NoiseKind", "Mechanism", "Rounding", "Sampling", "Overflow", "Noise", "Encoding", "Privacy", "Gate", "Deployment",
           "parse_deployment", "load_deployment", "read_deployment", "DEFAULT_DELTA", "MAX_CLIENTS", "MAX_DIMENSION", "MAX_WORD_BITS"]

#: Most clients in a round a deployment may name.
MAX_CLIENTS = 10**8
#: Largest dimension a deployment may name.
MAX_DIMENSION = 10**9
#: Most rounds a deployment may name.
MAX_ROUNDS = 10**7
#: Most digits of the numerator or denominator of a number in a deployment (its exact arithmetic and its
#: printed fractions stay small).
MAX_DIGITS = 400
#: The clip must lie in ``[2^-MAX_CLIP_EXPONENT, 2^MAX_CLIP_EXPONENT]`` (the scales tried are powers of two
#: within ``2^±256``, so that ``γ S = 1`` is reachable).
MAX_CLIP_EXPONENT = 128
#: Largest file (bytes) read as a deployment.
MAX_BYTES = 64 * 2**10

_ERR = InvalidDeployment


def _part(key: str, value, kind: type) -> None:
    if not isinstance(value, kind):
        raise _ERR(f"{key}: must be {kind.__name__}(...) (a mapping in a file), not {excerpt(value)}")


def _number(name: str, value, **bounds) -> Fraction:
    """A number of a deployment, exact, of at most :data:`MAX_DIGITS` digits (a Fraction is shown as ``7/2``)."""
    if isinstance(value, Fraction):
        if max(abs(value.numerator), value.denominator) >= 10**MAX_DIGITS:
            raise _ERR(f"{name}: must be a fraction of at most {MAX_DIGITS}-digit whole numbers")
        value = str(value)
    out = fraction(name, value, error=_ERR, **bounds)
    if max(abs(out.numerator), out.denominator) >= 10**MAX_DIGITS:
        raise _ERR(f"{name}: must be a fraction of at most {MAX_DIGITS}-digit whole numbers, not {excerpt(value)}")
    return out


def _servers(raw) -> str | None:
    if raw is None:
        return None
    if not isinstance(raw, str) or not raw.strip():
        raise _ERR(f"servers: must be the name of a shipped instance or a path, not {excerpt(raw)}")
    if len(raw) > MAX_PATH or not raw.isprintable():
        raise _ERR(f"servers: must be a name or path of at most {MAX_PATH} printable characters, not {excerpt(raw)}")
    return raw.strip()


def _check_digits(clip: Fraction, encoding: Encoding) -> None:
    """A layering's γ must encode the clip in its ``L`` balanced digits: ``|round(γ S)| ≤ (ρ^L − 1)/2``."""
    radix, layers = encoding.radix, encoding.layers
    if radix is None or layers is None or encoding.gamma is None:
        return
    capacity = (radix**layers - 1) // 2
    top = math.floor(encoding.gamma * clip + Fraction(1, 2))
    if top > capacity:
        raise _ERR(f"encoding.gamma: round(gamma S) = {top} does not fit {encoding.layers} balanced "
                   f"radix-{encoding.radix} digits (at most {capacity})")


def _clip(raw) -> Fraction:
    value = _number("clip", raw, low=0)
    if not Fraction(1, 2**MAX_CLIP_EXPONENT) <= value <= 2**MAX_CLIP_EXPONENT:
        raise _ERR(f"clip: must lie in [2^-{MAX_CLIP_EXPONENT}, 2^{MAX_CLIP_EXPONENT}] (the scale gamma is a power "
                   f"of two with gamma S >= 1), not {excerpt(raw)}")
    return value


#: Longest ``servers`` name or path.
MAX_PATH = 1024
#: Longest name a deployment may give itself (it heads every plan).
MAX_NAME = 200


def _name(raw) -> str:
    if not isinstance(raw, str) or not raw.strip():
        raise _ERR(f"name: must be a text, not {excerpt(raw)}")
    if len(raw) > MAX_NAME or not raw.isprintable():
        raise _ERR(f"name: must be one line of at most {MAX_NAME} printable characters, not {excerpt(raw)}")
    return raw


def _dropout(raw) -> Fraction:
    _number("dropout", raw)                                     # its digits; its range, [0, 1), in one message:
    return dropout_fraction(str(raw) if isinstance(raw, Fraction) else raw, error=_ERR)


#: Largest population a deployment may name.
MAX_POPULATION = 10**12


def _population(population, sampling, clients: int, deployment) -> tuple[int | None, Sampling]:
    """The population's checks: at least the round's clients; central noise Poisson-sampled with add-remove
    neighbours, distributed shares over a Poisson or fixed-size cohort with replace-one neighbours."""
    how = choice("sampling", sampling, Sampling, error=_ERR)
    if population is None:
        return None, how
    n = whole_number("population", population, minimum=1, maximum=MAX_POPULATION, error=_ERR)
    if n < clients:
        raise _ERR(f"population: must be at least the round's clients ({clients}), not {n}")
    if deployment.noise.kind is NoiseKind.DISTRIBUTED:        # shares over a sampled cohort, its count public
        if deployment.adjacency is not Adjacency.REPLACE_ONE:
            raise _ERR("population: distributed shares over a sampled cohort are accounted with the cohort's count "
                       "public, for neighbours that replace one member's record (zeroing out its update is a case); "
                       "give adjacency: replace-one")
    elif how is Sampling.FIXED:
        raise _ERR("sampling: fixed-size sampling (exactly K of N) is accounted here for distributed shares; with "
                   "central noise give sampling: poisson (Zhu-Wang 2019 Thm 6 holds for Poisson sampling)")
    elif deployment.adjacency is not Adjacency.ADD_REMOVE:
        raise _ERR("population: the Poisson-sampled bound holds for add-remove neighbours (one user in or out of "
                   "the population); give adjacency: add-remove")
    if deployment.encoding.layered:
        raise _ERR("population: a PSA layering's layers share one sample per round, and the sampled bound here "
                   "holds for one release per sample; give a flat word (encoding.word_bits) or no population")
    return n, how


def _set(obj, name: str, value) -> None:
    object.__setattr__(obj, name, value)


@dataclass(frozen=True, kw_only=True)
class Privacy:
    """The target ``(ε, δ)`` over ``rounds`` rounds (``epsilon`` None: only computed, from a given noise).

    Checked on construction, as the file's ``privacy:`` mapping is.
    """

    epsilon: Fraction | None = None
    delta: Fraction = DEFAULT_DELTA
    rounds: int = 1

    def __post_init__(self):
        _set(self, "epsilon", None if self.epsilon is None else _number("privacy.epsilon", self.epsilon, low=0))
        _set(self, "delta", _number("privacy.delta", self.delta, low=0, high=1))
        _set(self, "rounds", whole_number("privacy.rounds", self.rounds, minimum=1, maximum=MAX_ROUNDS, error=_ERR))


@dataclass(frozen=True, kw_only=True)
class Noise:
    """Who adds the noise and, optionally, its per-client σ in integer units (None: calibrated).

    Checked on construction, as the file's ``noise:`` is.
    """

    kind: NoiseKind = NoiseKind.DISTRIBUTED
    sigma: Fraction | None = None
    #: the mechanism; ``None``: the plan picks the one with the smaller error at the targets
    mechanism: Mechanism | None = None

    def __post_init__(self):
        _set(self, "kind", choice("noise.placement", self.kind, NoiseKind, error=_ERR))
        if self.mechanism is not None:
            _set(self, "mechanism", choice("noise.mechanism", self.mechanism, Mechanism, error=_ERR))
        sigma = None if self.sigma is None else _number("noise.sigma", self.sigma, low=0)
        if sigma is not None and sigma > 2**MAX_WORD_BITS:      # its frameworks' floats would overflow too
            raise _ERR(f"noise.sigma: at most 2^{MAX_WORD_BITS} (past it the noise alone spills the widest word, "
                       f"{MAX_WORD_BITS} bits), not {excerpt(self.sigma)}")
        if sigma is not None and self.kind is NoiseKind.DISTRIBUTED and sigma < Fraction(1, 2):
            raise _ERR(f"noise.sigma: a distributed share needs sigma >= 1/2 (the tau term), not {frac(sigma)}")
        _set(self, "sigma", sigma)


@dataclass(frozen=True, kw_only=True)
class Encoding:
    """A flat word (``word_bits``) or a PSA layering (``radix``, ``layers``, ``stages``); ``gamma`` optional.

    Checked on construction, as the file's ``encoding:`` mapping is (a
    layering's ``layers`` default to 4 and its ``stages`` to ``each``).
    """

    word_bits: int | None = None
    gamma: Fraction | None = None
    radix: int | None = None
    layers: int | None = None
    stages: str | None = None
    #: the random rotation before rounding (``none``, ``hadamard``, ``dft``)
    rotation: Rotation = Rotation.NONE
    #: how the scaled update is made whole (``nearest``, ``stochastic``, ``conditional``)
    rounding: Rounding = Rounding.NEAREST
    #: ``β`` of conditional rounding (a rational, or ``exp(-λ)`` kept exactly: the default ``exp(-1/2)``)
    beta: Fraction | ExpBeta = DEFAULT_BETA
    #: whether the file names the rounding (``False``: a rotated word's plan may pick stochastic rounding)
    rounding_named: bool = field(default=True, compare=False)
    #: whether the file names ``β`` (``False``: a plan with conditional rounding chooses it)
    beta_named: bool = field(default=True, compare=False)

    def __post_init__(self):
        _set(self, "gamma", None if self.gamma is None else _number("encoding.gamma", self.gamma, low=0))
        try:
            _set(self, "rotation", as_rotation(self.rotation))
        except InvalidOption as exc:
            raise _ERR(str(exc)) from None
        _set(self, "rounding", choice("encoding.rounding", self.rounding, Rounding, error=_ERR))
        if isinstance(self.beta, str) and self.beta.strip().startswith("exp"):
            try:
                _set(self, "beta", as_beta(self.beta))
            except InvalidOption as exc:
                raise _ERR(f"encoding.{exc}") from None
        if not isinstance(self.beta, ExpBeta):
            _set(self, "beta", _number("encoding.beta", self.beta, low=0, high=1))
        if self.radix is not None and (self.rotation is not Rotation.NONE or self.rounding is not Rounding.NEAREST):
            raise _ERR("encoding: a PSA layering rounds to nearest without a rotation (rotation and rounding are "
                       "for a flat word)")
        if self.radix is None:
            if self.layers is not None or self.stages is not None:
                raise _ERR("encoding: layers and stages need a radix (a PSA layering)")
            if self.word_bits is not None:
                _set(self, "word_bits", whole_number("encoding.word_bits", self.word_bits, minimum=2,
                                                     maximum=MAX_WORD_BITS, error=_ERR))
            return
        if self.word_bits is not None:
            raise _ERR("encoding: give word_bits (a flat word) or radix (a PSA layering), not both")
        radix = whole_number("encoding.radix", self.radix, minimum=3, maximum=101, error=_ERR)
        if radix % 2 == 0:
            raise _ERR(f"encoding.radix: must be odd (balanced digits), not {radix}")
        layers = whole_number("encoding.layers", 4 if self.layers is None else self.layers, minimum=1, maximum=64,
                              error=_ERR)
        stages = "each" if self.stages is None else self.stages
        if not isinstance(stages, str):
            raise _ERR(f"encoding.stages: must be a text such as '4,3/2,1' or 'each', not {excerpt(stages)}")
        try:
            parse_stages(stages, layers)
        except ValueError as exc:
            raise _ERR(f"encoding.{exc}") from None
        _set(self, "radix", radix)
        _set(self, "layers", layers)
        _set(self, "stages", stages)

    @property
    def layered(self) -> bool:
        return self.radix is not None


@dataclass(frozen=True, kw_only=True)
class Gate:
    """The admission gate: a trust budget of ``budget`` points, one lost per flagged round (checked on construction)."""

    budget: int = 100
    flag_rate: Fraction = Fraction(0)

    def __post_init__(self):
        _set(self, "budget", whole_number("gate.budget", self.budget, minimum=1, maximum=10**6, error=_ERR))
        _set(self, "flag_rate", _number("gate.flag_rate", self.flag_rate, low=0, high=1, closed=True))


@dataclass(frozen=True, kw_only=True, repr=False)
class Deployment(Displayable):
    """One secure aggregation to size: its clients, data bound, privacy target, noise, encoding, keys.

    Every field is keyword-only and checked on construction, with the checks
    and messages of the file reader (:func:`parse_deployment` builds one from
    a file's mapping): a bad value is one line
    (:class:`~itsa.exceptions.InvalidDeployment`), so that no deployment the
    file would refuse can reach the planner.

    >>> Deployment(clients=10, dimension=4, clip=0, noise=Noise(sigma=1))
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidDeployment: clip: must lie in (0, inf), not 0
    """

    clients: int
    dimension: int
    clip: Fraction
    dropout: Fraction = Fraction(0)
    adjacency: Adjacency = Adjacency.REPLACE_ONE
    privacy: Privacy = Privacy()
    noise: Noise = Noise()
    encoding: Encoding = Encoding()
    overflow: Fraction = Fraction(1, 10**6)
    overflow_per: Overflow = Overflow.ROUND
    servers: str | None = None
    gate: Gate | None = None
    name: str = "deployment"
    #: the largest mean-square error of the released mean (summed over the coordinates) the plan may have
    accuracy: Fraction | None = None
    #: the clients a round's are drawn from (``None``: every round has the same clients, no amplification)
    population: int | None = None
    sampling: Sampling = Sampling.POISSON
    #: the secure aggregation the keys section sizes for these clients (``None``: only ``servers``, or no keys)
    protocol: AggregationProtocol | None = None
    #: DP-FTRL's matrix mechanism and participation schedule (``None``: independent noise every round)
    matrix: MatrixMechanism | None = None

    def __post_init__(self):
        _set(self, "clients", whole_number("clients", self.clients, minimum=1, maximum=MAX_CLIENTS, error=_ERR))
        _set(self, "dimension", whole_number("dimension", self.dimension, minimum=1, maximum=MAX_DIMENSION,
                                             error=_ERR))
        _set(self, "clip", _clip(self.clip))
        _set(self, "dropout", _dropout(self.dropout))
        _set(self, "adjacency", choice("adjacency", self.adjacency, Adjacency, error=_ERR))
        for key, kind in (("privacy", Privacy), ("noise", Noise), ("encoding", Encoding)):
            _part(key, getattr(self, key), kind)
        if self.gate is not None:
            _part("gate", self.gate, Gate)
        refusal = None if self.noise.mechanism is None else mechanism(self.noise.mechanism).layering_refusal
        if self.encoding.layered and refusal is not None:
            raise _ERR(f"noise.mechanism: {self.noise.mechanism} with a PSA layering is not accounted here: {refusal}")
        if self.privacy.epsilon is None and self.noise.sigma is None and self.matrix is None:
            raise _ERR("privacy.epsilon: missing (give a target epsilon, or the noise's sigma to compute epsilon for)")
        _set(self, "overflow", _overflow_target("overflow", self.overflow))
        _set(self, "overflow_per", choice("overflow.per", self.overflow_per, Overflow, error=_ERR))
        _set(self, "servers", _servers(self.servers))
        _set(self, "name", _name(self.name))
        _set(self, "accuracy", None if self.accuracy is None else _number("accuracy.mse", self.accuracy, low=0))
        _check_digits(self.clip, self.encoding)
        population, sampling = _population(self.population, self.sampling, self.clients, self)
        _set(self, "population", population)
        _set(self, "sampling", sampling)
        self._check_protocol()
        self._check_matrix()

    def _check_matrix(self) -> None:
        """What a matrix mechanism refuses beside it (:func:`itsa.planning.schedule.matrix_refusal`), in one line."""
        if self.matrix is None:
            return
        if not isinstance(self.matrix, MatrixMechanism):
            raise _ERR(f"matrix: must be a MatrixMechanism(...) (mechanism: and participation: in a file), not "
                       f"{excerpt(self.matrix)}")
        refusal = matrix_refusal(central=self.noise.kind is NoiseKind.CENTRAL, sigma=self.noise.sigma,
                                 noise_mechanism=self.noise.mechanism, layered=self.encoding.layered,
                                 nearest=self.encoding.rounding is Rounding.NEAREST, population=self.population,
                                 add_remove=self.adjacency is Adjacency.ADD_REMOVE, accuracy=self.accuracy,
                                 epsilon=self.privacy.epsilon, noise_multiplier=self.matrix.noise_multiplier)
        if refusal is not None:
            raise _ERR(refusal)

    def _check_protocol(self) -> None:
        """The protocol's own checks against the clients; ``protocol`` and ``servers`` are not both given."""
        if self.protocol is None:
            return
        if not isinstance(self.protocol, AggregationProtocol):
            raise _ERR(f"protocol: must be a protocol, SecAggProtocol(...) or another of the registry (a mapping in a "
                       f"file), not {excerpt(self.protocol)}")
        if self.servers is not None:
            raise _ERR("protocol: give protocol (keys for the deployment's own clients) or servers (a key-rate "
                       "instance of its own), not both")
        self.protocol.check(self.clients)
        self.protocol.check_rates(self.dropout)

    @property
    def survivors(self) -> int:
        """The fewest clients whose updates (and noise shares) arrive: ``⌈(1 − dropout) K⌉`` (:func:`survivors_under`)."""
        return survivors_under(self.clients, self.dropout)

    def headline(self) -> str:
        cohort = ("" if self.population is None or self.noise.kind is not NoiseKind.DISTRIBUTED else
                  f", a {self.sampling} cohort of a population of {self.population} (the plan's noise section "
                  "gives the fewest survivors it counts)")
        return (f"{self.name}: K = {self.clients} (at least {self.survivors} survive){cohort}, d = {self.dimension}, "
                f"clip {frac(self.clip)}")

    def rows(self) -> list[tuple[str, str]]:
        def text(v) -> str:
            if isinstance(v, dict):
                return ", ".join(f"{k} {text(x)}" for k, x in v.items() if x is not None) or "none"
            return "none" if v is None else str(v)
        return [(k, text(v)) for k, v in self.to_dict().items()]

    def to_dict(self) -> dict:
        e, p = self.encoding, self.privacy
        encoding = ({"radix": e.radix, "layers": e.layers, "stages": e.stages} if e.layered
                    else {"word_bits": e.word_bits, "rotation": str(e.rotation), "rounding": str(e.rounding),
                          "beta": str(e.beta) if e.rounding is Rounding.CONDITIONAL else None})
        return {"name": self.name, "clients": self.clients, "survivors": self.survivors, "dropout": frac(self.dropout),
                "dimension": self.dimension, "clip": frac(self.clip), "adjacency": str(self.adjacency),
                "privacy": {"epsilon": frac(p.epsilon), "delta": frac(p.delta), "rounds": p.rounds},
                "noise": {"kind": str(self.noise.kind), "sigma": frac(self.noise.sigma),
                          "mechanism": None if self.noise.mechanism is None else str(self.noise.mechanism)},
                "encoding": {**encoding, "gamma": frac(e.gamma)},
                "overflow": {"probability": frac(self.overflow), "per": str(self.overflow_per)},
                "servers": self.servers,
                "protocol": None if self.protocol is None else self.protocol.to_dict(),
                "gate": None if self.gate is None else {"budget": self.gate.budget,
                                                        "flag_rate": frac(self.gate.flag_rate)},
                "accuracy": None if self.accuracy is None else {"mse": frac(self.accuracy)},
                "population": self.population, "sampling": None if self.population is None else str(self.sampling),
                **({} if self.matrix is None else {"matrix": self.matrix.to_dict()})}


_KEYS = {"name", "clients", "dropout", "dimension", "clip", "adjacency", "privacy", "noise", "encoding", "overflow",
         "servers", "gate", "accuracy", "population", "sampling", "protocol", "mechanism", "participation"}


def _mapping(name: str, value, keys: set[str]) -> dict:
    if not isinstance(value, dict):
        raise _ERR(f"{name}: must be a mapping, not {excerpt(value)}")
    extra = sorted(set(map(str, value)) - keys)
    if extra:
        raise _ERR(f"{name}: unknown key {extra[0]!r} (known: {', '.join(sorted(keys))})")
    return value


def _privacy(raw) -> Privacy:
    if raw is None:
        return Privacy()
    p = _mapping("privacy", raw, {"epsilon", "delta", "rounds"})
    return Privacy(epsilon=p.get("epsilon"), delta=p.get("delta", DEFAULT_DELTA), rounds=p.get("rounds", 1))


def _noise(raw) -> Noise:
    if raw is None or isinstance(raw, str):
        kind: Any = raw or NoiseKind.DISTRIBUTED         # a text is checked by the Noise
        return Noise(kind=kind)
    n = _mapping("noise", raw, {"kind", "placement", "mechanism", "sigma", "noise_multiplier"})   # z: the matrix's
    if "kind" in n and "placement" in n and n["kind"] != n["placement"]:
        raise _ERR("noise: kind and placement name the same thing; give one")
    return Noise(kind=n.get("placement", n.get("kind", "distributed")), sigma=n.get("sigma"),
                 mechanism=n.get("mechanism"))


def _encoding(raw) -> Encoding:
    if raw is None:
        return Encoding()
    e = _mapping("encoding", raw, {"word_bits", "gamma", "radix", "layers", "stages", "rotation", "rounding", "beta"})
    if "beta" in e and str(e.get("rounding", Rounding.NEAREST)) != Rounding.CONDITIONAL:
        raise _ERR(f"encoding.beta: only conditional rounding reads beta, and this encoding rounds "
                   f"{excerpt(str(e.get('rounding', Rounding.NEAREST)))}: remove beta or give rounding: conditional")
    return Encoding(**{key: e.get(key) for key in ("word_bits", "gamma", "radix", "layers", "stages")},
                    rotation=e.get("rotation", Rotation.NONE), rounding=e.get("rounding", Rounding.NEAREST),
                    beta=e.get("beta", DEFAULT_BETA), rounding_named="rounding" in e, beta_named="beta" in e)


def _accuracy(raw) -> Fraction | None:
    """The file's ``accuracy: {mse: X}`` (checked by the Deployment)."""
    if raw is None:
        return None
    return _mapping("accuracy", raw, {"mse"}).get("mse")


def _overflow_target(name: str, value) -> Fraction:
    """A wrap target in ``[0, 1)``: 0 asks for a word that holds every value the sum can take (a mechanism of
    bounded support; never wraps, exactly)."""
    out = _number(name, value, low=0, high=1, closed=True)
    if out == 1:
        raise _ERR(f"{name}: must lie in [0, 1), not {excerpt(value)}")
    return out


def _overflow(raw) -> tuple:
    """The file's ``overflow:``, a probability or a mapping ``{probability, per}`` (checked by the Deployment)."""
    if raw is None:
        return Fraction(1, 10**6), Overflow.ROUND
    if isinstance(raw, dict):
        o = _mapping("overflow", raw, {"probability", "per"})
        if "probability" not in o:
            raise _ERR("overflow: a mapping needs probability (and optionally per: round or coordinate)")
        return _overflow_target("overflow.probability", o["probability"]), o.get("per", "round")
    return raw, Overflow.ROUND


def _gate(raw) -> Gate | None:
    if raw is None:
        return None
    g = _mapping("gate", raw, {"budget", "flag_rate"})
    return Gate(budget=g.get("budget", 100), flag_rate=g.get("flag_rate", 0))


def parse_deployment(raw, default_name: str = "deployment") -> Deployment:
    """A :class:`Deployment` from plain data (a YAML mapping already loaded): its form read here, its values
    checked by the :class:`Deployment` itself."""
    d = _mapping("deployment", raw, _KEYS)
    for key in ("clients", "dimension", "clip"):
        if key not in d:
            raise _ERR(f"{key}: missing (a deployment needs clients, dimension and clip)")
    if "sampling" in d and "population" not in d:
        raise _ERR("sampling: says how a round's clients are drawn from a population, and this deployment names "
                   "none: remove sampling or give population")
    privacy, noise = _privacy(d.get("privacy")), _noise(d.get("noise"))
    if "participation" in d and not (isinstance(d.get("privacy"), dict) and "rounds" in d["privacy"]):
        raise _ERR("participation: a schedule over the rounds needs privacy.rounds (T, the rounds it spans)")
    z = d["noise"].get("noise_multiplier") if isinstance(d.get("noise"), dict) else None
    matrix = parse_matrix(d.get("mechanism"), d.get("participation"), z)
    overflow, per = _overflow(d.get("overflow"))
    return Deployment(clients=d["clients"], dimension=d["dimension"], clip=d["clip"], dropout=d.get("dropout", 0),
                      adjacency=d.get("adjacency", "replace-one" if matrix is None else "add-remove"),
                      privacy=privacy, noise=noise, matrix=matrix,
                      encoding=_encoding(d.get("encoding")), overflow=overflow, overflow_per=per,
                      servers=d.get("servers"), gate=_gate(d.get("gate")), name=d.get("name", default_name),
                      accuracy=_accuracy(d.get("accuracy")), population=d.get("population"),
                      sampling=d.get("sampling", "poisson"), protocol=parse_protocol(d.get("protocol")))


def load_deployment(path: str | Path) -> Deployment:
    """Read a deployment file (YAML, within the safe loader's limits), or a shipped one by name (``k1000``).

    One line on any bad input (:class:`~itsa.exceptions.InvalidDeployment`).
    """
    path = resolve_deployment(path)
    return read_deployment(read_text(path, _ERR, max_bytes=MAX_BYTES), path)


def read_deployment(text: str, path: str | Path) -> Deployment:
    """A deployment from the text of its file at ``path``: named and with ``servers:`` found as
    :func:`load_deployment` does for that file (a plan fleet's workers get the text, not the file).

    >>> read_deployment("clients: 10\\ndimension: 4\\nclip: 1\\nnoise: {sigma: 2}\\n", "fleet/small.yaml").name
    'small'
    """
    path = Path(path)
    try:
        deployment = parse_deployment(load_yaml(text, _ERR), default_name=_default_name(path.stem))
    except InvalidDeployment as exc:
        raise InvalidDeployment(f"{path}: {exc}") from None
    servers = deployment.servers
    if servers is not None and not Path(servers).is_absolute() and _is_file(path.parent / servers):
        deployment = replace(deployment, servers=str(path.parent / servers))   # a path beside the deployment file
    return deployment


def _default_name(stem: str) -> str:
    """A file's stem as the deployment's name, when it is one (else ``deployment``)."""
    return stem if stem.strip() and stem.isprintable() and len(stem) <= MAX_NAME else "deployment"


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:              # a name too long for the file system: not a file beside the deployment
        return False
