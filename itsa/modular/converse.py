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
>>> from itsa.modular.laws import DigitLaw
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

from itsa._util.checks import fraction, whole_number
from itsa._util.deadline import Deadline
from itsa._util.display import Displayable
from itsa.exceptions import InvalidOption
from itsa.modular.laws import DigitLaw, check_radix
from itsa.modular.numbers import Certified, certified, fraction_text, round_down, round_up, working_precision
from itsa.modular.sums import MAX_EXACT_BYTES, ExactSum, Method, exact_bytes, sum_law

__all__ = ["DecoderSuccess", "decoder_success", "ConverseMargin", "converse_margin", "paper_bound"]


@dataclass(frozen=True, repr=False, kw_only=True)
class DecoderSuccess(Displayable):
    """Exact success probabilities of decoding ``S`` from ``S mod M``."""

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
        raw = f"M · sup p_K = {round_up(self.raw_bound, 6)} (exact, rounded up)"
        return f"1, the cap: {raw} > 1" if self.capped else raw

    @property
    def centered_optimal(self) -> bool:
        return self.optimal == self.centered

    def headline(self) -> str:
        return (f"K = {self.clients}, M = {self.modulus}: best decoder {round_down(self.optimal, 6)}, "
                f"centred {round_down(self.centered, 6)} (exact)")

    def rows(self) -> list[tuple[str, str]]:
        return [("best decoder Σ_r max p_K", f"{round_down(self.optimal, 6)} (exact, rounded down)"),
                ("centred reduction", f"{round_down(self.centered, 6)} (exact, rounded down)"),
                ("centred is optimal", "yes" if self.centered_optimal else "no"),
                ("min(1, M · sup p_K) (eq. 46)", self._bound_text()),
                ("σ √K sup p_K", f"{self.local_limit_constant.text(4)} (certified)")]

    def to_json(self) -> dict:
        return {"clients": self.clients, "modulus": self.modulus, "optimal_success": fraction_text(self.optimal),
                "optimal_success_lower": round_down(self.optimal, 6), "centered_success": fraction_text(self.centered),
                "centered_optimal": self.centered_optimal, "sup_bound": fraction_text(self.bound),
                "sup_bound_raw": fraction_text(self.raw_bound), "sup_bound_capped": self.capped,
                "local_limit_constant": self.local_limit_constant.to_json()}


def _exact_sum(law: DigitLaw, clients: int) -> ExactSum:
    size = exact_bytes(law, clients)
    if size > MAX_EXACT_BYTES:
        raise InvalidOption(f"converse: the exact law of S for K = {clients} would take about {size // 2**20} MiB "
                            f"(limit {MAX_EXACT_BYTES // 2**20} MiB); the converse is computed exactly only")
    dist = sum_law(law, clients, Method.EXACT)
    assert isinstance(dist, ExactSum)
    return dist


def decoder_success(clients: int, modulus: int, law: DigitLaw | None = None, radix: int = 3,
                    width: int = 1) -> DecoderSuccess:
    """The best and the centred decoder's success from ``S mod modulus``, exactly.

    ``law`` (uniform by default) must lie in the balanced alphabet of ``ρ^width`` values.

    Notes
    -----
    Theorem 2 and its proof (eq. 46) in Azimi-Abarghouyi, arXiv 2610.00695.
    The centred window of an even modulus is ``[-M/2, M/2 - 1]``.
    """
    whole_number("modulus", modulus, minimum=1)
    law = DigitLaw.uniform(check_radix(radix), width) if law is None else law.check_alphabet(radix, width)
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
    import flint

    with working_precision():
        var = law.variance
        c = (flint.arb(clients * var.numerator) / var.denominator).sqrt() * sup.numerator / sup.denominator
        constant = certified(c)
    return DecoderSuccess(clients=clients, modulus=modulus, law=law, optimal=optimal, centered=centered,
                          sup=sup, local_limit_constant=constant)


def _spread(law: DigitLaw) -> None:
    if law.variance == 0:
        raise InvalidOption("digit law: a single value (variance 0) has no converse; give a law with a spread")


def paper_bound(clients: int, modulus: int, constant, law: DigitLaw | None = None, radix: int = 3) -> Certified:
    """``min(1, C M / (σ √K))`` (eq. 25) for a given constant ``C``, certified."""
    import flint

    law = DigitLaw.uniform(check_radix(radix)) if law is None else law
    _spread(law)
    c = fraction("C", constant, low=0)
    var = law.variance
    with working_precision():
        sigma = (flint.arb(var.numerator) / var.denominator).sqrt()
        value = flint.arb(c.numerator) / c.denominator * modulus / (sigma * flint.arb(clients).sqrt())
        out = certified(value)
    return out if out.high <= 1 else Certified(min(out.low, Fraction(1)), Fraction(1), out.method)


@dataclass(frozen=True, repr=False, kw_only=True)
class ConverseMargin(Displayable):
    """The smallest margin at which *any* residue decoder can reach a success target, exactly."""

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
        import flint

        law = self.at_margin.law
        var = law.variance
        c = self.at_margin.local_limit_constant.high
        with working_precision():
            sigma = (flint.arb(var.numerator) / var.denominator).sqrt()
            rho = flint.arb(self.radix)
            inner = (flint.arb(self.success.numerator) / self.success.denominator) * sigma * c.denominator
            inner = inner / (flint.arb(c.numerator) * rho)
            value = flint.arb(self.clients).log() / (2 * rho.log()) + inner.log() / rho.log()
            return certified(value)

    def rows(self) -> list[tuple[str, str]]:
        rows = [(f"margin {self.margin}", self.at_margin.headline())]
        if self.below is not None:
            rows.append((f"margin {self.margin - 1}", self.below.headline()))
        rows.append(("eq. 26 (C = σ√K sup p_K)", f"m >= {self.eq26_bound.text(3)} (certified)"))
        return rows

    def to_json(self) -> dict:
        return {"clients": self.clients, "radix": self.radix, "success": fraction_text(self.success), "margin": self.margin,
                "at_margin": self.at_margin.to_json(),
                "below": None if self.below is None else self.below.to_json(),
                "eq26_lower_bound": self.eq26_bound.to_json()}


def converse_margin(clients: int, radix: int = 3, success=Fraction(999, 1000), law: DigitLaw | None = None,
                    width: int = 1, time_limit: float | Deadline | None = None) -> ConverseMargin:
    """The smallest ``m`` whose modulus ``ρ^(width+m)`` lets the best decoder succeed with ``success``.

    Below it, every decoder of the layerwise modular interface (Definition 1)
    fails with probability above ``1 - success``: the exact form of eq. 26.
    The law of ``S`` is computed once (its size is checked first, against
    ``MAX_EXACT_BYTES``); ``time_limit`` (seconds) is checked at each margin.
    """
    check_radix(radix)
    target = fraction("success", success, low=0, high=1, closed=True)
    if target == 0:
        raise InvalidOption("success: must be > 0")
    law = DigitLaw.uniform(radix, width) if law is None else law.check_alphabet(radix, width)
    _spread(law)
    clock = Deadline.of(time_limit)
    dist = _exact_sum(law, whole_number("K (clients)", clients, minimum=1))
    below = None
    for m in range(200):
        clock.check(f"margin {m} of the converse at K = {clients}")
        d = _decode(dist, radix ** (width + m))
        if d.optimal >= target:
            return ConverseMargin(clients=clients, radix=radix, width=width, success=target, margin=m,
                                  at_margin=d, below=below)
        below = d
    raise InvalidOption("success: not reached below margin 200")  # pragma: no cover
