"""One integer-domain release (the PCU-FL recipe, Algorithm 3): weights, encoding, sum, noise, one decode.

``Y = Σ w̃_i round_half_even(γ u_i)`` is an exact integer vector; the noise
``z`` is discrete Gaussian per coordinate with integer width
``σ_int = σ_t γ W_int Δ*₂`` (rounded up to a short decimal: more noise, never
less); the release is ``(Y + z)/(γ W_int)``, exact as a rational.

The largest weight ``max_weight`` (hence ``Δ*₂`` and ``σ_int``) is computed from the data weights:
unless the weights are public, ``σ_int`` then depends on private data and the
privacy statement holds only for neighbouring datasets with the same weights
(:data:`W_MAX_NOTE`, shown with every release).

The privacy of the release is stated for the mechanism that was run: the
discrete Gaussian with the σ_int actually used, against the integer-domain
sensitivity ``γ W_int Δ*₂`` (a reading, labelled), converted at ``δ``. The noise is
drawn by the ``exact`` engine unless the ``table`` engine is asked for by
name (:data:`DEFAULT_ENGINE`); the exact engine's law is the discrete
Gaussian itself and its ``δ_run`` is ``δ``. For the table engine ``δ`` grows by ``(1 + e^ε) d η``, ``η`` the certified
total-variation distance of one table draw from the exact discrete Gaussian
(:func:`itsa.privacy.table_law.table_distance`: the float table, the 53-bit
uniforms and the truncation together). A guarantee that says nothing
(``δ_run ≥ 1``, or ``ε >`` :data:`MAX_EPSILON`) is refused: such a release
would publish the sum all but exactly under the name "private".

**Two outputs.** :meth:`Release.to_dict` is what may be published (the
released values, ε, δ, the parameters, a salted commitment);
:meth:`Release.record` is the audit record (seed, salt, noise, noiseless
sum, exact average), secret, for the auditor
(:func:`itsa.privacy.record_check.check_record`), who rebuilds every public
field from it with :func:`assemble`. Without a seed one is drawn from the
operating system's entropy; the noise is keyed by the seed and a fresh
256-bit salt together, so a weak or reused seed gives the public nothing.
A release without noise is refused
unless asked for by name (``no_noise=True``), and then says it is not
private.

Examples
--------
>>> import numpy as np
>>> r = release(np.array([[0.5, 0.0], [0.0, 0.5], [0.25, 0.25]]), alpha=256, gamma=256, clip=1, no_noise=True)
>>> r.weights.integers, r.denominator, r.private
((86, 85, 85), 65536, False)
>>> [str(x) for x in r.released]
['257/1024', '255/1024']
>>> p = release(np.array([[0.5, 0.0]]), noise_multiplier=1, engine="exact")
>>> p.noise.seed in str(p.to_dict()), len(p.commitment), p.record()["secret"]
(False, 64, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from itsa._util.certified import (
    Certified,
    Direction,
    exact_text,
    fraction_text,
    precision,
    safe_decimal,
    to_arb,
)
from itsa._util.checks import choice, fraction, whole_number
from itsa._util.deadline import Deadline
from itsa._util.display import Displayable
from itsa._util.progress import Reporter
from itsa.exceptions import InvalidInput, InvalidOption, excerpt
from itsa.privacy.accounting import Accountant
from itsa.privacy.commitment import (
    RECORD_KIND,
    RECORD_VERSION,
    SCHEME,
    SECRET_NOTE,
    check_salt,
    check_seed,
    commit,
    commitment_fields,
    new_salt,
    new_seed,
    noise_key,
)
from itsa.privacy.composition import classical_sigma
from itsa.privacy.conversion import DEFAULT_DELTA, Conversion, EpsilonBound, check_delta
from itsa.privacy.discrete_gaussian import page_truncation
from itsa.privacy.events import GaussianEvent
from itsa.privacy.hamilton import HamiltonWeights, client_ids, data_weight, sensitivity_bound
from itsa.privacy.hamilton import weights as hamilton_weights
from itsa.privacy.release_request import refuse_without_noise
from itsa.privacy.sampler import (
    MAX_EXACT_SIGMA,
    MAX_TABLE_SIGMA,
    MIN_EXACT_SIGMA,
    MIN_TABLE_SIGMA,
    NoiseDraw,
    SamplerEngine,
    draw,
)
from itsa.privacy.sampler import commitment as hash_of_draws
from itsa.privacy.table_law import EXACT_PASS_ENTRIES, table_distance
from itsa.privacy.updates import MAX_ENTRIES, LoadedUpdates, finite_matrix, load_updates

__all__ = ["Release", "release", "assemble", "recorded", "recorded_weights", "planned_cost", "normalised_inputs",
           "load_updates", "clip_updates", "encode", "noise_scale", "cost_estimate", "LoadedUpdates", "SIGMA_DIGITS",
           "MAX_EPSILON", "MAX_ENTRIES", "MAX_ALPHA"]

#: Significant digits of σ_int handed to the sampler (rounded up from its certified value).
SIGMA_DIGITS = 9
#: The largest ε a release publishes (e^200 ≈ 7·10^86): past it the guarantee says nothing and the release is
#: refused. The paper's ε = 50 row runs at ε ≈ 101 on the exact engine and stays allowed.
MAX_EPSILON = 200
#: The engine and the conversion of a release unless given (its δ: :data:`~itsa.privacy.conversion.DEFAULT_DELTA`):
#: the exact sampler, whose law is the discrete Gaussian the ε is claimed for (``table`` only when asked by name).
DEFAULT_ENGINE = SamplerEngine.EXACT
DEFAULT_CONVERSION = Conversion.CKS
#: Said with every release: the noise depends on the largest weight, which comes from the weights.
W_MAX_NOTE = ("the largest weight (max_weight), hence the sensitivity and sigma_int, is computed from the data weights: unless the weights are "
              "public, sigma_int depends on the data and the (eps, delta) holds only between datasets with equal weights")
#: Encoded coordinates |round(gamma u)| <= gamma S stay below this (int64 with room).
MAX_ENCODED = 2**62
#: The largest weight grid alpha (so that gamma alpha, the decoding denominator, stays below 2^124).
MAX_ALPHA = 2**62
#: Said by every release without noise, in its output and as a warning.
NOT_PRIVATE = "NOT PRIVATE: no noise was added; the released values are the exact weighted sum"
#: Said by the public output: what it is.
#: The inputs a published release echoes (the data weights and client ids are not published).
PUBLIC_INPUTS = ("alpha", "gamma", "clip", "epsilon", "noise_multiplier", "delta", "engine", "conversion", "no_noise")
PUBLIC_NOTE = ("this object may be published: the released values, (eps, delta), the parameters and a salted "
               "commitment; the seed, the salt, the noise and the noiseless sum are only in the audit record")
#: How the public commitment is made (the fields are in the audit record).
COMMITMENT_OF = ("SHA-256 of the canonical JSON (sorted keys, no spaces, ASCII) of scheme, salt (256 bits), seed, "
                 "sigma_int, engine, count, truncation, stream, encoded_sum, denominator")
#: Estimated seconds per exact draw (2-3 million draws/s measured on one core; taken at a million).
EXACT_SECONDS_PER_DRAW = 1e-6
#: Estimated seconds per table entry with the ball pass (about 1.3 µs measured).
BALL_SECONDS_PER_ENTRY = 3e-6
#: Estimated seconds per table entry with the float pass (about 0.12 µs measured).
TABLE_SECONDS_PER_ENTRY = 3e-7


@dataclass(frozen=True, kw_only=True, repr=False)
class Release(Displayable):
    """One release: what may be published (:meth:`to_dict`) and the secret audit record (:meth:`record`).

    Parameters
    ----------
    weights : HamiltonWeights
        The integer weights.
    gamma, clip, denominator : int, Fraction, int
        The encoding scale, the clip and ``γ W_int``.
    encoded_sum, released, noiseless, exact_average : tuple
        ``Y``, the released values, the noiseless decode and the float average (the last two: secret).
    sensitivity : Certified
        Δ*₂ (a reading).
    inputs : dict
        The normalised arguments.
    noise_multiplier, sigma_int, noise, epsilon, delta_run, table_distance : optional
        The noise and its accounting (a release with noise).
    seed, salt, commitment : str, optional
        The secret seed and salt, and the public salted commitment.


    ``inputs`` are the arguments that, with the updates, rerun it exactly.
    """

    weights: HamiltonWeights
    gamma: int
    clip: Fraction
    encoded_sum: tuple[int, ...]
    denominator: int
    released: tuple[Fraction, ...]
    noiseless: tuple[Fraction, ...]
    exact_average: tuple[float, ...]
    sensitivity: Certified
    inputs: dict
    noise_multiplier: Certified | None = None
    sigma_int: Fraction | None = None
    noise: NoiseDraw | None = None
    epsilon: EpsilonBound | None = None
    delta_run: Certified | None = None
    table_distance: Certified | None = None
    seed: int | None = None
    salt: str | None = None
    commitment: str | None = None

    @property
    def private(self) -> bool:
        """Whether noise was added (a release without noise is the exact sum: not private)."""
        return self.noise is not None

    @property
    def warnings(self) -> tuple[str, ...]:
        """The accounting's warnings, and a release without noise, in words (a vacuous one is never made)."""
        if not self.private:
            return (NOT_PRIVATE,)
        return () if self.epsilon is None else self.epsilon.warnings

    def to_dict(self) -> dict:
        """What may be published: the released values, (ε, δ), the parameters and the hiding commitment."""
        out = {"publishable": PUBLIC_NOTE, "inputs": {k: self.inputs.get(k) for k in PUBLIC_INPUTS}, "private": self.private, "clients": len(self.weights.integers),
               "dimension": len(self.released), "alpha": self.weights.alpha, "gamma": self.gamma,
               "clip": fraction_text(self.clip), "denominator": self.denominator,
               "max_weight": fraction_text(self.weights.max_weight), "released": [_dec(x) for x in self.released],
               "released_exact": [fraction_text(x) for x in self.released],
               "sensitivity": self.sensitivity.to_dict(), "max_weight_note": W_MAX_NOTE, "warnings": list(self.warnings)}
        if not self.private:
            return {**out, "not_private": NOT_PRIVATE}
        assert self.noise is not None and self.epsilon is not None and self.delta_run is not None
        return {**out, "noise_multiplier": self.noise_multiplier.to_dict(), "sigma_int": fraction_text(self.sigma_int),  # type: ignore[union-attr]
                "engine": str(self.noise.engine), "truncation": self.noise.truncation,
                "conversion": self.inputs["conversion"], "delta": self.inputs["delta"],
                "epsilon": self.epsilon.to_dict(), "delta_run": self.delta_run.to_dict(),
                "table_distance": None if self.table_distance is None else self.table_distance.to_dict(),
                "commitment": {"value": self.commitment, "scheme": SCHEME, "of": COMMITMENT_OF}}

    def record(self) -> dict:
        """The audit record: the public part and everything needed to re-check it. SECRET (see ``note``)."""
        secret = {"encoded_sum": list(self.encoded_sum), "noiseless_exact": [fraction_text(x) for x in self.noiseless],
                  "exact_average": [repr(x) for x in self.exact_average],
                  "integer_weights": list(self.weights.integers)}
        if self.noise is not None:
            secret.update({"seed": self.seed, "salt": self.salt, "noise_draws": list(self.noise.draws),
                           "noise_sha256": self.noise.commitment})
        return {"secret": True, "note": SECRET_NOTE, "kind": RECORD_KIND, "record_version": RECORD_VERSION,
                "public": self.to_dict(), "inputs": self.inputs, "secret_values": secret}

    def headline(self) -> str:
        noise = "NO NOISE: NOT PRIVATE" if self.noise is None else f"private, sigma_int = {self.sigma_int}"
        return f"{len(self.weights.integers)} clients, d = {len(self.released)}, {noise}"

    def rows(self) -> list[tuple[str, str]]:
        """The public rows (nothing of the audit record)."""
        rows = [("clients, d", f"{len(self.weights.integers)}, {len(self.released)}"),
                ("sensitivity", f"{self.sensitivity.decimal()} ({self.sensitivity.direction}; reading)"),
                ("max weight", f"{fraction_text(self.weights.max_weight)} from the data weights: sigma_int depends on them unless "
                          "they are public"),
                ("released", ", ".join(_dec(x) for x in self.released[:6]) + (" …" if len(self.released) > 6 else ""))]
        if not self.private:
            return rows + [("privacy", NOT_PRIVATE)]
        assert self.epsilon is not None and self.delta_run is not None and self.noise is not None
        return rows + [("epsilon", f"{self.epsilon.epsilon.decimal()} at delta {self.delta_run.decimal()} "
                                   f"({self.epsilon.conversion}, upper bound)"),
                       ("sigma_int", f"{self.sigma_int} (rounded up), {self.noise.engine} engine"),
                       ("commitment", f"{self.commitment} (salted: hides the noise)")]


