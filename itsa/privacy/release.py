"""One integer-domain release (the PCU-FL recipe, Algorithm 3): weights, encoding, sum, noise, one decode.

``Y = Σ w̃_i round_half_even(γ u_i)`` is an exact integer vector; the noise
``z`` is discrete Gaussian per coordinate with integer width
``σ_int = σ_t γ W_int Δ*₂`` (rounded up to a short decimal: more noise, never
less); the release is ``(Y + z)/(γ W_int)``, exact as a rational.

``w_max`` (hence ``Δ*₂`` and ``σ_int``) is computed from the data weights:
unless the weights are public, ``σ_int`` then depends on private data and the
privacy statement holds only for neighbouring datasets with the same weights
(:data:`W_MAX_NOTE`, shown with every release).

The privacy of the release is stated for the mechanism that was run: the
discrete Gaussian with the σ_int actually used, against the integer-domain
sensitivity ``γ W_int Δ*₂`` (a reading, labelled), converted at ``δ``; for
the table engine ``δ`` grows by ``(1 + e^ε) d η``, ``η`` the certified
total-variation distance of one table draw from the exact discrete Gaussian
(:func:`itsa.privacy.table_law.table_distance`: the float table, the 53-bit
uniforms and the truncation together). A ``δ_run ≥ 1`` is vacuous, and the
release says so in :attr:`Release.warnings`.

Examples
--------
>>> import numpy as np
>>> r = release(np.array([[0.5, 0.0], [0.0, 0.5], [0.25, 0.25]]), alpha=256, gamma=256, clip=1)
>>> r.weights.integers, r.denominator
((86, 85, 85), 65536)
>>> [str(x) for x in r.released]
['257/1024', '255/1024']
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from itsa._util.checks import choice, fraction, whole_number
from itsa._util.display import Displayable
from itsa.exceptions import InvalidInput, InvalidOption, excerpt
from itsa.privacy.certified import Certified, Direction, precision, safe_decimal, to_arb
from itsa.privacy.composition import classical_sigma
from itsa.privacy.conversion import Conversion, EpsilonBound, check_delta, to_epsilon
from itsa.privacy.rdp import gaussian_curve
from itsa.privacy.sampler import NoiseDraw, SamplerEngine, draw
from itsa.privacy.table_law import table_distance
from itsa.privacy.weights import HamiltonWeights, hamilton_weights, sensitivity

__all__ = ["Release", "release", "load_updates", "clip_updates", "encode", "SIGMA_DIGITS"]

#: Significant digits of σ_int handed to the sampler (rounded up from its certified value).
SIGMA_DIGITS = 9
#: Most clients x coordinates one release takes.
MAX_ENTRIES = 20_000_000
#: Said with every release: the noise depends on w_max, which comes from the weights.
W_MAX_NOTE = ("w_max, hence Delta*_2 and sigma_int, is computed from the data weights: unless the weights are "
              "public, sigma_int depends on the data and the (eps, delta) holds only between datasets with equal weights")
#: Encoded coordinates |round(gamma u)| <= gamma S stay below this (int64 with room).
MAX_ENCODED = 2**62


@dataclass(frozen=True, kw_only=True, repr=False)
class Release(Displayable):
    """One release with its evidence: the integer weights, Y, the noise and its commitment, the privacy."""

    weights: HamiltonWeights
    gamma: int
    clip: Fraction
    encoded_sum: tuple[int, ...]
    denominator: int
    released: tuple[Fraction, ...]
    noiseless: tuple[Fraction, ...]
    exact_average: tuple[float, ...]
    sensitivity: Certified
    noise_multiplier: Certified | None = None
    sigma_int: Fraction | None = None
    noise: NoiseDraw | None = None
    epsilon: EpsilonBound | None = None
    delta_run: Certified | None = None
    table_distance: Certified | None = None

    @property
    def warnings(self) -> tuple[str, ...]:
        """The accounting's warnings, and a vacuous ``δ_run`` (``≥ 1``) said in words."""
        out = () if self.epsilon is None else self.epsilon.warnings
        if self.delta_run is not None and self.delta_run.upper() >= 1:
            out += (f"delta_run = {self.delta_run.decimal()} >= 1: the (eps, delta) guarantee of this release is "
                    "vacuous",)
        return out

    def to_dict(self) -> dict:
        out = {"weights": list(self.weights.integers), "alpha": self.weights.alpha, "gamma": self.gamma,
               "clip": str(self.clip), "encoded_sum": list(self.encoded_sum), "denominator": self.denominator,
               "released": [_dec(x) for x in self.released], "released_exact": [str(x) for x in self.released],
               "noiseless": [_dec(x) for x in self.noiseless],
               "exact_average": [repr(x) for x in self.exact_average],
               "sensitivity": self.sensitivity.to_dict(), "w_max_note": W_MAX_NOTE}
        if self.noise is not None:
            assert self.noise_multiplier is not None and self.epsilon is not None and self.delta_run is not None
            out.update({"noise_multiplier": self.noise_multiplier.to_dict(), "sigma_int": str(self.sigma_int),
                        "noise": {k: v for k, v in self.noise.to_dict().items() if k != "draws"},
                        "noise_draws": list(self.noise.draws), "epsilon": self.epsilon.to_dict(),
                        "delta_run": self.delta_run.to_dict(), "warnings": list(self.warnings),
                        "table_distance": None if self.table_distance is None else self.table_distance.to_dict()})
        return out

    def _headline(self) -> str:
        noise = "no noise" if self.noise is None else f"sigma_int = {self.sigma_int}"
        return f"{len(self.weights.integers)} clients, d = {len(self.released)}, {noise}"

    def _rows(self) -> list[tuple[str, str]]:
        rows = [("integer weights", f"sum {sum(self.weights.integers)} = alpha (exact)"),
                ("Delta*_2", f"{self.sensitivity.decimal()} ({self.sensitivity.direction}; reading)"),
                ("w_max", f"{self.weights.max_weight} from the data weights: sigma_int depends on them unless "
                          "they are public"),
                ("released", ", ".join(_dec(x) for x in self.released[:6])),
                ("exact average", ", ".join(f"{x:.10g}" for x in self.exact_average[:6]))]
        if self.epsilon is not None and self.delta_run is not None:
            vacuous = " (vacuous: delta >= 1)" if self.delta_run.upper() >= 1 else ""
            rows += [("epsilon", f"{self.epsilon.epsilon.decimal()} at delta {self.delta_run.decimal()} "
                                 f"({self.epsilon.conversion}, upper bound){vacuous}")]
        return rows


