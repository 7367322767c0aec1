"""Trade-offs: ε, wrap probability and error against one swept quantity, the heuristic's curve beside itsa's.

:func:`sweep` varies one of ``word_bits``, ``epsilon``, ``clients`` or
``dropout`` over a list of values. At each value the k-standard-deviations
rule (:mod:`itsa.planning.rule.heuristic`) picks its configuration and itsa
certifies it; itsa's own configuration comes from a callable
``evaluate(value) -> (epsilon, wrap, error)`` (the planner's), so the two
curves are computed by the same accountant and the same tail bounds.
:func:`draw_sweep` writes the three panels to a PDF (or SVG, PNG) with
TrueType fonts, never Type 3.

Examples
--------
>>> p = SweepParameters(clients=100, dimension=64, clip=1, word_bits=16, epsilon=8, delta="1e-6", rounds=10)
>>> s = sweep(p, "word_bits", [12, 16])
>>> [row.value for row in s.points], s.points[0].heuristic.config.word_bits
([12, 16], 12)
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from fractions import Fraction
from pathlib import Path

from itsa._util.certified import Certified, Direction, fraction_text, safe_decimal
from itsa._util.checks import choice, dropout_fraction, fraction, read_whole, whole_number
from itsa._util.deadline import Deadline
from itsa._util.display import Displayable
from itsa._util.extras import require
from itsa._util.files import atomic_writer
from itsa._util.progress import Callback, Reporter
from itsa.exceptions import InvalidOption, InvalidOutputPath, excerpt
from itsa.keys.output.draw import PUBLICATION_RC, output_format
from itsa.planning.mechanism import gaussian_multiplier
from itsa.planning.planner import plan_deadline
from itsa.planning.rotation import Rotation, flattening_rotation
from itsa.planning.rule.heuristic import (
    MAX_RULE_WORD_BITS,
    Adjacency,
    HeuristicRisk,
    certify_heuristic,
    k_stddevs_rule,
)

__all__ = ["Quantity", "SweepParameters", "SweepPoint", "Sweep", "sweep", "parse_sweep", "draw_sweep",
           "heuristic_error", "sweep_title", "sweep_caption", "axis_label", "misses", "MAX_POINTS"]

#: Most values in one sweep.
MAX_POINTS = 200
#: Most characters of one swept value or bound (a deployment's numbers have at most as many digits).
MAX_DIGITS = 400


class Quantity(StrEnum):
    """The quantities a sweep can vary."""

    WORD_BITS = "word_bits"
    EPSILON = "epsilon"
    CLIENTS = "clients"
    DROPOUT = "dropout"
    ROUNDS = "rounds"
    DIMENSION = "dimension"
    CLIP = "clip"
    SIGMA = "sigma"
    POPULATION = "population"


#: Quantities the rule's own parameters do not hold: its pick at each value is the re-planned plan's rule.
PLAN_ONLY = frozenset({Quantity.SIGMA, Quantity.POPULATION})


@dataclass(frozen=True, kw_only=True)
class SweepParameters:
    """The deployment a sweep starts from; the swept quantity replaces one of these.

    The rule takes a noise multiplier: it is the Gaussian mechanism's for
    ``epsilon`` at ``delta`` over ``rounds`` (what a user of the rule
    calibrates with a central accountant), unless ``noise_multiplier`` is given
    (then ``epsilon`` is only the target of the rule's verdict, and may be ``None``: no verdict).
    """

    clients: int
    dimension: int
    clip: Fraction
    word_bits: int
    epsilon: Fraction | None
    delta: Fraction
    rounds: int = 1
    dropout: Fraction = Fraction(0)
    overflow: Fraction | None = None
    noise_multiplier: Fraction | None = None
    adjacency: Adjacency = Adjacency.ADD_REMOVE
    rotation: Rotation = Rotation.DFT
    #: the deployment's name (the figure's title)
    name: str | None = None

    def __post_init__(self):
        whole_number("clients", self.clients, minimum=1)
        whole_number("dimension", self.dimension, minimum=1)
        whole_number("word_bits", self.word_bits, minimum=1, maximum=MAX_RULE_WORD_BITS)
        whole_number("rounds", self.rounds, minimum=1)
        for name, low, high in (("clip", 0, None), ("epsilon", 0, None), ("delta", 0, 1)):
            if name == "epsilon" and self.epsilon is None:
                if self.noise_multiplier is None:
                    raise InvalidOption("epsilon: give a target epsilon, or the noise multiplier (then no target)")
                continue
            object.__setattr__(self, name, fraction(name, getattr(self, name), low=low, high=high))
        object.__setattr__(self, "dropout", dropout_fraction(self.dropout))
        if self.overflow is not None:
            object.__setattr__(self, "overflow", fraction("overflow", self.overflow, low=0, high=1))
        if self.noise_multiplier is not None:
            object.__setattr__(self, "noise_multiplier",
                               fraction("noise_multiplier", self.noise_multiplier, low=0))
        object.__setattr__(self, "adjacency", choice("adjacency", self.adjacency, Adjacency))
        object.__setattr__(self, "rotation", flattening_rotation(self.rotation))

    def with_value(self, quantity: Quantity, value) -> SweepParameters:
        if quantity in PLAN_ONLY:           # not the rule's parameters (its pick comes from the re-planned plan)
            return self
        return replace(self, **{str(quantity): value})


def heuristic_error(risk: HeuristicRisk) -> Certified | None:
    """The MSE per coordinate of the released mean under the rule's pick, wraps aside: an upper bound.

    ``γ² (K_eff/4 + K_eff σ²)/K_eff²``: stochastic rounding's variance is at
    most 1/4 per client, the discrete Gaussian's below σ² (integer units).
    """
    if risk.config.refusal:
        return None
    _, gamma, sigma = risk.config.picks()
    k = risk.survivors
    value = gamma ** 2 * (Fraction(k, 4) + k * sigma ** 2) / k ** 2
    return Certified("error", value, value, Direction.UPPER,
                     "gamma^2 (K_eff/4 + K_eff sigma^2)/K_eff^2: rounding at most 1/4, the noise below sigma^2")


@dataclass(frozen=True, repr=False)
class SweepPoint(Displayable):
    """One value of the swept quantity: the rule's pick with its certified risk, and itsa's numbers."""

    value: Fraction | int
    heuristic: HeuristicRisk
    heuristic_error: Certified | None
    itsa: tuple | None

    def headline(self) -> str:
        return f"{_text(self.value)}: {self.heuristic.headline()}"

    def rows(self) -> list[tuple[str, str]]:
        return [(name, text) for name, text in zip(("heuristic eps", "heuristic wrap", "heuristic error"),
                                                   _three(self.heuristic_numbers()))] + (
            [] if self.itsa is None else list(zip(("itsa eps", "itsa wrap", "itsa error"), _three(self.itsa))))

    def heuristic_numbers(self) -> tuple:
        return (self.heuristic.epsilon, self.heuristic.wrap_round, self.heuristic_error)

    def to_dict(self) -> dict:
        return {"value": _text(self.value),
                "heuristic": {"epsilon": _json(self.heuristic.epsilon), "wrap_probability": _json(self.heuristic.wrap_round),
                              "error": _json(self.heuristic_error), "verdict": self.heuristic.verdict,
                              "gamma": None if self.heuristic.config.gamma is None else fraction_text(self.heuristic.config.gamma),
                              "sigma_client": None if self.heuristic.config.sigma is None
                              else safe_decimal(self.heuristic.config.sigma, 6),
                              "refusal": self.heuristic.config.refusal},
                "itsa": None if self.itsa is None else dict(zip(("epsilon", "wrap_probability", "error"),
                                                                 (_json(x) for x in self.itsa)))}


@dataclass(frozen=True, repr=False)
class Sweep(Displayable):
    """ε, wrap probability (per round) and error against one quantity, for the rule and for itsa."""

    quantity: Quantity
    parameters: SweepParameters
    points: tuple[SweepPoint, ...]

    def headline(self) -> str:
        return (f"{self.quantity} over {len(self.points)} values ({_text(self.points[0].value)} .. "
                f"{_text(self.points[-1].value)}): the k-sd rule" + (" beside itsa" if self.has_itsa else ""))

    @property
    def has_itsa(self) -> bool:
        return any(p.itsa is not None for p in self.points)

    def rows(self) -> list[tuple[str, str]]:
        out = []
        for p in self.points:
            h = " | ".join(_three(p.heuristic_numbers())) + (f" (the rule is {p.heuristic.verdict})"
                                                              if p.heuristic.verdict else "")
            text = f"rule: {h}" + ("" if p.itsa is None else f"; itsa: {' | '.join(_three(p.itsa))}")
            out.append((f"{self.quantity} = {_text(p.value)}", text))
        return out

    def to_dict(self) -> dict:
        return {"quantity": str(self.quantity), "columns": ["epsilon", "wrap_probability", "error"],
                "wrap_probability_per": "round", "points": [p.to_dict() for p in self.points]}


def _text(value) -> str:
    return str(value) if isinstance(value, int) else fraction_text(value)


def _three(numbers) -> list[str]:
    return [_short(x) for x in numbers]


def _short(x) -> str:
    if x is None:
        return "none"
    if isinstance(x, Certified):
        return f"{x.decimal(3)} ({x.direction})"
    return f"{safe_decimal(Fraction(x), 3)} (as given)"


def _json(x):
    if x is None:
        return None
    if isinstance(x, Certified):
        return x.to_dict()
    return {"value": safe_decimal(Fraction(x), 6), "direction": "as given"}


def _value(quantity: Quantity, value):
    if isinstance(value, str) and len(value.strip()) > MAX_DIGITS:
        raise InvalidOption(f"sweep: a {quantity} value of more than {MAX_DIGITS} characters, not {excerpt(value)}")
    if quantity in (Quantity.WORD_BITS, Quantity.CLIENTS, Quantity.ROUNDS, Quantity.DIMENSION, Quantity.POPULATION):
        if isinstance(value, str):                      # the one reader: 2000, 2e3 or 2_000
            value = read_whole(str(quantity), value, minimum=1, maximum=None)
        return whole_number(str(quantity), value, minimum=1)
    if quantity is Quantity.DROPOUT:
        return dropout_fraction(value)
    return fraction(str(quantity), value, low=0)


def sweep(parameters: SweepParameters, quantity: Quantity | str, values: Sequence, *,
          evaluate: Callable | None = None, progress: Callback | None = None,
          time_limit: float | Deadline | None = None, rule: Callable | None = None) -> Sweep:
    """The rule's certified ε, wrap probability and error (and itsa's, through ``evaluate``) at each value.

    ``evaluate(value)`` returns itsa's ``(epsilon, wrap, error)`` at the
    value (each a :class:`~itsa._util.certified.Certified` or a number, or
    ``None``); without it only the rule's curve is computed. ``rule(value)``,
    when given, returns the rule's :class:`~itsa.planning.rule.heuristic.HeuristicRisk`
    at the value (or ``None``: then it is computed from ``parameters``), as
    a sweep of ``sigma`` or ``population`` needs (:data:`PLAN_ONLY`).
    """
    q = choice("quantity", quantity, Quantity)
    vals = [_value(q, v) for v in values]
    if not 1 <= len(vals) <= MAX_POINTS:
        raise InvalidOption(f"sweep: needs 1 to {MAX_POINTS} values, not {len(vals)}")
    clock, report = plan_deadline(time_limit), Reporter(progress, prefix="sweep")
    multipliers: dict = {}
    points = []
    for i, v in enumerate(vals):
        clock.check(f"{i} of {len(vals)} sweep points")
        p = parameters.with_value(q, v)
        risk = None if rule is None else rule(v)
        risk = _rule_risk(p, multipliers) if risk is None else risk
        points.append(SweepPoint(v, risk, heuristic_error(risk), None if evaluate is None else tuple(evaluate(v))))
        report("point", done=i + 1, total=len(vals))
    return Sweep(q, parameters, tuple(points))


def _rule_risk(p: SweepParameters, multipliers: dict) -> HeuristicRisk:
    z = p.noise_multiplier
    if z is None:
        assert p.epsilon is not None            # the parameters' own check
        key = (p.epsilon, p.delta, p.rounds)
        if key not in multipliers:
            multipliers[key] = gaussian_multiplier(*key)
        z = multipliers[key]
    config = k_stddevs_rule(p.clients, p.dimension, p.clip, p.word_bits, z, rotation=p.rotation)
    return certify_heuristic(config, dropout=p.dropout, rounds=p.rounds, delta=p.delta, adjacency=p.adjacency,
                             epsilon=p.epsilon, overflow=p.overflow)


_SPEC = re.compile(r"^\s*([a-z_]+)\s*=\s*(.+?)\s*$")
_RANGE = re.compile(r"^(\d+)\s*\.\.\s*(\d+)(?:\s*:\s*(\d+))?$")


def parse_sweep(text: str) -> tuple[Quantity, list]:
    """``"word_bits=12..32"`` (a step: ``12..32:2``) or ``"epsilon=1,2,4"`` as ``(quantity, values)``.

    >>> parse_sweep("word_bits=12..16:2")
    (<Quantity.WORD_BITS: 'word_bits'>, [12, 14, 16])
    >>> parse_sweep("dropout=0,1/10")[1]
    [Fraction(0, 1), Fraction(1, 10)]
    """
    found = _SPEC.match(text) if isinstance(text, str) else None
    if not found:
        raise InvalidOption(f"sweep: must read QUANTITY=LOW..HIGH or QUANTITY=V1,V2,..., not {excerpt(text)}")
    q = choice("sweep quantity", found.group(1), Quantity)
    spec = found.group(2)
    span = _RANGE.match(spec)
    if span:
        if any(len(g) > MAX_DIGITS for g in span.groups() if g):
            raise InvalidOption(f"sweep: a bound of more than {MAX_DIGITS} digits in {excerpt(spec)}")
        low, high, step = int(span.group(1)), int(span.group(2)), int(span.group(3) or 1)
        if step < 1 or high < low or (high - low) // step + 1 > MAX_POINTS:
            raise InvalidOption(f"sweep: {excerpt(spec)} is not a range LOW..HIGH of at most {MAX_POINTS} values")
        return q, [_value(q, v) for v in range(low, high + 1, step)]
    return q, [_value(q, v.strip()) for v in spec.split(",")]


# -- the figure -----------------------------------------------------------------------------------

#: Wrap probabilities below this are drawn at it (the bounds reach 1e-500 and below).
WRAP_FLOOR = 1e-40


#: Each swept quantity's axis label, with its unit (by the quantity's name; another is labelled by its name).
AXIS_LABELS = {"word_bits": "word (bits)", "epsilon": "target epsilon (at the deployment's delta)",
               "clients": "clients per round", "dropout": "dropout (fraction of the clients)",
               "rounds": "rounds", "dimension": "dimension d", "clip": "clip S (update units)",
               "sigma": "sigma per client (integer units)", "population": "population N (clients)"}
#: What the title calls a swept quantity (another: "the" and its name).
_SWEPT = {"word_bits": "the word size", "epsilon": "the target epsilon", "clients": "the clients per round"}
#: The panels: their titles and the y axes' labels with their units.
PANELS = (("epsilon", "epsilon (certified upper bound)"),
          ("wrap per round", f"P[wrap] per round (upper bound; floor {WRAP_FLOOR:g})"),
          ("error of the released mean", "MSE per coordinate (data units squared)"))
#: The colours: the rule, itsa, the targets, the infeasible marks (colour-blind safe).
RULE_COLOUR, ITSA_COLOUR, TARGET_COLOUR, MISS_COLOUR = "#D55E00", "#0072B2", "#4D4D4D", "#CC0000"


def sweep_title(result: Sweep) -> str:
    """The figure's title: the deployment and what is swept."""
    name = result.parameters.name or "deployment"
    swept = _SWEPT.get(str(result.quantity), "the " + str(result.quantity).replace("_", " "))
    return f"{name}: itsa's plan and the k-sd rule against {swept}"