def _dec(x: Fraction, digits: int = 12) -> str:
    return safe_decimal(x, digits, up=True) if x >= 0 else "-" + safe_decimal(-x, digits, up=False)


def recorded_weights(weights, deadline: Deadline | None = None) -> list[str] | None:
    """Data weights as a record keeps them (:func:`recorded` of :func:`~itsa.privacy.hamilton.data_weight`)."""
    if weights is None:
        return None
    out = []
    for i, w in enumerate(weights):
        if deadline is not None and i % 4096 == 0:
            deadline.check(f"the data weights, client {i + 1}")
        out.append(recorded(data_weight(f"weight {i + 1}", w), "weight"))
    return out


def clip_updates(updates: np.ndarray, clip: Fraction) -> np.ndarray:
    """Each row scaled to ``ℓ2`` norm at most ``clip`` (a safety factor keeps float rounding inside).

    The norm is taken of the row over its largest entry, so entries near ``1e308`` do not overflow.
    """
    peaks = np.abs(updates).max(axis=1)
    safe = np.where(peaks == 0, 1.0, peaks)
    unit = np.linalg.norm(updates / safe[:, None], axis=1)      # in [1, sqrt(d)] for a nonzero row
    limit = float(clip) * (1 - 2.0**-40)
    with np.errstate(over="ignore"):
        over = peaks > limit / np.where(unit == 0, 1.0, unit)
    scale = np.where(over, (limit / safe) / np.where(unit == 0, 1.0, unit), 1.0)
    return updates * scale[:, None]


