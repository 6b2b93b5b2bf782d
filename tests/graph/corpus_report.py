"""Build every corpus description offline and report how many expert expectations each bundle meets.

    .venv/bin/python -m tests.graph.corpus_report [--only SLUG] [--keep NEW_DIR | --rescore DIR] [--corpus DIR]

``--corpus tests/data/descriptions_heldout`` measures the held-out set (never tune on it).

One line per description (slug, met/total, the unmet expectations), then the overall pass rate
(share of expectations met) and how many descriptions meet all of theirs.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import yaml

from tests.graph.corpus_expectations import CORPUS_DIR, count_expectations, evaluate_bundle

BUILD_ENV = {"CHRONOEVAL_MODEL": "none", "CHRONOEVAL_EMBEDDINGS": "hash"}


def corpus_files(directory: Path = CORPUS_DIR) -> list[Path]:
    """The description files of the corpus (or of another set of descriptions), sorted by slug."""
    return sorted(p for p in directory.glob("*.yaml") if p.name != "known_unmet.yaml")


def load_description(path: Path) -> dict:
    """One corpus file: description, field, kind and expect."""
    return yaml.safe_load(path.read_text())


def build_offline(text: str, out: Path, work: Path) -> tuple[int, str]:
    """``chronoeval build TEXT -o OUT --yes --no-memory --seed 0 --world-only`` in-process, offline (the
    expectations are about the world: no questions are synthesized), with private
    cache/memory/home directories under ``work``. Returns (exit code, console output)."""
    from typer.testing import CliRunner

    from graph.cli import app

    env = {**BUILD_ENV, "CHRONOEVAL_MEMORY_DIR": str(work / "memory"), "CHRONOEVAL_CACHE_DIR": str(work / "cache"),
           "CHRONOEVAL_HOME": str(work / "home")}
    result = CliRunner().invoke(app, ["build", text, "-o", str(out), "--yes", "--no-memory", "--seed", "0",
                                      "--world-only"], env=env)
    crash = result.exception if result.exception and not isinstance(result.exception, SystemExit) else None
    return result.exit_code, result.output + (f"\n{type(crash).__name__}: {crash}" if crash else "")


def report_one(path: Path, root: Path, build: bool = True) -> tuple[int, int, list[str]]:
    """Build the description of ``path`` under ``root`` (or, with ``build=False``, score the bundle
    already there); return (met, total, unmet sentences)."""
    case = load_description(path)
    out, work = root / path.stem, root / f"{path.stem}-work"
    if build:
        code, output = build_offline(case["description"], out, work)
    else:
        code, output = (0, "") if (out / "spec.yaml").exists() else (None, f"no bundle in {out}")
    if code != 0 or not (out / "spec.yaml").exists():
        return 0, count_expectations(case["expect"]), [f"build exited {code}: {output.strip()[-400:]}"]
    outcomes = evaluate_bundle(out, case["expect"], case["description"])
    unmet = [o.failure for o in outcomes if o.failure]
    return sum(o.met for o in outcomes), len(outcomes), unmet


def main(argv: list[str] | None = None) -> int:
    """Run the report; exit 0 (it reports, it does not judge)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="build only this slug (file name without .yaml)")
    parser.add_argument("--keep", type=Path, help="write the bundles here (a new directory) instead of a temporary one")
    parser.add_argument("--rescore", type=Path, help="build nothing: score the bundles an earlier --keep wrote here")
    parser.add_argument("--corpus", type=Path, default=CORPUS_DIR,
                        help="the directory of descriptions (default: the tuned corpus)")
    parser.add_argument("--record-known", action="store_true",
                        help="write the unmet expectations to tests/data/descriptions/known_unmet.yaml (the test's ratchet)")
    args = parser.parse_args(argv)
    if args.keep and args.keep.exists() and any(args.keep.iterdir()):
        print(f"{args.keep} is not empty; give a new --keep directory, or --rescore it", file=sys.stderr)
        return 2
    files = [p for p in corpus_files(args.corpus) if args.only in (None, p.stem)]
    if not files:
        print(f"no description file{' called ' + args.only + '.yaml' if args.only else ''} in {args.corpus}",
              file=sys.stderr)
        return 2
    if args.record_known and args.corpus.resolve() != CORPUS_DIR.resolve():
        print("--record-known records the tuned corpus only", file=sys.stderr)
        return 2
    os.environ.setdefault("COLUMNS", "120")
    with tempfile.TemporaryDirectory(prefix="corpus-") as tmp:
        root = args.rescore or args.keep or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        met_all = total_all = perfect = 0
        by_kind: dict[str, list[int]] = {}
        known: dict[str, list[str]] = {}
        for path in files:
            t0 = time.monotonic()
            met, total, unmet = report_one(path, root, build=args.rescore is None)
            met_all, total_all, perfect = met_all + met, total_all + total, perfect + (met == total)
            tally = by_kind.setdefault(load_description(path)["kind"], [0, 0])
            tally[0], tally[1] = tally[0] + met, tally[1] + total
            print(f"{path.stem}: {met}/{total} ({100 * met / total:.0f}%) in {time.monotonic() - t0:.0f}s", flush=True)
            for sentence in unmet:
                print(f"    - {sentence}", flush=True)
            if unmet:
                known[path.stem] = unmet
        print(f"overall: {met_all}/{total_all} expectations met ({100 * met_all / max(total_all, 1):.1f}%); "
              f"{perfect}/{len(files)} descriptions meet all of theirs")
        print("by kind: " + ", ".join(f"{k} {m}/{t} ({100 * m / max(t, 1):.1f}%)" for k, (m, t) in sorted(by_kind.items())))
    if args.record_known and args.only is None:
        (CORPUS_DIR / "known_unmet.yaml").write_text(
            "# Expectations the offline build does not meet yet (issue 14 stays open while this file is not empty).\n"
            "# Written by: python -m tests.graph.corpus_report --record-known; the corpus test fails on any change.\n"
            + yaml.safe_dump(known, sort_keys=True, allow_unicode=True, width=200))
    return 0


if __name__ == "__main__":
    sys.exit(main())