def _dec(x: Fraction, digits: int = 12) -> str:
    return safe_decimal(x, digits, up=True) if x >= 0 else "-" + safe_decimal(-x, digits, up=False)


def _finite_matrix(array, where: str) -> np.ndarray:
    try:
        a = np.asarray(array, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidInput(f"{where}: updates must be numbers") from None
    if a.ndim != 2 or a.shape[0] == 0 or a.shape[1] == 0:
        raise InvalidInput(f"{where}: updates must be a 2-D array (clients x coordinates), not shape {a.shape}")
    if a.size > MAX_ENTRIES:
        raise InvalidInput(f"{where}: {a.size} entries is more than {MAX_ENTRIES}")
    if not np.isfinite(a).all():
        raise InvalidInput(f"{where}: updates must be finite numbers (no nan or inf)")
    return a


def load_updates(path) -> tuple[np.ndarray, list[Fraction] | None, list[str] | list[int] | None]:
    """Client updates from a ``.npy`` (clients x coordinates) or a CSV with a header.

    CSV columns: ``client`` (optional, IDs for Hamilton ties: compared as
    whole numbers when every ID is one, else as text), ``weight`` (optional,
    data weights), every other column a coordinate. A ``.npy`` is mapped and
    its size checked before it is read.
    """
    p = Path(path)
    if not p.is_file():
        raise InvalidInput(f"{path}: no such file")
    if p.suffix.lower() == ".npy":
        try:        # mapped, not read: the shape is checked before any data is loaded
            a = np.load(p, allow_pickle=False, mmap_mode="r")
        except (ValueError, OSError) as exc:
            raise InvalidInput(f"{path}: not a readable .npy file ({excerpt(str(exc))})") from None
        if a.size > MAX_ENTRIES:
            raise InvalidInput(f"{path}: {a.size} entries is more than {MAX_ENTRIES}")
        return _finite_matrix(a, str(path)), None, None
    try:
        with p.open(newline="", encoding="utf-8-sig") as f:
            rows = [r for r in csv.reader(f) if r]      # blank lines carry no client
    except (UnicodeDecodeError, csv.Error) as exc:
        raise InvalidInput(f"{path}: not a UTF-8 CSV file ({excerpt(str(exc))})") from None
    if len(rows) < 2:
        raise InvalidInput(f"{path}: a CSV needs a header row and one row per client")
    header = [h.strip().lower() for h in rows[0]]
    ids = None
    if "client" in header:
        at = header.index("client")
        ids = _client_ids([r[at] if at < len(r) else "" for r in rows[1:]])
    coords = [i for i, h in enumerate(header) if h not in ("client", "weight")]
    weights = None
    try:
        if "weight" in header:
            weights = [fraction("weight", r[header.index("weight")]) for r in rows[1:]]
        values = [[float(r[i]) for i in coords] for r in rows[1:]]
    except (ValueError, IndexError, InvalidInput) as exc:
        raise InvalidInput(f"{path}: a row is not numbers in every column ({excerpt(str(exc))})") from None
    return _finite_matrix(values, str(path)), weights, ids


def _client_ids(texts: list[str]) -> list[str] | list[int]:
    """Client IDs for Hamilton's ties: compared as whole numbers when every one is (so ``2 < 10``), else as text."""
    ids = [t.strip() for t in texts]
    if ids and all(re.fullmatch(r"[+-]?\d{1,30}", t) for t in ids):
        return [int(t) for t in ids]
    return ids


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


def encode(updates: np.ndarray, gamma: int) -> np.ndarray:
    """``round_half_even(γ u)`` exactly, as int64 (float products are exact when γ is a power of 2).

    Refused (not wrapped around) when some ``|γ u|`` reaches ``2^62``.
    """
    whole_number("gamma", gamma, minimum=1, maximum=MAX_ENCODED)
    if updates.size and float(np.abs(updates).max()) * gamma >= MAX_ENCODED:
        raise InvalidOption(f"encoding: |gamma u| must stay below 2^62 (int64), not {float(np.abs(updates).max()) * gamma:.3g}")
    if gamma & (gamma - 1) == 0:
        return np.rint(updates * gamma).astype(np.int64)
    out = [[round(Fraction(float(x)) * gamma) for x in row] for row in updates]
    return np.array(out, dtype=np.int64)


def release(updates, data_weights=None, *, alpha: int = 256, gamma: int = 256, clip=1, epsilon=None,
            noise_multiplier=None, delta=Fraction(1, 10**5), seed: str = "itsa-release",
            engine: SamplerEngine | str = SamplerEngine.TABLE, conversion: Conversion | str = Conversion.CKS,
            ids=None) -> Release:
    """Run Algorithm 3 once on ``updates`` (clients x coordinates); noise from ``epsilon`` or ``noise_multiplier``.

    ``epsilon`` calibrates ``σ_t = √(2 ln(1.25/δ))/ε`` (the paper's Table I);
    ``noise_multiplier`` gives ``σ_t`` directly; neither: no noise. The
    reported ε is recomputed for the mechanism run (see the module notes).

    Notes
    -----
    PCU-FL Algorithm 3 and its Fig. 1, as quoted by the explainer page.
    """
    u = _finite_matrix(updates, "updates")
    whole_number("alpha", alpha, minimum=1)
    whole_number("gamma", gamma, minimum=1, maximum=MAX_ENCODED)
    S = fraction("clip S", clip, low=0)
    if gamma * S >= MAX_ENCODED:        # encoded coordinates must fit int64 (and the clip a float)
        raise InvalidOption(f"clip S: gamma S must be below 2^62, not {safe_decimal(gamma * S, 4)}")
    d_ = check_delta(delta)
    eng = choice("engine", engine, SamplerEngine)
    conv = choice("conversion", conversion, Conversion)
    weights = [1] * u.shape[0] if data_weights is None else list(data_weights)
    if len(weights) != u.shape[0]:
        raise InvalidOption(f"weights: {len(weights)} given for {u.shape[0]} clients")
    hw = hamilton_weights(weights, alpha, ids)
    clipped = clip_updates(u, S)
    encoded = encode(clipped, gamma)
    total = sum(hw.integers)
    Y = [int(x) for x in (np.array(hw.integers, dtype=object)[:, None] * encoded.astype(object)).sum(axis=0)]
    denominator = gamma * total
    data = np.array([float(fraction("weight", w)) for w in weights])
    exact = tuple(float(x) for x in (data[:, None] * clipped).sum(axis=0) / data.sum())
    delta_star = sensitivity(max_weight=hw.max_weight, clip=S, dimension=u.shape[1], gamma=gamma)
    base = dict(weights=hw, gamma=gamma, clip=S, encoded_sum=tuple(Y), denominator=denominator,
                noiseless=tuple(Fraction(y, denominator) for y in Y), exact_average=exact, sensitivity=delta_star)
    if epsilon is None and noise_multiplier is None:
        return Release(released=base["noiseless"], **base)  # type: ignore[arg-type]
    if epsilon is not None and noise_multiplier is not None:
        raise InvalidOption("give epsilon or noise multiplier, not both")
    sigma_t = (classical_sigma(epsilon, d_) if epsilon is not None else
               Certified.exact("noise multiplier", fraction("noise multiplier", noise_multiplier, low=0), "given"))
    sigma_t_used = Fraction(safe_decimal(sigma_t.upper(), SIGMA_DIGITS))
    with precision():
        integer_sensitivity = gamma * total * to_arb(delta_star.upper())
        sigma_ball = to_arb(sigma_t_used) * integer_sensitivity
    sigma_int = Fraction(safe_decimal(Certified.from_arb("s", sigma_ball, Direction.UPPER, "").upper(), SIGMA_DIGITS))
    noise = draw(sigma_int, u.shape[1], seed, eng)
    released = tuple(Fraction(y + z, denominator) for y, z in zip(Y, noise.draws))
    distance = None if noise.truncation is None else table_distance(sigma_int)
    epsilon_run, delta_run = _privacy_of_run(sigma_int, integer_sensitivity, d_, conv, distance, u.shape[1])
    multiplier = Certified(sigma_t.name, sigma_t_used, sigma_t_used, sigma_t.direction, sigma_t.method +
                           f"; rounded up to {SIGMA_DIGITS} digits")
    return Release(released=released, noise_multiplier=multiplier, sigma_int=sigma_int, noise=noise,
                   epsilon=epsilon_run, delta_run=delta_run, table_distance=distance, **base)  # type: ignore[arg-type]


def _privacy_of_run(sigma_int: Fraction, integer_sensitivity, delta: Fraction, conv: Conversion,
                    distance: Certified | None, dimension: int) -> tuple[EpsilonBound, Certified]:
    """ε of the discrete Gaussian run (q Δ²/(2σ²), CKS 2020) and δ with the table's distance added.

    A mechanism within total variation ``η`` of an ``(ε, δ)``-DP one is
    ``(ε, δ + (1 + e^ε) η)``-DP; ``d`` independent coordinates give ``η ≤ d η₁``.
    """
    with precision():
        z = to_arb(sigma_int) / integer_sensitivity
    z_low = Fraction(safe_decimal(Certified.from_arb("z", z, Direction.LOWER, "").lower(), 12, up=False))
    bound = to_epsilon(gaussian_curve(z_low), delta, conv)
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
