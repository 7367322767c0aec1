"""The census's results table on disk: Parquet part files, a journal, crash-safe.

``RESULTS.parquet`` is a folder (the layout Dask, Spark and pyarrow read as
one dataset)::

    RESULTS.parquet/
      part-000000.parquet ...   # row groups written atomically (temp file + rename)
      _journal.jsonl            # one JSON row per finished instance, appended at once
      _census.json              # schema version, the spec that produced the table, its universe size

Every finished row is appended to the journal immediately, and every
``batch`` rows the journal is turned into a new part file. A run killed at any
moment therefore loses only the instances in flight; the next ``--resume``
(or :func:`read_results`) picks up the journal. Rows are unique by ``key``
(the first one read wins). pyarrow and other Parquet readers skip files
starting with ``_``; :func:`read_results` includes the journal. The table
itself is :mod:`itsa._util.results_table`'s (the plan fleet's too), with the
census's :data:`LAYOUT`.
"""

from __future__ import annotations

import os

from itsa._util import results_table
from itsa._util.results_table import JOURNAL, read_meta
from itsa.keys.census.schema import LAYOUT

__all__ = ["ResultStore", "read_results", "read_rows", "universe_size", "LAYOUT", "JOURNAL", "META"]

META = LAYOUT.meta


def read_rows(path: str | os.PathLike) -> list[dict]:
    """Every row of a results folder (parts, then journal), unique by key, sorted by key."""
    return results_table.read_rows(path, LAYOUT)


def universe_size(path: str | os.PathLike) -> int | None:
    """How many instances the universe of the census in ``path`` holds (``None``: not recorded,
    as in tables written before it was)."""
    size = read_meta(path, LAYOUT).get("universe")
    return size if isinstance(size, int) and not isinstance(size, bool) else None


def read_results(path: str | os.PathLike):
    """The results table as a :class:`pyarrow.Table` (see :func:`read_rows`)."""
    import pyarrow as pa

    return pa.Table.from_pylist([LAYOUT.complete(r) for r in read_rows(path)], schema=LAYOUT.arrow_schema())


class ResultStore(results_table.ResultStore):
    """Append rows to a census results folder; see the module notes.

    Parameters
    ----------
    path : path-like
        The results folder (created if missing).
    spec_text : str
        The spec, stored in ``_census.json``.
    resume : bool
        Keep the rows already there (and skip their keys). Without it an
        existing non-empty results folder is refused.
    batch : int
        Rows per part file.
    universe : int, optional
        How many instances the spec's universe holds (kept in ``_census.json``, so that a
        report on a partial table says how much of it is done: :func:`universe_size`).
    """

    def __init__(self, path, spec_text: str = "", resume: bool = False, batch: int = 256,
                 universe: int | None = None):
        super().__init__(path, LAYOUT, {"spec": spec_text, "universe": universe}, resume=resume, batch=batch)