def encode(updates: np.ndarray, gamma: int, deadline: Deadline | None = None) -> np.ndarray:
    """``round_half_even(γ u)`` exactly, as int64 (float products are exact when γ is a power of 2).

    Refused (not wrapped around) when some ``|γ u|`` reaches ``2^62``. Other
    ``γ`` are done in rationals, row by row, looking at ``deadline``.
    """
    whole_number("gamma", gamma, minimum=1, maximum=MAX_ENCODED)
    if updates.size and float(np.abs(updates).max()) * gamma >= MAX_ENCODED:
        raise InvalidOption(f"encoding: |gamma u| must stay below 2^62 (int64), not {float(np.abs(updates).max()) * gamma:.3g}")
    if gamma & (gamma - 1) == 0:
        return np.rint(updates * gamma).astype(np.int64)
    out = []
    for i, row in enumerate(updates):
        if deadline is not None:
            deadline.check(f"encoding, client {i + 1}")
        out.append([round(Fraction(float(x)) * gamma) for x in row])
    return np.array(out, dtype=np.int64)


def release(updates, data_weights=None, *, alpha: int = 256, gamma: int = 256, clip=1, epsilon=None,
            noise_multiplier=None, delta=None, seed: int | str | None = None, salt: str | None = None,
            engine: SamplerEngine | str | None = None, conversion: Conversion | str | None = None,
            ids=None, no_noise: bool = False, time_limit: float | Deadline | None = None, progress=None) -> Release:
    """Run Algorithm 3 once on ``updates`` (clients x coordinates); noise from ``epsilon`` or ``noise_multiplier``.

    Parameters
    ----------
    updates : array
        Clients x coordinates; ``data_weights`` (default equal) and ``ids`` (for ties) one per client.
    alpha, gamma, clip : int, int, number
        The weight grid, the encoding scale and the l2 clipping norm ``S``.
    epsilon, noise_multiplier, delta : number, optional
        The per-round target ε or ``σ_t`` directly (one of them, or ``no_noise``), and δ.
    seed, salt, engine, conversion : str, optional
        The noise key's seed and salt (default: fresh entropy), the sampler and the RDP conversion.
    no_noise : bool
        Release the exact weighted sum: NOT private, asked for by name.
    time_limit, progress : optional
        Seconds the run may take (estimated before any noise), and a receiver of the stages.


    ``epsilon`` calibrates ``σ_t = √(2 ln(1.25/δ))/ε`` (the paper's Table I);
    ``noise_multiplier`` gives ``σ_t`` directly; neither is refused unless
    ``no_noise`` asks for the exact sum (NOT private), which takes no
    ``delta``, ``seed``, ``salt``, ``engine`` or ``conversion``. The reported
    ε is recomputed for the mechanism run (see the module notes); a vacuous
    one (``δ_run ≥ 1`` or ``ε >`` :data:`MAX_EPSILON`) is refused. Without a
    ``seed`` (a whole number ``>= 0``, or its decimal digits) or ``salt``,
    256 bits are drawn from the operating system's entropy
    (``secrets.randbits(256)``); the noise is keyed by both (:func:`~itsa.privacy.commitment.noise_key`),
    and both go only into :meth:`Release.record`. ``time_limit`` refuses a
    run whose estimate (:func:`cost_estimate`) exceeds it, before any noise
    is drawn; ``progress`` receives the stages. ``delta`` defaults to ``1e-5``,
    ``engine`` to ``exact``, ``conversion`` to ``cks``.

    Notes
    -----
    PCU-FL Algorithm 3 and its Fig. 1, as quoted by the explainer page.
    """
    report = Reporter(progress, "release")
    deadline = Deadline.of(time_limit)
    u = finite_matrix(updates, "updates")
    whole_number("alpha", alpha, minimum=1, maximum=MAX_ALPHA)
    whole_number("gamma", gamma, minimum=1, maximum=MAX_ENCODED)
    S = fraction("clip S", clip, low=0)
    if gamma * S >= MAX_ENCODED:        # encoded coordinates must fit int64 (and the clip a float)
        raise InvalidOption(f"clip S: gamma S must be below 2^62, not {safe_decimal(gamma * S, 4)}")
    _check_noise_request(epsilon, noise_multiplier, no_noise)
    if no_noise:
        refuse_without_noise({"delta": delta, "seed": seed, "salt": salt, "engine": engine, "conversion": conversion})
    weights = [1] * u.shape[0] if data_weights is None else list(data_weights)
    if len(weights) != u.shape[0]:
        raise InvalidOption(f"weights: {len(weights)} given for {u.shape[0]} clients")
    inputs = normalised_inputs(alpha=alpha, gamma=gamma, clip=S, epsilon=epsilon, noise_multiplier=noise_multiplier,
                     delta=delta, engine=engine, conversion=conversion, no_noise=no_noise,
                     data_weights=None if data_weights is None else weights, ids=ids, deadline=deadline)
    seed_value = None if no_noise else (new_seed() if seed is None else check_seed(seed))
    salt_text = None if no_noise else (new_salt() if salt is None else check_salt(salt))
    hw = hamilton_weights(weights, alpha, inputs["ids"], deadline=deadline)
    report("encode", done=0, total=u.size)
    clipped = clip_updates(u, S)
    Y = _weighted_sum(hw.integers, encode(clipped, gamma, deadline))
    shares = np.array([float(q / hw.alpha) for q in hw.quotas])     # w_i/W, each in [0, 1]
    exact = tuple(float(x) for x in (shares[:, None] * clipped).sum(axis=0))
    return assemble(inputs, hw, Y, exact, seed_value, salt_text, None, deadline, report)


