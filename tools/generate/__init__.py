"""World generation: vectorized semi-Markov simulation, measurements, exemplars, epochs, writers."""

from tools.generate.bundle import (
    BundleSummary,
    NullProgress,
    ProgressSink,
    TableSummary,
    build_populations,
    generate_bundle,
    write_tables,
)

__all__ = [
    "BundleSummary", "NullProgress", "ProgressSink", "TableSummary", "build_populations", "generate_bundle",
    "write_tables",
]
