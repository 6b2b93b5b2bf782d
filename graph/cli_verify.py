"""``chronoeval verify OUT``: prove a bundle's files are the ones its manifest recorded; and the
helpers every bundle-reading command calls before it reads (``verified``) or writes (``bundle_writer``)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from graph.cli_base import app, errors
from graph.console import print_error, print_ok


def _size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


def report_stale(removed: Sequence[tuple[object, int]]) -> None:
    """Tell the user which temp directories of killed runs were removed."""
    for path, size in removed:
        print_error(f"removed {path} ({_size(size)}), left by an interrupted run", prefix="note: ")


def verified(bundle: Path, content_only: bool = False) -> Path:
    """Stop with exit 2 naming the file unless ``bundle`` matches its manifest (size+mtime fast path);
    ``content_only`` for a command that rewrites the report files (checks.json, report.md, figures/)."""
    from tools.bundle import verify_bundle

    verify_bundle(Path(bundle), content_only=content_only)
    return Path(bundle)


@contextmanager
def bundle_writer(bundle: Path, content_only: bool = False) -> Iterator[Path]:
    """Lock ``bundle`` for a command that changes it, then verify it: a concurrent writer fails at
    once, and nothing is built on files that no longer match the manifest."""
    from tools.bundle import output_lock

    with output_lock(Path(bundle)) as lock:
        report_stale(lock.stale_removed)
        yield verified(bundle, content_only)


@app.command()
def verify(
    bundle: Annotated[Path, typer.Argument(metavar="OUT", help="A bundle directory made by `chronoeval generate`.")],
    full: Annotated[bool, typer.Option("--full", help="Hash every file even when its size, mtime and ctime are "
                                       "unchanged since the last verification.")] = False,
    allow_modified: Annotated[bool, typer.Option("--allow-modified", help="Accept the files as they are now "
                                                 "and record their new sha256 in manifest.json.")] = False,
) -> None:
    """Check every file of a bundle against the sha256 in its manifest.json. Exits 2 naming the files
    that are missing, changed or unrecorded."""
    from tools.bundle import output_lock, verify_bundle

    with errors():
        if allow_modified:
            with output_lock(bundle):
                rep = verify_bundle(bundle, full=full, allow_modified=True)
        else:
            rep = verify_bundle(bundle, full=full)
        for name in rep.rerecorded:
            print_error(f"{bundle / name}: new sha256 recorded in manifest.json", prefix="note: ")
        print_ok(f"{bundle}: {rep.files} file(s) intact ({len(rep.hashed)} hashed, {len(rep.cached)} unchanged "
                 "since the last verification)" + (f"; {len(rep.rerecorded)} re-recorded" if rep.rerecorded else ""))