def assemble(inputs: dict, hw: HamiltonWeights, Y, exact, seed: int | None, salt: str | None,
             draws, time_limit: float | Deadline | None = None, report=None) -> Release:
    """The release of the noiseless encoded sum ``Y`` under the normalised ``inputs`` (:func:`normalised_inputs`).

    The noise is drawn from (salt, seed), or, for the auditor, ``draws`` are
    the recorded ones (which the auditor redraws on its own). Every public
    field is computed here, from ``inputs``, ``Y`` and the noise alone.
    ``time_limit`` (seconds or a :class:`~itsa._util.deadline.Deadline`)
    refuses a run estimated past it and stops the draws when it passes.
    """
    report = report or Reporter(None, "release")
    deadline = Deadline.of(time_limit)
    gamma, S, d = inputs["gamma"], fraction("clip S", inputs["clip"]), len(Y)
    denominator = gamma * hw.alpha
    delta_star = _sensitivity_of(inputs, hw, d)
    base = dict(weights=hw, gamma=gamma, clip=S, encoded_sum=tuple(Y), denominator=denominator, inputs=inputs,
                noiseless=tuple(Fraction(y, denominator) for y in Y), exact_average=tuple(exact),
                sensitivity=delta_star)
    if inputs["no_noise"]:
        return Release(released=base["noiseless"], **base)
    eng, conv = SamplerEngine(inputs["engine"]), Conversion(inputs["conversion"])
    d_ = check_delta(inputs["delta"])
    multiplier, sigma_int, integer_sensitivity = noise_scale(inputs["epsilon"], inputs["noise_multiplier"], d_,
                                                             denominator, delta_star)
    seconds, what = cost_estimate(eng, sigma_int, d)
    left = deadline.left()
    if left is not None and seconds > left:
        raise InvalidOption(f"release: about {seconds:.3g} s estimated ({what}) is beyond the time limit of "
                            f"{deadline.time_limit:g} s (time limit 0: none)")
    report("table distance" if eng is SamplerEngine.TABLE else "accounting")
    distance = table_distance(sigma_int) if eng is SamplerEngine.TABLE else None
    epsilon_run, delta_run = _privacy_of_run(sigma_int, integer_sensitivity, d_, conv, distance, d)
    _refuse_vacuous(epsilon_run, delta_run)
    assert seed is not None and salt is not None
    if draws is None:
        report("noise", note=f"{what}, about {seconds:.2g} s")
        noise = draw(sigma_int, d, noise_key(salt, seed), eng, time_limit=deadline.left())
    else:
        values = tuple(int(z) for z in draws)
        K = page_truncation(sigma_int) if eng is SamplerEngine.TABLE else None
        noise = NoiseDraw(sigma=sigma_int, seed=noise_key(salt, seed), engine=eng, draws=values,
                          commitment=hash_of_draws(values), truncation=K)
    released = tuple(Fraction(y + z, denominator) for y, z in zip(Y, noise.draws, strict=True))
    fields = commitment_fields(salt=salt, seed=seed, sigma_int=sigma_int, engine=str(eng), count=d,
                               truncation=noise.truncation, encoded_sum=Y, denominator=denominator)
    return Release(released=released, noise_multiplier=multiplier, sigma_int=sigma_int, noise=noise,
                   epsilon=epsilon_run, delta_run=delta_run, table_distance=distance, seed=seed, salt=salt,
                   commitment=commit(fields), **base)


