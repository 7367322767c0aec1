"""Input checks: one wording for each kind of mistake, one home for every check.

Every check raises the :class:`~itsa.exceptions.InvalidInput` subclass its
caller names (an :class:`~itsa.exceptions.InvalidOption` by default), with a
message of one line:

- an unknown choice: ``unknown engine 'x' (choose from auto, rank, enumerate)``;
- a number outside its domain: ``L: must be a whole number >= 1, not 0``.

Examples
--------
>>> choice("engine", "rank", ("auto", "rank"))
'rank'
>>> choice("engine", "fast", ("auto", "rank"))
Traceback (most recent call last):
...
itsa.exceptions.InvalidOption: unknown engine 'fast' (choose from auto, rank)
>>> whole_number("L", 3, minimum=1)
3
>>> whole_number("L", True)
Traceback (most recent call last):
...
itsa.exceptions.InvalidOption: L: must be a whole number >= 0, not True
>>> is_whole(3), is_whole(3.0), is_whole(False)
(True, False, False)
>>> fraction("delta", "1e-5", low=0, high=1)
Fraction(1, 100000)
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import Enum
from fractions import Fraction
from typing import TypeVar

from itsa.exceptions import InvalidInput, InvalidOption, excerpt

__all__ = ["is_whole", "choice", "whole_number", "positive_number", "fraction", "unknown", "conflict", "dropout_fraction",
           "number_text", "digits_only", "MAX_DIGITS", "decimal_order", "read_whole", "whole_range", "run_seed", "MAX_SEED"]

E = TypeVar("E", bound=Enum)


def is_whole(x: object) -> bool:
    """``x`` is an ``int`` and not a ``bool``."""
    return isinstance(x, int) and not isinstance(x, bool)


def unknown(kind: str, value: object, choices: Iterable[object]) -> str:
    """The one wording of an unknown choice: ``unknown KIND 'value' (choose from a, b, c)``."""
    names = ", ".join(str(c.value if isinstance(c, Enum) else c) for c in choices)
    return f"unknown {kind} {excerpt(value)} (choose from {names})"


def conflict(first: str, second: str, why: str = "", error: type[InvalidInput] = InvalidOption) -> InvalidInput:
    """The one wording of two options that contradict each other (raise what it returns).

    >>> conflict("--w-max 1/5", "--clients 5", "5 equal clients give w_max = 13/64")
    InvalidOption('--w-max 1/5 conflicts with --clients 5 (5 equal clients give w_max = 13/64): give one of them')
    """
    return error(f"{first} conflicts with {second}" + (f" ({why})" if why else "") + ": give one of them")


def choice(kind: str, value, choices: Iterable, error: type[InvalidInput] = InvalidOption,
           where: str = ""):
    """``value`` if it is one of ``choices``; an enum class as ``choices`` returns its member.

    ``where`` (a key of a file, say) starts the message: ``work: unknown work 'x' (...)``.

    >>> from enum import StrEnum
    >>> class Engine(StrEnum):
    ...     RANK = "rank"
    >>> choice("engine", "rank", Engine) is Engine.RANK
    True
    """
    options = list(choices)
    if isinstance(choices, type) and issubclass(choices, Enum):
        for member in options:
            if value == member or value == member.value:
                return member
    elif value in options:
        return value
    raise error((f"{where}: " if where else "") + unknown(kind, value, options))


def whole_number(name: str, value, minimum: int | None = 0, maximum: int | None = None,
                 error: type[InvalidInput] = InvalidOption) -> int:
    """``value`` if it is a whole number in ``[minimum, maximum]`` (``minimum=None``: any whole number).

    >>> whole_number("seed", -3, minimum=None)
    -3
    """
    low_ok = minimum is None or (is_whole(value) and value >= minimum)
    if not is_whole(value) or not low_ok or (maximum is not None and value > maximum):
        bound = ("" if minimum is None and maximum is None else f" >= {minimum}" if maximum is None
                 else f" in {minimum}..{maximum}")
        raise error(f"{name}: must be a whole number{bound}, not {excerpt(value)}")
    return value


#: The largest seed of a run (a plan, a simulation, a fleet, a census): every results table keeps it in an int64
#: column, so a larger one could be planned but not recorded.
MAX_SEED = 2**63 - 1


def run_seed(value, error: type[InvalidInput] = InvalidOption) -> int:
    """``value`` if it is a seed of a run: a whole number in ``0..MAX_SEED``; the one seed rule of a plan, a
    simulation, a fleet and a census.

    >>> run_seed(7)
    7
    >>> run_seed(-1)
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOption: seed: must be a whole number in 0..9223372036854775807, not -1
    """
    return whole_number("seed", value, minimum=0, maximum=MAX_SEED, error=error)


def positive_number(name: str, value, error: type[InvalidInput] = InvalidOption):
    """``value`` if it is a real number (not a bool) ``> 0``."""
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)) or not value > 0:
        raise error(f"{name}: must be a number > 0, not {excerpt(value)}")
    return value


#: Largest decimal exponent a number text may carry (``1e-100000`` is fine; ``1e-999999999`` would take minutes).
MAX_DECIMAL_EXPONENT = 100_000
#: Longest number text read, in characters: Python reads whole numbers of up to 4,300 digits.
MAX_NUMBER_TEXT = 4300
#: The largest whole number an option reads unless its verb allows more: no count of clients, words or bits is
#: larger, and its range is checked on the text, so ``1e999999999`` is refused before it becomes an integer.
MAX_WHOLE = 10**18
#: A decimal exponent as the readers take it (``Fraction``, ``Decimal``): a sign, digits of any script, underscores.
_EXPONENT = re.compile(r"[eE]\s*([+-]?[\d_]+)\s*$")
_DECIMAL = re.compile(r"^\s*[+-]?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$")
#: An exponent read past this is "huge" (:func:`_exponent_value` stops reading).
_HUGE_EXPONENT = 10**15


def _exponent_value(digits: str) -> int | None:
    """The decimal exponent written ``digits`` as ``Fraction`` and ``Decimal`` read it (a sign, ASCII or other
    decimal digits, underscores, leading zeros), its size capped at ``±10^15`` so any length is instant; ``None``
    when it is no exponent.

    >>> _exponent_value("-5"), _exponent_value("1_000_000"), _exponent_value("0000000000000100000000")
    (-5, 1000000, 100000000)
    >>> _exponent_value("\u0661\u0660\u0660"), _exponent_value("9" * 5000) == 10**15, _exponent_value("x")
    (100, True, None)
    """
    text = digits.replace("_", "")
    sign = -1 if text[:1] == "-" else 1
    text = text[1:] if text[:1] in "+-" else text
    if not text:
        return None
    value = 0
    for ch in text:
        try:
            value = 10 * value + int(ch)
        except ValueError:
            return None
        if value > _HUGE_EXPONENT:
            return sign * _HUGE_EXPONENT
    return sign * value


#: The most digits :func:`digits_only` reads as a number: below the interpreter's own limit on int(text) (4300).
MAX_DIGITS = 4000


def digits_only(text: str) -> bool:
    """Whether ``text`` is a plain decimal whole number ``int()`` can read at once: ASCII digits, at most
    :data:`MAX_DIGITS` of them (``str.isdigit`` also accepts ``'²'``, on which ``int`` fails).

    >>> digits_only("2026"), digits_only("²"), digits_only("7" * 5000), digits_only("")
    (True, False, False, False)
    """
    return 0 < len(text) <= MAX_DIGITS and text.isascii() and text.isdigit()


def number_text(name: str, text: str, error: type[InvalidInput] = InvalidOption) -> str:
    """``text`` stripped, once its size is checked: the one gate before any conversion that can grow.

    A text longer than :data:`MAX_NUMBER_TEXT` characters, or with a decimal
    exponent beyond ``±MAX_DECIMAL_EXPONENT``, is refused in one line that says so.
    The exponent is read as the parsers read it, however it is spelt:
    ``1e100_000_000``, ``1e0000000000001000000`` or digits of another script
    are the same exponent to the cap as to ``Fraction``.

    >>> number_text("clients", " 2e9 ")
    '2e9'
    >>> number_text("clients", "1e999999999")
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOption: clients: a decimal exponent beyond +-100000 is not accepted, not '1e999999999'
    >>> number_text("variance", "1e100_000_000")
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOption: variance: a decimal exponent beyond +-100000 is not accepted, not '1e100_000_000'
    """
    text = text.strip()
    if len(text) > MAX_NUMBER_TEXT:
        raise error(f"{name}: a number of {len(text):,} characters is too long to read (at most "
                    f"{MAX_NUMBER_TEXT:,}), not {excerpt(text)}")
    found = _EXPONENT.search(text)
    power = _exponent_value(found.group(1)) if found else None
    if power is not None and abs(power) > MAX_DECIMAL_EXPONENT:
        raise error(f"{name}: a decimal exponent beyond +-{MAX_DECIMAL_EXPONENT} is not accepted, not {excerpt(text)}")
    return text


def decimal_order(text: str) -> int | None:
    """The decimal order of magnitude of a number text, read from the text alone (``None``: not a decimal, or 0).

    ``10^order <= |x| < 10^(order + 1)``; for ``a/b`` the order of ``a`` less
    that of ``b`` (within one). Nothing is converted, so any size is instant.

    >>> decimal_order("1e999999999"), decimal_order("2_000"), decimal_order("0.0012"), decimal_order("x")
    (999999999, 3, -3, None)
    """
    parts = text.replace("_", "").split("/")
    if len(parts) == 2:
        top, bottom = decimal_order(parts[0]), decimal_order(parts[1])
        return None if top is None or bottom is None else top - bottom
    found = _DECIMAL.match(parts[0]) if len(parts) == 1 else None
    if found is None or not (found.group(1) or found.group(2)):
        return None
    whole, frac_digits, exponent = found.group(1).lstrip("0"), found.group(2) or "", found.group(3)
    shift = (_exponent_value(exponent) or 0) if exponent else 0
    if whole:
        return len(whole) - 1 + shift
    lead = len(frac_digits) - len(frac_digits.lstrip("0"))
    return None if lead == len(frac_digits) else shift - lead - 1


def whole_range(minimum: int, maximum: int | None) -> str:
    """The wording of a whole number's range: `` in 1..10^18 (such as 2000000000 or 2e9)``."""
    top = "" if maximum is None else (f"10^{len(str(maximum)) - 1}" if maximum == 10 ** (len(str(maximum)) - 1)
                                      else f"{maximum:,}")
    return (f" >= {minimum}" if maximum is None else f" in {minimum}..{top}") + " (such as 2000000000 or 2e9)"


