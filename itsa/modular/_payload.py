"""Arithmetic payload of a stage schedule (Proposition 2) and of repeated flat executions.

A schedule writes its stages coarse to fine, layers by number, ``L`` the
coarsest: ``"4,3/2,1"`` is two stages ``{4,3}`` and ``{2,1}``. A stage of
``b`` layers is one modular sum modulo ``ρ^(b+m_r)``, so one PSA upload costs
``(L + Σ_r m_r) log2 ρ`` bit per dimension (eq. 22). Serving the same
resolutions by repeated flat executions costs ``(L - ℓ0 + 1 + m) log2 ρ`` for
each served finest layer ``ℓ0`` (§IX-D, "Matched functionality").

Each margin is the exact smallest one of that modular sum (uniform digits,
:func:`~itsa.modular._margins.smallest_margin`), or Theorem 1's, or given.
A total target (``all-layers`` or ``union``) is shared by the moduli that one
run actually has: the ``R`` stages of the schedule, and the single modulus of
each flat execution (a separate run with its own target).

Examples
--------
>>> p = payload(1000, radix=3, layers=4, stages="4,3/2,1")
>>> p.psa_units, p.flat_units, p.psa_bits.decimal(4), p.flat_bits.decimal(4)
(12, 14, '19.02', '22.19')
>>> p.ratio
Fraction(6, 7)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from itsa._util.certified import Certified, fraction_text, precision, to_arb
from itsa._util.checks import choice, fraction, whole_number
from itsa._util.deadline import Deadline
from itsa._util.display import Displayable
from itsa._util.progress import Callback, counting
from itsa.exceptions import InvalidOption, excerpt
from itsa.modular._certify import enclose, interval, log2_multiple
from itsa.modular._laws import DigitLaw, check_radix
from itsa.modular._margins import DEFAULT_CARRY, MAX_CLIENTS, MAX_LAYERS, Reading, check_margin_size, smallest_margin
from itsa.modular._rules import concentration_margin, worst_case_margin
from itsa.modular._sums import Arithmetic

__all__ = ["MarginRule", "parse_stages", "Payload", "payload", "corollary1_premium"]


class MarginRule(StrEnum):
    """Where each modulus's margin comes from: the exact smallest one, Theorem 1(a) or (b), or a fixed one."""

    EXACT = "exact"
    THEOREM1A = "theorem1a"
    THEOREM1B = "theorem1b"
    FIXED = "fixed"


def parse_stages(spec: str, layers: int) -> tuple[tuple[int, ...], ...]:
    """Stages coarse to fine: ``"4,3/2,1"`` → ``((4, 3), (2, 1))``; ``"each"`` one per layer, ``"one"`` a single stage.

    The stages must partition ``1..L`` into contiguous blocks, listed from the
    coarsest (containing ``L``) to the finest (containing 1).

    Parameters
    ----------
    spec : str
        The schedule: ``"4,3/2,1"``, ``"each"`` or ``"one"``.
    layers : int
        ``L``.

    >>> parse_stages("4/3/2/1", 4) == parse_stages("each", 4)
    True
    >>> parse_stages("4,2/3,1", 4)
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOption: stages: '4,2/3,1' must list L..1 in order, in contiguous blocks (such as 4,3/2,1)
    """
    layers = whole_number("L (layers)", layers, minimum=1)
    text = str(spec).strip()
    if text == "each":
        return tuple((ell,) for ell in range(layers, 0, -1))
    if text == "one":
        return (tuple(range(layers, 0, -1)),)
    try:
        stages = tuple(tuple(int(x) for x in block.split(",")) for block in text.split("/"))
    except ValueError:
        raise InvalidOption(f"stages: {excerpt(text)} is not a schedule (write 4,3/2,1)") from None
    flat = [ell for block in stages for ell in block]
    if flat != list(range(layers, 0, -1)):
        raise InvalidOption(f"stages: {excerpt(text)} must list L..1 in order, in contiguous blocks (such as 4,3/2,1)")
    return stages


