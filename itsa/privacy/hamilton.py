"""Hamilton integer weights, the encoding, and the sensitivity Δ*₂ of one integer release.

The PCU-FL recipe (its Algorithm 3, lines 3–6) turns data weights into whole
numbers on a grid ``α`` by Hamilton's rule (largest remainders), so that the
integer weights add to exactly ``α`` and each is within one unit of
``α w_i / W``; updates are encoded as ``round_half_even(γ u)``.

Examples
--------
>>> hw = weights([1] * 50, 256)
>>> sorted(set(hw.integers)), hw.integers.count(5), hw.integers.count(6)
([5, 6], 44, 6)
>>> weights([31, 74, 120, 9, 66], 256).integers
(27, 63, 102, 8, 56)
>>> sensitivity_bound(max_weight=Fraction(6, 256), clip=1, dimension=2, gamma=256).decimal(2)
'0.048'
>>> round(float(sensitivity_bound(max_weight=Fraction(6, 256), clip=1, dimension=2, gamma=256).value()), 3)
0.047
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from itsa._util.certified import Certified, Direction, exact_text, precision, to_arb
from itsa._util.checks import fraction, whole_number
from itsa._util.display import Displayable
from itsa.exceptions import InvalidOption, excerpt

__all__ = ["HamiltonWeights", "weights", "sensitivity_bound", "rounding_bound", "grid_guidance",
           "round_half_even", "SENSITIVITY_READING", "client_ids", "data_weight", "MAX_WEIGHT_BITS"]

#: How Δ*₂ is read: the page's "Eq. (1)" is not printed; this reading gives its 0.047.
SENSITIVITY_READING = ("reading [R]: sensitivity = 2 (max_weight/W_t)(S + sqrt(d)/(2 gamma)), max_weight = max w~_i/alpha "
                       "(reconstructed; reproduces the page's 0.047 at max_weight = 6/256, S = 1, d = 2, gamma = 256)")


#: How the integer weights are made (said in every answer).
HAMILTON_METHOD = "Hamilton (largest remainders), ties by client order; exact"


def round_half_even(x: Fraction) -> int:
    """The nearest integer to ``x``, ties to even (as ``torch.round``, ``numpy.rint``).

    Examples
    --------
    >>> [round_half_even(Fraction(k, 2)) for k in (-3, -1, 1, 3, 5)]
    [-2, 0, 0, 2, 2]
    """
    return round(x)


@dataclass(frozen=True, repr=False)
class HamiltonWeights(Displayable):
    """Integer weights ``w̃_i`` on the grid ``α`` (Σ w̃_i = α), with the quotas ``α w_i / W`` they round.

    Parameters
    ----------
    integers : tuple of int
        The integer weights ``w̃_i`` (they add to ``alpha``).
    alpha : int
        The grid.
    quotas : tuple of Fraction
        ``α w_i / W``, what each integer weight rounds.
    data_weights : tuple of Fraction
        The data weights given (echoed in :meth:`to_dict`).
    """

    integers: tuple[int, ...]
    alpha: int
    quotas: tuple[Fraction, ...]
    data_weights: tuple[Fraction, ...] = ()

    @property
    def max_weight(self) -> Fraction:
        """The largest weight ``max_i w̃_i / α`` (exact)."""
        return Fraction(max(self.integers), self.alpha)

    @property
    def fractions(self) -> tuple[Fraction, ...]:
        return tuple(Fraction(w, self.alpha) for w in self.integers)

    def to_dict(self) -> dict:
        return {"alpha": self.alpha, "data_weights": [exact_text(w) for w in self.data_weights],
                "weights": list(self.integers), "total": sum(self.integers),
                "quotas": [exact_text(q) for q in self.quotas], "max_weight": exact_text(self.max_weight),
                "method": HAMILTON_METHOD}

    def headline(self) -> str:
        return f"{len(self.integers)} clients on alpha = {self.alpha}: sum {sum(self.integers)} (exact)"

    def rows(self) -> list[tuple[str, str]]:
        shown = ", ".join(map(str, self.integers[:20])) + (" …" if len(self.integers) > 20 else "")
        return [("weights", shown), ("quotas", ", ".join(exact_text(q) for q in self.quotas[:20])
                                     + (" …" if len(self.quotas) > 20 else "")),
                ("max weight", exact_text(self.max_weight)), ("method", HAMILTON_METHOD)]


#: Bits of every data weight's numerator and denominator, and of their common denominator: past it Hamilton's
#: exact arithmetic grows without bound (a thousand weights ``1/(10^30 + 2k + 1)`` took 90 s), so it is refused.
MAX_WEIGHT_BITS = 4096
#: Longest weight text read, and its largest decimal exponent (past them no weight fits MAX_WEIGHT_BITS).
MAX_WEIGHT_CHARS = 2 * 1234 + 16
MAX_WEIGHT_EXPONENT = 1234
_EXPONENT = re.compile(r"[eE]\s*([+-]?\d+)\s*$")
#: Longest client ID text (characters); a whole-number ID has at most :data:`MAX_ID_DIGITS` digits.
MAX_ID_CHARS = 256
MAX_ID_DIGITS = 30
#: Clients between two looks at the clock in Hamilton's loop.
_CLOCK_EVERY = 4096


def data_weight(name: str, value) -> Fraction:
    """One data weight, exact, ``>= 0``, its numerator and denominator below ``2^``:data:`MAX_WEIGHT_BITS`.

    A text is measured before it is read (at most :data:`MAX_WEIGHT_CHARS`
    characters, a decimal exponent within ``±``:data:`MAX_WEIGHT_EXPONENT`), so
    a refused weight costs nothing to refuse.

    >>> data_weight("weight 1", "3/4"), data_weight("weight 2", 2)
    (Fraction(3, 4), Fraction(2, 1))
    """
    if isinstance(value, str):
        exponent = _EXPONENT.search(value.strip())
        if len(value) > MAX_WEIGHT_CHARS or (exponent and abs(int(exponent.group(1)[:12])) > MAX_WEIGHT_EXPONENT):
            raise InvalidOption(f"{name}: too long for exact weights (MAX_WEIGHT_BITS: a numerator and a "
                                f"denominator below 2^{MAX_WEIGHT_BITS}), not {excerpt(value)}")
    v = fraction(name, value)
    if v < 0:
        raise InvalidOption(f"{name}: must be >= 0, not {excerpt(value)}")
    if max(v.numerator.bit_length(), v.denominator.bit_length()) > MAX_WEIGHT_BITS:
        raise InvalidOption(f"{name}: its numerator or denominator passes 2^{MAX_WEIGHT_BITS} "
                            f"(MAX_WEIGHT_BITS), not {excerpt(value)}")
    return v


def _data_weights(weights: Sequence, deadline=None) -> tuple[list[Fraction], int]:
    """The weights as Fractions and their common denominator, of bounded size (:data:`MAX_WEIGHT_BITS`)."""
    if len(weights) == 0:
        raise InvalidOption("weights: give at least one client weight")
    values, common = [], 1
    for i, given in enumerate(weights):
        if deadline is not None and i % _CLOCK_EVERY == 0:
            deadline.check(f"the data weights, client {i + 1}")
        v = data_weight(f"weight {i + 1}", given)
        values.append(v)
        common = common // math.gcd(common, v.denominator) * v.denominator
        if common.bit_length() > MAX_WEIGHT_BITS:
            raise InvalidOption(f"weights: their common denominator passes 2^{MAX_WEIGHT_BITS} at weight {i + 1} "
                                "(MAX_WEIGHT_BITS: exact weights that long cost without bound; round them)")
    if not any(values):
        raise InvalidOption("weights: must not all be zero")
    return values, common


def client_ids(ids: Sequence | None, count: int | None = None) -> list[int] | list[str] | None:
    """Client IDs for Hamilton's ties: distinct whole numbers or distinct texts, all of one kind (or ``None``).

    A whole number has at most :data:`MAX_ID_DIGITS` digits, a text at most
    :data:`MAX_ID_CHARS` characters; ``count`` IDs when it is given.

    >>> client_ids([3, 1, 2]), client_ids(["b", "a"])
    ([3, 1, 2], ['b', 'a'])
    >>> client_ids(["1", 2])
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOption: client ids: must be all whole numbers or all texts, not ['1', 2]
    """
    if ids is None:
        return None
    if isinstance(ids, (str, bytes, dict)) or not hasattr(ids, "__len__"):
        raise InvalidOption(f"client ids: must be a list, not {excerpt(ids)}")
    out: list = [int(i) if isinstance(i, np.integer) else i for i in ids]
    if not out or not (all(type(i) is int for i in out) or all(type(i) is str for i in out)):
        raise InvalidOption(f"client ids: must be all whole numbers or all texts, not {excerpt(out)}")
    if any(abs(i) >= 10**MAX_ID_DIGITS if isinstance(i, int) else len(i) > MAX_ID_CHARS for i in out):
        raise InvalidOption(f"client ids: at most {MAX_ID_DIGITS} digits or {MAX_ID_CHARS} characters each")
    if len(set(out)) != len(out) or (count is not None and len(out) != count):
        raise InvalidOption("client ids: must be distinct, one per weight")
    return out


def weights(data_weights: Sequence, alpha: int, ids: Sequence | None = None, *, deadline=None) -> HamiltonWeights:
    """Hamilton's rule on the grid ``alpha``: ``⌊α w_i/W⌋`` each, the rest to the largest remainders.

    Parameters
    ----------
    data_weights : sequence of numbers
        The clients' data weights (``>= 0``, not all zero; read exactly).
    alpha : int
        The grid: the integer weights add to it.
    ids : sequence, optional
        Client IDs for ties (:func:`client_ids`; default: the client's position).
    deadline : Deadline, optional
        Looked at in the loop over the clients.

    Ties between equal remainders go to the smaller client ID (``ids``:
    :func:`client_ids`; by default the client's position). Exact, in whole
    numbers over the weights' common denominator (of at most
    :data:`MAX_WEIGHT_BITS` bits); ``deadline`` (a
    :class:`~itsa._util.deadline.Deadline`) is looked at in the loop.

    Notes
    -----
    PCU-FL, Algorithm 3, lines 3–6, as quoted by the explainer page; the page's
    golden case: 50 equal clients at α = 256 give 44 weights 5 and six 6.
    """
    whole_number("alpha", alpha, minimum=1)
    values, common = _data_weights(data_weights, deadline)
    key: list = list(range(len(values))) if ids is None else client_ids(ids, len(values)) or []
    scaled = [v.numerator * (common // v.denominator) for v in values]      # w_i = scaled_i / common
    total = sum(scaled)
    floors, remainders = [], []
    for i, m in enumerate(scaled):
        if deadline is not None and i % _CLOCK_EVERY == 0:
            deadline.check(f"Hamilton's weights, client {i + 1}")
        q, r = divmod(alpha * m, total)         # the quota alpha w_i / W = q + r / total
        floors.append(q)
        remainders.append(r)
    order = sorted(range(len(values)), key=lambda i: (-remainders[i], key[i]))
    for i in order[:alpha - sum(floors)]:
        floors[i] += 1
    quotas = tuple(Fraction(alpha * m, total) for m in scaled)
    return HamiltonWeights(tuple(floors), alpha, quotas, tuple(values))


def sensitivity_bound(*, max_weight, clip, dimension: int, gamma: int, total_weight=1) -> Certified:
    """``Δ*₂ = 2 (max_weight/W_t)(S + √d/(2γ))`` as a certified upper bound (a reading; see :data:`SENSITIVITY_READING`).

    Parameters
    ----------
    max_weight : number
        The largest integer weight over ``α``.
    clip : number
        The l2 clipping norm ``S``.
    dimension : int
        The model dimension ``d``.
    gamma : int
        The encoding scale ``γ``.
    total_weight : number
        ``W_t`` (1 for weights over ``α``).


    The ``√d/(2γ)`` term covers the encoding's rounding (each coordinate moves
    by at most ``1/(2γ)``).
    """
    w = fraction("max weight", max_weight, low=0)
    S = fraction("clip S", clip, low=0)
    whole_number("dimension", dimension, minimum=1)
    whole_number("gamma", gamma, minimum=1)
    W = fraction("W_t", total_weight, low=0)
    with precision():
        ball = 2 * to_arb(w / W) * (to_arb(S) + to_arb(Fraction(1, 2 * gamma)) * to_arb(dimension).sqrt())
    return Certified.from_arb("sensitivity", ball, Direction.UPPER, SENSITIVITY_READING)


def rounding_bound(clients: int, clip, alpha: int, total_weight=1) -> Fraction:
    """``M_t S / (α W_t)``, the page's bound on the weight-rounding drift of the mean (exact)."""
    whole_number("clients", clients, minimum=1)
    whole_number("alpha", alpha, minimum=1)
    return clients * fraction("clip S", clip, low=0) / (alpha * fraction("W_t", total_weight, low=0))


def grid_guidance(clients: int, min_weight=1) -> int:
    """The guidance ``α ≥ 10³ M_t / W_min`` (the smallest whole α meeting it).

    >>> grid_guidance(5), grid_guidance(50)
    (5000, 50000)
    """
    whole_number("clients", clients, minimum=1)
    return math.ceil(Fraction(1000 * clients) / fraction("W_min", min_weight, low=0))
