"""Issue 19 on a bundle built from a description (the demo's, at a smaller size): natural canonical
questions (median ≤ 20 words, 95th percentile ≤ 35), the suite header beside qa.jsonl, and persona
variants that keep each question's evidence and precise wording."""

from __future__ import annotations

import json
import statistics

import numpy as np
import pytest
from typer.testing import CliRunner

from graph.cli import app

DESCRIPTION = ("20 cell towers reporting dropped call rate, throughput and connected users every 15 minutes over "
               "2 days; cells go through active, congested and outage, with an outage on a few sites")


@pytest.mark.slow
def test_a_built_bundle_asks_short_natural_questions(tmp_path):
    out = tmp_path / "towers"
    r = CliRunner().invoke(app, ["build", DESCRIPTION, "-o", str(out), "--yes", "--no-memory", "--sessions",
                                 str(tmp_path / "s.sqlite")])
    assert r.exit_code == 0, r.output
    recs = [json.loads(x) for x in (out / "qa.jsonl").read_text().splitlines()]
    canon = [x for x in recs if not x["variant_of"]]
    words = [len(x["canonical_question"].split()) for x in canon]
    assert len(canon) >= 30
    assert statistics.median(words) <= 20 and np.percentile(words, 95) <= 35, words
    assert statistics.median(len(x["precise_question"].split()) for x in canon) > 2 * statistics.median(words)
    assert sum(bool(x["evidence"]) for x in canon) >= 0.9 * len(canon)
    header = json.loads((out / "suite.json").read_text())
    assert "cell tower" in header["preamble"] and header["window_bounds"] == "half-open"
    by_id = {x["id"]: x for x in canon}
    variants = [x for x in recs if x["variant_of"]]
    assert variants
    for v in variants:
        c = by_id[v["variant_of"]]
        assert v["canonical_question"] == c["question"] and v["evidence"] == c["evidence"]
        assert v["precise_question"] == c["precise_question"] and v["question"] != c["question"]