def _sensitivity_of(inputs: dict, hw: HamiltonWeights, d: int) -> Certified:
    return sensitivity_bound(max_weight=hw.max_weight, clip=fraction("clip S", inputs["clip"]), dimension=d,
                       gamma=inputs["gamma"])


def planned_cost(inputs: dict, hw: HamiltonWeights, d: int) -> tuple[float, str]:
    """:func:`cost_estimate` of the release that ``inputs`` describe, ``d`` coordinates (no noise: none)."""
    if inputs["no_noise"]:
        return 0.0, "no noise"
    _, sigma_int, _ = noise_scale(inputs["epsilon"], inputs["noise_multiplier"], check_delta(inputs["delta"]),
                                  inputs["gamma"] * hw.alpha, _sensitivity_of(inputs, hw, d))
    return cost_estimate(SamplerEngine(inputs["engine"]), sigma_int, d)


def recorded(text, name: str, *, low=None, high=None) -> str:
    """``text`` as the exact text a record keeps (:func:`~itsa._util.certified.fraction_text`), re-read the same.

    Refused (one line) when no exact text of it can be read back.
    """
    q = fraction(name, text, low=low, high=high)
    out = fraction_text(q)
    try:
        same = fraction(name, out) == q
    except InvalidInput:
        same = False
    if not same:
        raise InvalidOption(f"{name}: too long to record exactly ({exact_text(q)[:60]})")
    return out


