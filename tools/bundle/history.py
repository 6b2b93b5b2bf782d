"""A bundle's change history: every change chat applies is a version that ``undo`` takes back to the
exact bytes before it and ``redo`` re-applies (``manifest.json`` included, so the manifests are equal).

Layout (``<bundle>/history/``, never listed in the manifest, never shown to agents-under-test):
``log.json`` (the applied versions in order and the undone ones, most recent last), ``vNNNN/`` (the
bytes version N replaced or removed) and ``redo/vNNNN/`` (the bytes an undone version wrote).

A change may replace the whole bundle directory (regeneration renames a new one into place), so while
it runs the history waits in a sibling directory with a copy of every file as it was (a hard link for
files above 8 MB, which every writer replaces by rename); afterwards only the files that differ are kept. Undo and redo write a journal first: an interrupted one is
finished the next time the history is opened.
"""

from __future__ import annotations

import filecmp
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import BaseModel

from tools.bundle.files import HISTORY_DIR, VERIFY_CACHE

LOG = "log.json"
JOURNAL = "journal.json"


class Version(BaseModel):
    """One applied change: what was asked (operations), what it did, and the files it touched."""

    n: int
    ops: list[dict] = []
    summary: str = ""
    changed: list[str] = []
    added: list[str] = []
    removed: list[str] = []


class HistoryError(ValueError):
    """Nothing to undo or redo, or a history that cannot be used (a user error)."""


class History(BaseModel):
    applied: list[Version] = []
    undone: list[Version] = []


def _files(root: Path) -> dict[str, os.stat_result]:
    """Every file under ``root`` except the history, by relative path."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and not rel.startswith(f"{HISTORY_DIR}/") and rel != VERIFY_CACHE and not p.is_symlink():
            out[rel] = p.stat()
    return out


def read_history(bundle: Path) -> History:
    """The bundle's history (empty when it has none); finishes an interrupted undo/redo first."""
    recover(bundle)
    path = Path(bundle) / HISTORY_DIR / LOG
    return History.model_validate_json(path.read_text()) if path.is_file() else History()


def _write_log(hist_dir: Path, history: History) -> None:
    hist_dir.mkdir(parents=True, exist_ok=True)
    tmp = hist_dir / f".{LOG}.tmp"
    tmp.write_text(history.model_dump_json(indent=1) + "\n")
    os.replace(tmp, hist_dir / LOG)


LINK_ABOVE = 8 << 20  # bytes: smaller files are copied (some writers, e.g. matplotlib, rewrite in place)


def _link_or_copy(src: Path, dst: Path, size: int) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    if size > LINK_ABOVE:
        try:
            os.link(src, dst)
            return
        except OSError:  # a filesystem without hard links: copy
            pass
    shutil.copy2(src, dst)


def _holding(bundle: Path) -> Path:
    return bundle.parent / f".{bundle.name}.history-hold"


def recover(bundle: Path) -> None:
    """Put back a history left aside by an interrupted change and finish an interrupted undo/redo."""
    bundle, hold = Path(bundle), _holding(Path(bundle))
    if hold.is_dir() and bundle.is_dir() and not (bundle / HISTORY_DIR).exists():
        shutil.rmtree(hold / "stage", ignore_errors=True)
        os.replace(hold, bundle / HISTORY_DIR)
    journal = bundle / HISTORY_DIR / JOURNAL
    if journal.is_file():
        _run_moves(bundle, json.loads(journal.read_text()))
        journal.unlink()


class Recording:
    """Filled in by the caller while a change runs: the operations and the sentence saying what it did."""

    def __init__(self, ops: list[dict]):
        self.ops, self.summary, self.version = ops, "", None


@contextmanager
def recorded(bundle: Path, ops: list[dict]) -> Iterator[Recording]:
    """Run a change to ``bundle`` as a new version: the files it changes, adds or removes are kept so
    ``undo`` can restore them byte for byte. A change that raises leaves no version; one that changes
    nothing (a view) records none either. A new version clears what could be redone."""
    bundle = Path(bundle)
    recover(bundle)
    hold = _holding(bundle)
    shutil.rmtree(hold, ignore_errors=True)
    if (bundle / HISTORY_DIR).is_dir():
        os.replace(bundle / HISTORY_DIR, hold)
    hold.mkdir(exist_ok=True)
    before = _files(bundle)
    for rel, st in before.items():
        _link_or_copy(bundle / rel, hold / "stage" / rel, st.st_size)
    rec = Recording(ops)
    try:
        yield rec
        rec.version = _keep_changes(bundle, hold, before, rec)
    finally:
        shutil.rmtree(hold / "stage", ignore_errors=True)
        if bundle.is_dir():
            os.replace(hold, bundle / HISTORY_DIR)


