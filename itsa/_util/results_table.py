"""A results table on disk: Parquet part files and a journal, crash-safe; the census's and the plan fleet's.

A table is a folder (the layout Dask, Spark and pyarrow read as one dataset)::

    RESULTS.parquet/
      part-000000.parquet ...   # row groups written atomically (temp file + rename)
      _journal.jsonl            # one JSON row per finished item, appended at once
      _META.json                # the layout's own file: schema version, what produced the table

Every finished row is appended to the journal immediately, and every
``batch`` rows the journal is turned into a new part file. A run killed at any
moment therefore loses only the items in flight; the next ``--resume`` (or
:func:`read_rows`) picks up the journal. Rows are unique by ``key`` (the
first one read wins). pyarrow and other Parquet readers skip files starting
with ``_``. What differs from one kind of table to another (its columns, its
version, the name of its metadata file) is a :class:`Layout`.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from itsa._util.files import atomic_writer, check_output_file, exists, is_regular_file, read_text
from itsa.exceptions import InvalidInput

__all__ = ["Layout", "ResultStore", "check_folder", "read_rows", "read_meta", "JOURNAL"]

JOURNAL = "_journal.jsonl"

_ARROW = {"string": "string", "int64": "int64", "bool": "bool_", "float64": "float64"}


@dataclass(frozen=True)
class Layout:
    """One kind of results table: what it is called, its metadata file, its columns and version.

    ``columns`` maps each column to its Arrow type name (``string``, ``int64``, ``bool``, ``float64``),
    in table order; the first is the key. ``error`` is the exception a bad folder raises.
    """

    what: str
    meta: str
    columns: dict
    version: int
    metadata_key: bytes
    error: type[InvalidInput] = InvalidInput
    #: Columns besides the key that every row must fill (what a summary of the table groups by).
    required: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        return next(iter(self.columns))

    def arrow_schema(self):
        """The :class:`pyarrow.Schema` of the table, with the version in its metadata."""
        import pyarrow as pa

        return pa.schema([(name, getattr(pa, _ARROW[t])()) for name, t in self.columns.items()],
                         metadata={self.metadata_key: str(self.version).encode()})

    def complete(self, row: dict) -> dict:
        """The row with every column (``None`` where it has none), in table order."""
        return {c: row.get(c) for c in self.columns}


#: A part file's name: ``part-`` and six or more digits (what :meth:`ResultStore._write_part` numbers).
_PART = re.compile(r"part-\d{6,}\.parquet")


def _parts(folder: Path, error: type[InvalidInput] = InvalidInput) -> list[Path]:
    """The part files, in order; a ``part-*.parquet`` not named as a part (``part-x.parquet``) is refused: the next
    part's number could not be read from it, and no writer of this table made it."""
    found = sorted(folder.glob("part-*.parquet"))
    for part in found:
        if not _PART.fullmatch(part.name):
            raise error(f"{part}: not a part of a results table (a part is named part-NNNNNN.parquet)")
    return sorted(found, key=lambda p: int(p.stem.split("-")[1]))


#: The Python types a value of each column type may have in a row (``None`` aside; a bool is no int64).
_PYTHON = {"string": (str,), "int64": (int,), "bool": (bool,), "float64": (int, float)}
#: An int64 column's range is ``[-_INT64, _INT64)``; a whole number in a float64 column stays below ``_FLOAT_INT``.
_INT64, _FLOAT_INT = 2**63, 2**1023
#: Largest journal read (bytes): it is turned into a part every few hundred rows, never gigabytes.
MAX_JOURNAL_BYTES = 2**28


def _check_row(row, layout: Layout, where: str) -> dict:
    """``row`` if it is a row of ``layout``: a mapping of its columns (a string key, each value of its column's
    type or ``None``); ``layout.error`` naming ``where`` otherwise."""
    from itsa.exceptions import excerpt

    if not isinstance(row, dict) or not isinstance(row.get(layout.key), str):
        raise layout.error(f"{where}: not a row of a {layout.what} table (a mapping with a text {layout.key!r}), "
                           f"not {excerpt(row)}")
    for name in layout.required:
        if not isinstance(row.get(name), str):
            raise layout.error(f"{where}: not a row of a {layout.what} table (no text {name!r})")
    for name, value in row.items():
        kind = layout.columns.get(name)
        if kind is None:
            raise layout.error(f"{where}: not a row of a {layout.what} table (no column {excerpt(name)})")
        bad_bool = isinstance(value, bool) and kind != "bool"
        out_of_range = (isinstance(value, int) and not isinstance(value, bool)
                        and not -_INT64 <= value < (_INT64 if kind == "int64" else _FLOAT_INT))
        if value is not None and (bad_bool or out_of_range or not isinstance(value, _PYTHON[kind])):
            raise layout.error(f"{where}: column {name!r} holds {excerpt(value)}, not a {kind} value")
    return row