def normalised_inputs(*, alpha, gamma, clip, epsilon, noise_multiplier, delta, engine, conversion, no_noise, data_weights,
                      ids, deadline: Deadline | None = None) -> dict:
    """The arguments of a release, checked and normalised: what the record keeps and :func:`assemble` reads.

    ``deadline`` is looked at in the loop over the data weights.
    """
    if epsilon is not None:
        eps = recorded(epsilon, "epsilon", low=0)
        if Fraction(eps) > MAX_EPSILON:
            raise InvalidOption(f"epsilon: a guarantee at eps > {MAX_EPSILON} says nothing; not {exact_text(Fraction(eps))} "
                                "(no noise, asked for by name, gives the NOT private exact sum)")
    noisy = not no_noise
    whole_number("alpha", alpha, minimum=1, maximum=MAX_ALPHA)
    whole_number("gamma", gamma, minimum=1, maximum=MAX_ENCODED)
    if not isinstance(no_noise, bool):
        raise InvalidOption(f"no noise: must be true or false, not {excerpt(no_noise)}")
    return {"alpha": int(alpha), "gamma": int(gamma), "clip": recorded(clip, "clip S", low=0),
            "epsilon": None if epsilon is None else eps,
            "noise_multiplier": None if noise_multiplier is None else recorded(noise_multiplier, "noise multiplier",
                                                                               low=0),
            "delta": recorded(DEFAULT_DELTA if delta is None else delta, "delta", low=0, high=1) if noisy else None,
            "engine": str(choice("engine", engine or DEFAULT_ENGINE, SamplerEngine)) if noisy else None,
            "conversion": str(choice("conversion", conversion or DEFAULT_CONVERSION, Conversion)) if noisy else None,
            "no_noise": bool(no_noise),
            "data_weights": recorded_weights(data_weights, deadline),
            "ids": client_ids(ids)}


