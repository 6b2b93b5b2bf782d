"""Bundles in an object store: ``generate --engine dask -o s3://bucket/path`` (any fsspec URL).

Writing: the dask workers write the Parquet parts straight to ``URL/data/<table>/part-NNNNN.parquet``
(each worker needs the store's credentials: fsspec reads them as usual, e.g. ``AWS_*`` variables);
the driver builds the small files (spec.yaml, incidents.json, data.duckdb, manifest.json with the
parts' sha256 read back from the store) in a local staging directory and uploads them, manifest.json
last: a bundle without manifest.json is incomplete. data.duckdb's views (big worlds) name the parts
relative to the bundle, as for a local bundle.

Reading: ``fetch_bundle(URL, cache)`` downloads the bundle into a local cache directory (reused while
the store's manifest.json is unchanged); ``check``, ``queries`` and the rest then run on that copy.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from tools.bundle.files import DATA_DIR, MANIFEST

URL_RE = re.compile(r"^[a-z][a-z0-9+.-]*://", re.IGNORECASE)


def is_url(target: str | Path) -> bool:
    """Whether an output names an fsspec URL (``s3://…``, ``gs://…``) rather than a local directory."""
    return bool(URL_RE.match(str(target))) and not str(target).startswith("file://")


def url_filesystem(url: str):
    """(fsspec filesystem, path inside it) of a URL."""
    import fsspec

    return fsspec.core.url_to_fs(url)


def stage_first_part(data_url: str, out_dir: Path, name: str) -> Path:
    """Download the first part of table ``name`` to ``out_dir/data/<name>/`` (to bind a view on); the
    caller deletes it. Returns the local file."""
    fs, root = url_filesystem(data_url)
    first = sorted(fs.glob(f"{root.rstrip('/')}/{name}/part-*.parquet"))[0]
    local = out_dir / DATA_DIR / name / first.rsplit("/", 1)[1]
    local.parent.mkdir(parents=True, exist_ok=True)
    fs.get(first, str(local))
    return local


def _sha256_remote(fs, path: str) -> str:
    h = hashlib.sha256()
    with fs.open(path, "rb") as f:
        while chunk := f.read(1 << 22):
            h.update(chunk)
    return h.hexdigest()


def generate_to_url(spec, url: str, **kw: Any):
    """``generate_bundle`` with ``--engine dask`` into an object store (see the module docstring).
    ``url`` must not hold a bundle yet unless ``force``. Returns the summary (its ``out`` is the URL)."""
    from tools.bundle.atomic import atomic_write_text
    from tools.generate import generate_bundle

    url = url.rstrip("/")
    fs, root = url_filesystem(url)
    if fs.exists(f"{root}/{MANIFEST}") and not kw.get("force"):
        raise FileExistsError(f"{url} already holds a bundle; pass --force to replace it")
    if fs.exists(root):
        fs.rm(root, recursive=True)
    staging = Path(tempfile.mkdtemp(prefix="chronoeval-stage-"))
    try:
        local = staging / "bundle"
        summary = generate_bundle(spec, local, engine="dask", data_url=f"{url}/{DATA_DIR}", **kw)
        doc = json.loads((local / MANIFEST).read_text())
        for path in sorted(fs.find(f"{root}/{DATA_DIR}")):  # the parts, hashed as the store holds them
            doc["files"][path[len(root) + 1:]] = _sha256_remote(fs, path)
        doc["files"] = dict(sorted(doc["files"].items()))
        atomic_write_text(local / MANIFEST, json.dumps(doc, indent=2) + "\n")
        for f in sorted(local.rglob("*")):
            if f.is_file() and f.name != MANIFEST:
                fs.put(str(f), f"{root}/{f.relative_to(local).as_posix()}")
        fs.put(str(local / MANIFEST), f"{root}/{MANIFEST}")  # last: its presence says the bundle is complete
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    summary.out = url
    return summary


def fetch_bundle(url: str, cache: Path | str) -> Path:
    """A local copy of the bundle at ``url`` under ``cache`` (one directory per URL), downloaded
    again only when the store's manifest.json differs from the copy's."""
    url = url.rstrip("/")
    fs, root = url_filesystem(url)
    if not fs.exists(f"{root}/{MANIFEST}"):
        raise FileNotFoundError(f"{url}/{MANIFEST}: no complete bundle at this URL; generate it with "
                                f"`chronoeval generate SPEC -o {url} --engine dask`")
    remote_manifest = fs.cat_file(f"{root}/{MANIFEST}")
    dest = Path(cache) / hashlib.sha256(url.encode()).hexdigest()[:16]
    if (dest / MANIFEST).is_file() and (dest / MANIFEST).read_bytes() == remote_manifest:
        return dest
    tmp = Path(cache) / f".{dest.name}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for path in sorted(fs.find(root)):
        target = tmp / path[len(root) + 1:]
        target.parent.mkdir(parents=True, exist_ok=True)
        fs.get(path, str(target))
    shutil.rmtree(dest, ignore_errors=True)
    os.replace(tmp, dest)
    return dest
