"""Censuses: one work (analyze, corrected bound, search, solve) over a universe of instances.

A spec (YAML) names the universe (``grid``, ``random``, ``exhaustive``,
``files``) and the work; :func:`run_census` runs :func:`run_one` on every
instance, one per isomorphism class (:func:`canonical_key`), on a Dask
cluster, streaming rows to a Parquet results folder; :func:`census_report`
writes the tables and figures. See ``docs/census.md``.

Importing it without the ``census`` extra raises :class:`itsa.MissingExtra`,
one line that names the extra.
"""

from itsa._util.extras import require

for _package in ("pyarrow", "dask", "distributed"):
    require(_package)

from itsa.keys.census.canonical import brute_canonical_form, canonical_key
from itsa.keys.census.report import (
    REPORTS,
    CensusReport,
    census_report,
    census_summary,
    census_tables,
    coverage,
    report_notes,
    scope_of,
    write_report,
)
from itsa.keys.census.run import CensusProgress, CensusRun, SchedulerUnreachable, run_census
from itsa.keys.census.schema import COLUMNS, SCHEMA_VERSION, arrow_schema
from itsa.keys.census.spec import UNIVERSES, WORKS, CensusSpec, InvalidSpec, Item, load_spec, parse_spec
from itsa.keys.census.store import ResultStore, read_results, read_rows, universe_size
from itsa.keys.census.universe import instance_yaml
from itsa.keys.census.work import run_one

__all__ = [
    "canonical_key", "brute_canonical_form",
    "CensusProgress", "CensusRun", "SchedulerUnreachable", "run_census",
    "COLUMNS", "SCHEMA_VERSION", "arrow_schema",
    "UNIVERSES", "WORKS", "CensusSpec", "InvalidSpec", "Item", "load_spec", "parse_spec",
    "REPORTS", "CensusReport", "write_report", "census_report", "census_summary", "census_tables", "coverage", "report_notes", "scope_of",
    "ResultStore", "read_results", "read_rows", "universe_size", "instance_yaml", "run_one",
]