def axis_label(quantity) -> str:
    """The swept quantity's axis label, with its unit."""
    return AXIS_LABELS.get(str(quantity), str(quantity).replace("_", " "))


def sweep_caption(result: Sweep) -> str:
    """The deployment's parameters, one line (the swept quantity's own value is the axis)."""
    p = result.parameters
    parts = [("clients", f"K = {p.clients:,} clients"), ("dimension", f"d = {p.dimension:,}"),
             ("clip", f"clip S = {fraction_text(p.clip)}"), ("word_bits", f"{p.word_bits}-bit word"),
             ("dropout", f"dropout {fraction_text(p.dropout)}")]
    if p.epsilon is not None:
        parts.append(("epsilon", f"target epsilon {fraction_text(p.epsilon)}"))
    parts += [("delta", f"delta {safe_decimal(p.delta, 4)}"), ("rounds", f"over {p.rounds:,} rounds"),
              ("adjacency", str(p.adjacency))]
    if p.overflow is not None:
        parts.append(("overflow", f"overflow target {safe_decimal(p.overflow, 4)} per round"))
    return ", ".join(text for key, text in parts if key != str(result.quantity))


def _targets(result: Sweep, value) -> tuple[Fraction | None, Fraction | None]:
    """The ε and per-round wrap targets at one swept value."""
    p = result.parameters
    return (Fraction(value) if result.quantity is Quantity.EPSILON else p.epsilon), p.overflow


