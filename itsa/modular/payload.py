"""Arithmetic payload of a stage schedule (Proposition 2) and of repeated flat executions.

A schedule writes its stages coarse to fine, layers by number, ``L`` the
coarsest: ``"4,3/2,1"`` is two stages ``{4,3}`` and ``{2,1}``. A stage of
``b`` layers is one modular sum modulo ``ρ^(b+m_r)``, so one PSA upload costs
``(L + Σ_r m_r) log2 ρ`` bit per dimension (eq. 22). Serving the same
resolutions by repeated flat executions costs ``(L - ℓ0 + 1 + m) log2 ρ`` for
each served finest layer ``ℓ0`` (§IX-D, "Matched functionality").

Each margin is the exact smallest one of that modular sum (uniform digits,
:func:`~itsa.modular.margins.smallest_margin`), or Theorem 1's, or given.
A total target (``all-layers`` or ``union``) is shared by the moduli that one
run actually has: the ``R`` stages of the schedule, and the single modulus of
each flat execution (a separate run with its own target).

Examples
--------
>>> p = payload(1000, radix=3, layers=4, stages="4,3/2,1")
>>> p.psa_units, p.flat_units, p.psa_bits.upper(2), p.flat_bits.upper(2)
(12, 14, '19.02', '22.19')
>>> p.ratio
Fraction(6, 7)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from itsa._util.checks import choice, fraction, whole_number
from itsa._util.deadline import Deadline
from itsa._util.display import Displayable
from itsa.exceptions import InvalidOption, excerpt
from itsa.modular.laws import DigitLaw, check_radix
from itsa.modular.margins import MAX_CLIENTS, MAX_LAYERS, Reading, check_margin_size, smallest_margin
from itsa.modular.numbers import Certified, fraction_text, log2_multiple
from itsa.modular.rules import concentration_margin, worst_case_margin
from itsa.modular.sums import Method

__all__ = ["MarginRule", "parse_stages", "Payload", "payload", "corollary1_premium"]


class MarginRule(StrEnum):
    """Where each modulus's margin comes from."""

    EXACT = "exact"
    THEOREM1A = "theorem1a"
    THEOREM1B = "theorem1b"
    FIXED = "fixed"


def parse_stages(spec: str, layers: int) -> tuple[tuple[int, ...], ...]:
    """Stages coarse to fine: ``"4,3/2,1"`` → ``((4, 3), (2, 1))``; ``"each"`` one per layer, ``"one"`` a single stage.

    The stages must partition ``1..L`` into contiguous blocks, listed from the
    coarsest (containing ``L``) to the finest (containing 1).

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
    """One PSA upload against repeated flat executions serving the same resolutions."""

    clients: int
    radix: int
    layers: int
    stages: tuple[tuple[int, ...], ...]
    rule: MarginRule
    target: Fraction
    reading: Reading
    stage_margins: tuple[int, ...]
    flat_widths: tuple[int, ...]
    flat_margins: tuple[int, ...]
    single_stage_margin: int

    @property
    def premium_units(self) -> int:
        """PSA's payload over the one-stage payload ``L + m``, in units of ``log2 ρ`` (Corollary 1's left side)."""
        return self.psa_units - (self.layers + self.single_stage_margin)

    @property
    def premium_bits(self) -> Certified:
        return log2_multiple(self.premium_units, self.radix)

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
        return log2_multiple(self.psa_units, self.radix)

    @property
    def flat_bits(self) -> Certified:
        return log2_multiple(self.flat_units, self.radix)

    @property
    def ratio(self) -> Fraction:
        """PSA payload over the repeated flat payload, exactly."""
        return Fraction(self.psa_units, self.flat_units)

    def headline(self) -> str:
        return (f"R = {len(self.stages)} at K = {self.clients}: PSA {self.psa_bits.upper(2)} against flat ×R "
                f"{self.flat_bits.upper(2)} bit per dimension")

    @property
    def moduli_per_target(self) -> dict[str, int]:
        """How many moduli share one carry target: the schedule's ``R``; one per flat execution."""
        return {"psa": len(self.stages), "flat_execution": 1}

    def _target_text(self) -> str:
        if self.rule is MarginRule.FIXED:
            return "not used (fixed margin)"
        if self.reading is Reading.PER_LAYER:
            return f"{fraction_text(self.target)} per modulus"
        r = len(self.stages)
        shared = "its one modulus" if r == 1 else f"its {r} moduli"
        return f"{fraction_text(self.target)} ({self.reading}): the schedule over {shared}, each flat execution over its one"

    def rows(self) -> list[tuple[str, str]]:
        stages = " / ".join(",".join(map(str, s)) for s in self.stages)
        return [("stages (coarse to fine)", stages), ("carry target", self._target_text()),
                ("margins", f"{list(self.stage_margins)} ({self.rule})"),
                ("PSA", f"{self.psa_units} log2 ρ = {self.psa_bits.upper(2)} bit (rounded up)"),
                ("flat executions (width)", str(list(self.flat_widths))),
                ("flat ×R", f"{self.flat_units} log2 ρ = {self.flat_bits.upper(2)} bit (rounded up)"),
                ("ratio", f"{self.ratio} (exact)"),
                ("premium over one stage", f"{self.premium_units} log2 ρ = {self.premium_bits.upper(2)} bit; "
                 f"Corollary 1's (R−1)/2 log2 K = {self.asymptotic_premium.text(2)}")]

    def to_json(self) -> dict:
        return {"clients": self.clients, "radix": self.radix, "layers": self.layers,
                "stages": [list(s) for s in self.stages], "margin_rule": str(self.rule),
                "target": fraction_text(self.target), "reading": str(self.reading), "moduli_per_target": self.moduli_per_target,
                "stage_margins": list(self.stage_margins), "psa_units_log2_radix": self.psa_units,
                "psa_bits_per_dimension": self.psa_bits.upper(2), "psa_bits_certified": self.psa_bits.to_json(),
                "flat_widths": list(self.flat_widths), "flat_margins": list(self.flat_margins),
                "flat_units_log2_radix": self.flat_units, "flat_bits_per_dimension": self.flat_bits.upper(2),
                "flat_bits_certified": self.flat_bits.to_json(), "ratio": str(self.ratio),
                "premium_units_log2_radix": self.premium_units, "premium_bits_per_dimension": self.premium_bits.upper(2),
                "corollary1_leading_premium": self.asymptotic_premium.to_json()}


