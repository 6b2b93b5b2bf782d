"""Copying tables into an agent's workspace, read-only (shared by the file backends)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def read_only(path: Path) -> None:
    """Make ``path`` (a file, or a directory and everything in it) read-only."""
    for p in path.rglob("*") if path.is_dir() else []:
        os.chmod(p, 0o444 if p.is_file() else 0o555)
    os.chmod(path, 0o555 if path.is_dir() else 0o444)


def copy_tables(src: Path, dest: Path, ext: str) -> int:
    """Copy ``src/*.ext`` and the partitioned tables ``src/<table>/part-*.ext`` (``--engine dask``)."""
    dest.mkdir()
    n = 0
    for p in sorted(src.glob(f"*.{ext}")):
        if p.is_file():
            shutil.copyfile(p, dest / p.name)
            n += 1
    for d in sorted(q for q in src.iterdir() if q.is_dir() and any(q.glob(f"part-*.{ext}"))) if src.is_dir() else []:
        (dest / d.name).mkdir()
        for p in sorted(d.glob(f"part-*.{ext}")):
            shutil.copyfile(p, dest / d.name / p.name)
        n += 1
    return n


def has_tables(d: Path, ext: str) -> bool:
    """True when ``d`` holds ``*.ext`` tables or partitioned ``<table>/part-*.ext`` ones."""
    return any(d.glob(f"*.{ext}")) or any(d.glob(f"*/part-*.{ext}"))


def no_tables(where: Path, bundle: Path, ext: str) -> Exception:
    """The error for a data directory without tables of ``ext``, saying how to write them."""
    from tools.harness.context import HarnessError

    return HarnessError(f"{where} holds no .{ext} tables; write them with `chronoeval export {bundle} "
                        f"--format {ext} -o DIR` and pass --data-dir DIR")


def table_files(ext: str, bundle: Path, root: Path, data_dir: Path | None) -> dict:
    """Copy the ``ext`` tables of ``data_dir`` (default the bundle's ``data/``) into ``root/data``."""
    from tools.bundle.files import DATA_DIR

    src = Path(data_dir) if data_dir else bundle / DATA_DIR
    if not copy_tables(src, root / DATA_DIR, ext):
        raise no_tables(src, bundle, ext)
    read_only(root / DATA_DIR)
    return {"data_dir": str(root / DATA_DIR)}


def reference_files(ext: str, bundle: Path, data_dir: Path | None) -> dict:
    """The trusted context's fields for the ``ext`` tables of ``data_dir`` (default ``bundle/data``)."""
    from tools.bundle.files import DATA_DIR

    d = Path(data_dir) if data_dir else bundle / DATA_DIR
    if not has_tables(d, ext):
        raise no_tables(d, bundle, ext)
    return {"data_dir": str(d.resolve())}