def misses(numbers, epsilon_target, wrap_target) -> bool:
    """Whether a point's certified ``(ε, wrap, error)`` misses a target (no ε or wrap: missed)."""
    eps, wrap = numbers[0], numbers[1]
    if epsilon_target is not None and (eps is None or _upper(eps) > epsilon_target):
        return True
    return wrap_target is not None and (wrap is None or _upper(wrap) > wrap_target)


def _upper(x) -> Fraction:
    return x.upper() if isinstance(x, Certified) else Fraction(x)


def _plotted(x, floor: float = 0.0) -> float:
    """A plotted coordinate (never printed): the safe end of a certified number, ``nan`` for none."""
    if x is None:
        return math.nan
    return max(floor, float(x.value()) if isinstance(x, Certified) else float(x))


def draw_sweep(result: Sweep, path: str | os.PathLike) -> Path:
    """Three panels (ε, wrap per round, error) against the swept quantity, the rule dashed, itsa solid.

    The figure carries a title (:func:`sweep_title`), the deployment's
    parameters (:func:`sweep_caption`), the targets as lines (ε, the
    overflow per round), the points that miss a target marked with a red
    cross, and each axis's unit; PDFs embed TrueType fonts, never Type 3.
    """
    out = Path(path)
    fmt = output_format(out)
    if not out.parent.is_dir():
        raise InvalidOutputPath(f"cannot draw to {os.fspath(path)!r}: no directory {os.fspath(out.parent)!r}")
    matplotlib = require("matplotlib")          # the draw extra, imported here: a plain install has no matplotlib
    mpl_figure, mpl_layout = require("matplotlib.figure"), require("matplotlib.layout_engine")

    xs = [float(p.value) for p in result.points]
    targets = [_targets(result, p.value) for p in result.points]
    curves = [("k-sd rule", "o--", RULE_COLOUR, [p.heuristic_numbers() for p in result.points])]
    if result.has_itsa:
        curves.append(("itsa", "s-", ITSA_COLOUR, [p.itsa or (None, None, None) for p in result.points]))
    with matplotlib.rc_context(PUBLICATION_RC):
        fig = mpl_figure.Figure(figsize=(10, 3.9), layout=mpl_layout.ConstrainedLayoutEngine(rect=(0, 0.05, 1, 0.95)))
        fig.suptitle(sweep_title(result), fontsize=12)
        axes = fig.subplots(1, 3)
        for k, (ax, (title, unit)) in enumerate(zip(axes, PANELS)):
            floor = WRAP_FLOOR if k == 1 else 0.0
            missed_label = "misses a target"
            for label, style, colour, numbers in curves:
                ax.plot(xs, [_plotted(n[k], floor) for n in numbers], style, color=colour, label=label)
                bad = [(x, _plotted(n[k], floor)) for x, n, t in zip(xs, numbers, targets) if misses(n, *t)]
                if bad:
                    ax.plot(*zip(*bad), "x", color=MISS_COLOUR, markersize=9, markeredgewidth=2, label=missed_label)
                    missed_label = "_"
            _target_line(ax, k, result, xs)
            ax.set_yscale("log")
            ax.set_xlabel(axis_label(result.quantity))
            ax.set_ylabel(unit, fontsize=8)
            ax.set_title(title, fontsize=10)
            ax.legend(fontsize=7)
        fig.text(0.5, 0.005, sweep_caption(result), ha="center", va="bottom", fontsize=7.5, wrap=True)
        meta = {"pdf": {"Title": sweep_title(result), "Subject": sweep_caption(result), "CreationDate": None},
                "svg": {"Title": sweep_title(result), "Description": sweep_caption(result), "Date": None},
                "png": {"Title": sweep_title(result), "Description": sweep_caption(result)}}[fmt]
        with atomic_writer(out, binary=True) as fh:
            fig.savefig(fh, format=fmt, metadata=meta)
    return out


def _target_line(ax, panel: int, result: Sweep, xs: list[float]) -> None:
    """The ε target (a line, or the diagonal when ε is swept) and the overflow target per round."""
    p = result.parameters
    if panel == 0 and result.quantity is Quantity.EPSILON:
        ax.plot(xs, xs, ":", color=TARGET_COLOUR, label="target epsilon")
    elif panel == 0 and p.epsilon is not None:
        ax.axhline(float(p.epsilon), linestyle=":", color=TARGET_COLOUR,
                   label=f"target epsilon {fraction_text(p.epsilon)}")
    elif panel == 1 and p.overflow is not None:
        ax.axhline(max(WRAP_FLOOR, float(p.overflow)), linestyle=":", color=TARGET_COLOUR,
                   label=f"overflow target {safe_decimal(p.overflow, 3)}")
