"""The smallest overflow margin of a layer for a carry target, and the margins over a list of K.

Layer ``ℓ`` is summed modulo ``M = ρ^(b+m)`` per coordinate (in digit units;
``b = 1`` for one layer, ``b = |G_r|`` for a stage) with centred reduction. A
*carry* occurs when the sum of the K client symbols leaves the centred cell
``|S| <= (M-1)/2`` (Lemma 1). The smallest margin ``m`` meeting a carry target
is found exactly (or certified at deployment scale) from the law of ``S``.

Noise added to the sum (the clients' noise shares) is a parameter of the
same search (:mod:`itsa.modular._noisy`): a sub-Gaussian term
(:class:`SubGaussianNoise`, an upper bound on the carry) or an exact law
(:class:`ExactNoise`); without it the search is Lemma 1's, noise-free.

The target is read one of three ways (:class:`Reading`): per layer; for all
``L`` layers together with independent layers (``1 - (1-p)^L``); or split by
the union bound (``L p``), as Theorem 1 does. Every carry probability is a
:class:`~itsa._util.certified.Certified`: exact, or a certified enclosure.

Examples
--------
>>> m = smallest_margin(8, radix=3, layers=4, carry=Fraction(1, 1000))
>>> m.margin, m.modulus, m.carry_probability.high
(2, 27, Fraction(0, 1))
>>> m.carry_probability_below.high > Fraction(1, 1000)      # margin 1 is not enough
True
>>> st = margins([8, 16, 32, 64], radix=3, layers=4, carry=Fraction(1, 1000))
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

from itsa._util.certified import Certified, fraction_text, precision, to_arb
from itsa._util.checks import choice, digits_only, fraction, whole_number
from itsa._util.deadline import Deadline
from itsa._util.display import Displayable
from itsa._util.progress import Callback, Reporter
from itsa.exceptions import Infeasible, InvalidOption, VerificationError, excerpt
from itsa.modular._certify import at_most, enclose, image, interval, shown
from itsa.modular._laws import DigitLaw, as_law, check_radix
from itsa.modular._noisy import Noise
from itsa.modular._sums import (
    DEFAULT_PRECISION,
    MAX_CLIENTS,
    MAX_PRECISION,
    Arithmetic,
    check_size,
    engine,
    sum_law,
)

__all__ = ["Reading", "Margin", "Margins", "Staircase", "smallest_margin", "margins", "staircase", "parse_clients",
           "meets", "constrained_quantity", "MAX_CLIENT_LIST", "DEFAULT_CARRY", "NoMargin", "MAX_NOISY_MARGIN"]

#: Most values of K in one list.
MAX_CLIENT_LIST = 10_000
#: Most layers (sums sharing one target).
MAX_LAYERS = 64
#: The carry target unless one is given (Fig. 1a's).
DEFAULT_CARRY = Fraction(1, 1000)
#: Most margin digits a search with noise tries when no ``max_margin`` is given (the noise never vanishes).
MAX_NOISY_MARGIN = 200


class NoMargin(Infeasible):
    """No margin up to ``max_margin`` meets the carry target (a search with a limit found none).

    Parameters
    ----------
    message : str
        The one line said.
    margin : int
        The largest margin tried.
    carry : Certified
        The carry probability at it.
    """

    def __init__(self, message: str, *, margin: int, carry: Certified):
        super().__init__(message)
        self.margin = margin
        self.carry = carry


class Reading(StrEnum):
    """How a carry target is read: per layer, for all layers together, or by the union bound."""

    PER_LAYER = "per-layer"
    ALL_LAYERS = "all-layers"
    UNION = "union"


def meets(p: Certified, carry: Fraction, reading: Reading, layers: int) -> bool | None:
    """Whether a per-layer carry probability ``p`` meets the target ``carry`` under ``reading``.

    Parameters
    ----------
    p : Certified
        The per-layer carry probability.
    carry : Fraction
        The carry target.
    reading : Reading
        How the target is read.
    layers : int
        ``L``, the sums sharing the target.

    Returns
    -------
    bool or None
        ``None`` when the certified interval straddles the target.
    """
    return at_most(total_carry(p, reading, layers), carry)


def total_carry(p: Certified, reading: Reading, layers: int) -> Certified:
    """The probability the target constrains: per layer, any of ``L`` independent layers, or ``L p``."""
    if reading is Reading.PER_LAYER:
        return p
    if reading is Reading.UNION:
        return image(p, lambda q: layers * q)
    return image(p, lambda q: 1 - (1 - q) ** layers)


def constrained_quantity(reading: Reading, layers: int) -> str:
    """The name of what the target bounds, in terms of the per-layer carry ``p``: ``p``, ``4·p``, ``1 − (1 − p)^4``.

    Parameters
    ----------
    reading : Reading
        How the target is read.
    layers : int
        ``L``.
    """
    if reading is Reading.PER_LAYER:
        return "p"
    return f"{layers}·p" if reading is Reading.UNION else f"1 − (1 − p)^{layers}"


@dataclass(frozen=True, repr=False, kw_only=True)
class Margin(Displayable):
    """The smallest margin for one K, with the carry probability at it and one step below.

    Parameters
    ----------
    clients : int
        ``K``.
    radix : int
        ``ρ``.
    width : int
        ``b``, the layers of the modular sum (1 for one layer, ``|G_r|`` for a stage).
    layers : int
        ``L``, the sums sharing the target.
    carry : Fraction
        The carry target.
    reading : Reading
        How the target is read.
    margin : int
        ``m``, the smallest margin meeting the target.
    carry_probability : Certified
        The per-layer carry probability ``p`` at ``m``.
    carry_probability_below : Certified or None
        ``p`` at ``m - 1`` (``None`` at ``m = 0``).
    law : DigitLaw
        The law of one client's symbol.
    noise : SubGaussianNoise or ExactNoise, optional
        The noise added to the sum (``None``: none).
    """

    clients: int
    radix: int
    width: int
    layers: int
    carry: Fraction
    reading: Reading
    margin: int
    carry_probability: Certified
    carry_probability_below: Certified | None
    law: DigitLaw
    noise: Noise | None = None

    @property
    def modulus(self) -> int:
        return self.radix ** (self.width + self.margin)

    @property
    def method(self) -> str:
        """How the carry probability was obtained (provenance)."""
        return str(self.carry_probability.method)

    @property
    def exact(self) -> bool:
        return self.carry_probability.low == self.carry_probability.high

    @property
    def quantity(self) -> str:
        """What the target bounds under the reading, in terms of the per-layer carry ``p``."""
        return constrained_quantity(self.reading, self.layers)

    @property
    def constrained(self) -> Certified:
        """The quantity the target bounds (``p``, ``L·p`` or ``1 − (1 − p)^L``) at the margin."""
        return total_carry(self.carry_probability, self.reading, self.layers)

    @property
    def constrained_below(self) -> Certified | None:
        """The same one margin lower (above the target), or ``None`` at margin 0."""
        below = self.carry_probability_below
        return None if below is None else total_carry(below, self.reading, self.layers)

    def target_text(self) -> str:
        """``p <= 1/1000 (per-layer)``: the target as the reading constrains it."""
        return f"{self.quantity} <= {fraction_text(self.carry)} ({self.reading})"

    def headline(self) -> str:
        return f"K = {self.clients}: margin {self.margin} (modulus {self.radix}^{self.width + self.margin})"

    def summary_line(self) -> str:
        """The margin, the carry at it and, under a total reading, the constrained quantity; one step below."""
        parts = [f"m = {self.margin} (modulus {self.radix}^{self.width + self.margin})",
                 f"p at m {shown(self.carry_probability)}"]
        if self.reading is not Reading.PER_LAYER:
            parts.append(f"{self.quantity} at m {shown(self.constrained)}")
        if self.constrained_below is not None:
            parts.append(f"{self.quantity} at m − 1 {shown(self.constrained_below)}")
        return "; ".join(parts)

    def rows(self) -> list[tuple[str, str]]:
        rows = [("carry target", self.target_text()), ("carry per layer p", shown(self.carry_probability))]
        if self.reading is not Reading.PER_LAYER:
            rows.append((self.quantity, shown(self.constrained)))
        if self.constrained_below is not None:
            rows.append((f"{self.quantity} at margin {self.margin - 1}", shown(self.constrained_below)))
        rows.append(("digit law", self.law.headline()))
        return rows if self.noise is None else rows + [("noise", self.noise.text())]

    def to_dict(self) -> dict:
        below, below_p = self.constrained_below, self.carry_probability_below
        return {"clients": self.clients, "radix": self.radix, "width": self.width, "layers": self.layers,
                "carry": fraction_text(self.carry), "reading": str(self.reading), "margin": self.margin,
                "modulus_exponent": self.width + self.margin,
                "carry_probability": self.carry_probability.to_dict(),
                "carry_probability_below": None if below_p is None else below_p.to_dict(),
                "constrained_quantity": self.quantity, "constrained_probability": self.constrained.to_dict(),
                "constrained_probability_below": None if below is None else below.to_dict(),
                "exact": self.exact, "method": self.method,
                **({} if self.noise is None else {"noise": self.noise.to_dict()})}


def smallest_margin(clients: int, radix: int = 3, layers: int = 4, carry=DEFAULT_CARRY,
                    reading: Reading | str = Reading.PER_LAYER, law: DigitLaw | str | None = None, width: int = 1,
                    arithmetic: Arithmetic | str = Arithmetic.AUTO, precision: int = DEFAULT_PRECISION,
                    time_limit: float | Deadline | None = None, tick=None, *, noise: Noise | None = None,
                    max_margin: int | None = None) -> Margin:
    """The smallest ``m >= 0`` whose modulus ``ρ^(width+m)`` meets the carry target, with or without noise.

    Parameters
    ----------
    clients : int
        ``K``, the number of summed symbols.
    radix, layers : int
        ``ρ`` (odd, ``>= 3``) and ``L`` (the number of separately reduced sums).
    carry : Fraction or str
        The carry target, in ``(0, 1)`` (``"1/1000"`` and ``"0.001"`` are read exactly).
    reading : Reading
        ``per-layer``, ``all-layers`` or ``union`` (see the module docstring).
    law : DigitLaw or str, optional
        The law of one client's symbol (``"1/4,1/2,1/4"``); uniform on ``ρ^width`` balanced values by default.
    width : int
        ``b``, the layers summed in one modulus.
    arithmetic : Arithmetic
        ``exact``, ``certified`` or ``auto`` (exact while it fits, :func:`~itsa.modular.sum_law`).
        The certified engine starts at enough bits to resolve the target
        (:func:`precisions`) and is refused past its limits in one line.
    precision : int
        The certified engine's smallest fixed-point bits.
    time_limit : float or Deadline, optional
        Seconds; past them :class:`~itsa.exceptions.TimeLimitReached`.
    tick : callable, optional
        ``tick(done, total)`` at each product of the certified engine.
    noise : SubGaussianNoise or ExactNoise, optional
        Noise added to the sum (:mod:`itsa.modular._noisy`). A sub-Gaussian
        term gives an upper bound on the carry: the margin is the smallest whose
        bound meets the target.
    max_margin : int, optional
        The most margin digits tried; past them :class:`NoMargin` (with the
        carry at ``max_margin``). Without it a noise-free search runs until the
        carry is 0, a search with noise to :data:`MAX_NOISY_MARGIN`.

    Raises
    ------
    NoMargin
        No margin up to the limit meets the target.

    Notes
    -----
    Lemma 1 and §IX-A (Fig. 1a) of Azimi-Abarghouyi, arXiv 2610.00695: no noise,
    the carry is the data sum leaving the centred cell of ``ρ^(1+m_ℓ) Z``.
    """
    check_radix(radix)
    layers = whole_number("L (layers)", layers, minimum=1, maximum=MAX_LAYERS)
    width = whole_number("width", width, minimum=1)
    clients = whole_number("K (clients)", clients, minimum=1, maximum=MAX_CLIENTS)
    carry = fraction("carry target", carry, low=0, high=1)
    reading = choice("reading", reading, Reading)
    law = as_law(law, radix, width)
    clock = Deadline.of(time_limit)
    if max_margin is not None:
        max_margin = whole_number("max_margin", max_margin, minimum=0)
    elif noise is not None:
        max_margin = MAX_NOISY_MARGIN
    how = check_margin_size(clients, carry, law, arithmetic, precision)
    for bits in ([precision] if how is Arithmetic.EXACT else precisions(carry, precision)):
        found = _search(clients, radix, layers, carry, reading, law, width, how, bits, clock, tick, noise, max_margin)
        if found is not None:
            return found
    raise VerificationError(f"K = {clients}: the certified bounds could not decide the margin against {fraction_text(carry)}")


def check_margin_size(clients: int, carry: Fraction, law: DigitLaw, arithmetic: Arithmetic | str = Arithmetic.AUTO,
                      precision: int = DEFAULT_PRECISION) -> Arithmetic:
    """The engine a margin search runs, after refusing a size past its limit (before any work is done).

    Parameters
    ----------
    clients : int
        ``K``.
    carry : Fraction
        The carry target (it sets the certified engine's precision).
    law : DigitLaw
        The law of one symbol.
    arithmetic : Arithmetic or str
        ``auto``, ``exact`` or ``certified``.
    precision : int
        The certified engine's smallest fixed-point bits.
    """
    how = engine(law, clients, arithmetic)
    return check_size(law, clients, how, precision if how is Arithmetic.EXACT else precisions(carry, precision)[0])


def precisions(carry: Fraction, precision: int = DEFAULT_PRECISION) -> list[int]:
    """The fixed-point bits the certified engine tries for a target: enough to resolve it, then 4× (at most 2).

    Parameters
    ----------
    carry : Fraction
        The carry target.
    precision : int
        The smallest bits to try.

    Examples
    --------
    >>> precisions(Fraction(1, 1000)), precisions(Fraction(1, 10**300))
    ([128, 512], [1045, 4096])
    >>> precisions(Fraction(1, 10**5000))
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOption: carry target: 1e-5000 is below 2^-4048, the smallest the certified engine resolves (4096 bits); use exact arithmetic or a larger target
    """
    need = math.ceil(math.log2(carry.denominator) - math.log2(carry.numerator)) + 48
    if need > MAX_PRECISION:
        raise InvalidOption(f"carry target: {fraction_text(carry)} is below 2^-{MAX_PRECISION - 48}, the smallest the "
                            f"certified engine resolves ({MAX_PRECISION} bits); use exact arithmetic or a larger target")
    start = max(precision, need)
    return sorted({start, min(4 * start, MAX_PRECISION)})


def _search(clients, radix, layers, carry, reading, law, width, arithmetic, precision, clock, tick, noise=None,
            max_margin=None) -> Margin | None:
    """The one margin search: margin 0, 1, … until the carry (noise included) meets the target.

    ``None`` when a certified interval straddles the target (the caller tries more bits); a carry that is only
    an upper bound (sub-Gaussian noise) is decided on its upper end.
    """
    dist = sum_law(law, clients, arithmetic, precision, deadline=clock, tick=tick)
    reach = clients * max(abs(law.low), abs(law.high))
    below = None
    m = 0
    while True:
        clock.check(f"K = {clients}: margin {m}")
        half = (radix ** (width + m) - 1) // 2
        p = dist.carry(half) if noise is None else noise.carry(dist, half)
        ok = meets(p, carry, reading, layers)
        if ok is None and noise is not None and noise.bounds_only:
            ok = False                  # only an upper bound: it does not meet the target, a wider margin may
        if ok is None:
            return None
        if ok:
            return Margin(clients=clients, radix=radix, width=width, layers=layers, carry=carry, reading=reading,
                          margin=m, carry_probability=p, carry_probability_below=below, law=law, noise=noise)
        if max_margin is not None and m >= max_margin:
            raise NoMargin(f"K = {clients}: no margin up to {max_margin} meets the carry target "
                           f"{fraction_text(carry)}", margin=m, carry=p)
        if noise is None and half >= reach:     # pragma: no cover - carry is 0 there
            raise VerificationError("margin search passed the largest possible sum")
        below, m = p, m + 1


@dataclass(frozen=True, repr=False)
class Margins(Displayable):
    """Smallest margins over a list of K, the least-squares slope against ``log_ρ K`` and the offset.

    Parameters
    ----------
    margins : tuple of Margin
        One per K, in the order given.
    slope : Certified or None
        The least-squares slope of ``m`` on ``log_ρ K`` (``None`` for a single K).
    offset : Certified
        The mean of ``m − ½ log_ρ K``.
    arithmetic : Arithmetic
        The arithmetic asked for (each row's ``method`` says what ran).
    """

    margins: tuple[Margin, ...]
    slope: Certified | None
    offset: Certified | None
    arithmetic: Arithmetic = Arithmetic.AUTO

    @property
    def largest_carry_probability(self) -> Certified:
        """The largest realised carry probability over the rows (at their margins)."""
        return max(self.margins, key=lambda r: r.carry_probability.high).carry_probability

    @property
    def exact(self) -> bool:
        return all(r.exact for r in self.margins)

    def headline(self) -> str:
        first, last = self.margins[0], self.margins[-1]
        slope = "n/a" if self.slope is None else interval(self.slope, 4)
        return (f"margin {first.margin} at K = {first.clients} to {last.margin} at K = {last.clients}, "
                f"slope {slope}; ρ = {first.radix}, L = {first.layers}, target {first.target_text()}")

    def rows(self) -> list[tuple[str, str]]:
        rows = [(f"K = {r.clients}", r.summary_line()) for r in self.margins]
        if self.slope is not None:
            rows.append((f"slope of m against log_{self.margins[0].radix} K",
                         f"{interval(self.slope, 4)} (certified, least squares)"))
        if self.offset is not None:
            rows.append(("mean of m − ½ log_ρ K", f"{interval(self.offset, 3)} (certified)"))
        rows.append(("largest carry per layer p", shown(self.largest_carry_probability)))
        return rows

    def to_dict(self) -> dict:
        first = self.margins[0]
        return {"clients": [r.clients for r in self.margins], "radix": first.radix, "layers": first.layers,
                "carry": fraction_text(first.carry), "reading": str(first.reading), "law": first.law.to_dict(),
                "arithmetic": str(self.arithmetic), "rows": [r.to_dict() for r in self.margins],
                "slope": None if self.slope is None else self.slope.to_dict(),
                "offset_above_half_log": None if self.offset is None else self.offset.to_dict(),
                "largest_carry_probability": self.largest_carry_probability.to_dict(), "exact": self.exact}


#: The former name of :class:`Margins`.
Staircase = Margins


def client_list(clients: Sequence[int] | str) -> list[int]:
    """``clients`` as a list of K: a text (:func:`parse_clients`) or a sequence, refused when empty or too long.

    Parameters
    ----------
    clients : sequence of int or str
        The values of K.
    """
    ks = parse_clients(clients) if isinstance(clients, str) else list(clients)
    if not ks:
        raise InvalidOption("clients: needs at least one K")
    if len(ks) > MAX_CLIENT_LIST:
        raise InvalidOption(f"clients: at most {MAX_CLIENT_LIST} values of K, not {len(ks)}")
    return [whole_number("K (clients)", k, minimum=1, maximum=MAX_CLIENTS) for k in ks]


def margins(clients: Sequence[int] | str, radix: int = 3, layers: int = 4, carry=DEFAULT_CARRY,
            reading: Reading | str = Reading.PER_LAYER, law: DigitLaw | str | None = None,
            arithmetic: Arithmetic | str = Arithmetic.AUTO, progress: Callback | None = None,
            time_limit: float | Deadline | None = None) -> Margins:
    """:func:`smallest_margin` for every K, with the slope of ``m`` against ``log_ρ K``.

    Parameters
    ----------
    clients : sequence of int or str
        The values of K, or a text ``"8,16,32"``, ``"8..4096x2"`` (:func:`parse_clients`).
    radix, layers : int
        ``ρ`` and ``L``.
    carry : Fraction or str
        The carry target in ``(0, 1)``.
    reading : Reading
        How the target is read.
    law : DigitLaw or str, optional
        One client's digit law (uniform by default).
    arithmetic : Arithmetic
        ``auto``, ``exact`` or ``certified``.
    progress : callable, optional
        Receives :class:`~itsa._util.progress.Event` s with ``done`` of ``total``
        (thousandths of the list of K, moved on by each product of the certified engine too).
    time_limit : float or Deadline, optional
        Seconds for the whole list.

    Notes
    -----
    Fig. 1a of Azimi-Abarghouyi, arXiv 2610.00695 (slope 0.548, "about 1.1
    steps above ½ log_ρ K"). The slope and offset are certified intervals.
    """
    ks = client_list(clients)
    carry = fraction("carry target", carry, low=0, high=1)
    digit_law = as_law(law, check_radix(radix))
    how = choice("arithmetic", arithmetic, Arithmetic)
    for k in ks:       # every size checked before any work
        check_margin_size(k, carry, digit_law, how)
    report = Reporter(progress, prefix="margins")
    clock = Deadline.of(time_limit)
    rows = []
    n = len(ks)
    for i, k in enumerate(ks):
        def tick(done, total, i=i, k=k):
            report(f"K = {k}", done=1000 * i + 1000 * done // total, total=1000 * n, note=f"{i + 1} of {n}")

        clock.check(f"K = {k}, {i} of {n} done")
        rows.append(smallest_margin(k, radix, layers, carry, reading, digit_law, arithmetic=how, time_limit=clock,
                                    tick=tick if progress is not None else None))
        report(f"K = {k}", round=i + 1, done=1000 * (i + 1), total=1000 * n, note=f"{i + 1} of {n}")
    slope, offset = _fit(rows, radix)
    return Margins(tuple(rows), slope, offset, how)


#: The former name of :func:`margins`.
staircase = margins


def _fit(rows: Sequence[Margin], radix: int) -> tuple[Certified | None, Certified | None]:
    with precision():
        xs = [to_arb(r.clients).log() / to_arb(radix).log() for r in rows]
        ms = [to_arb(r.margin) for r in rows]
        n = len(rows)
        x_bar = sum(xs, to_arb(0)) / n
        m_bar = sum(ms, to_arb(0)) / n
        offset = enclose("offset above ½ log_ρ K", m_bar - x_bar / 2)
        spread = sum(((x - x_bar) ** 2 for x in xs), to_arb(0))
        if len({r.clients for r in rows}) < 2:
            return None, offset
        covariance = sum(((x - x_bar) * (m - m_bar) for x, m in zip(xs, ms)), to_arb(0))
        return enclose("slope", covariance / spread, method="least squares in ball arithmetic"), offset


_RANGE = re.compile(r"^\s*(\d[\d_]*)\s*\.\.\s*(\d[\d_]*)\s*(?:([:*x])\s*(\d[\d_]*))?\s*$")


def parse_clients(text: str) -> list[int]:
    """``"8,16,32"``, ``"8..12"`` (every K), ``"8..64:8"`` (step 8) or ``"8..4096x2"`` (doubling).

    Parameters
    ----------
    text : str
        The list of K, written one of those ways.

    Examples
    --------

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
        if not digits_only(p) or int(p) < 1:
            raise InvalidOption(f"clients: {excerpt(part.strip())} is not a whole number >= 1 "
                                "(write 8,16,32 or 8..4096x2)")
        out.append(int(p))
    return out