def _keep_changes(bundle: Path, hold: Path, before: dict, rec: Recording) -> Version | None:
    after = _files(bundle)
    changed, removed = [], []
    for rel, st in before.items():
        now = after.get(rel)
        if now is None:
            removed.append(rel)
        elif st.st_size > LINK_ABOVE and (now.st_ino, now.st_dev) == (st.st_ino, st.st_dev):
            if (now.st_size, now.st_mtime_ns) != (st.st_size, st.st_mtime_ns):
                raise HistoryError(f"{rel} was modified in place, so its earlier bytes are lost; every bundle "
                                   "writer must write a new file and rename it")
        elif not filecmp.cmp(hold / "stage" / rel, bundle / rel, shallow=False):
            changed.append(rel)
    added = sorted(set(after) - set(before))
    if not (changed or removed or added):
        return None
    history = History.model_validate_json((hold / LOG).read_text()) if (hold / LOG).is_file() else History()
    version = Version(n=(history.applied[-1].n if history.applied else 0) + 1, ops=rec.ops, summary=rec.summary,
                      changed=changed, added=added, removed=removed)
    for rel in changed + removed:
        dst = hold / f"v{version.n:04d}" / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        os.replace(hold / "stage" / rel, dst)
    for old in history.undone:
        shutil.rmtree(hold / "redo" / f"v{old.n:04d}", ignore_errors=True)
    _write_log(hold, History(applied=[*history.applied, version], undone=[]))
    return version


def _run_moves(bundle: Path, moves: list[list[str]]) -> None:
    """Each move ``[src, dst]`` (relative to the bundle): replace dst by src when src exists; ``[path,
    ""]`` deletes. Re-running a partly done list finishes it."""
    emptied = set()
    for src, dst in moves:
        s = bundle / src
        if not s.exists():
            continue
        emptied.update(p for p in s.parents if bundle in p.parents and p != bundle / HISTORY_DIR)
        if dst:
            (bundle / dst).parent.mkdir(parents=True, exist_ok=True)
            os.replace(s, bundle / dst)
        else:
            s.unlink()
    for d in sorted(emptied, key=lambda p: -len(p.parts)):  # a folder the change created, now empty
        if d.is_dir() and not any(d.iterdir()):
            d.rmdir()


def _swap(bundle: Path, saved: str, stash: str, restore: list[str], drop: list[str]) -> None:
    """Move the current bytes of ``restore``+``drop`` into ``stash`` and the saved bytes of ``restore``
    back into place, through a journal."""
    h = HISTORY_DIR
    moves = [[rel, f"{h}/{stash}/{rel}"] for rel in [*restore, *drop] if (bundle / rel).exists()]
    moves += [[f"{h}/{saved}/{rel}", rel] for rel in restore]
    hist = bundle / HISTORY_DIR
    (hist / JOURNAL).write_text(json.dumps(moves))
    _run_moves(bundle, moves)
    (hist / JOURNAL).unlink()


def undo(bundle: Path) -> Version:
    """Take back the last applied version: the bundle's bytes are those before it."""
    bundle = Path(bundle)
    history = read_history(bundle)
    if not history.applied:
        raise HistoryError(f"nothing to undo in {bundle}")
    v = history.applied[-1]
    _swap(bundle, f"v{v.n:04d}", f"redo/v{v.n:04d}", v.changed + v.removed, v.added)
    _write_log(bundle / HISTORY_DIR, History(applied=history.applied[:-1], undone=[*history.undone, v]))
    return v


def redo(bundle: Path) -> Version:
    """Apply again the last undone version: the bundle's bytes are those it wrote."""
    bundle = Path(bundle)
    history = read_history(bundle)
    if not history.undone:
        raise HistoryError(f"nothing to redo in {bundle}")
    v = history.undone[-1]
    _swap(bundle, f"redo/v{v.n:04d}", f"v{v.n:04d}", v.changed + v.added, v.removed)
    _write_log(bundle / HISTORY_DIR, History(applied=[*history.applied, v], undone=history.undone[:-1]))
    return v