def _journal_rows(folder: Path, layout: Layout) -> list[dict]:
    """The journal's rows, each checked (:func:`_check_row`); a last line cut short by a kill is left out."""
    path = folder / JOURNAL
    rows: list[dict] = []
    if exists(path):
        lines = read_text(path, layout.error, max_bytes=MAX_JOURNAL_BYTES).splitlines()
        for number, line in enumerate(lines, 1):
            try:
                row = json.loads(line)
                json.dumps(row, ensure_ascii=False).encode("utf-8")     # a lone surrogate ('\\ud800') is no text
            except (ValueError, UnicodeEncodeError):    # not JSON, an integer past the interpreter's digits, no UTF-8
                if number == len(lines):
                    break       # the last line cut short by a kill: that item was in flight
                raise layout.error(f"{path}: line {number} is not a JSON row (a spoiled journal)") from None
            rows.append(_check_row(row, layout, f"{path}: line {number}"))
    return rows


def _part_rows(part: Path, layout: Layout) -> list[dict]:
    """The rows of one part file, once it is known to be a regular Parquet file of ``layout``'s columns, its key
    a text column; ``layout.error`` in one line otherwise (a FIFO or a link to a device is never opened)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not is_regular_file(part):
        raise layout.error(f"{part}: not a regular file (a part of a {layout.what} table)")
    try:
        table = pq.read_table(part)
    except (OSError, ValueError, pa.ArrowException) as exc:
        first = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
        raise layout.error(f"{part}: not a Parquet part of a {layout.what} table ({first})") from None
    key = table.schema.field(layout.key).type if layout.key in table.schema.names else None
    if key is None or not (pa.types.is_string(key) or pa.types.is_large_string(key)):
        raise layout.error(f"{part}: not a part of a {layout.what} table (its {layout.key!r} column is "
                           f"{'missing' if key is None else key}, not text)")
    return [_check_row(row, layout, str(part)) for row in table.to_pylist()]


def _check_path(folder: Path, layout: Layout) -> None:
    """Refuse a results folder's name the file system refuses (too long, a NUL) or a link to nothing."""
    import errno
    import stat

    from itsa.exceptions import excerpt

    name = os.fspath(folder)
    if not name.strip() or not name.isprintable():
        raise layout.error(f"{excerpt(name)}: a results folder needs a name of printable characters")
    try:
        st = os.lstat(name)
    except FileNotFoundError:
        return
    except (OSError, ValueError) as exc:
        why = ("the name is too long for the file system" if getattr(exc, "errno", None) == errno.ENAMETOOLONG
               else getattr(exc, "strerror", None) or str(exc))
        raise layout.error(f"{excerpt(name)}: cannot be a results folder: {why}") from None
    if stat.S_ISLNK(st.st_mode) and not exists(name):
        raise layout.error(f"{excerpt(name)}: a link to nothing ({excerpt(os.readlink(name))}): give a folder")


def check_folder(path: str | os.PathLike, layout: Layout, resume: bool = False) -> list[dict]:
    """Refuse, before anything is written, a results folder a run cannot write (one line, ``layout.error``):
    a name the file system refuses or a link to nothing, a path that is not a folder, a folder of something
    else, a table already holding rows without ``resume``, a folder whose metadata or journal is not a regular
    file, a metadata file that is not a JSON object; with ``resume``, a part or a journal line that is not a
    row of ``layout`` (:func:`read_rows`). Returns the rows kept (``resume``; else none)."""
    folder = Path(path)
    _check_path(folder, layout)
    if folder.exists() and not folder.is_dir():
        raise layout.error(f"{folder}: exists and is not a {layout.what} results folder")
    if folder.is_dir() and any(folder.iterdir()) and not (folder / layout.meta).exists():
        raise layout.error(f"{folder}: a non-empty folder that is not a {layout.what} results folder")
    if folder.is_dir():                   # the files it writes: regular ones (a FIFO journal would block)
        for name in (layout.meta, JOURNAL):
            if exists(folder / name):
                check_output_file(folder / name)
    if folder.is_dir() and exists(folder / layout.meta):
        read_meta(folder, layout)           # a metadata file that is not a JSON object: refused
    if not resume and folder.is_dir() and (_parts(folder, layout.error) or _journal_rows(folder, layout)):
        raise layout.error(f"{folder}: already holds results; pass --resume to continue it, "
                           "or choose another output")
    if resume and folder.is_dir() and exists(folder / layout.meta):
        return read_rows(folder, layout)    # every part and journal line checked before anything is written
    return []


