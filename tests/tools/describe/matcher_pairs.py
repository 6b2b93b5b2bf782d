"""Precision and recall of the catalog matcher on the labelled phrase→entry set
(``tests/data/matcher_pairs/pairs.yaml``).

    .venv/bin/python -m tests.tools.describe.matcher_pairs [-v] [--half calibrate|held_out|all]

Each case is a phrase, the catalog part it is looked up in, its sentence and the whole description, and the
entry a domain expert says it means (or null: no entry is right, the user's words stay as they are).
Precision: of the entries the matcher returned, the share that are right. Recall: of the cases with a right
entry, the share where the matcher returned it. The set is split in two halves by a hash of the phrase and
description: thresholds are calibrated on ``calibrate`` and reported on ``held_out``.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import yaml

PAIRS = Path(__file__).resolve().parents[2] / "data" / "matcher_pairs" / "pairs.yaml"


def load_pairs(path: Path = PAIRS) -> list[dict]:
    """The labelled cases (a YAML list)."""
    return yaml.safe_load(path.read_text())


def half(case: dict) -> str:
    """Which half a case is in: ``calibrate`` or ``held_out`` (stable, by a hash of its text)."""
    digest = hashlib.sha256(f"{case['phrase']}|{case['description']}".encode()).digest()
    return "calibrate" if digest[0] % 2 == 0 else "held_out"


def predict(case: dict, catalog) -> str | None:
    """The entry the matcher gives the case's phrase in its description (None: no entry)."""
    from tools.describe import match

    try:
        from tools.describe.match_context import match_in_context as contextual
    except ImportError:  # before issue 29
        contextual = None
    if contextual is not None:
        found = contextual(catalog, case["part"], case["phrase"], case["sentence"], case["description"])
    else:  # before issue 29: the phrase alone
        found = match.best_match(catalog, case["part"], case["phrase"])
    return found.id if found else None


def score(cases: list[dict]) -> dict:
    """tp, fp, fn, precision, recall and the wrong cases of a list of cases."""
    from knowledge.catalog import load_catalog

    catalog = load_catalog()
    tp = fp = fn = 0
    wrong = []
    for case in cases:
        got, want = predict(case, catalog), case["expect"]
        if got is not None and got == want:
            tp += 1
            continue
        if got is not None:
            fp += 1
        if want is not None:
            fn += 1
        wrong.append((case, got))
    return {"tp": tp, "fp": fp, "fn": fn, "precision": tp / max(1, tp + fp), "recall": tp / max(1, tp + fn),
            "wrong": wrong, "n": len(cases)}


def main(argv: list[str] | None = None) -> int:
    """Print precision and recall (and, with -v, every wrong case)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("--half", choices=("calibrate", "held_out", "all"), default="all")
    args = parser.parse_args(argv)
    cases = [c for c in load_pairs() if args.half in ("all", half(c))]
    result = score(cases)
    if args.verbose:
        for case, got in result["wrong"]:
            print(f"{case['part']} '{case['phrase']}' in '{case['sentence'][:70]}': got {got}, want {case['expect']}")
    print(f"{args.half}: {result['n']} cases, precision {result['precision']:.3f} ({result['tp']}/"
          f"{result['tp'] + result['fp']}), recall {result['recall']:.3f} ({result['tp']}/{result['tp'] + result['fn']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
