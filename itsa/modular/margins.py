"""The smallest overflow margin of a layer for a carry target, and the staircase over K.

Layer ``ℓ`` is summed modulo ``M = ρ^(b+m)`` per coordinate (in digit units;
``b = 1`` for one layer, ``b = |G_r|`` for a stage) with centred reduction. A
*carry* occurs when the sum of the K client symbols leaves the centred cell
``|S| <= (M-1)/2`` (Lemma 1). The smallest margin ``m`` meeting a target is
found exactly (or certified at deployment scale) from the law of ``S``.

The target is read one of three ways (:class:`Reading`): per layer; for all
``L`` layers together with independent layers (``1 - (1-p)^L``); or split by
the union bound (``L p``), as Theorem 1 does.

Examples
--------
>>> m = smallest_margin(8, radix=3, layers=4, target=Fraction(1, 1000))
>>> m.margin, m.modulus, m.carry.high
(2, 27, Fraction(0, 1))
>>> m.carry_below.high > Fraction(1, 1000)      # margin 1 is not enough
True
>>> st = staircase([8, 16, 32, 64], radix=3, layers=4, target=Fraction(1, 1000))
>>> [r.margin for r in st.margins]
[2, 2, 3, 3]
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from itsa._util.checks import choice, fraction, whole_number
from itsa._util.deadline import Deadline
from itsa._util.display import Displayable
from itsa._util.progress import Callback, Reporter
from itsa.exceptions import InvalidOption, VerificationError, excerpt
from itsa.modular.laws import DigitLaw, check_radix
from itsa.modular.numbers import Certified, certified, fraction_text, round_up, working_precision
from itsa.modular.sums import (
    DEFAULT_PRECISION,
    MAX_CLIENTS,
    MAX_PRECISION,
    CarryBound,
    Method,
    check_size,
    engine,
    sum_law,
)

__all__ = ["Reading", "Margin", "Staircase", "smallest_margin", "staircase", "parse_clients", "meets",
           "constrained_quantity", "MAX_CLIENT_LIST"]

#: Most values of K in one staircase.
MAX_CLIENT_LIST = 10_000
#: Most layers (sums sharing one target).
MAX_LAYERS = 64


class Reading(StrEnum):
    """How a carry target is read."""

    PER_LAYER = "per-layer"
    ALL_LAYERS = "all-layers"
    UNION = "union"


def meets(carry: CarryBound, target: Fraction, reading: Reading, layers: int) -> bool | None:
    """Whether a per-layer carry probability meets ``target`` under ``reading`` (``None``: undecided)."""
    return total_carry(carry, reading, layers).at_most(target)


def total_carry(carry: CarryBound, reading: Reading, layers: int) -> CarryBound:
    """The probability the target constrains: per layer, any of ``L`` independent layers, or ``L p``."""
    if reading is Reading.PER_LAYER:
        return carry
    if reading is Reading.UNION:
        return carry.map(lambda p: layers * p)
    return carry.map(lambda p: 1 - (1 - p) ** layers)


def constrained_quantity(reading: Reading, layers: int) -> str:
    """The name of what the target bounds, in terms of the per-layer carry ``p``: ``p``, ``4·p``, ``1 − (1 − p)^4``."""
    if reading is Reading.PER_LAYER:
        return "p"
    return f"{layers}·p" if reading is Reading.UNION else f"1 − (1 − p)^{layers}"


def _decimals(carry: CarryBound) -> dict:
    """``carry`` as decimals rounded outward (the exact value may be too long to print)."""
    from itsa.modular.numbers import round_down

    return {"low": round_down(carry.low, 6), "high": round_up(carry.high, 6), "exact": carry.exact}


@dataclass(frozen=True, repr=False, kw_only=True)
class Margin(Displayable):
    """The smallest margin for one K, with the carry probability at it and one step below."""

    clients: int
    radix: int
    width: int
    layers: int
    target: Fraction
    reading: Reading
    margin: int
    carry: CarryBound
    carry_below: CarryBound | None
    law: DigitLaw

    @property
    def modulus(self) -> int:
        return self.radix ** (self.width + self.margin)

    @property
    def method(self) -> str:
        return self.carry.method

    @property
    def quantity(self) -> str:
        """What the target bounds under the reading, in terms of the per-layer carry ``p``."""
        return constrained_quantity(self.reading, self.layers)

    @property
    def constrained(self) -> CarryBound:
        """The quantity the target bounds (``p``, ``L·p`` or ``1 − (1 − p)^L``) at the margin."""
        return total_carry(self.carry, self.reading, self.layers)

    @property
    def constrained_below(self) -> CarryBound | None:
        """The same one margin lower (above the target), or ``None`` at margin 0."""
        return None if self.carry_below is None else total_carry(self.carry_below, self.reading, self.layers)

    def headline(self) -> str:
        return f"K = {self.clients}: margin {self.margin} (modulus {self.radix}^{self.width + self.margin})"

    def rows(self) -> list[tuple[str, str]]:
        rows = [("target", f"{self.quantity} <= {fraction_text(self.target)} ({self.reading})"),
                ("carry per layer p", self.carry.text())]
        if self.reading is not Reading.PER_LAYER:
            rows.append((self.quantity, self.constrained.text()))
        if self.constrained_below is not None:
            rows.append((f"{self.quantity} at margin {self.margin - 1}", self.constrained_below.text()))
        return rows + [("digit law", self.law.headline())]

    def to_json(self) -> dict:
        below = self.constrained_below
        return {"clients": self.clients, "margin": self.margin, "modulus_exponent": self.width + self.margin,
                "carry_probability": self.carry.to_json(), "carry_probability_upper": round_up(self.carry.high, 4),
                "carry_probability_below": None if self.carry_below is None else self.carry_below.to_json(),
                "constrained_quantity": self.quantity, "constrained_probability": _decimals(self.constrained),
                "constrained_probability_below": None if below is None else _decimals(below),
                "exact": self.carry.exact, "method": self.method}


def smallest_margin(clients: int, radix: int = 3, layers: int = 4, target=Fraction(1, 1000),
                    reading: Reading | str = Reading.PER_LAYER, law: DigitLaw | None = None, width: int = 1,
                    method: Method | str = Method.AUTO, precision: int = DEFAULT_PRECISION,
                    time_limit: float | Deadline | None = None, tick=None) -> Margin:
    """The smallest ``m >= 0`` whose modulus ``ρ^(width+m)`` meets the carry ``target``.

    Parameters
    ----------
    clients : int
        ``K``, the number of summed symbols.
    radix, layers : int
        ``ρ`` (odd, ``>= 3``) and ``L`` (the number of separately reduced sums).
    target : Fraction or str
        The carry target, in ``(0, 1)`` (``"1/1000"`` and ``"0.001"`` are read exactly).
    reading : Reading
        ``per-layer``, ``all-layers`` or ``union`` (see the module docstring).
    law : DigitLaw, optional
        The law of one client's symbol; uniform on ``ρ^width`` balanced values by default.
    method : Method
        ``exact``, ``certified`` or ``auto`` (exact while it fits, :mod:`itsa.modular.sums`).
        The certified engine starts at enough bits to resolve ``target``
        (:func:`precisions`) and is refused past its limits in one line.
    time_limit : float, optional
        Seconds; past them :class:`~itsa.exceptions.TimeLimitReached`.

    Notes
    -----
    Lemma 1 and §IX-A (Fig. 1a) of Azimi-Abarghouyi, arXiv 2610.00695: no noise,
    the carry is the data sum leaving the centred cell of ``ρ^(1+m_ℓ) Z``.
    """
    check_radix(radix)
    layers = whole_number("L (layers)", layers, minimum=1, maximum=MAX_LAYERS)
    width = whole_number("width", width, minimum=1)
    clients = whole_number("K (clients)", clients, minimum=1, maximum=MAX_CLIENTS)
    target = fraction("carry target", target, low=0, high=1)
    reading = choice("reading", reading, Reading)
    law = DigitLaw.uniform(radix, width) if law is None else law.check_alphabet(radix, width)
    clock = Deadline.of(time_limit)
    how = check_margin_size(clients, target, law, method, precision)
    for bits in ([precision] if how is Method.EXACT else precisions(target, precision)):
        found = _search(clients, radix, layers, target, reading, law, width, how, bits, clock, tick)
        if found is not None:
            return found
    raise VerificationError(f"K = {clients}: the certified bounds could not decide the margin against {fraction_text(target)}")


def check_margin_size(clients: int, target: Fraction, law: DigitLaw, method: Method | str = Method.AUTO,
                      precision: int = DEFAULT_PRECISION) -> Method:
    """The engine a margin search runs, after refusing a size past its limit (before any work is done)."""
    how = engine(law, clients, method)
    return check_size(law, clients, how, precision if how is Method.EXACT else precisions(target, precision)[0])


def precisions(target: Fraction, precision: int = DEFAULT_PRECISION) -> list[int]:
    """The fixed-point bits the certified engine tries for ``target``: enough to resolve it, then 4× (at most 2).

    >>> precisions(Fraction(1, 1000)), precisions(Fraction(1, 10**300))
    ([128, 512], [1045, 4096])
    >>> precisions(Fraction(1, 10**5000))
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOption: carry target: 1e-5000 is below 2^-4048, the smallest the certified engine resolves (4096 bits); use --method exact or a larger target
    """
    need = math.ceil(math.log2(target.denominator) - math.log2(target.numerator)) + 48
    if need > MAX_PRECISION:
        raise InvalidOption(f"carry target: {fraction_text(target)} is below 2^-{MAX_PRECISION - 48}, the smallest the "
                            f"certified engine resolves ({MAX_PRECISION} bits); use --method exact or a larger target")
    start = max(precision, need)
    return sorted({start, min(4 * start, MAX_PRECISION)})


def _search(clients, radix, layers, target, reading, law, width, method, precision, clock, tick) -> Margin | None:
    dist = sum_law(law, clients, method, precision, deadline=clock, tick=tick)
    reach = clients * max(abs(law.low), abs(law.high))
    below = None
    m = 0
    while True:
        carry = dist.carry((radix ** (width + m) - 1) // 2)
        ok = meets(carry, target, reading, layers)
        if ok is None:
            return None
        if ok:
            return Margin(clients=clients, radix=radix, width=width, layers=layers, target=target,
                          reading=reading, margin=m, carry=carry, carry_below=below, law=law)
        if (radix ** (width + m) - 1) // 2 >= reach:     # pragma: no cover - carry is 0 there
            raise VerificationError("margin search passed the largest possible sum")
        below, m = carry, m + 1


@dataclass(frozen=True, repr=False)
class Staircase(Displayable):
    """Smallest margins over a list of K, the least-squares slope against ``log_ρ K`` and the offset."""

    margins: tuple[Margin, ...]
    slope: Certified | None
    offset: Certified | None

    @property
    def largest_carry(self) -> CarryBound:
        """The largest realised carry probability over the rows (at their margins)."""
        top = max(self.margins, key=lambda r: r.carry.high)
        return top.carry

    @property
    def exact(self) -> bool:
        return all(r.carry.exact for r in self.margins)

    def headline(self) -> str:
        first, last = self.margins[0], self.margins[-1]
        slope = "n/a" if self.slope is None else self.slope.text(3)
        return f"margin {first.margin} at K = {first.clients} to {last.margin} at K = {last.clients}, slope {slope}"

    def rows(self) -> list[tuple[str, str]]:
        rows = [(f"K = {r.clients}", f"m = {r.margin}, carry {r.carry.text()}") for r in self.margins]
        rows.append(("largest carry per layer", self.largest_carry.text()))
        if self.offset is not None:
            rows.append(("mean of m − ½ log_ρ K", self.offset.text(3)))
        return rows

    def to_json(self) -> dict:
        first = self.margins[0]
        return {"radix": first.radix, "layers": first.layers, "target": fraction_text(first.target),
                "reading": str(first.reading), "rows": [r.to_json() for r in self.margins],
                "slope": None if self.slope is None else self.slope.to_json(),
                "offset_above_half_log": None if self.offset is None else self.offset.to_json(),
                "largest_carry_probability": self.largest_carry.to_json(),
                "largest_carry_probability_upper": round_up(self.largest_carry.high, 4),
                "exact": self.exact}


def staircase(clients: Sequence[int], radix: int = 3, layers: int = 4, target=Fraction(1, 1000),
              reading: Reading | str = Reading.PER_LAYER, law: DigitLaw | None = None,
              method: Method | str = Method.AUTO, progress: Callback | None = None,
              time_limit: float | Deadline | None = None) -> Staircase:
    """:func:`smallest_margin` for every K, with the slope of ``m`` against ``log_ρ K``.

    ``progress`` receives events with ``done`` of ``total`` (thousandths of the
    list of K, moved on by each product of the certified engine too);
    ``time_limit`` (seconds) bounds the whole list.

    Notes
    -----
    Fig. 1a of Azimi-Abarghouyi, arXiv 2610.00695 (slope 0.548, "about 1.1
    steps above ½ log_ρ K"). The slope and offset are certified intervals.
    """
    if not clients:
        raise InvalidOption("clients: needs at least one K")
    if len(clients) > MAX_CLIENT_LIST:
        raise InvalidOption(f"clients: at most {MAX_CLIENT_LIST} values of K, not {len(clients)}")
    target = fraction("carry target", target, low=0, high=1)
    for k in clients:       # every size checked before any work
        k = whole_number("K (clients)", k, minimum=1, maximum=MAX_CLIENTS)
        check_margin_size(k, target, DigitLaw.uniform(check_radix(radix)) if law is None else law, method)
    report = Reporter(progress, prefix="margins")
    clock = Deadline.of(time_limit)
    rows = []
    n = len(clients)
    for i, k in enumerate(clients):
        def tick(done, total, i=i, k=k):
            report(f"K = {k}", done=1000 * i + 1000 * done // total, total=1000 * n, note=f"{i + 1} of {n}")

        clock.check(f"K = {k}, {i} of {n} done")
        rows.append(smallest_margin(k, radix, layers, target, reading, law, method=method, time_limit=clock,
                                    tick=tick if progress is not None else None))
        report(f"K = {k}", round=i + 1, done=1000 * (i + 1), total=1000 * n, note=f"{i + 1} of {n}")
    slope, offset = _fit(rows, radix)
    return Staircase(tuple(rows), slope, offset)


def _fit(rows: Sequence[Margin], radix: int) -> tuple[Certified | None, Certified | None]:
    import flint

    with working_precision():
        xs = [flint.arb(r.clients).log() / flint.arb(radix).log() for r in rows]
        ms = [flint.arb(r.margin) for r in rows]
        n = len(rows)
        x_bar = sum(xs, flint.arb(0)) / n
        m_bar = sum(ms, flint.arb(0)) / n
        offset = certified(m_bar - x_bar / 2)
        spread = sum(((x - x_bar) ** 2 for x in xs), flint.arb(0))
        if len({r.clients for r in rows}) < 2:
            return None, offset
        covariance = sum(((x - x_bar) * (m - m_bar) for x, m in zip(xs, ms)), flint.arb(0))
        return certified(covariance / spread), offset


_RANGE = re.compile(r"^\s*(\d[\d_]*)\s*\.\.\s*(\d[\d_]*)\s*(?:([:*x])\s*(\d[\d_]*))?\s*$")


def parse_clients(text: str) -> list[int]:
    """``"8,16,32"``, ``"8..12"`` (every K), ``"8..64:8"`` (step 8) or ``"8..4096x2"`` (doubling).

    >>> parse_clients("8..4096x2")[-3:], parse_clients("1..3"), parse_clients("8,16")
    ([1024, 2048, 4096], [1, 2, 3], [8, 16])
    >>> parse_clients("8,x")
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOption: clients: 'x' is not a whole number >= 1 (write 8,16,32 or 8..4096x2)
    """
    text = str(text).strip()
    if re.search(r"(?<!\d)0*[1-9]\d{18}", text.replace("_", "")):   # 19 significant digits: beyond any K
        raise InvalidOption(f"clients: {excerpt(text)} holds a number above {MAX_CLIENTS}, the largest K")
    match = _RANGE.match(text)
    if match:
        start, stop, kind, step = match.groups()
        a, b = int(start), int(stop)
        k = int(step) if step else 1
        if a < 1 or b < a or k < 1 or (kind is not None and kind in "*x" and k < 2):
            raise InvalidOption(f"clients: bad range {excerpt(text)} (write 8..4096, 8..64:8 or 8..4096x2)")
        out: list[int] = []
        if kind is not None and kind in "*x":
            while a <= b and len(out) <= MAX_CLIENT_LIST:
                out.append(a)
                a *= k
        else:
            if (b - a) // k + 1 > MAX_CLIENT_LIST:
                raise InvalidOption(f"clients: at most {MAX_CLIENT_LIST} values of K in a range")
            out = list(range(a, b + 1, k))
        return out
    out = []
    for part in text.split(","):
        p = part.strip().replace("_", "")
        if not p.isdigit() or int(p) < 1:
            raise InvalidOption(f"clients: {excerpt(part.strip())} is not a whole number >= 1 "
                                "(write 8,16,32 or 8..4096x2)")
        out.append(int(p))
    return out
