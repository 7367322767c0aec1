"""The exact converse of a layerwise modular interface: the best decoder from ``S mod M``.

A decoder that sees only the residue ``t = S mod M`` of the sum of K digits
succeeds at best with probability ``Σ_r max_(s ≡ r) p_K(s)`` (Theorem 2's
proof, eq. 46): it guesses, for each residue, the likeliest sum. Centred
reduction guesses the sum in ``[-(M-1)/2, (M-1)/2]``; it is optimal when the
law of ``S`` is single-peaked at 0 (the uniform balanced prior), not in general.

Examples
--------
>>> d = decoder_success(8, 9)                   # uniform digits on {-1, 0, 1}, modulus 3^2
>>> d.optimal == d.centered, d.optimal <= d.bound
(True, True)
>>> from itsa.modular._laws import DigitLaw
>>> twin = DigitLaw(-1, (Fraction(1, 2), Fraction(0), Fraction(1, 2)))   # digits ±1, never 0
>>> d = decoder_success(2, 3, law=twin)
>>> d.centered, d.optimal, d.centered_optimal
(Fraction(1, 2), Fraction(1, 1), False)
>>> converse_margin(1000, radix=3, success=Fraction(999, 1000)).margin
4
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from itsa._util.certified import Certified, Direction, fraction_text, precision, safe_decimal, to_arb
from itsa._util.checks import conflict, fraction, whole_number
from itsa._util.deadline import Deadline
from itsa._util.display import Displayable
from itsa.exceptions import InvalidOption, excerpt
from itsa.modular._certify import enclose, interval
from itsa.modular._laws import DigitLaw, as_law, check_radix
from itsa.modular._sums import MAX_EXACT_BYTES, Arithmetic, ExactSum, exact_bytes, sum_law

__all__ = ["DecoderSuccess", "decoder_success", "ConverseMargin", "converse_margin", "paper_bound", "Converse",
           "converse", "DEFAULT_SUCCESS", "MAX_CONVERSE_MARGIN"]

#: The success target of the exact converse margin unless one is given.
DEFAULT_SUCCESS = Fraction(999, 1000)
#: Largest margin searched or accepted (ρ^200 is far beyond any K).
MAX_CONVERSE_MARGIN = 200


@dataclass(frozen=True, repr=False, kw_only=True)
class DecoderSuccess(Displayable):
    """Exact success probabilities of decoding ``S`` from ``S mod M``.

    Parameters
    ----------
    clients : int
        ``K``.
    modulus : int
        ``M``.
    law : DigitLaw
        The law of one digit.
    optimal : Fraction
        The best residue decoder's success ``Σ_r max_(s ≡ r) p_K(s)``.
    centered : Fraction
        Centred reduction's success.
    sup : Fraction
        ``sup_s p_K(s)``.
    local_limit_constant : Certified
        ``σ √K sup p_K``.
    """

    clients: int
    modulus: int
    law: DigitLaw
    optimal: Fraction
    centered: Fraction
    sup: Fraction
    local_limit_constant: Certified

    @property
    def raw_bound(self) -> Fraction:
        """``M sup_s p_K(s)`` (eq. 46), before the cap at 1."""
        return self.modulus * self.sup

    @property
    def bound(self) -> Fraction:
        """``min(1, M sup_s p_K(s))`` (eq. 46)."""
        return min(Fraction(1), self.raw_bound)

    @property
    def capped(self) -> bool:
        """Whether ``M sup p_K`` exceeds 1, so that the bound is the cap (and says nothing)."""
        return self.raw_bound > 1

    def _bound_text(self) -> str:
        raw = f"M · sup p_K = {safe_decimal(self.raw_bound, 6)} (exact, rounded up)"
        return f"1, the cap: {raw} > 1" if self.capped else raw

    @property
    def centered_optimal(self) -> bool:
        return self.optimal == self.centered

    def headline(self) -> str:
        return (f"K = {self.clients}, M = {self.modulus}: best decoder {safe_decimal(self.optimal, 6, up=False)}, "
                f"centred {safe_decimal(self.centered, 6, up=False)} (exact)")

    def rows(self) -> list[tuple[str, str]]:
        return [("best decoder Σ_r max p_K", f"{safe_decimal(self.optimal, 6, up=False)} (exact, rounded down)"),
                ("centred reduction", f"{safe_decimal(self.centered, 6, up=False)} (exact, rounded down)"),
                ("centred is optimal", "yes" if self.centered_optimal else "no"),
                ("min(1, M · sup p_K) (eq. 46)", self._bound_text()),
                ("σ √K sup p_K", f"{interval(self.local_limit_constant, 5)} (certified)")]

    def to_dict(self) -> dict:
        return {"clients": self.clients, "modulus": self.modulus, "optimal_success": fraction_text(self.optimal),
                "optimal_success_lower": safe_decimal(self.optimal, 6, up=False),
                "centered_success": fraction_text(self.centered),
                "centered_optimal": self.centered_optimal, "sup_bound": fraction_text(self.bound),
                "sup_bound_raw": fraction_text(self.raw_bound), "sup_bound_capped": self.capped,
                "local_limit_constant": self.local_limit_constant.to_dict()}


def _exact_sum(law: DigitLaw, clients: int) -> ExactSum:
    size = exact_bytes(law, clients)
    if size > MAX_EXACT_BYTES:
        raise InvalidOption(f"converse: the exact law of S for K = {clients} would take about {size // 2**20} MiB "
                            f"(limit {MAX_EXACT_BYTES // 2**20} MiB); the converse is computed exactly only")
    dist = sum_law(law, clients, Arithmetic.EXACT)
    assert isinstance(dist, ExactSum)
    return dist


def decoder_success(clients: int, modulus: int, law: DigitLaw | str | None = None, radix: int = 3,
                    width: int = 1) -> DecoderSuccess:
    """The best and the centred decoder's success from ``S mod modulus``, exactly.

    Parameters
    ----------
    clients : int
        ``K``.
    modulus : int
        ``M``.
    law : DigitLaw or str, optional
        The law of one digit, inside the balanced alphabet of ``ρ^width`` values (uniform by default).
    radix, width : int
        ``ρ`` and ``b``.

    Notes
    -----
    Theorem 2 and its proof (eq. 46) in Azimi-Abarghouyi, arXiv 2610.00695.
    The centred window of an even modulus is ``[-M/2, M/2 - 1]``.
    """
    whole_number("modulus", modulus, minimum=1)
    law = as_law(law, check_radix(radix), width)
    return _decode(_exact_sum(law, whole_number("K (clients)", clients, minimum=1)), modulus)


def _decode(dist: ExactSum, modulus: int) -> DecoderSuccess:
    law, clients = dist.law, dist.clients
    best: dict[int, int] = {}
    for i, count in enumerate(dist.counts):
        r = (dist.low + i) % modulus
        if count > best.get(r, -1):
            best[r] = count
    d = dist.denominator
    optimal = Fraction(sum(best.values()), d)
    centered = Fraction(dist.mass(-(modulus // 2), modulus - modulus // 2 - 1), d)
    sup = Fraction(max(dist.counts), d)
    with precision():
        constant = enclose("σ √K sup p_K", (to_arb(clients * law.variance)).sqrt() * to_arb(sup))
    return DecoderSuccess(clients=clients, modulus=modulus, law=law, optimal=optimal, centered=centered,
                          sup=sup, local_limit_constant=constant)


def _spread(law: DigitLaw) -> None:
    if law.variance == 0:
        raise InvalidOption("digit law: a single value (variance 0) has no converse; give a law with a spread")


def paper_bound(clients: int, modulus: int, constant, law: DigitLaw | None = None, radix: int = 3) -> Certified:
    """``min(1, C M / (σ √K))`` (eq. 25) for a given constant ``C``, certified.

    Parameters
    ----------
    clients, modulus : int
        ``K`` and ``M``.
    constant : Fraction or str
        ``C``.
    law : DigitLaw or str, optional
        The law of one digit (uniform by default).
    radix : int
        ``ρ``.
    """
    law = as_law(law, check_radix(radix))
    _spread(law)
    c = fraction("C", constant, low=0)
    with precision():
        value = to_arb(c) * modulus / (to_arb(law.variance).sqrt() * to_arb(clients).sqrt())
        out = enclose("eq. 25 bound", value, Direction.UPPER)
    return out if out.high <= 1 else Certified(out.name, min(out.low, Fraction(1)), Fraction(1), out.direction,
                                               str(out.method) + ", capped at 1")


@dataclass(frozen=True, repr=False, kw_only=True)
class ConverseMargin(Displayable):
    """The smallest margin at which *any* residue decoder can reach a success target, exactly.

    Parameters
    ----------
    clients, radix, width : int
        ``K``, ``ρ`` and ``b``.
    success : Fraction
        The success target.
    margin : int
        The smallest margin at which the best decoder reaches it.
    at_margin : DecoderSuccess
        The decoders at that margin.
    below : DecoderSuccess or None
        The decoders one margin lower.
    """

    clients: int
    radix: int
    width: int
    success: Fraction
    margin: int
    at_margin: DecoderSuccess
    below: DecoderSuccess | None

    def headline(self) -> str:
        return f"K = {self.clients}: no residue decoder reaches {fraction_text(self.success)} below margin {self.margin}"

    @property
    def eq26_bound(self) -> Certified:
        """Eq. 26's ``½ log_ρ K + log_ρ((1-δ) σ_ρ/(C ρ))`` with ``C = σ√K sup p_K`` at this K (certified).

        With that ``C`` eq. 25 holds at this K; the paper leaves ``C`` unspecified.
        """
        c = self.at_margin.local_limit_constant.high
        with precision():
            sigma, radix = to_arb(self.at_margin.law.variance).sqrt(), to_arb(self.radix)
            inner = to_arb(self.success) * sigma / (to_arb(c) * radix)
            value = to_arb(self.clients).log() / (2 * radix.log()) + inner.log() / radix.log()
            return enclose("eq. 26 necessary margin", value, Direction.LOWER)

    def rows(self) -> list[tuple[str, str]]:
        rows = [(f"margin {self.margin}", self.at_margin.headline())]
        if self.below is not None:
            rows.append((f"margin {self.margin - 1}", self.below.headline()))
        rows.append(("eq. 26 (C = σ√K sup p_K)", f"m >= {interval(self.eq26_bound)} (certified)"))
        return rows

    def to_dict(self) -> dict:
        return {"clients": self.clients, "radix": self.radix, "width": self.width,
                "success": fraction_text(self.success), "margin": self.margin,
                "at_margin": self.at_margin.to_dict(),
                "below": None if self.below is None else self.below.to_dict(),
                "eq26_lower_bound": self.eq26_bound.to_dict()}


def converse_margin(clients: int, radix: int = 3, success=DEFAULT_SUCCESS, law: DigitLaw | str | None = None,
                    width: int = 1, time_limit: float | Deadline | None = None) -> ConverseMargin:
    """The smallest ``m`` whose modulus ``ρ^(width+m)`` lets the best decoder succeed with ``success``.

    Below it, every decoder of the layerwise modular interface (Definition 1)
    fails with probability above ``1 - success``: the exact form of eq. 26.
    The law of ``S`` is computed once (its size is checked first, against
    ``MAX_EXACT_BYTES``); ``time_limit`` (seconds) is checked at each margin.

    Parameters
    ----------
    clients, radix, width : int
        ``K``, ``ρ`` and ``b``.
    success : Fraction or str
        The success target in ``(0, 1]``.
    law : DigitLaw or str, optional
        The law of one digit (uniform by default).
    time_limit : float or Deadline, optional
        Seconds.
    """
    check_radix(radix)
    target = fraction("success", success, low=0, high=1, closed=True)
    if target == 0:
        raise InvalidOption("success: must be > 0")
    law = as_law(law, radix, width)
    _spread(law)
    clock = Deadline.of(time_limit)
    dist = _exact_sum(law, whole_number("K (clients)", clients, minimum=1))
    below = None
    for m in range(MAX_CONVERSE_MARGIN):
        clock.check(f"margin {m} of the converse at K = {clients}")
        d = _decode(dist, radix ** (width + m))
        if d.optimal >= target:
            return ConverseMargin(clients=clients, radix=radix, width=width, success=target, margin=m,
                                  at_margin=d, below=below)
        below = d
    raise InvalidOption(f"success: not reached below margin {MAX_CONVERSE_MARGIN}")  # pragma: no cover


@dataclass(frozen=True, repr=False, kw_only=True)
class Converse(Displayable):
    """The exact converse margin, and the decoders at a given modulus when one is asked for.

    Parameters
    ----------
    converse : ConverseMargin
        The smallest margin at which any residue decoder reaches the success target.
    decoder : DecoderSuccess or None
        The decoders at the modulus asked for (``None`` when none was).
    margin : int or None
        The margin asked for (the modulus is ``ρ^(1+m)``).
    law : DigitLaw
        The law of one digit.
    """

    converse: ConverseMargin
    decoder: DecoderSuccess | None
    margin: int | None
    law: DigitLaw

    def headline(self) -> str:
        return self.converse.headline()

    def rows(self) -> list[tuple[str, str]]:
        rows = [] if self.decoder is None else [(f"M = {self.decoder.modulus}: " + k, v) for k, v in self.decoder.rows()]
        return rows + self.converse.rows()

    def to_dict(self) -> dict:
        return {"clients": self.converse.clients, "radix": self.converse.radix, "margin": self.margin,
                "modulus": None if self.decoder is None else self.decoder.modulus,
                "success": fraction_text(self.converse.success), "law": self.law.to_dict(),
                "decoder": None if self.decoder is None else self.decoder.to_dict(),
                "converse": self.converse.to_dict()}


def converse(clients: int, radix: int = 3, margin: int | None = None, modulus: int | None = None,
             success=DEFAULT_SUCCESS, law: DigitLaw | str | None = None,
             time_limit: float | Deadline | None = None) -> Converse:
    """The exact converse margin for ``success`` and, at a ``margin`` (modulus ``ρ^(1+m)``) or any ``modulus``,
    the best decoder from ``S mod M`` against centred reduction.

    Parameters
    ----------
    clients, radix : int
        ``K`` and ``ρ``.
    margin : int, optional
        The margin ``m`` whose modulus ``ρ^(1+m)`` the decoders are evaluated at.
    modulus : int, optional
        Any modulus ``M`` instead of a margin (not both).
    success : Fraction or str
        The success target of the converse margin.
    law : DigitLaw or str, optional
        The law of one digit (uniform by default).
    time_limit : float or Deadline, optional
        Seconds.

    Notes
    -----
    Theorem 2 (eq. 25-26, 46) of Azimi-Abarghouyi, arXiv 2610.00695.
    """
    check_radix(radix)
    if margin is not None and modulus is not None:
        raise conflict(f"margin {excerpt(margin)}", f"modulus {excerpt(modulus)}", "each gives the modulus")
    digit_law = as_law(law, radix)
    if margin is not None:
        modulus = radix ** (1 + whole_number("margin", margin, minimum=0, maximum=MAX_CONVERSE_MARGIN))
    need = converse_margin(clients, radix, success, digit_law, time_limit=time_limit)
    at = None if modulus is None else decoder_success(clients, modulus, digit_law, radix)
    return Converse(converse=need, decoder=at, margin=margin, law=digit_law)
