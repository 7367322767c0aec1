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
from dataclasses import dataclass, replace
from enum import StrEnum
from fractions import Fraction
from pathlib import Path

from itsa._util.checks import choice, fraction, whole_number
from itsa._util.display import Displayable
from itsa._util.files import read_text
from itsa._util.plain import frac
from itsa._util.safe_yaml import load_yaml
from itsa.exceptions import InvalidDeployment, InvalidOption, excerpt
from itsa.privacy.neighbours import Adjacency  # its home is the privacy part; re-exported here

__all__ = ["Adjacency", "NoiseKind", "Overflow", "Noise", "Encoding", "Privacy", "Gate", "Deployment",
           "parse_deployment", "load_deployment", "DEFAULT_DELTA", "MAX_CLIENTS", "MAX_DIMENSION", "MAX_WORD_BITS"]

#: δ when the file gives none (the privacy part's default).
DEFAULT_DELTA = Fraction(1, 10**5)
#: Most clients in a round a deployment may name.
MAX_CLIENTS = 10**8
#: Largest dimension a deployment may name.
MAX_DIMENSION = 10**9
#: Widest word (bits) of a flat modular sum.
MAX_WORD_BITS = 256
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


def survivors_under(clients: int, dropout) -> int:
    """The fewest clients left when a fraction ``dropout`` may drop out: ``K − ⌊dropout·K⌋`` (at least 1).

    >>> survivors_under(1000, "1/10")
    900
    """
    whole_number("clients", clients, minimum=1)
    q = fraction("dropout", dropout, low=0, high=1, closed=True)
    if q == 1:
        raise InvalidOption("dropout: must be below 1 (some client must remain), not 1")
    return max(1, clients - math.floor(q * clients))


class NoiseKind(StrEnum):
    """Who adds the discrete Gaussian noise."""

    DISTRIBUTED = "distributed"     # every client adds a share; privacy counts the fewest survivors' shares
    CENTRAL = "central"             # added once, to the sum


class Overflow(StrEnum):
    """What the overflow target bounds."""

    ROUND = "round"                 # any coordinate (and any layer) of a round's sum wraps
    COORDINATE = "coordinate"       # one coordinate of one layer wraps


@dataclass(frozen=True)
class Privacy:
    """The target ``(ε, δ)`` over ``rounds`` rounds (``epsilon`` None: only computed, from a given noise)."""

    epsilon: Fraction | None
    delta: Fraction
    rounds: int


@dataclass(frozen=True)
class Noise:
    """Who adds the noise and, optionally, its per-client σ in integer units (None: calibrated)."""

    kind: NoiseKind
    sigma: Fraction | None = None


@dataclass(frozen=True)
class Encoding:
    """A flat word (``word_bits``) or a PSA layering (``radix``, ``layers``, ``stages``); ``gamma`` optional."""

    word_bits: int | None = None
    gamma: Fraction | None = None
    radix: int | None = None
    layers: int | None = None
    stages: str | None = None

    @property
    def layered(self) -> bool:
        return self.radix is not None


@dataclass(frozen=True)
class Gate:
    """The admission gate: a trust budget of ``budget`` points, one lost per flagged round."""

    budget: int
    flag_rate: Fraction


@dataclass(frozen=True, repr=False)
class Deployment(Displayable):
    """One secure aggregation to size: its clients, data bound, privacy target, noise, encoding, keys."""

    clients: int
    dimension: int
    clip: Fraction
    dropout: Fraction = Fraction(0)
    adjacency: Adjacency = Adjacency.REPLACE_ONE
    privacy: Privacy = Privacy(None, DEFAULT_DELTA, 1)
    noise: Noise = Noise(NoiseKind.DISTRIBUTED)
    encoding: Encoding = Encoding()
    overflow: Fraction = Fraction(1, 10**6)
    overflow_per: Overflow = Overflow.ROUND
    servers: str | None = None
    gate: Gate | None = None
    name: str = "deployment"

    @property
    def survivors(self) -> int:
        """The fewest clients whose updates (and noise shares) arrive: ``⌈(1 − dropout) K⌉`` (:func:`survivors_under`)."""
        return survivors_under(self.clients, self.dropout)

    def headline(self) -> str:
        return (f"{self.name}: K = {self.clients} (at least {self.survivors} survive), d = {self.dimension}, "
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
                    else {"word_bits": e.word_bits})
        return {"name": self.name, "clients": self.clients, "survivors": self.survivors, "dropout": frac(self.dropout),
                "dimension": self.dimension, "clip": frac(self.clip), "adjacency": str(self.adjacency),
                "privacy": {"epsilon": frac(p.epsilon), "delta": frac(p.delta), "rounds": p.rounds},
                "noise": {"kind": str(self.noise.kind), "sigma": frac(self.noise.sigma)},
                "encoding": {**encoding, "gamma": frac(e.gamma)},
                "overflow": {"probability": frac(self.overflow), "per": str(self.overflow_per)},
                "servers": self.servers,
                "gate": None if self.gate is None else {"budget": self.gate.budget,
                                                        "flag_rate": frac(self.gate.flag_rate)}}


