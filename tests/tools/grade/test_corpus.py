"""The grader on the labelled corpus (tests/data/grader/corpus.jsonl): real agents' answer shapes with
human labels. Acceptance: decided >= 95%, agreement on decided >= 99.5%, and no response a human
labelled incorrect (or a runtime error) graded correct. Prints decided and agreement per shape."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from tools.grade import grade_response

CORPUS = Path(__file__).parents[2] / "data" / "grader" / "corpus.jsonl"


def load_corpus() -> list[dict]:
    """The corpus rows."""
    return [json.loads(x) for x in CORPUS.read_text().splitlines() if x.strip()]


def as_record(row: dict) -> dict:
    """The qa.jsonl record a corpus row asks about."""
    return {"id": row["record"], "question": row["question"], "answer_type": row["answer_type"],
            "answer": row["expected"], "answer_text": row["answer_text"], "tolerance": row["tolerance"],
            "template": row["template"], "naive_answer": row["naive_answer"]}


def grade_corpus(rows: list[dict]) -> list[tuple[dict, str]]:
    """(row, grader outcome: correct / incorrect / runtime_error / undecided) for every row."""
    out = []
    for row in rows:
        g = grade_response(as_record(row), row["response"])
        out.append((row, g.label if g.decided else "undecided"))
    return out


def shape_table(graded: list[tuple[dict, str]]) -> str:
    """Decided share and agreement on decided, per response shape and overall."""
    by: dict[str, list] = defaultdict(list)
    for row, got in graded:
        by[row["shape"]].append((row["label"], got))
        by["ALL"].append((row["label"], got))
    lines = [f"{'shape':<22} {'n':>5} {'decided':>8} {'agree':>8}"]
    for shape, pairs in sorted(by.items(), key=lambda kv: (kv[0] == "ALL", kv[0])):
        dec = [(lab, got) for lab, got in pairs if got != "undecided"]
        agree = sum(lab == got for lab, got in dec) / len(dec) if dec else float("nan")
        lines.append(f"{shape:<22} {len(pairs):>5} {len(dec) / len(pairs):>8.1%} {agree:>8.1%}")
    return "\n".join(lines)


def test_the_corpus_is_large_and_has_every_shape_and_label():
    rows = load_corpus()
    assert len(rows) >= 1000
    assert sum(r["source"] == "hand" for r in rows) >= 200
    assert {r["label"] for r in rows} == {"correct", "incorrect", "runtime_error"}
    assert {"prose", "markdown_table", "json_records", "dataframe", "code_result", "id_list", "chart_only",
            "refusal", "clarifying_question", "several_candidates", "wrong_units", "prose_echo", "respectively",
            "composite_entity", "extra_keys"} <= {r["shape"] for r in rows}
    assert all(r["reason"] for r in rows)


def test_decided_agreement_and_no_false_correct_on_the_corpus():
    graded = grade_corpus(load_corpus())
    print("\n" + shape_table(graded))
    decided = [(r, g) for r, g in graded if g != "undecided"]
    wrong = [(r["record"], r["response"][:120], r["label"], g) for r, g in decided if g != r["label"]]
    false_correct = [w for w in wrong if w[3] == "correct"]
    assert not false_correct, "\n".join(map(str, false_correct))
    assert len(decided) / len(graded) >= 0.95
    assert 1 - len(wrong) / len(decided) >= 0.995, "\n".join(map(str, wrong))