def _margin(rule: MarginRule, clients, radix, moduli, width, target, reading, fixed, method, clock, memo) -> int:
    """The margin of one modulus of ``width`` layers, in a run of ``moduli`` moduli sharing the target."""
    if rule is MarginRule.FIXED:
        return whole_number("margin", fixed, minimum=0)
    if rule is MarginRule.THEOREM1A:
        return worst_case_margin(clients, radix, moduli, width)
    if rule is MarginRule.THEOREM1B:          # ln(4R/δ_w) with R the moduli of this run (eq. 21 per modulus)
        total = moduli * target if reading is Reading.PER_LAYER else target
        return concentration_margin(clients, radix, moduli, total, width)
    if (moduli, width) not in memo:
        clock.check(f"the margin of width {width}")
        memo[moduli, width] = smallest_margin(clients, radix, moduli, target, reading, width=width, method=method,
                                              time_limit=clock).margin
    return memo[moduli, width]


def payload(clients: int, radix: int = 3, layers: int = 4, stages: str = "each", target=Fraction(1, 1000),
            reading: Reading | str = Reading.PER_LAYER, rule: MarginRule | str = MarginRule.EXACT,
            margin: int | None = None, method: Method | str = Method.AUTO, time_limit: float | Deadline | None = None,
            tick=None) -> Payload:
    """Proposition 2's payload for ``stages`` and the repeated flat baseline, at ``K = clients``.

    Each modulus gets its own margin: a stage of ``b`` layers sums symbols
    uniform on ``ρ^b`` values modulo ``ρ^(b+m)``; a flat execution serving
    ``ℓ0`` has width ``L - ℓ0 + 1``. A total target (``all-layers``,
    ``union``; Theorem 1(b)'s ``ln(4R/δ_w)``) counts the moduli of the run at
    hand: the ``R`` stages of the schedule, one for each flat execution and for
    the single stage of the premium's reference. Under the exact rule the size
    of every modular sum is checked before any is computed; ``time_limit``
    (seconds) bounds the whole call, and ``tick(done, total)`` counts the exact
    margins found.

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
    target = fraction("carry target", target, low=0, high=1)
    if how is MarginRule.FIXED and margin is None:
        raise InvalidOption("margin rule fixed: needs a margin")
    if how is not MarginRule.FIXED and margin is not None:
        raise InvalidOption(f"margin: applies only to the margin rule fixed, not {how}")
    widths = tuple(layers - min(s) + 1 for s in schedule)
    runs = {(len(schedule), len(s)) for s in schedule} | {(1, w) for w in widths} | {(1, layers)}
    if how is MarginRule.EXACT:
        for w in sorted({w for _, w in runs}):
            check_margin_size(clients, target, DigitLaw.uniform(radix, w), method)
    clock, memo = Deadline.of(time_limit), _Memo(tick, len(runs))
    rest = (target, how_read, margin, method, clock, memo)
    stage_margins = tuple(_margin(how, clients, radix, len(schedule), len(s), *rest) for s in schedule)
    flat_margins = tuple(_margin(how, clients, radix, 1, w, *rest) for w in widths)
    single = _margin(how, clients, radix, 1, layers, *rest)
    return Payload(clients=clients, radix=radix, layers=layers, stages=schedule, rule=how, target=target,
                   reading=how_read,
                   stage_margins=stage_margins, flat_widths=widths, flat_margins=flat_margins,
                   single_stage_margin=single)


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

    >>> corollary1_premium(1000, 4).text(2), corollary1_premium(1024, 4).text(2)
    ('[14.94, 14.95]', '[15.00, 15.00]')
    """
    import flint

    from itsa.modular.numbers import certified, working_precision

    whole_number("R (stages)", stages, minimum=1)
    whole_number("K (clients)", clients, minimum=1)
    if clients & (clients - 1) == 0:          # a power of two: log2 K is an integer
        exact = Fraction(stages - 1, 2) * (clients.bit_length() - 1)
        return Certified(exact, exact, "exact")
    with working_precision():
        return certified(flint.arb(stages - 1) / 2 * flint.arb(clients).log() / flint.arb(2).log())
