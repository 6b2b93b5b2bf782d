"""The bundle's home: what a bundle is on disk and the one way to open, write and verify it.

- ``files``: the name of every bundle file (the contract in docs/ARCHITECTURE.md);
- ``opened``: ``open_bundle(out) -> Bundle`` (spec, incidents, manifest, tables, DuckDB on first use),
  ``BundleError``, ``bundle_schema``;
- ``layout``: where tables live (one Parquet file or parts), ``connect_bundle``;
- ``atomic``: whole-directory and single-file writes by rename, ``upsert_section`` of report.md;
- ``manifest``: ``write_manifest`` / ``refresh_manifest``; ``integrity``: ``verify_bundle``;
- ``tables``: the tables as CSV/Parquet files; ``lock``: one writer per output; ``paths``: safe names.

``verify_bundle`` proves a bundle's files are the ones its manifest recorded; ``output_lock`` makes
one writer at a time own an output directory (bundle or run directory).
"""

from tools.bundle.integrity import BundleIntegrityError, VerifyReport, verify_bundle
from tools.bundle.lock import LockHeldError, OutputLock, output_lock

__all__ = ["BundleIntegrityError", "LockHeldError", "OutputLock", "VerifyReport", "output_lock", "verify_bundle"]
