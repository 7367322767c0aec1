"""Flower's SecAgg+ rules, as its code applies them: the keyword checks, the shares, the quantizer's levels.

Everything here mirrors ``flwr`` 1.42 (``SecAggPlusWorkflow`` of
``flwr.server.workflow``, the client mod ``secaggplus_mod`` and
``flwr.common.secure_aggregation.quantization``) so that a configuration is
judged by what Flower does with it, not by what its documentation says:

- the workflow refuses an integer ``num_shares`` of 2 or less (1 means all
  clients) and an integer threshold of at least the shares, and only *warns*
  when ``num_shares > modulus_range / quantization_range``;
- a float ``num_shares`` is ``round(f n)`` of the ``n`` sampled clients, made
  odd when it is below ``n`` and raised to ``n`` when it is 2 or less; a
  float threshold is ``max(round(f s), 2)`` of those ``s`` shares;
- each client's neighbourhood is the ring of ``s // 2`` clients on each side
  of it *and the client itself* (a random Harary graph of degree
  ``2 (s // 2)``, or everyone when that reaches ``n``): ``num_shares`` counts
  the client's own share;
- each coordinate is scaled by ``round(w/W · Q)/Q``, clipped to ``[-c, c]``,
  offset by ``c`` and multiplied by ``Q/(2c)`` in float64, then rounded
  stochastically through ``int32``: a value in ``0..Q`` (both ends reached);
  the weight itself travels as one more entry, ``round(w/W · Q)``.

Examples
--------
>>> layout = resolve_shares(3, 2, clients=100)
>>> layout.neighbourhood, layout.degree, layout.threshold
(3, 2, 2)
>>> levels = quantizer_levels(8.0, 2**22)
>>> levels.top, levels.zero_low, levels.zero_high
(4194304, 2097152, 2097152)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction

from itsa._util.checks import MAX_NUMBER_TEXT, is_whole, number_text
from itsa.exceptions import InvalidOption, excerpt

__all__ = ["FLOWER_DEFAULTS", "FLOWER_VERSION", "EXAMPLE_SHARES", "INT32_MAX", "MASK_MODULUS_LIMIT", "MASK_SEED_BITS",
           "MIN_THRESHOLD", "ShareLayout", "Levels", "flower_number", "check_keywords", "resolve_shares", "quantizer_levels"]

#: The Flower release whose code these rules mirror.
FLOWER_VERSION = "1.42"
#: ``SecAggPlusWorkflow``'s keyword defaults (``num_shares`` and the threshold have none).
FLOWER_DEFAULTS: dict[str, float | int] = {"max_weight": 1000.0, "clipping_range": 8.0,
                                           "quantization_range": 2**22, "modulus_range": 2**32}
#: ``num_shares`` and ``reconstruction_threshold`` of Flower's own secure-aggregation example app
#: (the workflow has no default for them).
EXAMPLE_SHARES: tuple[int, int] = (3, 2)
#: Each default by name (the command line's defaults).
DEFAULT_NUM_SHARES, DEFAULT_RECONSTRUCTION_THRESHOLD = EXAMPLE_SHARES
DEFAULT_MAX_WEIGHT = FLOWER_DEFAULTS["max_weight"]
DEFAULT_CLIPPING_RANGE = FLOWER_DEFAULTS["clipping_range"]
DEFAULT_QUANTIZATION_RANGE = FLOWER_DEFAULTS["quantization_range"]
DEFAULT_MODULUS_RANGE = FLOWER_DEFAULTS["modulus_range"]
#: The largest value Flower's ``astype(np.int32)`` keeps.
INT32_MAX = 2**31 - 1
#: The largest ``modulus_range`` Flower can draw masks for: ``pseudo_rand_gen`` calls
#: ``randint(0, M - 1, dtype=int64)``, which raises when ``M - 1`` exceeds ``2^63``.
MASK_MODULUS_LIMIT = 2**63
#: Bits of the seed of Flower's mask generator: ``pseudo_rand_gen`` folds the shared key by XOR to 32 bits
#: before ``np.random.RandomState(seed32)``.
MASK_SEED_BITS = 32
#: The smallest threshold Shamir's sharing keeps a secret at: with ``t <= 1`` the polynomial is constant
#: and every share *is* the secret (Flower passes an integer threshold below 2 on unchanged).
MIN_THRESHOLD = 2


_POWER = re.compile(r"^(\d{1,6})\s*(?:\*\*|\^)\s*(\d+)$")


def flower_number(name: str, value, real: bool = False) -> int | float:
    """``value`` as Flower reads it: an ``int`` or a ``float`` (``3`` and ``3.0`` differ); text is read so.

    Text is sized by :func:`itsa._util.checks.number_text` before it is
    converted. With ``real`` the value is Flower's float64 (``max_weight``,
    ``clipping_range``): one past the float range is refused, not overflowed.

    >>> flower_number("num_shares", "0.2"), flower_number("num_shares", "7"), flower_number("x", 1.0)
    (0.2, 7, 1.0)
    >>> flower_number("modulus_range", "2**33"), flower_number("modulus_range", "2^33")
    (8589934592, 8589934592)
    """
    if isinstance(value, bool):
        raise InvalidOption(f"{name}: must be an int or a float, not {value!r}")
    if isinstance(value, int | float):
        number: int | float = value
    elif isinstance(value, str):
        text = number_text(name, value).replace("_", "")
        power = _POWER.match(text)
        if power is not None:                   # 2**33 or 2^33, as the fix writes it; its size checked first
            base, digits = int(power.group(1)), power.group(2).lstrip("0") or "0"
            exponent = int(digits[:7])
            if base > 1 and (len(digits) > 7 or exponent * math.log10(base) > MAX_NUMBER_TEXT):
                raise InvalidOption(f"{name}: {excerpt(value)} has more than {MAX_NUMBER_TEXT:,} digits")
            text = str(base**exponent)
        try:
            number = int(text)
        except ValueError:
            try:
                number = float(text)
            except ValueError:
                raise InvalidOption(f"{name}: must be a number (an int such as 3 or a float such as 0.5), "
                                    f"not {excerpt(value)}") from None
    else:
        raise InvalidOption(f"{name}: must be an int or a float, not {excerpt(value)}")
    if real:
        try:
            number = float(number)
        except OverflowError:
            raise InvalidOption(f"{name}: Flower reads it as a float64, which stops below 1.8e308, not "
                                f"{excerpt(value)}") from None
    if isinstance(number, float) and not math.isfinite(number):
        raise InvalidOption(f"{name}: must be finite (Flower reads it as a float64), not {excerpt(value)}")
    return number


def _refused(message: str) -> InvalidOption:
    return InvalidOption(f"Flower refuses this configuration: {message}")


def check_keywords(num_shares: int | float, reconstruction_threshold: int | float, *, max_weight: float,
                   clipping_range: float, quantization_range: int, modulus_range: int) -> tuple[str, ...]:
    """``SecAggPlusWorkflow._check_init_params``: raise what it raises; return the warnings it logs.

    A configuration Flower refuses raises :class:`InvalidOption` with Flower's
    reason; ``clipping_range`` must be ``> 0`` here too (Flower would divide by zero later).
    """
    warnings: list[str] = []
    if is_whole(num_shares):
        if num_shares == 1:
            num_shares = 1.0
        elif num_shares <= 2:
            raise _refused(f"num_shares = {_size(num_shares)}: as an integer it must be greater than 2")
        elif is_whole(quantization_range) and quantization_range > 0 and num_shares > _ratio(modulus_range,
                                                                                                quantization_range):
            warnings.append("Flower warns: num_shares > modulus_range / quantization_range may overflow")
    elif num_shares <= 0:
        raise _refused(f"num_shares = {_size(num_shares)}: as a float it must be greater than 0")
    if is_whole(reconstruction_threshold):
        if reconstruction_threshold != 1 and is_whole(num_shares) and reconstruction_threshold >= num_shares:
            raise _refused(f"reconstruction_threshold = {_size(reconstruction_threshold)} must be less than "
                           f"num_shares = {_size(num_shares)}")
    elif not 0 < reconstruction_threshold <= 1:
        raise _refused(f"reconstruction_threshold = {_size(reconstruction_threshold)}: as a float it must be in (0, 1]")
    if not max_weight > 0:
        raise _refused(f"max_weight = {_size(max_weight)} must be greater than 0")
    if not clipping_range > 0:
        raise InvalidOption(f"clipping_range: must be > 0, not {clipping_range}")
    _check_quantizer(clipping_range, quantization_range)
    if not is_whole(quantization_range) or quantization_range <= 0:
        raise _refused(f"quantization_range = {_size(quantization_range)} must be an integer greater than 0")
    if not is_whole(modulus_range) or modulus_range <= quantization_range:
        raise _refused(f"modulus_range = {_size(modulus_range)} must be an integer greater than quantization_range")
    if bin(modulus_range).count("1") != 1:
        raise _refused(f"modulus_range = {_size(modulus_range)} must be a power of 2")
    return tuple(warnings)


def _ratio(modulus_range: int, quantization_range: int) -> float:
    """Flower's own ``modulus_range / quantization_range`` (a float): past the float range Flower's check raises."""
    try:
        return modulus_range / quantization_range
    except OverflowError:
        raise _refused(f"modulus_range / quantization_range = {_size(modulus_range)} / {_size(quantization_range)} "
                       "overflows a float64, and Flower's own check of num_shares raises OverflowError") from None


def _size(value: int | float) -> str:
    return f"{value}" if abs(value) < 10**30 else f"a {len(str(abs(value))):,}-digit number"


def _check_quantizer(clipping_range: float, quantization_range) -> None:
    """Flower's quantizer ``(x + c) · Q/(2c)`` in float64 must stay finite and nonzero (else it yields nan)."""
    if not is_whole(quantization_range) or quantization_range <= 0:
        return
    try:
        scale = float(quantization_range) / (2 * clipping_range)
    except OverflowError:
        raise InvalidOption(f"quantization_range: Flower divides it in float64, which stops below 1.8e308, not "
                            f"{_size(quantization_range)}") from None
    if not math.isfinite(2 * clipping_range) or not math.isfinite(scale) or scale == 0:
        raise InvalidOption(f"clipping_range: {clipping_range!r} with quantization_range {_size(quantization_range)} "
                            "leaves Flower's float64 quantizer (x + c) * Q / (2 c) infinite or zero: every value "
                            "it sends would be nan or 0")


