"""Same seed, same bytes, whatever Python's string hashing: a bundle generated under two
PYTHONHASHSEED values is identical file for file (neither set iteration order nor the order DuckDB
returns grouped rows in may reach an output).
data.duckdb is compared by its tables elsewhere (it is not byte-stable), so the manifest is compared
without its own hash of that file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def _generate(out: Path, hashseed: str) -> None:
    env = {**os.environ, "PYTHONHASHSEED": hashseed}
    cmd = [sys.executable, "-c", "from graph.cli import main; main()",
           "generate", "ecommerce", "-o", str(out), "--seed", "7", "--scale", "0.5", "--with-baseline"]
    subprocess.run(cmd, env=env, check=True, capture_output=True, cwd=Path(__file__).resolve().parents[3])


def _manifest_without_duckdb(path: Path) -> str:
    text = path.read_text()
    data = json.loads(text)
    files = data.get("files", {})
    if isinstance(files, dict):
        files.pop("data.duckdb", None)
    return json.dumps(data, sort_keys=True)


def test_bundle_does_not_depend_on_string_hash_order(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    _generate(a, "1")
    _generate(b, "3")
    names = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert names == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    differ = [str(n) for n in names if str(n) not in ("data.duckdb", "manifest.json")
              and (a / n).read_bytes() != (b / n).read_bytes()]
    assert differ == []
    assert _manifest_without_duckdb(a / "manifest.json") == _manifest_without_duckdb(b / "manifest.json")
