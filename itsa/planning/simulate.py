"""The planned deployment, run: encode, noise, mask, drop out, sum modulo M, unmask, decode, and check.

:func:`simulate` runs a :class:`SimulationSetup` for a number of rounds on
synthetic updates, vectorised with numpy and deterministic for a seed:

1. each client draws an update: on the ℓ2 sphere of radius ``clip`` (the
   largest updates the clip allows; ``updates="sphere"``), or, to check the
   digit laws, integers uniform in ``[−A, A]``, ``A = ⌊clip/γ⌋``, scaled by
   ``γ`` (``updates="uniform"``: the product domain, each coordinate at most
   ``clip``);
2. it encodes it: scale ``1/γ`` and unbiased stochastic rounding to the
   integers, then, with ``radix`` and ``layers``, PSA's balanced digits, one
   symbol per layer;
3. it adds its discrete Gaussian share ``N_Z(0, σ²)`` per coordinate (and per
   layer, in digit units), drawn by :mod:`itsa.privacy.sampler`'s table engine
   from a seed text derived from ``seed`` and the round;
4. it masks its input modulo ``M``: pairwise masks on a ring (client ``i``
   shares a uniform mask with each of its next ``w`` neighbours, added by one
   and subtracted by the other), so the masks cancel in the sum;
5. ``⌊dropout·K⌋`` clients (the most the setup allows) drop out after the
   masks are agreed; the servers sum the survivors' uploads modulo ``M``,
   remove the masks of the pairs with a dropped member (from those pairs'
   masks alone), reduce into the centred window and decode every
   resolution ``ℓ0 = 1..L`` (``Σ_(ℓ≥ℓ0) ρ^(ℓ−1) S_ℓ``).

The :class:`Simulation` reports the empirical wrap (carry, per layer) rates
with their standard errors beside certified ones passed in, whether every
decode was exact wherever no carry touched it, the empirical error of the
released mean against its prediction, and that the masks cancelled and a
masked upload looks uniform (a chi-square test).

Examples
--------
>>> s = SimulationSetup(clients=20, dimension=8, clip=1, gamma="1/4", sigma_client=1, modulus=2**10)
>>> a = simulate(s, rounds=2, seed=7)
>>> a.exact_recovery, a.masks_cancel, a == simulate(s, rounds=2, seed=7)
(True, True, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from itsa._util.certified import Certified, fraction_text, safe_decimal
from itsa._util.checks import choice, fraction, whole_number
from itsa._util.deadline import Deadline
from itsa._util.display import Displayable
from itsa._util.progress import Callback, Reporter
from itsa.exceptions import InvalidOption

__all__ = ["SimulationSetup", "Simulation", "LayerRate", "simulate", "setup_from_plan", "Updates",
           "estimate_seconds", "MAX_MODULUS", "MAX_CELLS", "NEIGHBOURS", "CELLS_PER_SECOND"]

#: Largest modulus (int64 arithmetic with room for one addition).
MAX_MODULUS = 2**62
#: Most client-coordinates of one round (memory: about ten int64 arrays of this size, 320 MB at the limit).
MAX_CELLS = 4_000_000
#: Client-coordinates (per layer) simulated per second, measured on one core at K = 1000, d = 1290 with
#: noise (0.3-0.7 million; most of it drawing the noise from the sampler's byte stream). A run whose estimate
#: at the fast end is past its time limit is refused before it starts.
CELLS_PER_SECOND = 600_000
#: Pairwise masks per client on each side of the ring.
NEIGHBOURS = 4
#: Default time limit of a simulation (seconds).
DEFAULT_TIME_LIMIT = 300.0


class Updates:
    """The synthetic updates: on the clip sphere, or uniform integers (the digit law's uniform prior)."""

    SPHERE = "sphere"
    UNIFORM = "uniform"
    ALL = ("sphere", "uniform")


@dataclass(frozen=True, kw_only=True)
class SimulationSetup:
    """One deployment to run: a flat sum modulo ``modulus``, or PSA's ``layers`` of radix-``radix`` digits.

    ``sigma_client`` is each client's discrete-Gaussian σ in integer units
    (digit units per layer for PSA); ``dropout`` the fraction that may drop
    out; PSA's layer modulus is ``radix^(1 + margin)``.
    """

    clients: int
    dimension: int
    clip: Fraction
    gamma: Fraction
    sigma_client: int = 0
    dropout: Fraction = Fraction(0)
    modulus: int | None = None
    radix: int | None = None
    layers: int | None = None
    margin: int | None = None

    def __post_init__(self):
        whole_number("clients", self.clients, minimum=1)
        whole_number("dimension", self.dimension, minimum=1)
        if self.clients * self.dimension > MAX_CELLS:
            raise InvalidOption(f"clients x dimension: at most {MAX_CELLS} per round in a simulation, "
                                f"not {self.clients} x {self.dimension}")
        object.__setattr__(self, "clip", fraction("clip", self.clip, low=0))
        object.__setattr__(self, "gamma", fraction("gamma", self.gamma, low=0))
        object.__setattr__(self, "dropout", fraction("dropout", self.dropout, low=0, high=1, closed=True))
        if self.dropout == 1:
            raise InvalidOption("dropout: must be below 1 (some client must remain), not 1")
        whole_number("sigma_client", self.sigma_client, minimum=0, maximum=10**6)
        self._check_encoding()

    def _check_encoding(self) -> None:
        layered = [x is not None for x in (self.radix, self.layers, self.margin)]
        if self.modulus is not None and any(layered):
            raise InvalidOption("encoding: give a modulus (flat) or radix, layers and margin (PSA), not both")
        if self.modulus is not None:
            whole_number("modulus", self.modulus, minimum=2, maximum=MAX_MODULUS)
            return
        if not all(layered):
            raise InvalidOption("encoding: give a modulus (flat), or all of radix, layers and margin (PSA)")
        from itsa.modular import check_radix

        radix = check_radix(self.radix)
        layers = whole_number("layers", self.layers, minimum=1, maximum=38)
        margin = whole_number("margin", self.margin, minimum=0)
        if radix ** (1 + margin) > MAX_MODULUS:
            raise InvalidOption(f"margin: radix^(1 + margin) must be at most 2^62, not {radix}^{1 + margin}")
        top = (radix ** layers - 1) // 2
        if math.ceil(self.clip / self.gamma) > top:
            raise InvalidOption(f"gamma: clip/gamma = {fraction_text(self.clip / self.gamma)} does not fit the "
                                f"{layers} layers of radix {radix} (at most {top} after rounding up)")

    def digits(self) -> tuple[int, int, int]:
        """``(radix, layers, margin)`` of a layered setup (``(0, 1, 0)`` for a flat one: one layer)."""
        if self.radix is None or self.layers is None or self.margin is None:
            return 0, 1, 0
        return self.radix, self.layers, self.margin

    @property
    def layered(self) -> bool:
        return self.modulus is None

    @property
    def moduli(self) -> tuple[int, ...]:
        """The modulus of each layer (one for a flat sum)."""
        if self.modulus is not None:
            return (self.modulus,)
        radix, layers, margin = self.digits()
        return (radix ** (1 + margin),) * layers

    @property
    def survivors(self) -> int:
        return self.clients - math.floor(self.dropout * self.clients)

    def describe(self) -> str:
        enc = (f"flat modulus {self.modulus}" if not self.layered else
               f"PSA radix {self.radix}, {self.layers} layers, margin {self.margin} (modulus {self.moduli[0]})")
        return (f"K = {self.clients} (survivors {self.survivors}), d = {self.dimension}, clip "
                f"{fraction_text(self.clip)}, gamma {fraction_text(self.gamma)}, sigma {self.sigma_client}, {enc}")


#: What :func:`setup_from_plan` reads from a plan, and where (the plan itself, then its parts).
PLAN_ATTRIBUTES = ("clients", "dropout", "dimension", "clip", "gamma", "sigma_client", "modulus", "radix",
                   "layers", "margin")
PLAN_PARTS = ("deployment", "noise", "encoding")


def setup_from_plan(plan) -> SimulationSetup:
    """The :class:`SimulationSetup` of a plan.

    It reads ``clients``, ``dropout``, ``dimension``, ``clip``, ``gamma``,
    ``sigma_client`` and either ``modulus`` or ``radix``, ``layers`` and
    ``margin``, each as an attribute (or mapping key) of the plan itself or,
    failing that, of its ``deployment``, ``noise`` or ``encoding`` part.
    A ``sigma_client`` that is not a whole number is refused (the simulation
    draws integer-σ discrete Gaussians).
    """
    found = {}
    for name in PLAN_ATTRIBUTES:
        for owner in (plan, *(_get(plan, part) for part in PLAN_PARTS)):
            value = _get(owner, name)
            if value is not None:
                found[name] = value
                break
    missing = [n for n in ("clients", "dimension", "clip", "gamma") if n not in found]
    if missing:
        raise InvalidOption(f"plan: has no {', '.join(missing)} to simulate")
    sigma = Fraction(found.get("sigma_client", 0))
    if sigma.denominator != 1:
        raise InvalidOption(f"plan: sigma_client {fraction_text(sigma)} is not a whole number (the simulation "
                            "draws integer-sigma discrete Gaussians)")
    found["sigma_client"] = int(sigma)
    if found.get("modulus") is not None:
        for name in ("radix", "layers", "margin"):
            found.pop(name, None)
    return SimulationSetup(**found)


def _get(owner, name):
    if owner is None:
        return None
    if isinstance(owner, dict):
        return owner.get(name)
    return getattr(owner, name, None)


@dataclass(frozen=True)
class LayerRate:
    """Wraps (carries) counted on one layer: ``wraps`` of ``trials`` coordinates, ``rounds_hit`` of the rounds."""

    layer: int
    modulus: int
    wraps: int
    trials: int
    rounds_hit: int
    rounds: int
    certified: Fraction | None = None

    @property
    def rate(self) -> Fraction:
        return Fraction(self.wraps, self.trials)

    @property
    def standard_error(self) -> Fraction:
        """``√(p̂(1−p̂)/n)`` as the rational of its float (binomial; coordinates counted as independent)."""
        p = self.rate
        return Fraction(math.sqrt(float(p * (1 - p)) / self.trials))

    @property
    def consistent(self) -> bool | None:
        """The empirical rate is within three standard errors below the certified bound (``None`` without one)."""
        if self.certified is None:
            return None
        return self.rate <= self.certified + 3 * self.standard_error

    def text(self) -> str:
        out = (f"{self.wraps}/{self.trials} = {safe_decimal(self.rate, 4)} +- "
               f"{safe_decimal(self.standard_error, 2)} (empirical); {self.rounds_hit}/{self.rounds} rounds")
        if self.certified is not None:
            out += f"; certified <= {safe_decimal(self.certified, 4)} ({'consistent' if self.consistent else 'EXCEEDED'})"
        return out

    def to_dict(self) -> dict:
        return {"layer": self.layer, "modulus": self.modulus, "wraps": self.wraps, "trials": self.trials,
                "rate": fraction_text(self.rate), "rate_decimal": safe_decimal(self.rate, 6),
                "standard_error": safe_decimal(self.standard_error, 4), "rounds_hit": self.rounds_hit,
                "rounds": self.rounds, "certified": None if self.certified is None else fraction_text(self.certified),
                "consistent": self.consistent}


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

    def headline(self) -> str:
        worst = max(self.layers, key=lambda r: r.rate)
        return (f"{self.rounds} rounds: wrap {safe_decimal(worst.rate, 3)} per coordinate (empirical), exact recovery "
                f"{'held' if self.exact_recovery else 'FAILED'}, masks {'cancel' if self.masks_cancel else 'FAIL'}")

    def rows(self) -> list[tuple[str, str]]:
        rows = [("setup", self.setup.describe()), ("rounds, seed, updates", f"{self.rounds}, {self.seed}, {self.updates}")]
        for r in self.layers:
            rows.append(("wrap" if len(self.layers) == 1 else f"carry, layer {r.layer}", r.text()))
        for l0, wrong, touched in self.resolutions:
            rows.append((f"decode at resolution {l0}", f"{wrong} coordinates wrong, {touched} touched by a carry"))
        rows += [("exact recovery where no carry", "held" if self.exact_recovery else "FAILED"),
                 ("error of the released mean (MSE)", f"{safe_decimal(self.mse, 4)} +- "
                  f"{safe_decimal(self.mse_standard_error, 2)} (empirical)"),
                 ("predicted MSE", f"{safe_decimal(self.predicted_mse, 4)} (for these updates: rounding "
                  "f(1-f) and the noise's variance)"),
                 ("planned MSE", f"{safe_decimal(self.planned_mse, 4)} (upper: rounding 1/4 per client)"),
                 ("masks", "cancel: the servers decoded the survivors' sum and nothing else" if self.masks_cancel
                  else "DO NOT CANCEL")]
        if self.uniformity is not None:
            stat, dof, p = self.uniformity
            rows.append(("a masked upload", f"chi-square {stat:.1f} on {dof} degrees of freedom, p = {p:.3g} "
                         "(uniform if p is not tiny; a float test)"))
        return rows + [("time", f"{self.seconds:.1f} s")]

    def to_dict(self) -> dict:
        s = self.setup
        return {"setup": {"clients": s.clients, "survivors": s.survivors, "dropout": fraction_text(s.dropout),
                          "dimension": s.dimension, "clip": fraction_text(s.clip), "gamma": fraction_text(s.gamma),
                          "sigma_client": s.sigma_client, "modulus": s.modulus, "radix": s.radix, "layers": s.layers,
                          "margin": s.margin},
                "rounds": self.rounds, "seed": self.seed, "updates": self.updates,
                "wrap": [r.to_dict() for r in self.layers],
                "resolutions": [{"finest_layer": a, "wrong": b, "touched_by_carry": c} for a, b, c in self.resolutions],
                "exact_recovery": self.exact_recovery,
                "error": {"mse": safe_decimal(self.mse, 6), "standard_error": safe_decimal(self.mse_standard_error, 4),
                          "predicted": safe_decimal(self.predicted_mse, 6), "planned": safe_decimal(self.planned_mse, 6),
                          "kind": "empirical (float)"},
                "masks_cancel": self.masks_cancel,
                "uniformity": None if self.uniformity is None else
                {"chi_square": f"{self.uniformity[0]:.4g}", "degrees_of_freedom": self.uniformity[1],
                 "p_value": f"{self.uniformity[2]:.3g}", "kind": "chi-square test of one masked upload (float)"},
                "seconds": round(self.seconds, 3)}


# -- one round ------------------------------------------------------------------------------------

def _updates(rng, setup: SimulationSetup, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """``(x, x_int)``: the real updates and their stochastic roundings at scale ``1/γ``."""
    K, d, g = setup.clients, setup.dimension, float(setup.gamma)
    if kind == Updates.UNIFORM:
        top = math.floor(setup.clip / setup.gamma)
        ints = rng.integers(-top, top + 1, size=(K, d), dtype=np.int64)
        return ints * g, ints
    x = rng.standard_normal((K, d))
    x *= float(setup.clip) / np.linalg.norm(x, axis=1, keepdims=True)
    scaled = x / g
    low = np.floor(scaled)
    ints = (low + (rng.random((K, d)) < scaled - low)).astype(np.int64)
    return x, ints


def _digits(ints: np.ndarray, radix: int, layers: int) -> list[np.ndarray]:
    """Balanced radix digits, layer 1 (finest) first: ``x = Σ ρ^(ℓ−1) a_ℓ``."""
    half, rest, out = (radix - 1) // 2, ints.copy(), []
    for _ in range(layers):
        a = np.mod(rest + half, radix) - half
        out.append(a)
        rest = (rest - a) // radix
    return out


def _noise(sigma: int, shape: tuple[int, int], seed_text: str) -> np.ndarray:
    """Discrete Gaussian draws of :mod:`itsa.privacy.sampler`'s table engine from ``seed_text``'s stream."""
    if sigma == 0:
        return np.zeros(shape, dtype=np.int64)
    from itsa.privacy.sampler import ByteStream, table, uniforms

    support, cdf = table(sigma)
    u = uniforms(ByteStream(seed_text), shape[0] * shape[1])
    index = np.minimum(np.searchsorted(cdf, u, side="left"), len(support) - 1)
    return support[index].reshape(shape)


def _mod_sum(rows: np.ndarray, modulus: int) -> np.ndarray:
    """``Σ rows mod M`` along axis 0 in int64 (chunks small enough never to overflow)."""
    chunk = max(1, (2**62) // modulus)
    total = np.zeros(rows.shape[1], dtype=np.int64)
    for start in range(0, rows.shape[0], chunk):
        total = np.mod(total + np.mod(rows[start:start + chunk].sum(axis=0), modulus), modulus)
    return total


def _centred(r: np.ndarray, modulus: int) -> np.ndarray:
    """The representative of ``r mod M`` in ``[−⌊M/2⌋, M − 1 − ⌊M/2⌋]``."""
    return np.mod(r + modulus // 2, modulus) - modulus // 2


def _masked_sum(rng, values: np.ndarray, alive: np.ndarray, modulus: int) -> tuple[np.ndarray, bool, np.ndarray]:
    """Mask every client's ``values`` on the ring, sum the survivors', unmask: ``(sum mod M, cancel?, upload 0)``."""
    K, d = values.shape
    w = min(NEIGHBOURS, K - 1)
    masks = np.zeros((K, d), dtype=np.int64)
    residue = np.zeros(d, dtype=np.int64)
    for k in range(1, w + 1):
        pair = rng.integers(0, modulus, size=(K, d), dtype=np.int64)     # shared by i and i + k
        masks = np.mod(masks + pair, modulus)
        masks = np.mod(masks - np.roll(pair, k, axis=0), modulus)
        sign = alive.astype(np.int64) - np.roll(alive, -k).astype(np.int64)   # pairs with one member dropped
        if sign.any():
            residue = np.mod(residue + _mod_sum(np.mod(sign[:, None] * pair, modulus), modulus), modulus)
    uploads = np.mod(np.mod(values, modulus) + masks, modulus)
    total = _mod_sum(uploads[alive], modulus)
    unmasked = np.mod(total - residue, modulus)
    cancel = bool(np.array_equal(unmasked, _mod_sum(np.mod(values[alive], modulus), modulus)))
    first = int(np.flatnonzero(alive)[0])
    return unmasked, cancel, uploads[first]


@dataclass
class _Tally:
    setup: SimulationSetup
    wraps: list = field(default_factory=list)
    hits: list = field(default_factory=list)
    wrong: list = field(default_factory=list)
    touched: list = field(default_factory=list)
    exact: bool = True
    cancel: bool = True
    squares: list = field(default_factory=list)
    predicted: float = 0.0
    upload: list = field(default_factory=list)

    def __post_init__(self):
        n = len(self.setup.moduli)
        self.wraps, self.hits, self.wrong, self.touched = [0] * n, [0] * n, [0] * n, [0] * n


def _round(rng, setup: SimulationSetup, kind: str, seed: int, t: int, tally: _Tally) -> None:
    K, d = setup.clients, setup.dimension
    x, ints = _updates(rng, setup, kind)
    alive = np.ones(K, dtype=bool)
    alive[rng.permutation(K)[:K - setup.survivors]] = False
    radix, layers, _ = setup.digits()
    symbols = _digits(ints, radix, layers) if setup.layered else [ints]
    true_sums, decoded, carried = [], [], []
    for ell, (sym, modulus) in enumerate(zip(symbols, setup.moduli), start=1):
        noisy = sym + _noise(setup.sigma_client, (K, d), f"itsa-simulate:{seed}:round:{t}:layer:{ell}")
        unmasked, cancel, first = _masked_sum(rng, noisy, alive, modulus)
        true = noisy[alive].sum(axis=0)
        got = _centred(unmasked, modulus)
        carry = got != true
        tally.cancel &= cancel
        tally.wraps[ell - 1] += int(carry.sum())
        tally.hits[ell - 1] += int(carry.any())
        true_sums.append(true)
        decoded.append(got)
        carried.append(carry)
        if ell == 1:
            tally.upload.append(first)
    step = _steps(setup)
    for l0 in range(1, len(symbols) + 1):
        want = _weighted(step, true_sums, l0 - 1)
        got = _weighted(step, decoded, l0 - 1)
        touched = np.logical_or.reduce(carried[l0 - 1:])
        tally.wrong[l0 - 1] += int((got != want).sum())
        tally.touched[l0 - 1] += int(touched.sum())
        tally.exact &= bool(np.array_equal(got[~touched], want[~touched]))
    released = float(setup.gamma) * _weighted(step, decoded, 0) / setup.survivors
    tally.squares.append((released - x[alive].mean(axis=0)) ** 2)
    scaled = x[alive] / float(setup.gamma)
    f = scaled - np.floor(scaled)          # a rounding error's variance is f (1 - f)
    noise_var = _noise_variance(setup) * sum(s * s for s in step)
    tally.predicted += float(setup.gamma) ** 2 * ((f * (1 - f)).sum(axis=0).mean()
                                                   + setup.survivors * noise_var) / setup.survivors ** 2


def _noise_variance(setup: SimulationSetup) -> float:
    if setup.sigma_client == 0:
        return 0.0
    from itsa.privacy.discrete_gaussian import variance

    return float(variance(setup.sigma_client).mid())


def _uniformity(uploads: list[np.ndarray], modulus: int) -> tuple[float, int, float] | None:
    """A chi-square test of one client's masked uploads against the uniform law on ``Z_M`` (binned)."""
    from scipy.special import chdtrc  # the chi-square survival function (scipy.stats imports slowly)

    bins = max((b for b in range(2, 65) if modulus % b == 0), default=None)
    values = np.concatenate(uploads)
    if bins is None or len(values) < 5 * bins:
        return None
    counts = np.bincount(values // (modulus // bins), minlength=bins)
    expected = len(values) / bins
    stat = float(((counts - expected) ** 2 / expected).sum())
    return stat, bins - 1, float(chdtrc(bins - 1, stat))


def simulate(plan_like, rounds: int, seed: int, progress: Callback | None = None,
             time_limit: float | Deadline | None = DEFAULT_TIME_LIMIT, *, updates: str = Updates.SPHERE,
             certified=None) -> Simulation:
    """Run ``rounds`` rounds of the deployment on synthetic updates (see the module's text).

    Parameters
    ----------
    plan_like : SimulationSetup or a plan
        A setup, or anything :func:`setup_from_plan` reads.
    rounds, seed : int
        The rounds to run and the seed (the same seed gives the same run).
    progress, time_limit
        ``Event`` s per round; a limit in seconds (or a Deadline) checked between rounds.
    updates : str
        ``"sphere"`` (default) or ``"uniform"`` (see the module's text).
    certified : number or sequence, optional
        The certified wrap probability per coordinate (one per layer for PSA)
        the empirical rates are set beside.
    """
    setup = plan_like if isinstance(plan_like, SimulationSetup) else setup_from_plan(plan_like)
    rounds = whole_number("rounds", rounds, minimum=1, maximum=10**6)
    seed = whole_number("seed", seed, minimum=0)
    kind = choice("updates", updates, Updates.ALL)
    bounds = _certified(certified, len(setup.moduli))
    _plan_time(setup, rounds, time_limit)
    clock, report = Deadline.of(time_limit), Reporter(progress, prefix="simulate")
    rng = np.random.default_rng(seed)
    tally = _Tally(setup)
    for t in range(rounds):
        clock.check(f"{t} of {rounds} rounds simulated")
        _round(rng, setup, kind, seed, t, tally)
        report("round", done=t + 1, total=rounds)
    trials = rounds * setup.dimension
    layers = tuple(LayerRate(i + 1, m, tally.wraps[i], trials, tally.hits[i], rounds, bounds[i])
                   for i, m in enumerate(setup.moduli))
    squares = np.concatenate(tally.squares)
    planned = float(setup.gamma) ** 2 * (Fraction(1, 4) + Fraction(_noise_variance(setup))
                                         * sum(s * s for s in _steps(setup))) / setup.survivors
    return Simulation(setup=setup, rounds=rounds, seed=seed, updates=kind, layers=layers,
                      resolutions=tuple((i + 1, tally.wrong[i], tally.touched[i]) for i in range(len(layers))),
                      exact_recovery=tally.exact, mse=Fraction(float(squares.mean())),
                      mse_standard_error=Fraction(float(squares.std() / math.sqrt(len(squares)))),
                      predicted_mse=Fraction(tally.predicted / rounds), planned_mse=Fraction(float(planned)),
                      masks_cancel=tally.cancel, uniformity=_uniformity(tally.upload, setup.moduli[0]),
                      seconds=clock.elapsed())


def estimate_seconds(setup: SimulationSetup, rounds: int) -> float:
    """About how long ``rounds`` rounds take at :data:`CELLS_PER_SECOND` (the fast end of the measurements)."""
    return rounds * setup.clients * setup.dimension * len(setup.moduli) / CELLS_PER_SECOND


def _plan_time(setup: SimulationSetup, rounds: int, time_limit) -> None:
    limit = time_limit.left() if isinstance(time_limit, Deadline) else time_limit
    seconds = estimate_seconds(setup, rounds)
    if limit is not None and limit > 0 and seconds > limit:
        raise InvalidOption(f"rounds: {rounds} rounds take at least about {seconds:.0f} s, past the time limit of "
                            f"{limit:g} s: lower the rounds or raise the limit")


def _steps(setup: SimulationSetup) -> list[int]:
    """Each layer's weight ``ρ^(ℓ−1)`` in the decoded value (``[1]`` for a flat sum)."""
    radix, layers, _ = setup.digits()
    return [radix ** i for i in range(layers)] if setup.layered else [1]


def _weighted(step: list[int], sums: list[np.ndarray], first: int) -> np.ndarray:
    """``Σ_(ℓ ≥ first) step_ℓ · sums_ℓ``: the value decoded from layers ``first + 1 .. L``."""
    total = step[first] * sums[first]
    for i in range(first + 1, len(sums)):
        total = total + step[i] * sums[i]
    return total


def _certified(certified, layers: int) -> tuple[Fraction | None, ...]:
    if certified is None:
        return (None,) * layers
    values = list(certified) if isinstance(certified, (list, tuple)) else [certified] * layers
    if len(values) != layers:
        raise InvalidOption(f"certified: needs one wrap probability per layer ({layers}), not {len(values)}")
    return tuple(v.upper() if isinstance(v, Certified) else
                 fraction("certified wrap probability", v, low=0, high=1, closed=True) for v in values)
