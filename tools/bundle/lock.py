"""One writer per output directory: an exclusive lock file next to it, and cleanup of the temp
directories that killed writers left behind.

The lock is ``fcntl.flock`` on ``.<name>.lock`` beside the target (beside, because a bundle is built
in a temp sibling and renamed into place). The kernel drops it when its holder dies, so a killed
run never leaves a stale lock; the file records who holds it for the message a second writer gets.
Taking a lock the same process already holds (a command calling another) just nests.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path


class LockHeldError(RuntimeError):
    """Another process is writing the same output (a user error: exit code 2 in the CLI)."""


@dataclass
class OutputLock:
    """A held lock: the target, the lock file, and the stale temp directories removed on taking it
    (``(path, bytes)`` pairs, for the caller to report)."""

    target: Path
    lock_file: Path
    stale_removed: list[tuple[Path, int]] = field(default_factory=list)


_held: dict[Path, int] = {}
_held_guard = threading.Lock()


def lock_path(target: Path) -> Path:
    """The lock file of an output directory: ``.<name>.lock`` in its parent."""
    target = Path(target).resolve()
    return target.parent / f".{target.name}.lock"


def _holder(lock_file: Path) -> str:
    try:
        info = json.loads(lock_file.read_text() or "{}")
        since = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(info["since"]))
        return f"process {info['pid']} (`{info['command']}`, since {since})"
    except (OSError, ValueError, KeyError, TypeError):
        return "another process"


def _tree_size(path: Path) -> int:
    total = 0
    for root, _dirs, names in os.walk(path):
        for n in names:
            try:
                total += os.lstat(os.path.join(root, n)).st_size
            except OSError:
                pass
    return total


def clean_stale_temps(target: Path) -> list[tuple[Path, int]]:
    """Remove ``.<name>.tmp-*`` and ``.<name>.old-*`` siblings of ``target`` (left by killed writers).
    Call only while holding ``target``'s lock: every live writer of ``target`` holds it, so what is
    found then belongs to no running process."""
    target = Path(target).resolve()
    removed = []
    for pattern in (f".{target.name}.tmp-*", f".{target.name}.old-*"):
        for p in sorted(target.parent.glob(pattern)):
            if p.is_dir() and not p.is_symlink():
                size = _tree_size(p)
                shutil.rmtree(p, ignore_errors=True)
                removed.append((p, size))
    return removed


def _acquire(lock_file: Path, target: Path) -> int:
    """Open and flock ``lock_file`` without waiting; retry if a releasing holder unlinked it meanwhile."""
    while True:
        fd = os.open(lock_file, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise LockHeldError(
                f"{target} is being written by {_holder(lock_file)}; wait for it to finish, or choose another "
                f"output directory (lock file: {lock_file})") from None
        try:
            same = os.fstat(fd).st_ino == os.stat(lock_file).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)


@contextmanager
def output_lock(path: Path) -> Iterator[OutputLock]:
    """Hold the exclusive write lock of output directory ``path`` (which need not exist yet).

    A second writer fails at once with ``LockHeldError`` naming the holder. On taking the lock,
    stale temp directories of ``path`` are removed and listed in ``OutputLock.stale_removed``.
    """
    target = Path(path).resolve()
    lock_file = lock_path(target)
    with _held_guard:
        if target in _held:
            _held[target] += 1
            nested = True
        else:
            nested = False
    if nested:
        try:
            yield OutputLock(target, lock_file)
        finally:
            with _held_guard:
                _held[target] -= 1
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    fd = _acquire(lock_file, target)
    try:
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps({"pid": os.getpid(), "since": time.time(),
                                 "command": " ".join(os.path.basename(a) if i == 0 else a
                                                     for i, a in enumerate(sys.argv))[:300]}).encode())
        with _held_guard:
            _held[target] = 1
        handle = OutputLock(target, lock_file, clean_stale_temps(target))
        yield handle
    finally:
        with _held_guard:
            _held.pop(target, None)
        try:
            lock_file.unlink(missing_ok=True)  # while still holding it: a waiter re-checks the inode
        finally:
            os.close(fd)