def read_whole(name: str, value, minimum: int = 1, maximum: int | None = MAX_WHOLE,
               error: type[InvalidInput] = InvalidOption) -> int:
    """A whole number written ``2000000000``, ``2e9`` or ``2_000_000_000``, its range checked on the text first.

    The one reader of whole-number options: ``1e999999999`` is refused at
    once, before it could become a billion-digit integer.

    >>> read_whole("clients", "2e9")
    2000000000
    >>> read_whole("clients", "1e999999999")
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOption: clients: must be a whole number in 1..10^18 (such as 2000000000 or 2e9), not '1e999999999'
    """
    from decimal import Decimal, InvalidOperation

    bad = error(f"{name}: must be a whole number{whole_range(minimum, maximum)}, not {excerpt(value)}")
    if is_whole(value):
        number = Decimal(value)
    elif isinstance(value, str):
        order = decimal_order(value)            # from the text alone: any size is instant
        if maximum is not None and order is not None and order > len(str(maximum)):
            raise bad                           # before Decimal -> int could grow it
        text = number_text(name, value, error).replace("_", "")
        try:
            number = Decimal(text)
        except InvalidOperation:
            raise bad from None
    else:
        raise bad
    if not number.is_finite() or number != number.to_integral_value() or number < minimum:
        raise bad
    out = int(number)
    if maximum is not None and out > maximum:
        raise bad
    return out