@dataclass(frozen=True, kw_only=True)
class ShareLayout:
    """How Flower lays out the shares for a cohort of ``clients`` (``setup_stage`` of the workflow).

    Parameters
    ----------
    clients : int
        ``n``, the clients sampled.
    shares_sent : int
        The ``num_shares`` each client is told (the shares it creates).
    neighbourhood : int
        Clients in each client's neighbourhood, itself included.
    degree : int
        Neighbours other than itself (``neighbourhood - 1``): the SecAgg+ graph degree.
    threshold : int
        Shares needed to rebuild a client's secret.
    notes : tuple of str
        What Flower logs or does on the way (an even share count raised, say).
    problems : tuple of str
        Why every round fails, if it does (a client crashes, or a threshold no neighbourhood meets).
    """

    clients: int
    shares_sent: int
    neighbourhood: int
    degree: int
    threshold: int
    notes: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()


def resolve_shares(num_shares: int | float, reconstruction_threshold: int | float, *, clients: int) -> ShareLayout:
    """The shares, neighbourhood and threshold Flower uses for ``clients`` sampled clients.

    Parameters
    ----------
    num_shares, reconstruction_threshold : int or float
        As given to ``SecAggPlusWorkflow`` (after :func:`check_keywords`).
    clients : int
        ``n >= 2`` (Flower stops a round with fewer).
    """
    n = clients
    notes: list[str] = []
    problems: list[str] = []
    if is_whole(num_shares) and num_shares == 1:
        num_shares = 1.0
    if is_whole(reconstruction_threshold) and reconstruction_threshold == 1:
        reconstruction_threshold = 1.0
    if isinstance(num_shares, float):
        if not math.isfinite(num_shares * n):
            raise _refused(f"num_shares = {num_shares!r} of {n:,} clients overflows a float64, and Flower's "
                           "round() of it raises OverflowError")
        shares = round(num_shares * n)
        if shares < n and shares & 1 == 0:
            shares += 1
        if shares <= 2:
            shares = n
        notes.append(f"num_shares {num_shares!r} of {n} clients: {shares} shares")
    else:
        shares = int(num_shares)
    if isinstance(reconstruction_threshold, float):
        threshold = max(round(reconstruction_threshold * shares), 2)
        notes.append(f"reconstruction_threshold {reconstruction_threshold!r} of {shares} shares: {threshold}")
    else:
        threshold = int(reconstruction_threshold)
    sent = shares
    if n != shares and shares & 1 == 0:
        shares += 1
        notes.append(f"Flower warns that the number of shares should be odd and uses {_size(shares)} for the ring")
    half = shares >> 1
    neighbourhood = min(2 * half + 1, n)
    if neighbourhood > sent:
        problems.append(f"each client has {neighbourhood} neighbours (itself included) but creates {_size(sent)} shares: "
                        "every client fails at the share-keys stage (an index past its list of shares)")
    if threshold < MIN_THRESHOLD:
        problems.append(f"reconstruction_threshold {threshold} is below {MIN_THRESHOLD}: Flower passes it to Shamir's "
                        "sharing unchanged, whose every share is then the secret itself (a constant polynomial): "
                        "one corrupt neighbour unmasks a client")
    if threshold > neighbourhood:
        problems.append(f"threshold {threshold} exceeds the {neighbourhood} clients of a neighbourhood: "
                        "no secret can ever be rebuilt (the round always halts)")
    return ShareLayout(clients=n, shares_sent=sent, neighbourhood=neighbourhood, degree=neighbourhood - 1,
                       threshold=threshold, notes=tuple(notes), problems=tuple(problems))


