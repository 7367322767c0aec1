"""The results table of a census: its columns, their types, its version.

One row per instance. Exact numbers (bounds, rates, gaps) are fraction
strings such as ``"7/2"``; user sets are JSON lists of ``[u, v]``. The table
is documented column by column in ``docs/census.md``; any change of a column's
name, type or meaning bumps :data:`SCHEMA_VERSION`.
"""

from __future__ import annotations

from itsa._util.display import Kind
from itsa._util.results_table import Layout
from itsa.exceptions import InvalidSpec

__all__ = ["SCHEMA_VERSION", "COLUMNS", "arrow_schema", "NUMERIC_EXACT", "RowStatus", "LAYOUT"]


class RowStatus(Kind):
    """How the work on one instance ended (the ``status`` column)."""

    OK = "ok"                 # the work ran; the row's results hold
    FAILED = "failed"         # it raised, or its process died (``error`` says why)
    TIMEOUT = "timeout"       # the hard limit of the spec's time_limit stopped it

#: Version of the table layout, stored in every row and in the Parquet metadata.
SCHEMA_VERSION = 2      # 2: lower_method, skipped and open_why added (work: solve)

_S, _I, _B, _F = "string", "int64", "bool", "float64"

#: Column name -> Arrow type name, in table order.
COLUMNS: dict[str, str] = {
    # identity
    "key": _S, "name": _S, "source": _S, "instance": _S,
    "U": _I, "K": _I, "M": _I, "N": _I, "servers": _S,
    # what was run, and how it ended
    "work": _S, "seed": _I, "field": _I, "status": _S, "error": _S,
    # the paper's quantities (analyze)
    "regime": _S, "a_star": _I, "e_star": _I, "S_bar": _S, "S_I": _S, "Q1": _S, "Q2": _S, "Q": _S,
    "S_bar_size": _I, "Q_size": _I, "R_X": _S, "R_Y": _S, "upper_claimed": _S, "lp_b_star": _S,
    # lower bounds
    "lower_printed": _S, "lower_corrected": _S, "lower_converse": _S,
    "lower": _S, "lower_class": _S, "lower_certified": _B, "lower_method": _S, "skipped": _S,
    # best verified rate
    "upper": _S, "upper_L": _I, "upper_shape": _S,
    # derived
    "printed_beaten": _B, "gap": _S, "verdict": _S, "open_why": _S,
    "homogeneous_V": _I, "homogeneous_t": _I,
    # bookkeeping
    "time": _F, "timings": _S, "scheme_path": _S, "proof_path": _S, "schema_version": _I,
}

#: Columns holding exact fraction strings.
NUMERIC_EXACT = ("R_X", "R_Y", "upper_claimed", "lp_b_star", "lower_printed", "lower_corrected",
                 "lower_converse", "lower", "upper", "gap")


#: The table as :mod:`itsa._util.results_table` keeps it: its columns, version and metadata file.
LAYOUT = Layout("census", "_census.json", COLUMNS, SCHEMA_VERSION, b"itsa.keys.census.schema_version", InvalidSpec,
                required=("status",))


def arrow_schema():
    """The :class:`pyarrow.Schema` of the table, with the version in its metadata."""
    return LAYOUT.arrow_schema()