@dataclass(frozen=True, repr=False, kw_only=True)
class Payload(Displayable):
    """One PSA upload against repeated flat executions serving the same resolutions.

    Parameters
    ----------
    clients, radix, layers : int
        ``K``, ``ρ`` and ``L``.
    stages : tuple of tuple of int
        The schedule, coarse to fine.
    rule : MarginRule
        Where each margin comes from.
    carry : Fraction
        The carry target.
    reading : Reading
        How it is read.
    stage_margins : tuple of int
        The margin of each stage.
    flat_widths, flat_margins : tuple of int
        Each flat execution's width and margin.
    single_stage_margin : int
        The margin of the one-stage reference.
    arithmetic : Arithmetic
        Of the exact margins.
    margin : int or None
        The fixed margin given (rule ``fixed``).
    """

    clients: int
    radix: int
    layers: int
    stages: tuple[tuple[int, ...], ...]
    rule: MarginRule
    carry: Fraction
    reading: Reading
    stage_margins: tuple[int, ...]
    flat_widths: tuple[int, ...]
    flat_margins: tuple[int, ...]
    single_stage_margin: int
    arithmetic: Arithmetic = Arithmetic.AUTO
    margin: int | None = None

    @property
    def premium_units(self) -> int:
        """PSA's payload over the one-stage payload ``L + m``, in units of ``log2 ρ`` (Corollary 1's left side)."""
        return self.psa_units - (self.layers + self.single_stage_margin)

    @property
    def premium_bits(self) -> Certified:
        return log2_multiple(self.premium_units, self.radix, "premium bits per dimension")

    @property
    def asymptotic_premium(self) -> Certified:
        """Corollary 1's leading term ``(R-1)/2 · log2 K``."""
        return corollary1_premium(self.clients, len(self.stages))

    @property
    def psa_units(self) -> int:
        """``L + Σ_r m_r``: the payload in units of ``log2 ρ`` bit per dimension (eq. 22)."""
        return self.layers + sum(self.stage_margins)

    @property
    def flat_units(self) -> int:
        return sum(w + m for w, m in zip(self.flat_widths, self.flat_margins))

    @property
    def psa_bits(self) -> Certified:
        return log2_multiple(self.psa_units, self.radix, "PSA bits per dimension")

    @property
    def flat_bits(self) -> Certified:
        return log2_multiple(self.flat_units, self.radix, "flat bits per dimension")

    @property
    def ratio(self) -> Fraction:
        """PSA payload over the repeated flat payload, exactly."""
        return Fraction(self.psa_units, self.flat_units)

    def headline(self) -> str:
        return (f"R = {len(self.stages)} at K = {self.clients}: PSA {self.psa_bits.decimal(4)} against flat ×R "
                f"{self.flat_bits.decimal(4)} bit per dimension")

    @property
    def moduli_per_target(self) -> dict[str, int]:
        """How many moduli share one carry target: the schedule's ``R``; one per flat execution."""
        return {"psa": len(self.stages), "flat_execution": 1}

    def _target_text(self) -> str:
        if self.rule is MarginRule.FIXED:
            return "not used (fixed margin)"
        if self.reading is Reading.PER_LAYER:
            return f"{fraction_text(self.carry)} per modulus"
        r = len(self.stages)
        shared = "its one modulus" if r == 1 else f"its {r} moduli"
        return f"{fraction_text(self.carry)} ({self.reading}): the schedule over {shared}, each flat execution over its one"

    def rows(self) -> list[tuple[str, str]]:
        stages = " / ".join(",".join(map(str, s)) for s in self.stages)
        return [("stages (coarse to fine)", stages), ("carry target", self._target_text()),
                ("margins", f"{list(self.stage_margins)} ({self.rule})"),
                ("PSA", f"{self.psa_units} log2 ρ = {self.psa_bits.decimal(4)} bit (rounded up)"),
                ("flat executions (width)", str(list(self.flat_widths))),
                ("flat ×R", f"{self.flat_units} log2 ρ = {self.flat_bits.decimal(4)} bit (rounded up)"),
                ("ratio", f"{self.ratio} (exact)"),
                ("premium over one stage", f"{self.premium_units} log2 ρ = {self.premium_bits.decimal(4)} bit; "
                 f"Corollary 1's (R−1)/2 log2 K = {interval(self.asymptotic_premium)}")]

    def to_dict(self) -> dict:
        return {"clients": self.clients, "radix": self.radix, "layers": self.layers,
                "stages": [list(s) for s in self.stages], "margin_rule": str(self.rule), "margin": self.margin,
                "carry": fraction_text(self.carry), "reading": str(self.reading), "arithmetic": str(self.arithmetic),
                "moduli_per_target": self.moduli_per_target,
                "stage_margins": list(self.stage_margins), "psa_units_log2_radix": self.psa_units,
                "psa_bits_per_dimension": self.psa_bits.to_dict(),
                "flat_widths": list(self.flat_widths), "flat_margins": list(self.flat_margins),
                "flat_units_log2_radix": self.flat_units, "flat_bits_per_dimension": self.flat_bits.to_dict(),
                "ratio": str(self.ratio), "premium_units_log2_radix": self.premium_units,
                "premium_bits_per_dimension": self.premium_bits.to_dict(),
                "corollary1_leading_premium": self.asymptotic_premium.to_dict()}


def _margin(rule: MarginRule, clients, radix, moduli, width, carry, reading, fixed, arithmetic, clock, memo) -> int:
    """The margin of one modulus of ``width`` layers, in a run of ``moduli`` moduli sharing the target."""
    if rule is MarginRule.FIXED:
        return whole_number("margin", fixed, minimum=0)
    if rule is MarginRule.THEOREM1A:
        return worst_case_margin(clients, radix, moduli, width)
    if rule is MarginRule.THEOREM1B:          # ln(4R/δ_w) with R the moduli of this run (eq. 21 per modulus)
        total = moduli * carry if reading is Reading.PER_LAYER else carry
        return concentration_margin(clients, radix, moduli, total, width)
    if (moduli, width) not in memo:
        clock.check(f"the margin of width {width}")
        memo[moduli, width] = smallest_margin(clients, radix, moduli, carry, reading, width=width,
                                              arithmetic=arithmetic, time_limit=clock).margin
    return memo[moduli, width]


