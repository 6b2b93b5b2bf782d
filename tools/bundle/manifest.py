"""Write ``manifest.json``: a bundle's versions, generation facts and the sha256 of every file.

``write_manifest`` records a whole new bundle; ``refresh_manifest`` re-records the files a later
command rewrote (checks, queries, paraphrase, chat), leaving the other entries as they were.
"""

from __future__ import annotations

import json
import platform
from pathlib import Path

from tools.bundle.atomic import atomic_write_text
from tools.bundle.files import MANIFEST, VERIFY_CACHE
from tools.bundle.integrity import sha256_file


def versions() -> dict[str, str]:
    """Versions that influence the bytes of a bundle."""
    import duckdb
    import numpy
    import pandas
    import pyarrow

    from tools import __version__

    return {"chronoeval": __version__, "python": platform.python_version(), "numpy": numpy.__version__,
            "pandas": pandas.__version__, "pyarrow": pyarrow.__version__, "duckdb": duckdb.__version__}


def write_manifest(out: Path, info: dict) -> dict:
    """Write ``manifest.json``: ``info`` plus versions and the sha256 of every other file."""
    files = {str(p.relative_to(out)): sha256_file(p) for p in sorted(out.rglob("*"))
             if p.is_file() and p.name not in (MANIFEST, VERIFY_CACHE)}
    manifest = {**info, "versions": versions(), "files": files}
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=False) + "\n")
    return manifest


def refresh_manifest(out: Path, names: list[str]) -> None:
    """Add the sha256 of files written after generation (``names``: files or directories under
    ``out``) to manifest.json, atomically; other entries are untouched, except that a listed directory
    (``figures``) is re-listed from disk."""
    path = out / MANIFEST
    if not path.is_file():
        return
    doc = json.loads(path.read_text())
    gone = tuple(f"{n.rstrip('/')}/" for n in names if not (out / n).is_file())  # listed dirs: re-listed from disk
    files = {k: v for k, v in doc.get("files", {}).items() if not k.startswith(gone) and k not in names}
    for name in names:
        p = out / name
        for f in sorted(p.rglob("*")) if p.is_dir() else [p]:
            if f.is_file():
                files[str(f.relative_to(out))] = sha256_file(f)
    doc["files"] = dict(sorted(files.items()))
    atomic_write_text(path, json.dumps(doc, indent=2) + "\n")
