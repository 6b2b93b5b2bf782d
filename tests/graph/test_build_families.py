"""Issue 21 on a bundle built from a description (not a pack): every new question family gives at least
6 questions through every synthesis filter, both executors agreeing, forecasts on held-back rows."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from typer.testing import CliRunner

from graph.cli import app
from tools.queries.context import open_context
from tools.queries.holdout import split_holdout
from tools.queries.record import QARecord, gold_sql_mismatches
from tools.queries.suite import synthesize

DESCRIPTION = ("30 cell towers reporting dropped call rate, throughput and connected users every 15 minutes over "
               "3 days; cells go through active, congested and outage, with an outage on a few sites")
FAMILIES = ("shape", "detection", "forecast", "claim", "false_premise", "unanswerable")


@pytest.mark.slow
def test_a_built_bundle_gives_six_questions_of_every_new_family(tmp_path):
    out = tmp_path / "towers"
    r = CliRunner().invoke(app, ["build", DESCRIPTION, "-o", str(out), "--yes", "--no-memory", "--world-only",
                                 "--sessions", str(tmp_path / "s.sqlite")])
    assert r.exit_code == 0, r.output
    split_holdout(out, "1d")
    ctx = open_context(out)
    try:
        s = synthesize(ctx, only={f: 6 for f in FAMILIES})
    finally:
        ctx.close()
    assert not s.disagreements, [o.reason for o in s.disagreements]
    assert Counter(x["family"] for x in s.records) == {f: 6 for f in FAMILIES}, s.shortfall
    for x in s.records:
        QARecord.model_validate(json.loads(json.dumps(x)))
    assert Counter(x["answer"] for x in s.records if x["family"] == "claim") == {True: 3, False: 3}
    assert gold_sql_mismatches(out / "data.duckdb", s.records) == []
