"""Write a whole output directory or nothing: build in a temp sibling, then rename into place."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class OutputExistsError(FileExistsError):
    """The output directory exists and overwriting was not asked for (a user error)."""


@contextmanager
def atomic_output_dir(out: Path, force: bool = False) -> Iterator[Path]:
    """Yield a temp directory next to ``out``; on success it replaces ``out``, on failure it is removed.

    An existing ``out`` is only replaced with ``force`` and is kept until the new one is complete.
    """
    out = Path(out)
    if out.exists() and not force:
        raise OutputExistsError(f"{out} already exists; choose another -o directory or pass --force to replace it")
    if out.exists() and not out.is_dir():
        raise OutputExistsError(f"{out} exists and is not a directory; choose another -o path")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o777 & ~umask)  # mkdtemp makes it private; a bundle gets the usual permissions
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    old = None
    if out.exists():
        old = out.parent / f".{out.name}.old-{os.getpid()}"
        os.replace(out, old)
    os.replace(tmp, out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def atomic_write_text(path: Path, text: str) -> None:
    """Write a text file via a temp file in the same directory and a rename (readers never see half)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def upsert_section(path: Path, section: str, begin: str, end: str, title: str = "") -> Path:
    """Insert (or replace) the marked ``section`` (which starts with ``begin`` and ends with ``end``)
    in a markdown file, atomically; a missing file starts with ``# chronoeval report: title``."""
    old = path.read_text() if path.is_file() else ""
    if begin in old and end in old:
        text = old[: old.index(begin)] + section + old[old.index(end) + len(end):].lstrip("\n")
    else:
        head = old or f"# chronoeval report: {title}\n\n"
        text = head.rstrip("\n") + "\n\n" + section
    atomic_write_text(path, text)
    return path