def fraction(name: str, value, low=None, high=None, closed: bool = False,
             error: type[InvalidInput] = InvalidOption) -> Fraction:
    """``value`` (an int, a Fraction, a float or a text ``'1/1000'``, ``'1e-3'``) as an exact Fraction.

    A float is read as the decimal it prints (``0.1`` is ``1/10``). With ``low``
    and ``high`` the value must lie in the open interval between them (the
    closed one with ``closed=True``). A decimal exponent is read up to
    ``±MAX_DECIMAL_EXPONENT``.

    >>> fraction("delta", "1e-999999999")
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOption: delta: a decimal exponent beyond +-100000 is not accepted, not '1e-999999999'
    """
    if isinstance(value, str):
        number_text(name, value, error)
    try:
        if isinstance(value, bool):
            raise ValueError
        if isinstance(value, float):
            value = repr(float(value))      # numpy's float64 is a float whose repr is not a number
        out = Fraction(value.strip() if isinstance(value, str) else value)
    except (ValueError, TypeError, ZeroDivisionError, OverflowError):
        raise error(f"{name}: must be a number (such as 1/1000 or 0.001), not {excerpt(value)}") from None
    below = low is not None and (out < low if closed else out <= low)
    above = high is not None and (out > high if closed else out >= high)
    if below or above:
        lo = "-inf" if low is None else str(low)
        hi = "inf" if high is None else str(high)
        where = f"[{lo}, {hi}]" if closed else f"({lo}, {hi})"
        raise error(f"{name}: must lie in {where}, not {excerpt(value)}")
    return out


def dropout_fraction(value, error: type[InvalidInput] = InvalidOption, name: str = "dropout") -> Fraction:
    """The fraction of the clients that may drop out, exact, in ``[0, 1)`` (all dropped: nothing is summed).

    >>> dropout_fraction("1/10")
    Fraction(1, 10)
    >>> dropout_fraction(1)
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOption: dropout: must lie in [0, 1) (with every client dropped nothing is aggregated), not 1
    >>> dropout_fraction("3/2")
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOption: dropout: must lie in [0, 1), not '3/2'
    """
    q = fraction(name, value, error=error)
    if q == 1:
        raise error(f"{name}: must lie in [0, 1) (with every client dropped nothing is aggregated), not 1")
    if not 0 <= q < 1:
        raise error(f"{name}: must lie in [0, 1), not {excerpt(value)}")
    return q
