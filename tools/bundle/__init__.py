"""Bundle safety: integrity (manifest sha256 vs files), output locks, safe SQL quoting.

``verify_bundle`` proves a bundle's files are the ones its manifest recorded; ``output_lock`` makes
one writer at a time own an output directory (bundle or run directory).
"""

from tools.bundle.integrity import BundleIntegrityError, VerifyReport, verify_bundle
from tools.bundle.lock import LockHeldError, OutputLock, output_lock

__all__ = ["BundleIntegrityError", "LockHeldError", "OutputLock", "VerifyReport", "output_lock", "verify_bundle"]