def _refuse_vacuous(epsilon: EpsilonBound, delta_run: Certified) -> None:
    """A guarantee that says nothing (``δ_run ≥ 1`` or ``ε >`` :data:`MAX_EPSILON`) is refused, not published."""
    eps = epsilon.epsilon.upper()
    if delta_run.upper() >= 1 or eps > MAX_EPSILON:
        raise InvalidOption(f"release: the guarantee of this noise is vacuous (eps = {epsilon.epsilon.decimal()} "
                            f"at delta_run = {delta_run.decimal()}; refused at delta_run >= 1 or eps > "
                            f"{MAX_EPSILON}): add noise, or ask for the NOT private exact sum by name (no noise)")


def _check_noise_request(epsilon, noise_multiplier, no_noise: bool) -> None:
    """Exactly one of ``epsilon``, ``noise_multiplier`` and ``no_noise``: a noiseless release only by name."""
    given = [name for name, v in (("epsilon", epsilon), ("noise multiplier", noise_multiplier)) if v is not None]
    if len(given) == 2:
        raise InvalidOption("give epsilon or noise multiplier, not both")
    if no_noise and given:
        raise InvalidOption(f"no noise: refused together with {given[0]} (a release has noise or has none)")
    if not no_noise and not given:
        raise InvalidOption("no noise asked for: give epsilon or a noise multiplier, or ask for the exact, NOT private sum "
                            "by name (no noise)")


def _weighted_sum(integers, encoded: np.ndarray) -> list[int]:
    """``Y = Σ w̃_i ũ_i`` exactly: in int64 when ``Σ w̃_i · max |ũ| < 2⁶³`` (no wrap possible), else in Python ints."""
    peak = int(np.abs(encoded).max()) if encoded.size else 0
    if sum(integers) * peak < 2**63:
        return [int(y) for y in np.array(integers, dtype=np.int64) @ encoded]
    return [int(x) for x in (np.array(integers, dtype=object)[:, None] * encoded.astype(object)).sum(axis=0)]


