"""Prove a bundle is intact: every file listed in ``manifest.json`` still has the recorded sha256.

Hashing a large bundle takes seconds, so a small cache inside the bundle (``.verify-cache.json``,
never listed in the manifest) remembers size, mtime, ctime and inode of each file that last hashed
correctly; a file whose stamp changed is hashed again, and ``full=True`` hashes everything. Any
write or rename changes the ctime, which no user tool can set back, so even an edit that restores
the mtime is hashed again; a copied bundle is hashed in full once.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from tools.bundle.files import DATA_DB, DATA_DIR, INCIDENTS, MANIFEST, QA, SPEC
from tools.bundle.files import VERIFY_CACHE as CACHE

# Files that commands read as content: one present on disk but absent from the manifest is as
# suspicious as a changed one (the manifest is re-recorded whenever chronoeval writes them).
CONTENT_FILES = (SPEC, INCIDENTS, QA, DATA_DB)
_SHA = re.compile(r"^[0-9a-f]{64}$")


class BundleIntegrityError(ValueError):
    """A bundle's files do not match its manifest (a user error: exit code 2 in the CLI)."""


@dataclass
class VerifyReport:
    """What ``verify_bundle`` looked at: files hashed, files trusted from the cache, and files whose
    new hashes were re-recorded (``allow_modified``)."""

    bundle: str
    files: int = 0
    hashed: list[str] = field(default_factory=list)
    cached: list[str] = field(default_factory=list)
    rerecorded: list[str] = field(default_factory=list)


def sha256_file(path: Path) -> str:
    """The hex sha256 of a file, read in 1 MB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _fix(out: Path) -> str:
    return (f"regenerate the bundle (`chronoeval generate SPEC -o {out} --force`), restore the file from a "
            f"copy, or, if you changed it on purpose, run `chronoeval verify {out} --allow-modified` to record "
            "its new hash")


def read_manifest(out: Path) -> dict:
    """The parsed ``manifest.json`` of a bundle, with a ``files`` map of safe relative paths to sha256."""
    path = out / MANIFEST
    if not out.is_dir():
        raise BundleIntegrityError(f"{out}: not a directory; give a bundle directory made by `chronoeval generate`")
    if not path.is_file():
        raise BundleIntegrityError(f"{path}: missing, so {out} is not a chronoeval bundle (or is incomplete); "
                                   "make one with `chronoeval generate SPEC -o OUT`")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BundleIntegrityError(f"{path}: not valid JSON ({exc}); the bundle's manifest is damaged, so its "
                                   f"files cannot be trusted; regenerate the bundle (`chronoeval generate SPEC "
                                   f"-o {out} --force`)") from None
    files = doc.get("files") if isinstance(doc, dict) else None
    if not isinstance(files, dict):
        raise BundleIntegrityError(f"{path}: has no 'files' map of sha256 hashes; regenerate the bundle "
                                   f"(`chronoeval generate SPEC -o {out} --force`)")
    for name, digest in files.items():
        parts = PurePosixPath(name).parts
        if not isinstance(digest, str) or not _SHA.match(digest) or not parts or PurePosixPath(name).is_absolute() \
                or ".." in parts:
            raise BundleIntegrityError(f"{path}: entry {name!r} is not a file inside the bundle with a sha256 hash; "
                                       f"regenerate the bundle (`chronoeval generate SPEC -o {out} --force`)")
    return doc


def _stamp(st: os.stat_result, digest: str) -> list:
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, digest]


def _load_cache(out: Path) -> dict:
    try:
        doc = json.loads((out / CACHE).read_text())
        return doc if isinstance(doc, dict) else {}
    except (OSError, ValueError):
        return {}


def _save_cache(out: Path, cache: dict) -> None:
    """Best effort: a read-only bundle simply keeps hashing in full."""
    tmp = out / f"{CACHE}.{os.getpid()}.tmp"
    try:
        tmp.write_text(json.dumps(cache, sort_keys=True))
        os.replace(tmp, out / CACHE)
    except OSError:
        tmp.unlink(missing_ok=True)


def _write_manifest(out: Path, doc: dict) -> None:
    tmp = out / f".{MANIFEST}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(doc, indent=2) + "\n")
    os.chmod(tmp, 0o644)
    os.replace(tmp, out / MANIFEST)


def _untracked(out: Path, files: dict) -> list[str]:
    names = [n for n in CONTENT_FILES if (out / n).is_file()]
    data = out / DATA_DIR
    if data.is_dir():
        names += sorted(str(p.relative_to(out)) for p in [*data.glob("*.parquet"), *data.glob("*/part-*.parquet")]
                        if p.is_file())
    return [n for n in names if n not in files]


def is_content(name: str) -> bool:
    """Whether a bundle file feeds computation (spec, data, incidents, questions) rather than being a
    report that ``chronoeval check``/``queries`` rewrite (checks.json, report.md, figures/, exports/)."""
    return name in CONTENT_FILES or (name.startswith(f"{DATA_DIR}/") and name.endswith(".parquet"))


def verify_bundle(out: Path, *, full: bool = False, allow_modified: bool = False,
                  content_only: bool = False) -> VerifyReport:
    """Check every file of ``manifest.json`` against its sha256 (size + mtime cache unless ``full``).
    ``content_only`` skips the report files a command is about to rewrite (see ``is_content``).

    Raises ``BundleIntegrityError`` naming the first files that are missing, changed or unrecorded,
    with the fix. With ``allow_modified`` the new hashes are recorded in the manifest instead (missing
    files are dropped from it) and listed in the report's ``rerecorded``.
    """
    out = Path(out)
    doc = read_manifest(out)
    files: dict[str, str] = doc["files"]
    cache = {} if full else _load_cache(out)
    checked = {n: d for n, d in files.items() if is_content(n)} if content_only else files
    report = VerifyReport(str(out), files=len(checked))
    new_cache: dict[str, list] = {}
    bad: list[tuple[str, str, str | None]] = []  # (name, reason, new hash or None if missing)
    for name, digest in checked.items():
        path = out / name
        try:
            st = path.stat()
        except OSError:
            bad.append((name, "missing", None))
            continue
        if not path.is_file():
            bad.append((name, "not a file", None))
            continue
        stamp = _stamp(st, digest)
        if cache.get(name) == stamp:
            report.cached.append(name)
            new_cache[name] = stamp
            continue
        actual = sha256_file(path)
        report.hashed.append(name)
        if actual == digest:
            new_cache[name] = stamp
        else:
            bad.append((name, "changed since the manifest was written (sha256 differs)", actual))
    for name in _untracked(out, files):
        bad.append((name, "present but not recorded in manifest.json", sha256_file(out / name)))
    if bad and not allow_modified:
        listed = "; ".join(f"{out / n}: {why}" for n, why, _ in bad[:5])
        more = f" (and {len(bad) - 5} more)" if len(bad) > 5 else ""
        raise BundleIntegrityError(f"bundle {out} is not intact: {listed}{more}. Fix: {_fix(out)}.")
    if bad:
        for name, _, actual in bad:
            if actual is None:
                files.pop(name, None)
            else:
                files[name] = actual
                new_cache[name] = _stamp((out / name).stat(), actual)
            report.rerecorded.append(name)
        doc["files"] = dict(sorted(files.items()))
        _write_manifest(out, doc)
    _save_cache(out, {**({k: v for k, v in cache.items() if k in files and k not in checked}), **new_cache})
    return report
