"""Fingerprint what chronoeval writes, to prove a refactor changed no behaviour.

Builds every pack (generate + queries with the extra families + paraphrase + an export), the
demo description offline, and an inferred spec from the public reference tables, then prints
(or saves) the sha256 of every output file. Run before and after a change and diff:

    python bench/fingerprint.py --save /tmp/before.json
    python bench/fingerprint.py --compare /tmp/before.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "graph.cli"]
PACKS = ["ecommerce", "iot", "telecom", "observability", "security"]
FAMILIES = ["shape", "detection", "claim", "false_premise", "unanswerable"]
DEMO = "40 wind turbines reporting vibration and power output every 10 minutes"
INFER_SETS = {
    "infer-ecommerce": ["ecommerce_users_data.csv", "ecommerce_sessions_data.csv"],
    "infer-links": ["transport_link_data.csv"],
}
# Files whose bytes legitimately carry the run's own path or clock.
VOLATILE = {"data.duckdb", ".verify-cache.json", "decisions.jsonl", "checkpoints.sqlite"}


def _run(args: list[str], env: dict[str, str]) -> None:
    done = subprocess.run(CLI + args, cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode not in (0, 3):
        raise SystemExit(f"chronoeval {' '.join(args)} failed ({done.returncode}):\n{done.stderr[-2000:]}")


def _digest(path: Path, work: Path) -> str:
    data = path.read_bytes().replace(str(work).encode(), b"<work>")  # reports name the bundle's path
    if path.name == "manifest.json":
        # data.duckdb is not byte-stable, and report.md names the path (it is fingerprinted normalised)
        manifest = json.loads(data)
        for name in ("data.duckdb", "report.md"):
            manifest.get("files", {}).pop(name, None)
        data = json.dumps(manifest, sort_keys=True).encode()
    return hashlib.sha256(data).hexdigest()


def _hash_tree(root: Path, label: str, out: dict[str, str]) -> None:
    work = root.parent
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.name not in VOLATILE and "__pycache__" not in path.parts:
            out[f"{label}/{path.relative_to(root).as_posix()}"] = _digest(path, work)


def fingerprint(work: Path) -> dict[str, str]:
    """Build every output once under `work` and return {label/file: sha256}."""
    env = dict(os.environ, CHRONOEVAL_HOME=str(work / "home"), HOME=str(work / "homedir"))
    env.pop("CHRONOEVAL_MODEL", None)
    hashes: dict[str, str] = {}
    for pack in PACKS:
        out = work / pack
        _run(["generate", pack, "-o", str(out), "--seed", "7", "--scale", "0.5", "--with-baseline"], env)
        _run(["queries", str(out), "--seed", "0", *sum((["--family", f] for f in FAMILIES), [])], env)
        _run(["paraphrase", str(out), "--per-question", "2"], env)
        _run(["export", str(out), "--format", "inspect", "-o", str(work / f"{pack}-inspect")], env)
        _hash_tree(out, pack, hashes)
        _hash_tree(work / f"{pack}-inspect", f"{pack}-inspect", hashes)
    _run(["build", DEMO, "-o", str(work / "demo"), "--yes", "--seed", "3"], env)
    _hash_tree(work / "demo", "demo", hashes)
    ref = ROOT.parent / "shared" / "reference-data" / "agentfuel-public"
    for label, names in INFER_SETS.items():
        if all((ref / n).exists() for n in names):
            spec, report = work / f"{label}.yaml", work / f"{label}.md"
            _run(["infer", *(str(ref / n) for n in names), "-o", str(spec), "--report", str(report)], env)
            for path in (spec, report):
                hashes[path.name] = _digest(path, work)
    return hashes


def main() -> None:
    """Save or compare a fingerprint of every output."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--save", type=Path)
    parser.add_argument("--compare", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        hashes = fingerprint(Path(tmp))
    if args.save:
        args.save.write_text(json.dumps(hashes, indent=1, sort_keys=True))
        print(f"{len(hashes)} files fingerprinted → {args.save}")
    if args.compare:
        before = json.loads(args.compare.read_text())
        changed = sorted(k for k in before.keys() | hashes.keys() if before.get(k) != hashes.get(k))
        for key in changed:
            print(f"differs: {key}")
        print(f"{len(hashes)} files, {len(changed)} differ")
        raise SystemExit(1 if changed else 0)


if __name__ == "__main__":
    main()
