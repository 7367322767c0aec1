"""The version of every JSON object itsa prints: one home for :data:`SCHEMA_VERSION`.

A leaf module (it imports nothing), so that any layer, the pure-math ones
included, can stamp its plain-data output without importing the reporting
layer. ``itsa.keys.output.report.SCHEMA_VERSION`` is the same object, kept for
compatibility.

The census results table has a version of its own (the Parquet columns,
``itsa.keys.census.SCHEMA_VERSION``); this one versions the ``--json`` objects.

>>> from itsa.keys.output import report
>>> report.SCHEMA_VERSION is SCHEMA_VERSION
True
"""

__all__ = ["SCHEMA_VERSION"]

#: Version of every JSON object itsa prints; raised when a key changes meaning or goes away.
SCHEMA_VERSION = 3