_KEYS = {"name", "clients", "dropout", "dimension", "clip", "adjacency", "privacy", "noise", "encoding", "overflow",
         "servers", "gate"}


def _mapping(name: str, value, keys: set[str]) -> dict:
    if not isinstance(value, dict):
        raise _ERR(f"{name}: must be a mapping, not {excerpt(value)}")
    extra = sorted(set(map(str, value)) - keys)
    if extra:
        raise _ERR(f"{name}: unknown key {extra[0]!r} (known: {', '.join(sorted(keys))})")
    return value


def _number(name: str, value, **bounds) -> Fraction:
    out = fraction(name, value, error=_ERR, **bounds)
    if max(abs(out.numerator), out.denominator) >= 10**MAX_DIGITS:
        raise _ERR(f"{name}: must be a fraction of at most {MAX_DIGITS}-digit whole numbers, not {excerpt(value)}")
    return out


def _privacy(raw) -> Privacy:
    if raw is None:
        return Privacy(None, DEFAULT_DELTA, 1)
    p = _mapping("privacy", raw, {"epsilon", "delta", "rounds"})
    epsilon = None if p.get("epsilon") is None else _number("privacy.epsilon", p["epsilon"], low=0)
    delta = _number("privacy.delta", p.get("delta", DEFAULT_DELTA), low=0, high=1)
    rounds = whole_number("privacy.rounds", p.get("rounds", 1), minimum=1, maximum=MAX_ROUNDS, error=_ERR)
    return Privacy(epsilon, delta, rounds)


def _noise(raw) -> Noise:
    if raw is None or isinstance(raw, str):
        return Noise(choice("noise", raw or "distributed", NoiseKind, error=_ERR))
    n = _mapping("noise", raw, {"kind", "sigma"})
    kind = choice("noise.kind", n.get("kind", "distributed"), NoiseKind, error=_ERR)
    sigma = None if n.get("sigma") is None else _number("noise.sigma", n["sigma"], low=0)
    if sigma is not None and kind is NoiseKind.DISTRIBUTED and sigma < Fraction(1, 2):
        raise _ERR(f"noise.sigma: a distributed share needs sigma >= 1/2 (the tau term), not {frac(sigma)}")
    return Noise(kind, sigma)


def _encoding(raw) -> Encoding:
    if raw is None:
        return Encoding()
    e = _mapping("encoding", raw, {"word_bits", "gamma", "radix", "layers", "stages"})
    gamma = None if e.get("gamma") is None else _number("encoding.gamma", e["gamma"], low=0)
    if e.get("radix") is None:
        if e.get("layers") is not None or e.get("stages") is not None:
            raise _ERR("encoding: layers and stages need a radix (a PSA layering)")
        bits = None if e.get("word_bits") is None else whole_number("encoding.word_bits", e["word_bits"], minimum=2,
                                                                    maximum=MAX_WORD_BITS, error=_ERR)
        return Encoding(word_bits=bits, gamma=gamma)
    if e.get("word_bits") is not None:
        raise _ERR("encoding: give word_bits (a flat word) or radix (a PSA layering), not both")
    radix = whole_number("encoding.radix", e["radix"], minimum=3, maximum=101, error=_ERR)
    if radix % 2 == 0:
        raise _ERR(f"encoding.radix: must be odd (balanced digits), not {radix}")
    layers = whole_number("encoding.layers", e.get("layers", 4), minimum=1, maximum=64, error=_ERR)
    stages = e.get("stages", "each")
    if not isinstance(stages, str):
        raise _ERR(f"encoding.stages: must be a text such as '4,3/2,1' or 'each', not {excerpt(stages)}")
    from itsa.modular import parse_stages

    try:
        parse_stages(stages, layers)
    except ValueError as exc:
        raise _ERR(f"encoding.{exc}") from None
    return Encoding(gamma=gamma, radix=radix, layers=layers, stages=stages)