def noise_scale(epsilon, noise_multiplier, delta: Fraction, scale: int, delta_star: Certified):
    """``σ_t`` (rounded up to :data:`SIGMA_DIGITS`), ``σ_int = σ_t γ W_int Δ*₂`` rounded up, and ``γ W_int Δ*₂``.

    ``scale`` is ``γ W_int``. The auditor recomputes ``σ_int`` with this same function.
    """
    sigma_t = (classical_sigma(epsilon, delta) if epsilon is not None else
               Certified.exact("noise multiplier", fraction("noise multiplier", noise_multiplier, low=0), "given"))
    sigma_t_used = Fraction(safe_decimal(sigma_t.upper(), SIGMA_DIGITS))
    with precision():
        integer_sensitivity = scale * to_arb(delta_star.upper())
        sigma_ball = to_arb(sigma_t_used) * integer_sensitivity
    sigma_int = Fraction(safe_decimal(Certified.from_arb("s", sigma_ball, Direction.UPPER, "").upper(), SIGMA_DIGITS))
    multiplier = Certified(sigma_t.name, sigma_t_used, sigma_t_used, sigma_t.direction, str(sigma_t.method) +
                           f"; rounded up to {SIGMA_DIGITS} digits")
    return multiplier, sigma_int, integer_sensitivity


def cost_estimate(engine: SamplerEngine, sigma_int: Fraction, count: int) -> tuple[float, str]:
    """Seconds the noise and its accounting take, estimated up front (generously), and what they are.

    The table engine builds ``2K + 1 ≈ 15 σ`` entries and bounds their
    distance (a ball per entry up to :data:`~itsa.privacy.table_law.EXACT_PASS_ENTRIES`,
    float64 beyond); the exact engine's time is per draw.
    """
    if engine is SamplerEngine.EXACT:
        if not MIN_EXACT_SIGMA <= sigma_int <= MAX_EXACT_SIGMA:
            raise InvalidOption(f"sigma_int = {safe_decimal(sigma_int, 4)}: the exact engine takes sigma in "
                                f"[1e-150, 2^46 - 1]")
        return count * EXACT_SECONDS_PER_DRAW + 1, f"{count:,} exact draws"
    if not MIN_TABLE_SIGMA <= sigma_int <= MAX_TABLE_SIGMA:
        raise InvalidOption(f"sigma_int = {safe_decimal(sigma_int, 4)}: the table engine takes sigma in "
                            f"[{MIN_TABLE_SIGMA:g}, {MAX_TABLE_SIGMA}] (use the exact engine)")
    entries = 2 * page_truncation(sigma_int) + 1
    per_entry = BALL_SECONDS_PER_ENTRY if entries <= EXACT_PASS_ENTRIES else TABLE_SECONDS_PER_ENTRY
    return entries * per_entry + count * 1e-7 + 1, f"a table of {entries:,} entries"


def _privacy_of_run(sigma_int: Fraction, integer_sensitivity, delta: Fraction, conv: Conversion,
                    distance: Certified | None, dimension: int) -> tuple[EpsilonBound, Certified]:
    """ε of the discrete Gaussian run (q Δ²/(2σ²), CKS 2020) and δ with the table's distance added.

    A mechanism within total variation ``η`` of an ``(ε, δ)``-DP one is
    ``(ε, δ + (1 + e^ε) η)``-DP; ``d`` independent coordinates give ``η ≤ d η₁``.
    """
    with precision():
        z = to_arb(sigma_int) / integer_sensitivity
    z_low = Fraction(safe_decimal(Certified.from_arb("z", z, Direction.LOWER, "").lower(), 12, up=False))
    bound = Accountant(conversion=conv).compose(GaussianEvent(z_low)).bound(delta)
    if distance is None:
        return bound, Certified.exact("delta", delta, "the exact sampler: the law is N_Z(0, sigma^2) exactly")
    with precision():
        extra = (1 + to_arb(bound.epsilon.upper()).exp()) * dimension * to_arb(distance.upper())
        ball = to_arb(delta) + extra
    method = ("delta + (1 + e^eps) d TV: TV the certified distance of one table draw from N_Z(0, sigma^2) "
              "(float table, 53-bit uniforms, truncation)")
    if not ball < 1:        # every mechanism is (eps, 1)-DP: 1 is then the bound, and it says nothing
        return bound, Certified("delta", Fraction(1), Fraction(1), Direction.UPPER, method + "; >= 1: vacuous")
    return bound, Certified.from_arb("delta", ball, Direction.UPPER, method)
