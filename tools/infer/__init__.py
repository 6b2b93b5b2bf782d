"""Spec inference: fit a spec from sample tables (CSV/Parquet) or a SQL DDL file.

Column roles (time, entity key incl. composite keys, static attributes, state/derived columns,
measurements, counters vs gauges), cadence, relations between tables, attribute distributions, the
state machine and per-state measurement models; a fidelity report compares data regenerated from the
fitted spec with the input. Deterministic: no LLM, explicit seeds.
"""

from importlib import import_module

_EXPORTS = {
    "InferError": "errors", "InferResult": "api", "infer_from_tables": "api", "infer_from_ddl": "ddl",
    "fidelity_rows": "fidelity", "render_report": "report", "infer": "run",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(import_module(f"tools.infer.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'tools.infer' has no attribute {name!r}")