def read_rows(path: str | os.PathLike, layout: Layout) -> list[dict]:
    """Every row of a results folder (parts, then journal), unique by key, sorted by key."""
    folder = Path(path)
    _check_path(folder, layout)
    if not exists(folder / layout.meta):
        raise layout.error(f"{folder}: not a {layout.what} results folder (no {layout.meta})")
    read_meta(folder, layout)
    rows: dict[str, dict] = {}
    for part in _parts(folder, layout.error):
        for row in _part_rows(part, layout):
            rows.setdefault(row[layout.key], row)
    for row in _journal_rows(folder, layout):
        rows.setdefault(row[layout.key], row)
    return [rows[k] for k in sorted(rows)]


#: Largest metadata file read (bytes): it holds a spec or a fleet's grid, never megabytes.
MAX_META_BYTES = 4 * 2**20


def read_meta(path: str | os.PathLike, layout: Layout) -> dict:
    """The metadata a results folder was written with (``{}`` when it has none); a metadata file that is not a
    regular file holding a JSON object is refused (``layout.error``, one line): a check that reads it (a resumed
    run's same-grid check) is never silently turned off."""
    meta_path = Path(path) / layout.meta
    if not exists(meta_path):
        return {}
    text = read_text(meta_path, layout.error, max_bytes=MAX_META_BYTES)
    try:
        meta = json.loads(text)
    except ValueError:
        meta = None
    if not isinstance(meta, dict):
        raise layout.error(f"{meta_path}: not the JSON object a {layout.what} results folder keeps (spoiled)")
    return meta


class ResultStore:
    """Append rows to a results folder; see the module notes.

    Parameters
    ----------
    path : path-like
        The results folder (created if missing).
    layout : Layout
    meta : dict
        What to keep in the layout's metadata file (the schema version is added).
    resume : bool
        Keep the rows already there (and skip their keys). Without it an
        existing non-empty results folder is refused.
    batch : int
        Rows per part file.
    """

    def __init__(self, path, layout: Layout, meta: dict, resume: bool = False, batch: int = 256):
        self.folder = Path(path)
        self.layout = layout
        kept = check_folder(self.folder, layout, resume)     # with resume: every row read and checked, nothing written
        self.folder.mkdir(parents=True, exist_ok=True)
        self.batch = batch
        with atomic_writer(self.folder / layout.meta) as fh:
            json.dump({"schema_version": layout.version, **meta}, fh, indent=1)
        self.keys: set[str] = {r[layout.key] for r in kept}
        self._pending: list[dict] = _journal_rows(self.folder, layout)
        self._journal = open(self.folder / JOURNAL, "a", encoding="utf-8")
        self.flush()

    def add(self, row: dict) -> None:
        """Record one finished row (journal at once, a part file every ``batch`` rows)."""
        self._journal.write(json.dumps(self.layout.complete(row)) + "\n")
        self._journal.flush()
        self.keys.add(row[self.layout.key])
        self._pending.append(row)
        if len(self._pending) >= self.batch:
            self.flush()

    def flush(self) -> None:
        """Write the journal's rows as one part file, then empty the journal."""
        if not self._pending:
            return
        self._write_part(self._pending)
        self._pending = []
        self._journal.truncate(0)
        self._journal.seek(0)

    def _write_part(self, rows: list[dict]) -> Path:
        import pyarrow as pa
        import pyarrow.parquet as pq

        parts = _parts(self.folder, self.layout.error)
        n = int(parts[-1].stem.split("-")[1]) + 1 if parts else 0
        path = self.folder / f"part-{n:06d}.parquet"
        table = pa.Table.from_pylist([self.layout.complete(r) for r in rows], schema=self.layout.arrow_schema())
        with atomic_writer(path, binary=True) as fh:
            pq.write_table(table, fh)
        return path

    def compact(self) -> None:
        """Rewrite every row as one part file sorted by key (the old parts are removed after)."""
        self.flush()
        old = _parts(self.folder, self.layout.error)
        if not old:
            return
        new = self._write_part(read_rows(self.folder, self.layout))
        for p in old:
            if p != new:
                p.unlink()

    def close(self) -> None:
        self.flush()
        self._journal.close()
        (self.folder / JOURNAL).unlink(missing_ok=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if exc[0] is None:
            self.close()
        else:
            self._journal.close()   # the rows stay in the journal, for --resume
