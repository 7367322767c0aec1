"""The client updates of a release, read from a file: a CSV with a header, or a ``.npy`` array.

A CSV is UTF-8 (a byte-order mark is allowed) with a header; a ``client``
column (optional) holds the IDs for Hamilton's ties, a ``weight`` column
(optional) the data weights, every other column is a coordinate. Every row
has the header's columns; the file is read no further than
:data:`MAX_ENTRIES` entries (or lines). A ``.npy`` is mapped and its size
checked before it is read.
"""

from __future__ import annotations

import csv
import math
import os
import re
import warnings
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from itsa._util.files import check_input_file
from itsa.exceptions import InvalidInput, excerpt
from itsa.privacy.hamilton import data_weight

__all__ = ["LoadedUpdates", "load_updates", "finite_matrix", "MAX_ENTRIES"]

#: Most clients x coordinates one release takes.
MAX_ENTRIES = 20_000_000


def finite_matrix(array, where: str) -> np.ndarray:
    """``array`` as a finite, non-empty clients x coordinates float64 matrix of at most :data:`MAX_ENTRIES`."""
    if isinstance(array, np.ndarray) and array.dtype.kind not in "biuf":       # complex would lose its imaginary part
        raise InvalidInput(f"{where}: updates must be real numbers, not {array.dtype} values")
    try:
        a = np.asarray(array, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidInput(f"{where}: must be numbers (a clients x coordinates array)") from None
    if a.ndim != 2 or a.shape[0] == 0 or a.shape[1] == 0:
        raise InvalidInput(f"{where}: updates must be a 2-D array (clients x coordinates), not shape {a.shape}")
    if a.size > MAX_ENTRIES:
        raise InvalidInput(f"{where}: {a.size} entries is more than {MAX_ENTRIES}")
    if not np.isfinite(a).all():
        raise InvalidInput(f"{where}: updates must be finite numbers (no nan or inf)")
    return a


class LoadedUpdates(NamedTuple):
    """The updates of a file, with the data weights and client IDs it carries (``None``: the file has none)."""

    values: np.ndarray
    weights: list[Fraction] | None
    ids: list[str] | list[int] | None


def load_updates(path) -> LoadedUpdates:
    """Client updates from a ``.npy`` (clients x coordinates) or a CSV with a header.

    CSV columns: ``client`` (optional, IDs for Hamilton ties: compared as
    whole numbers when every ID is one, else as text), ``weight`` (optional,
    data weights), every other column a coordinate. A ``.npy`` is mapped and
    its size checked before it is read.
    """
    p = check_input_file(path)             # a FIFO or a device is refused, not waited on
    if p.suffix.lower() == ".npy":
        _check_npy_header(p, path)          # the header's claims checked against the file before numpy maps it
        try:        # mapped, not read: the shape is checked before any data is loaded
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                a = np.load(p, allow_pickle=False, mmap_mode="r")
        except (ValueError, OSError, OverflowError, Warning) as exc:
            raise InvalidInput(f"{path}: not a readable .npy file ({excerpt(str(exc))})") from None
        if a.size > MAX_ENTRIES:
            raise InvalidInput(f"{path}: {a.size} entries is more than {MAX_ENTRIES}")
        return LoadedUpdates(finite_matrix(a, str(path)), None, None)
    try:
        with p.open(newline="", encoding="utf-8-sig") as f:
            rows = _csv_rows(csv.reader(f), path)
    except (UnicodeDecodeError, csv.Error) as exc:
        raise InvalidInput(f"{path}: not a UTF-8 CSV file ({excerpt(str(exc))})") from None
    if len(rows) < 2:
        raise InvalidInput(f"{path}: a CSV needs a header row and one row per client")
    header = [h.strip().lower() for h in rows[0]]
    for name in ("client", "weight"):
        if header.count(name) > 1:
            raise InvalidInput(f"{path}: the header has {header.count(name)} {name!r} columns; give one")
    short = next((n for n, r in enumerate(rows[1:], 2) if len(r) != len(header)), None)
    if short is not None:
        raise InvalidInput(f"{path}: row {short} has {len(rows[short - 1])} columns, the header {len(header)}")
    ids = None
    if "client" in header:
        at = header.index("client")
        ids = _client_ids([r[at] if at < len(r) else "" for r in rows[1:]])
    coords = [i for i, h in enumerate(header) if h not in ("client", "weight")]
    weights = None
    try:
        if "weight" in header:
            weights = [data_weight(f"weight {i + 1}", r[header.index("weight")]) for i, r in enumerate(rows[1:])]
        values = [[float(r[i]) for i in coords] for r in rows[1:]]
    except (ValueError, IndexError, InvalidInput) as exc:
        raise InvalidInput(f"{path}: a row is not numbers in every column ({excerpt(str(exc))})") from None
    return LoadedUpdates(finite_matrix(values, str(path)), weights, ids)


def _check_npy_header(p, path) -> None:
    """Refuse, in one line and without a warning, a ``.npy`` whose header lies: a shape that is not whole numbers
    ``>= 0``, more than :data:`MAX_ENTRIES` entries (counted exactly, never in a fixed-width product that
    overflows), a dtype that is not a number, or fewer data bytes in the file than the shape needs."""
    from numpy.lib import format as npy

    try:
        with warnings.catch_warnings(), open(p, "rb") as fh:
            warnings.simplefilter("error")
            version = npy.read_magic(fh)
            read = npy.read_array_header_1_0 if version == (1, 0) else npy.read_array_header_2_0
            shape, _, dtype = read(fh, max_header_size=10_000)
            start = fh.tell()
    except (ValueError, OSError, OverflowError, SyntaxError, TypeError, Warning) as exc:
        raise InvalidInput(f"{path}: not a readable .npy file ({excerpt(str(exc))})") from None
    if not isinstance(shape, tuple) or any(isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in shape):
        raise InvalidInput(f"{path}: not a readable .npy file (its header's shape {excerpt(shape)} is not whole "
                           "numbers >= 0)")
    entries = math.prod(shape)
    if entries > MAX_ENTRIES:
        raise InvalidInput(f"{path}: {entries} entries is more than {MAX_ENTRIES}")
    if dtype.kind not in "biuf":
        raise InvalidInput(f"{path}: not a .npy file of numbers (its dtype is {excerpt(str(dtype))})")
    if os.stat(p).st_size - start < entries * dtype.itemsize:
        raise InvalidInput(f"{path}: its header claims {entries} entries ({entries * dtype.itemsize} bytes) the "
                           f"file does not hold (a cut or lying .npy file)")


def _csv_rows(reader, path) -> list[list[str]]:
    """The rows that are not blank, read no further than :data:`MAX_ENTRIES` entries (or lines) past the header."""
    rows: list[list[str]] = []
    entries = 0
    for lines, row in enumerate(reader):
        entries += len(row)
        if lines > MAX_ENTRIES or entries > MAX_ENTRIES + len(rows[0] if rows else row):
            raise InvalidInput(f"{path}: more than {MAX_ENTRIES} entries (or lines) in the CSV")
        if row:         # blank lines carry no client
            rows.append(row)
    return rows


def _client_ids(texts: list[str]) -> list[str] | list[int]:
    """Client IDs for Hamilton's ties: compared as whole numbers when every one is (so ``2 < 10``), else as text."""
    ids = [t.strip() for t in texts]
    if ids and all(re.fullmatch(r"[+-]?\d{1,30}", t) for t in ids):
        return [int(t) for t in ids]
    return ids
