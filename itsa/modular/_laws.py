"""Digit laws: a rational probability law on a run of consecutive integers.

A client's normalised layer digit (or stage symbol) takes values in a run of
integers; its law is a tuple of exact :class:`~fractions.Fraction` weights.
The uniform balanced law on ``{-(ρ^b-1)/2, …, (ρ^b-1)/2}`` is the prior of
the paper's converse and of its exact calculations.

Examples
--------
>>> law = DigitLaw.uniform(3)
>>> law.values, law.mean, law.variance
((-1, 0, 1), Fraction(0, 1), Fraction(2, 3))
>>> DigitLaw.parse("1/4,1/2,1/4").variance
Fraction(1, 2)
>>> DigitLaw.parse("1/2,1/4")
Traceback (most recent call last):
...
itsa.exceptions.InvalidOption: digit law: the weights must sum to 1, not 3/4
>>> DigitLaw.parse("1/2,1/2")
Traceback (most recent call last):
...
itsa.exceptions.InvalidOption: digit law: 2 weights cannot be centred on 0; write an odd number, such as 1/4,1/2,1/4
>>> DigitLaw.parse("1/5,1/5,1/5,1/5,1/5").check_alphabet(3)
Traceback (most recent call last):
...
itsa.exceptions.InvalidOption: digit law: values -2..2 leave the balanced alphabet -1..1 of radix 3 (at most 3 weights)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from itsa._util.certified import fraction_text
from itsa._util.checks import fraction, whole_number
from itsa._util.display import Displayable
from itsa.exceptions import InvalidOption, excerpt

__all__ = ["DigitLaw", "check_radix", "as_law", "MAX_LAW_VALUES"]

#: Most values a digit law may have (a stage of width b has ρ^b values).
MAX_LAW_VALUES = 10**6


def check_radix(radix) -> int:
    """``radix`` if it is an odd whole number ``>= 3`` (the balanced alphabet needs an odd radix).

    Parameters
    ----------
    radix : int
        ``ρ``.

    >>> check_radix(4)
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOption: radix: must be an odd whole number >= 3, not 4
    """
    whole = isinstance(radix, int) and not isinstance(radix, bool)
    if not whole or radix < 3 or radix % 2 == 0:
        raise InvalidOption(f"radix: must be an odd whole number >= 3, not {excerpt(radix)}")
    return radix


@dataclass(frozen=True, repr=False)
class DigitLaw(Displayable):
    """A law on ``low, low+1, …, low+len(weights)-1`` with exact weights summing to 1.

    Parameters
    ----------
    low : int
        The smallest value.
    weights : tuple of Fraction
        The probabilities of ``low, low + 1, …``.
    name : str
        A label (``uniform(3)``, ``custom``).

    Notes
    -----
    The uniform balanced law on ``ρ`` values has variance ``(ρ²-1)/12``
    (Azimi-Abarghouyi, arXiv 2610.00695, eq. 5 with ``n_b = 1``, ``h = 1``).
    """

    low: int
    weights: tuple[Fraction, ...]
    name: str = "custom"

    def __post_init__(self):
        if not self.weights:
            raise InvalidOption("digit law: needs at least one weight")
        if len(self.weights) > MAX_LAW_VALUES:
            raise InvalidOption(f"digit law: at most {MAX_LAW_VALUES} values, not {len(self.weights)}")
        if any(w < 0 for w in self.weights):
            raise InvalidOption(f"digit law: weights must be >= 0, not {excerpt(self.weights)}")
        total = sum(self.weights, Fraction(0))
        if total != 1:
            raise InvalidOption(f"digit law: the weights must sum to 1, not {fraction_text(total)}")

    @classmethod
    def uniform(cls, radix: int, width: int = 1) -> DigitLaw:
        """The uniform balanced law on ``ρ^width`` values (a stage of ``width`` layers)."""
        check_radix(radix)
        whole_number("width", width, minimum=1)
        n = radix ** width
        if n > MAX_LAW_VALUES:
            raise InvalidOption(f"digit law: radix^width = {radix}^{width} is more than {MAX_LAW_VALUES} values")
        return cls(-(n // 2), (Fraction(1, n),) * n, name=f"uniform({n})")

    @classmethod
    def parse(cls, text: str, low: int | None = None) -> DigitLaw:
        """Weights written ``"1/4,1/2,1/4"``, centred on 0 unless ``low`` is given.

        Centred means on ``-(n-1)/2, …, (n-1)/2``: it needs an odd number ``n``
        of weights (an even number is refused rather than shifted).
        """
        parts = [p for p in str(text).split(",")]
        weights = tuple(fraction("digit law weight", p.strip(), low=0, high=1, closed=True) for p in parts)
        law = cls(-((len(weights) - 1) // 2) if low is None else low, weights)
        if low is None and len(weights) % 2 == 0:
            raise InvalidOption(f"digit law: {len(weights)} weights cannot be centred on 0; write an odd number, "
                                "such as 1/4,1/2,1/4")
        return law

    def check_alphabet(self, radix: int, width: int = 1) -> DigitLaw:
        """``self`` if its values lie in the balanced alphabet of ``ρ^width`` values, else refused."""
        half = (check_radix(radix) ** width - 1) // 2
        if self.low < -half or self.high > half:
            raise InvalidOption(f"digit law: values {self.low}..{self.high} leave the balanced alphabet "
                                f"{-half}..{half} of radix {radix}{'' if width == 1 else f'^{width}'} "
                                f"(at most {2 * half + 1} weights)")
        return self

    @property
    def values(self) -> tuple[int, ...]:
        return tuple(range(self.low, self.low + len(self.weights)))

    @property
    def high(self) -> int:
        return self.low + len(self.weights) - 1

    @property
    def mean(self) -> Fraction:
        return sum((v * w for v, w in zip(self.values, self.weights)), Fraction(0))

    @property
    def second_moment(self) -> Fraction:
        return sum((v * v * w for v, w in zip(self.values, self.weights)), Fraction(0))

    @property
    def variance(self) -> Fraction:
        return self.second_moment - self.mean ** 2

    @property
    def is_uniform(self) -> bool:
        return len(set(self.weights)) == 1

    def integer_weights(self) -> tuple[tuple[int, ...], int]:
        """Integer weights and their common denominator ``d``: ``P[value] = weight / d``."""
        d = math.lcm(*(w.denominator for w in self.weights))
        return tuple(int(w * d) for w in self.weights), d

    def headline(self) -> str:
        return f"{self.name} on {self.low}..{self.high}, mean {fraction_text(self.mean)}, variance {fraction_text(self.variance)} (exact)"

    def to_dict(self) -> dict:
        return {"name": self.name, "low": self.low, "high": self.high,
                "weights": None if self.is_uniform else [fraction_text(w) for w in self.weights],
                "mean": fraction_text(self.mean), "variance": fraction_text(self.variance)}

    def rows(self) -> list[tuple[str, str]]:
        shown = ", ".join(str(w) for w in self.weights[:9]) + (" …" if len(self.weights) > 9 else "")
        return [("values", f"{self.low}..{self.high}"), ("weights", shown),
                ("mean", fraction_text(self.mean)), ("variance", fraction_text(self.variance))]



def as_law(law: DigitLaw | str | None, radix: int, width: int = 1) -> DigitLaw:
    """A digit law inside the balanced alphabet of ``ρ^width`` values: uniform for ``None``, parsed from a text.

    Parameters
    ----------
    law : DigitLaw, str or None
        A law, its weights written ``"1/4,1/2,1/4"`` (centred on 0), or ``None`` for the uniform law.
    radix : int
        ``ρ``.
    width : int
        ``b``: the alphabet has ``ρ^b`` values.

    Examples
    --------
    >>> as_law("1/4,1/2,1/4", 3).variance, as_law(None, 3).name
    (Fraction(1, 2), 'uniform(3)')
    """
    if law is None:
        return DigitLaw.uniform(radix, width)
    return (DigitLaw.parse(law) if isinstance(law, str) else law).check_alphabet(radix, width)