def _overflow(raw) -> tuple[Fraction, Overflow]:
    if raw is None:
        return Fraction(1, 10**6), Overflow.ROUND
    if isinstance(raw, dict):
        o = _mapping("overflow", raw, {"probability", "per"})
        if "probability" not in o:
            raise _ERR("overflow: a mapping needs probability (and optionally per: round or coordinate)")
        return (_number("overflow.probability", o["probability"], low=0, high=1),
                choice("overflow.per", o.get("per", "round"), Overflow, error=_ERR))
    return _number("overflow", raw, low=0, high=1), Overflow.ROUND


def _gate(raw) -> Gate | None:
    if raw is None:
        return None
    g = _mapping("gate", raw, {"budget", "flag_rate"})
    budget = whole_number("gate.budget", g.get("budget", 100), minimum=1, maximum=10**6, error=_ERR)
    rate = _number("gate.flag_rate", g.get("flag_rate", 0), low=0, high=1, closed=True)
    return Gate(budget, rate)


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
    value = _number("dropout", raw, low=0, high=1, closed=True)
    if value == 1:
        raise _ERR("dropout: must lie in [0, 1) (with every client dropped nothing is aggregated), not 1")
    return value


def parse_deployment(raw, default_name: str = "deployment") -> Deployment:
    """A :class:`Deployment` from plain data (a YAML mapping already loaded), every field checked."""
    d = _mapping("deployment", raw, _KEYS)
    for key in ("clients", "dimension", "clip"):
        if key not in d:
            raise _ERR(f"{key}: missing (a deployment needs clients, dimension and clip)")
    clients = whole_number("clients", d["clients"], minimum=1, maximum=MAX_CLIENTS, error=_ERR)
    privacy, noise = _privacy(d.get("privacy")), _noise(d.get("noise"))
    if privacy.epsilon is None and noise.sigma is None:
        raise _ERR("privacy.epsilon: missing (give a target epsilon, or the noise's sigma to compute epsilon for)")
    overflow, per = _overflow(d.get("overflow"))
    name = _name(d["name"]) if "name" in d else default_name
    clip, encoding = _clip(d["clip"]), _encoding(d.get("encoding"))
    _check_digits(clip, encoding)
    return Deployment(clients=clients,
                      dimension=whole_number("dimension", d["dimension"], minimum=1, maximum=MAX_DIMENSION, error=_ERR),
                      clip=clip,
                      dropout=_dropout(d.get("dropout", 0)),
                      adjacency=choice("adjacency", d.get("adjacency", "replace-one"), Adjacency, error=_ERR),
                      privacy=privacy, noise=noise, encoding=encoding, overflow=overflow,
                      overflow_per=per, servers=_servers(d.get("servers")), gate=_gate(d.get("gate")), name=name)


def load_deployment(path: str | Path) -> Deployment:
    """Read a deployment file (YAML, within the safe loader's limits), or a shipped one by name (``k1000``).

    One line on any bad input (:class:`~itsa.exceptions.InvalidDeployment`).
    """
    from itsa.keys.examples import resolve_deployment

    path = resolve_deployment(path)
    text = read_text(path, _ERR, max_bytes=MAX_BYTES)
    try:
        deployment = parse_deployment(load_yaml(text, _ERR), default_name=path.stem)
    except InvalidDeployment as exc:
        raise InvalidDeployment(f"{path}: {exc}") from None
    servers = deployment.servers
    if servers is not None and not Path(servers).is_absolute() and _is_file(path.parent / servers):
        deployment = replace(deployment, servers=str(path.parent / servers))   # a path beside the deployment file
    return deployment


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:              # a name too long for the file system: not a file beside the deployment
        return False
