"""A simulated deployment: what is run (:class:`SimulationSetup`) and what the run observed (:class:`Simulation`).

:func:`itsa.planning.run.simulate.simulate` runs a setup; every number of its
:class:`Simulation` is empirical (counted, or a float statistic) and says so,
beside the certified bound or the prediction it is compared with.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from itsa._util.certified import fraction_text, safe_decimal
from itsa._util.checks import choice, dropout_fraction, fraction, whole_number
from itsa._util.deadline import DEFAULT_TIME_LIMIT as LIBRARY_TIME_LIMIT
from itsa._util.display import Displayable
from itsa.exceptions import InvalidOption
from itsa.modular import check_radix, parse_stages
from itsa.planning.mechanisms import DEFAULT, Mechanism, mechanism
from itsa.planning.protocols.run import check_setup
from itsa.planning.rotation import Rotation, as_rotation, rotated_dimension
from itsa.planning.vocabulary import MAX_MODULUS, NoiseKind  # their home: below the run and the rule
from itsa.privacy.neighbours import DEFAULT_BETA, ExpBeta, Rounding, as_beta, conditional_rounding_cost
from itsa.privacy.shares import noise_shares, survivors_under

__all__ = ["SimulationSetup", "Simulation", "LayerRate", "Updates", "UPDATES", "TOLERANCE",
           "MAX_MODULUS", "MAX_CELLS", "NEIGHBOURS", "MIN_BLOCK", "CELLS_PER_SECOND", "MAX_SIGMA",
           "DEFAULT_TIME_LIMIT"]


#: Most client-coordinates of one block of a round encoded at once (:mod:`itsa.planning.run.shard`): a block of
#: :data:`MIN_BLOCK` clients bounds the words a client sends (memory: about a dozen arrays of the block's size).
MAX_CELLS = 8_000_000
#: Client-coordinates (per layer) simulated per second on one core, the fast end: measured 0.9-2.2 million (a
#: block of the cross-device deployment at d = 12,000 on a quiet core; K = 1000, d = 1290 on a busy one). A run
#: whose estimate at this rate is past its time limit is refused before any work; a longer run measures its
#: own rate on one block first (:mod:`itsa.planning.run.simulate`).
CELLS_PER_SECOND = 2_000_000
#: Pairwise masks per client on each side of the ring.
NEIGHBOURS = 4
#: Fewest clients in a block of a round (a ring of masks with every neighbour), unless the round has fewer.
MIN_BLOCK = NEIGHBOURS + 1
#: Largest σ simulated (int64 sums with room).
MAX_SIGMA = 10**12
#: Default time limit of a simulation (seconds): the library's one default (:mod:`itsa._util.deadline`).
DEFAULT_TIME_LIMIT = LIBRARY_TIME_LIMIT


class Updates:
    """The synthetic updates: on the clip sphere, or uniform integers (the digit law's uniform prior)."""

    SPHERE = "sphere"
    UNIFORM = "uniform"
    ALL = ("sphere", "uniform")


#: The updates a simulation can draw (a choice of the CLI).
UPDATES = Updates.ALL


@dataclass(frozen=True, kw_only=True)
class SimulationSetup:
    """One deployment to run: a flat sum modulo ``modulus``, or PSA's ``layers`` of radix-``radix`` digits.

    ``gamma`` is the scale (an update ``x`` encodes to ``round(γ x)``);
    ``sigma_client`` each client's discrete-Gaussian σ in integer units
    (digit units per layer for PSA; the one σ of the sum with
    ``noise="central"``); ``dropout`` the fraction that may drop out. PSA's
    ``stages`` (coarse to fine, as :func:`itsa.modular.parse_stages` gives
    them; default one per layer) each sum modulo ``radix^(width + margin)``,
    ``margin`` one number for every stage or one per stage.

    A flat word may rotate the update first (``rotation``: ``hadamard`` or
    ``dft``, :mod:`itsa.planning.rotation`; every client then sends
    ``rotated_dimension`` words) and round it ``stochastic`` or
    ``conditional`` (with ``beta``); ``mechanism`` is a registered mechanism's
    word (:mod:`itsa.planning.mechanisms`; shares of scale ``sigma_client``).
    """

    clients: int
    dimension: int
    clip: Fraction
    gamma: Fraction
    sigma_client: Fraction = Fraction(0)
    dropout: Fraction = Fraction(0)
    modulus: int | None = None
    radix: int | None = None
    layers: int | None = None
    margin: int | tuple[int, ...] | None = None
    stages: tuple[tuple[int, ...], ...] | None = None
    noise: str = NoiseKind.DISTRIBUTED
    rounding: str = Rounding.NEAREST
    #: the random rotation before rounding (a flat word): ``none``, ``hadamard`` or ``dft``
    rotation: str = Rotation.NONE
    #: ``β`` of conditional rounding (a rational, or ``exp(−λ)``: :func:`itsa.privacy.neighbours.as_beta`)
    beta: Fraction | ExpBeta = DEFAULT_BETA
    #: the noise: a registered mechanism's word (:data:`itsa.planning.mechanisms.Mechanism`)
    mechanism: str = DEFAULT
    #: the planned protocol run in each round (:mod:`itsa.planning.protocols.run`), or ``None``: a ring of masks
    protocol: Any = None

    def __post_init__(self):
        whole_number("clients", self.clients, minimum=1)
        whole_number("dimension", self.dimension, minimum=1)
        object.__setattr__(self, "rotation", str(as_rotation(self.rotation)))
        if min(self.clients, MIN_BLOCK) * self.rotated_dimension > MAX_CELLS:
            raise InvalidOption(f"dimension: at most {MAX_CELLS // MIN_BLOCK} words a client in a simulation (a "
                                f"block of {MIN_BLOCK} clients is encoded at once), not {self.rotated_dimension}")
        object.__setattr__(self, "clip", fraction("clip", self.clip, low=0))
        object.__setattr__(self, "gamma", fraction("gamma", self.gamma, low=0))
        object.__setattr__(self, "dropout", dropout_fraction(self.dropout))
        sigma = fraction("sigma_client", self.sigma_client, low=0, high=MAX_SIGMA, closed=True)
        if 0 < sigma < Fraction(1, 10**6):
            raise InvalidOption(f"sigma_client: 0 or at least 1e-6, not {fraction_text(sigma)}")
        object.__setattr__(self, "sigma_client", sigma)
        object.__setattr__(self, "noise", choice("noise", self.noise, tuple(NoiseKind)))
        object.__setattr__(self, "rounding", choice("rounding", self.rounding, tuple(Rounding)))
        object.__setattr__(self, "beta", as_beta(self.beta))
        object.__setattr__(self, "mechanism", str(choice("mechanism", self.mechanism, Mechanism)))
        mechanism(self.mechanism).check_simulated(sigma)
        self._check_encoding()
        check_setup(self.protocol, self.clients, self.moduli, self.dropout)

    def _check_encoding(self) -> None:
        layered = [x is not None for x in (self.radix, self.layers, self.margin)]
        if self.modulus is not None and (any(layered) or self.stages is not None):
            raise InvalidOption("encoding: give a modulus (flat) or radix, layers and margin (PSA), not both")
        if self.modulus is not None:
            whole_number("modulus", self.modulus, minimum=2, maximum=MAX_MODULUS)
            return
        if self.rotation != Rotation.NONE or self.rounding == Rounding.CONDITIONAL:
            raise InvalidOption("encoding: a PSA layering is simulated without a rotation and without conditional "
                                "rounding (they are for a flat word)")
        if not all(layered):
            raise InvalidOption("encoding: give a modulus (flat), or all of radix, layers and margin (PSA)")
        radix = check_radix(self.radix)
        layers = whole_number("layers", self.layers, minimum=1, maximum=38)
        spec = "each" if self.stages is None else "/".join(",".join(map(str, s)) for s in self.stages)
        stages = parse_stages(spec, layers)
        margins = tuple(self.margin) if isinstance(self.margin, (tuple, list)) else (self.margin,) * len(stages)
        if len(margins) != len(stages):
            raise InvalidOption(f"margin: one per stage ({len(stages)}), not {len(margins)}")
        checked: tuple[int, ...] = tuple(whole_number("margin", m, minimum=0) for m in margins)
        for stage, m in zip(stages, checked):
            if radix ** (len(stage) + m) > MAX_MODULUS:
                raise InvalidOption(f"margin: radix^(width + margin) must be at most 2^62, not {radix}^{len(stage) + m}")
        object.__setattr__(self, "stages", stages)
        object.__setattr__(self, "margin", checked)
        top = (radix ** layers - 1) // 2
        if self.largest_integer() > top:
            raise InvalidOption(f"gamma: gamma clip = {fraction_text(self.gamma * self.clip)} does not fit the "
                                f"{layers} layers of radix {radix} (at most {top} after rounding)")

    def largest_integer(self) -> int:
        """The largest ``|round(γ x)|`` for ``|x| <= clip`` under this rounding."""
        top = self.gamma * self.clip
        return math.ceil(top) if self.rounding == Rounding.STOCHASTIC else math.floor(top + Fraction(1, 2))

    def blocks(self) -> tuple[tuple[int, tuple[int, ...]], ...]:
        """Each summed symbol, finest first: ``(modulus, its layers ascending)`` (``((M, (1,)),)`` flat)."""
        if self.modulus is not None:
            return ((self.modulus, (1,)),)
        assert self.radix is not None and self.stages is not None and isinstance(self.margin, tuple)
        out = [(self.radix ** (len(s) + m), tuple(sorted(s))) for s, m in zip(self.stages, self.margin)]
        return tuple(reversed(out))

    @property
    def layered(self) -> bool:
        return self.modulus is None

    def beta_text(self) -> str:
        """``β`` as the deployment file writes it (``1/2``, ``exp(-1/2)``)."""
        return str(self.beta) if isinstance(self.beta, ExpBeta) else fraction_text(self.beta)

    @property
    def rotated_dimension(self) -> int:
        """``d'``: the words every client sends (the rotation's padded length; ``d`` without a rotation)."""
        return rotated_dimension(self.dimension, self.rotation)

    def digits(self) -> tuple[int, int]:
        """``(radix, layers)`` of a layered setup, ``(0, 1)`` of a flat one (one symbol)."""
        if self.radix is None or self.layers is None:
            return 0, 1
        return self.radix, self.layers

    @property
    def moduli(self) -> tuple[int, ...]:
        """The modulus of each stage, finest first (one for a flat sum)."""
        return tuple(m for m, _ in self.blocks())

    @property
    def survivors(self) -> int:
        """The fewest clients left when the most drop out."""
        return survivors_under(self.clients, self.dropout)

    @property
    def noise_shares(self) -> int:
        """How many noise draws the simulated sum carries: the fewest survivors' shares (its round drops the most
        clients the dropout allows), or one (central) (:func:`itsa.privacy.noise_shares`)."""
        return noise_shares(self.clients, self.dropout, distributed=self.noise == NoiseKind.DISTRIBUTED).privacy

    def describe(self) -> str:
        if self.layered:
            stages = "; ".join(f"layers {','.join(map(str, reversed(ls)))} modulo {m}" for m, ls in reversed(self.blocks()))
            enc = f"PSA radix {self.radix}, {self.layers} layers: {stages}"
        else:
            enc = f"flat modulus {self.modulus}"
        who = "per client" if self.noise == NoiseKind.DISTRIBUTED else "once (central)"
        masks = "" if self.protocol is None else f", masked by {self.protocol.describe()}"
        rotation = "" if self.rotation == Rotation.NONE else f"{self.rotation} rotation to d' = {self.rotated_dimension}, "
        beta = f" at beta = {self.beta_text()}" if self.rounding == Rounding.CONDITIONAL else ""
        noise = mechanism(self.mechanism).title
        return (f"K = {self.clients} (survivors {self.survivors}), d = {self.dimension}, clip "
                f"{fraction_text(self.clip)}, gamma {fraction_text(self.gamma)} ({rotation}{self.rounding} "
                f"rounding{beta}), {noise} sigma {safe_decimal(self.sigma_client, 8)} {who}, {enc}{masks}")

    def to_dict(self) -> dict:
        return {"clients": self.clients, "survivors": self.survivors, "dropout": fraction_text(self.dropout),
                "dimension": self.dimension, "clip": fraction_text(self.clip), "gamma": fraction_text(self.gamma),
                "rounding": self.rounding, "sigma_client": fraction_text(self.sigma_client), "noise": self.noise,
                "rotation": self.rotation, "rotated_dimension": self.rotated_dimension, "mechanism": self.mechanism,
                "beta": self.beta_text() if self.rounding == Rounding.CONDITIONAL else None,
                "modulus": None if self.modulus is None else str(self.modulus), "radix": self.radix,
                "layers": self.layers,
                "stages": None if not self.layered else [{"layers": list(reversed(ls)), "modulus": str(m)}
                                                         for m, ls in reversed(self.blocks())],
                "protocol": None if self.protocol is None else self.protocol.describe()}


#: Standard errors an empirical rate may lie above its certified bound and still be called consistent.
TOLERANCE = 4


@dataclass(frozen=True)
class LayerRate:
    """Wraps (carries) counted on one summed symbol (``layer``: the stage's index, finest first; 1 flat):
    ``wraps`` of ``trials`` coordinates, ``rounds_hit`` of the rounds."""

    layer: int
    modulus: int
    wraps: int
    trials: int
    rounds_hit: int
    rounds: int
    certified: Fraction | None = None
    #: what the bound assumes (a layering's: the digit prior), None for a premise-free bound
    premise: str | None = None

    @property
    def rate(self) -> Fraction:
        return Fraction(self.wraps, self.trials)

    @property
    def standard_error(self) -> Fraction:
        """``√(p̂(1−p̂)/n)`` as the rational of its float (the wraps counted as Bin(n, p); coordinates counted as independent)."""
        p = self.rate
        return Fraction(math.sqrt(float(p * (1 - p)) / self.trials))

    @property
    def consistent(self) -> bool | None:
        """The empirical rate is at most the certified bound plus :data:`TOLERANCE` standard errors (``None``
        without one)."""
        if self.certified is None:
            return None
        return self.rate <= self.certified + TOLERANCE * self.standard_error

    def text(self) -> str:
        out = (f"{self.wraps}/{self.trials} = {safe_decimal(self.rate, 4)} +- "
               f"{safe_decimal(self.standard_error, 2)} (empirical); {self.rounds_hit}/{self.rounds} rounds")
        if self.certified is not None:
            kind = "certified" if self.premise is None else "bound under the digit prior"
            out += f"; {kind} <= {safe_decimal(self.certified, 4)} ({'consistent' if self.consistent else 'EXCEEDED'})"
        return out

    def to_dict(self) -> dict:
        return {"stage": self.layer, "modulus": self.modulus, "wraps": self.wraps, "trials": self.trials,
                "rate": fraction_text(self.rate), "rate_decimal": safe_decimal(self.rate, 6),
                "standard_error": safe_decimal(self.standard_error, 4), "rounds_hit": self.rounds_hit,
                "rounds": self.rounds, "certified": None if self.certified is None else fraction_text(self.certified),
                "certified_decimal": None if self.certified is None else safe_decimal(self.certified, 6, up=True),
                "consistent": self.consistent, "premise": self.premise}


@dataclass(frozen=True, kw_only=True, repr=False)
class Simulation(Displayable):
    """What a run of the deployment showed: wrap rates, exact recovery, error, and what the servers saw."""

    setup: SimulationSetup
    rounds: int
    seed: int
    updates: str
    layers: tuple[LayerRate, ...]
    resolutions: tuple[tuple[int, int, int], ...]     # (l0, coordinates decoded wrong, coordinates a carry touched)
    exact_recovery: bool
    mse: Fraction
    mse_standard_error: Fraction
    predicted_mse: Fraction
    planned_mse: Fraction
    masks_cancel: bool
    uniformity: tuple[float, int, float] | None        # (chi-square statistic, degrees of freedom, p-value)
    seconds: float = field(compare=False)
    #: the run's estimated seconds, said before it started (``None``: not estimated)
    estimate: float | None = field(default=None, compare=False)
    #: the Dask workers the rounds were sharded over (1: this process)
    workers: int = field(default=1, compare=False)
    #: what the planned protocol did in the rounds (``None``: the generic ring of masks)
    protocol: Any = None
    #: conditional rounding: ``(attempts, updates)``, the stochastic roundings drawn and the client updates
    #: they rounded (counted); ``None`` for another rounding
    attempts: tuple[int, int] | None = None
    #: the rounds in which no word wrapped: ``(count, MSE, its standard error)`` over them (the plan's error bound
    #: is stated for such a round); ``None`` when every round wrapped
    unwrapped: tuple[int, Fraction, Fraction] | None = None

    @property
    def attempts_bound(self) -> Fraction | None:
        """``1/(1 − β)``: the most attempts a conditional rounding takes on average (an upper bound, exact for a
        rational ``β``: :func:`itsa.privacy.neighbours.conditional_rounding_cost`; ``None`` without one)."""
        return None if self.attempts is None else conditional_rounding_cost(self.setup.beta)[0]

    def headline(self) -> str:
        worst = max(self.layers, key=lambda r: r.rate)
        return (f"{self.rounds} rounds: wrap {safe_decimal(worst.rate, 3)} per coordinate (empirical), exact recovery "
                f"{'held' if self.exact_recovery else 'FAILED'}, masks {'cancel' if self.masks_cancel else 'FAIL'}")

    def rows(self) -> list[tuple[str, str]]:
        rows = [("setup", self.setup.describe()), ("rounds, seed, updates", f"{self.rounds}, {self.seed}, {self.updates}")]
        blocks = self.setup.blocks()
        for r, (_, ls) in zip(self.layers, blocks):
            where = ",".join(map(str, reversed(ls)))
            rows.append(("wrap" if len(self.layers) == 1 else f"carry, stage of layers {where}", r.text()))
        for l0, wrong, touched in self.resolutions:
            rows.append((f"decode from layer {l0} up", f"{wrong} coordinates wrong, {touched} touched by a carry"))
        rows += [("exact recovery where no carry", "held" if self.exact_recovery else "FAILED"),
                 ("error of the released mean (MSE)", f"{safe_decimal(self.mse, 4)} +- "
                  f"{safe_decimal(self.mse_standard_error, 2)} (empirical, every round)"),
                 ("error where no wrap (MSE)", self._unwrapped_text()),
                 ("predicted MSE", f"{safe_decimal(self.predicted_mse, 4)} ({self._predicted_how()})"),
                 ("planned MSE", f"{safe_decimal(self.planned_mse, 4)} (the plan's upper bound, per coordinate)"),
                 ("masks", "cancel: the servers decoded the survivors' sum and nothing else" if self.masks_cancel
                  else "DO NOT CANCEL")]
        if self.attempts is not None:
            tries, updates = self.attempts
            rows.append(("conditional rounding", f"{tries}/{updates} = {safe_decimal(Fraction(tries, updates), 4)} "
                         f"attempts per client update (empirical); at most 1/(1 - beta) = "
                         f"{safe_decimal(conditional_rounding_cost(self.setup.beta)[0], 4, up=True)} on average "
                         f"(bound, beta = {self.setup.beta_text()})"))
        if self.uniformity is not None:
            stat, dof, p = self.uniformity
            rows.append(("a masked upload", f"chi-square {stat:.1f} on {dof} degrees of freedom, p = {p:.3g} "
                         "(uniform if p is not tiny; a float test)"))
        if self.protocol is not None:
            rows += self.protocol.rows()
        said = "" if self.estimate is None else f"; estimated {self.estimate:.1f} s before it started"
        where = "this process" if self.workers == 1 else f"{self.workers} Dask workers"
        return rows + [("time", f"{self.seconds:.1f} s on {where}{said}")]

    def to_dict(self) -> dict:
        return {"setup": self.setup.to_dict(),
                "rounds": self.rounds, "seed": self.seed, "updates": self.updates,
                "wrap": [r.to_dict() | {"layers": list(reversed(ls))}
                         for r, (_, ls) in zip(self.layers, self.setup.blocks())],
                "resolutions": [{"from_layer": a, "wrong": b, "touched_by_carry": c} for a, b, c in self.resolutions],
                "exact_recovery": self.exact_recovery,
                "error": {"mse": safe_decimal(self.mse, 6), "standard_error": safe_decimal(self.mse_standard_error, 4),
                          "predicted": safe_decimal(self.predicted_mse, 6), "planned": safe_decimal(self.planned_mse, 6),
                          "kind": "empirical (float)",
                          "unwrapped": None if self.unwrapped is None else {
                              "rounds": self.unwrapped[0], "wrapped_rounds": self.rounds - self.unwrapped[0],
                              "mse": safe_decimal(self.unwrapped[1], 6),
                              "standard_error": safe_decimal(self.unwrapped[2], 4), "kind": "empirical (float)"}},
                "masks_cancel": self.masks_cancel,
                "uniformity": None if self.uniformity is None else
                {"chi_square": f"{self.uniformity[0]:.4g}", "degrees_of_freedom": self.uniformity[1],
                 "p_value": f"{self.uniformity[2]:.3g}", "kind": "chi-square test of one masked upload (float)"},
                "protocol": None if self.protocol is None else self.protocol.to_dict(),
                "conditional_rounding": None if self.attempts is None else
                {"attempts": self.attempts[0], "updates": self.attempts[1],
                 "mean": safe_decimal(Fraction(*self.attempts), 6), "kind": "empirical (counted)",
                 "bound": fraction_text(self.attempts_bound), "bound_kind": "1/(1 - beta): upper bound"},
                "seconds": round(self.seconds, 3), "workers": self.workers,
                "estimate": None if self.estimate is None else {"seconds": round(self.estimate, 1),
                                                                "kind": "an estimate, said before the run"}}

    def _unwrapped_text(self) -> str:
        """The MSE over the rounds that did not wrap, beside their count (the plan's bound is for those)."""
        if self.unwrapped is None:
            return f"none: all {self.rounds} rounds wrapped"
        count, mse, se = self.unwrapped
        return (f"{safe_decimal(mse, 4)} +- {safe_decimal(se, 2)} (empirical) over the {count} of {self.rounds} "
                f"rounds that did not wrap ({self.rounds - count} wrapped): what the planned MSE bounds")

    def _predicted_how(self) -> str:
        s = self.setup
        noise = mechanism(s.mechanism).simulated_variance_how(distributed=s.noise == NoiseKind.DISTRIBUTED)
        rounding = ("this rounding" if s.rounding != Rounding.CONDITIONAL
                    else "the stochastic rounding's variance, the retries' conditioning left out")
        where = "" if s.rotation == Rotation.NONE else f", through the {s.rotation} rotation and back"
        return f"for these updates and {rounding}{where}, with {noise}"