def payload(clients: int, radix: int = 3, layers: int = 4, stages: str = "each", carry=DEFAULT_CARRY,
            reading: Reading | str = Reading.PER_LAYER, rule: MarginRule | str = MarginRule.EXACT,
            margin: int | None = None, arithmetic: Arithmetic | str = Arithmetic.AUTO,
            time_limit: float | Deadline | None = None, progress: Callback | None = None) -> Payload:
    """Proposition 2's payload for ``stages`` and the repeated flat baseline, at ``K = clients``.

    Each modulus gets its own margin: a stage of ``b`` layers sums symbols
    uniform on ``ρ^b`` values modulo ``ρ^(b+m)``; a flat execution serving
    ``ℓ0`` has width ``L - ℓ0 + 1``. A total target (``all-layers``,
    ``union``; Theorem 1(b)'s ``ln(4R/δ_w)``) counts the moduli of the run at
    hand: the ``R`` stages of the schedule, one for each flat execution and for
    the single stage of the premium's reference. Under the exact rule the size
    of every modular sum is checked before any is computed.

    Parameters
    ----------
    clients, radix, layers : int
        ``K``, ``ρ`` and ``L``.
    stages : str
        The schedule, coarse to fine (:func:`parse_stages`).
    carry : Fraction or str
        The carry target.
    reading : Reading
        How it is read.
    rule : MarginRule
        Where each margin comes from.
    margin : int, optional
        The margin of every modulus under the rule ``fixed`` (only).
    arithmetic : Arithmetic
        Of the exact margins.
    time_limit : float or Deadline, optional
        Seconds for the whole call.
    progress : callable, optional
        Receives :class:`~itsa._util.progress.Event` s counting the exact margins found.

    Notes
    -----
    Proposition 2 (eq. 22), Remark 1 and §IX-D (Table I) of Azimi-Abarghouyi,
    arXiv 2610.00695.
    """
    check_radix(radix)
    whole_number("K (clients)", clients, minimum=1, maximum=MAX_CLIENTS)
    schedule = parse_stages(stages, whole_number("L (layers)", layers, minimum=1, maximum=MAX_LAYERS))
    how: MarginRule = choice("margin rule", rule, MarginRule)
    how_read: Reading = choice("reading", reading, Reading)
    carry = fraction("carry target", carry, low=0, high=1)
    if how is MarginRule.FIXED and margin is None:
        raise InvalidOption("margin rule fixed: needs a margin")
    if how is not MarginRule.FIXED and margin is not None:
        raise InvalidOption(f"margin: applies only to the margin rule fixed, not {how}")
    widths = tuple(layers - min(s) + 1 for s in schedule)
    runs = {(len(schedule), len(s)) for s in schedule} | {(1, w) for w in widths} | {(1, layers)}
    if how is MarginRule.EXACT:
        for w in sorted({w for _, w in runs}):
            check_margin_size(clients, carry, DigitLaw.uniform(radix, w), arithmetic)
    clock, memo = Deadline.of(time_limit), _Memo(counting(progress, "payload"), len(runs))
    rest = (carry, how_read, margin, arithmetic, clock, memo)
    stage_margins = tuple(_margin(how, clients, radix, len(schedule), len(s), *rest) for s in schedule)
    flat_margins = tuple(_margin(how, clients, radix, 1, w, *rest) for w in widths)
    single = _margin(how, clients, radix, 1, layers, *rest)
    return Payload(clients=clients, radix=radix, layers=layers, stages=schedule, rule=how, carry=carry,
                   reading=how_read, stage_margins=stage_margins, flat_widths=widths, flat_margins=flat_margins,
                   single_stage_margin=single, arithmetic=choice("arithmetic", arithmetic, Arithmetic),
                   margin=margin)


class _Memo(dict):
    """The exact margin of each (moduli, width), found once; ``tick(done, total)`` at each new one."""

    def __init__(self, tick, total: int):
        super().__init__()
        self.tick, self.total = tick, total

    def __setitem__(self, key, margin) -> None:
        super().__setitem__(key, margin)
        if self.tick is not None:
            self.tick(len(self), self.total)


def corollary1_premium(clients: int, stages: int) -> Certified:
    """``(R-1)/2 · log2 K``, Corollary 1's leading premium of ``R`` stages over one (eq. 27).

    Parameters
    ----------
    clients : int
        ``K``.
    stages : int
        ``R``.

    Examples
    --------
    >>> interval(corollary1_premium(1000, 4)), corollary1_premium(1024, 4).decimal()
    ('[14.94, 14.95]', '15')
    """
    whole_number("R (stages)", stages, minimum=1)
    whole_number("K (clients)", clients, minimum=1)
    name = "Corollary 1's leading premium"
    if clients & (clients - 1) == 0:          # a power of two: log2 K is an integer
        return Certified.exact(name, Fraction(stages - 1, 2) * (clients.bit_length() - 1), "exact (log2 of a power of 2)")
    with precision():
        return enclose(name, to_arb(stages - 1) / 2 * to_arb(clients).log() / to_arb(2).log())