@dataclass(frozen=True, kw_only=True)
class Levels:
    """The quantized values one client's coordinate can take, from Flower's float64 arithmetic, exactly.

    Parameters
    ----------
    top : int
        The largest value (a coordinate at or above the clip): ``Q`` when the float steps are exact.
    zero_low, zero_high : int
        The values a coordinate of exactly zero takes (the offset ``c · Q/(2c)``, rounded down and up).
    step : Fraction
        The de-quantization step ``2c/Q`` (data units per level), exact.
    weight_top : int
        The largest weight entry, ``round(Q)`` at ``w = max_weight``.
    """

    top: int
    zero_low: int
    zero_high: int
    step: Fraction
    weight_top: int


def quantizer_levels(clipping_range: float, quantization_range: int) -> Levels:
    """Flower's ``quantize`` at the clip and at zero, in the same float64 steps (so exactly its values).

    ``pre = (clip(x, -c, c) + c) * (Q / (2 c))``; a value is ``ceil(pre)`` or
    ``floor(pre)`` (stochastic rounding), so the top is ``ceil(pre(c))`` and a
    zero coordinate is ``floor`` or ``ceil`` of ``pre(0)``.
    """
    c = float(clipping_range)
    quantizer = quantization_range / (2 * c)
    top = math.ceil(Fraction((c + c) * quantizer))
    zero = Fraction((0.0 + c) * quantizer)
    return Levels(top=top, zero_low=math.floor(zero), zero_high=math.ceil(zero),
                  step=2 * Fraction(c) / quantization_range, weight_top=round(1.0 * quantization_range))
