"""The names of a bundle's files: the bundle contract (docs/ARCHITECTURE.md "Bundle layout").

Users' scripts read these files by name, so every module that reads or writes one uses these
constants instead of repeating the literal; renaming one is a contract change.
"""

from __future__ import annotations

SPEC = "spec.yaml"               # the full resolved spec
DATA_DIR = "data"                # data/<table>.parquet, or data/<table>/part-NNNNN.parquet (dask engine)
DATA_DB = "data.duckdb"          # the same tables in one DuckDB file (the embedded default backend)
HOLDOUT_DIR = "holdout"          # rows held back for forecast questions; never shown to agents
HOLDOUT_DOC = "holdout.json"     # holdout/holdout.json: the held-back horizon
INCIDENTS = "incidents.json"     # ground-truth incident manifest (never shown to agents-under-test)
CHECKS = "checks.json"           # data-quality and pattern checks
QA = "qa.jsonl"                  # the question suite, one record a line
SUITE_HEADER = "suite.json"      # the suite's conventions and the preamble agents are given
REPORT = "report.md"             # the decision report
FIGURES_DIR = "figures"          # the report's PNGs
MANIFEST = "manifest.json"       # versions, seed, tables and the sha256 of every other file
VERIFY_CACHE = ".verify-cache.json"  # verify's stamp cache; never listed in the manifest
HISTORY_DIR = "history"          # chat's versions: undo/redo restore exact bytes; never in the manifest
EXPORTS_DIR = "exports"          # default home of `chronoeval export` outputs inside a bundle
BASELINE_SUFFIX = "__baseline"   # <table>__baseline: the table before incidents were injected
