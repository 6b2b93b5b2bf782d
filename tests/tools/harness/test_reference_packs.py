"""On every built-in pack: oracle scores 1.0 and naive scores lower on stateful than on stateless."""

from __future__ import annotations

import json

import pytest

from knowledge.packs import load_pack
from tools.generate import generate_bundle
from tools.harness import build_context, load_responses, reference_agents, run_suite, summarize
from tools.queries.suite import build_suite

# observability's incident targets need a few more hosts than 0.3 of the pack gives
SCALES = {"ecommerce": 0.3, "iot": 0.3, "telecom": 0.3, "observability": 0.5, "security": 0.3}


@pytest.mark.slow
@pytest.mark.parametrize("pack", sorted(SCALES))
def test_oracle_is_perfect_and_naive_falls_for_stateful_traps(pack, tmp_path):
    bundle = tmp_path / pack
    generate_bundle(load_pack(pack), bundle, scale=SCALES[pack], force=True)
    build_suite(bundle, n=30, seed=0)
    records = [json.loads(x) for x in (bundle / "qa.jsonl").read_text().splitlines()]
    agents = reference_agents(records, bundle)
    ctx = build_context(bundle)
    got = {}
    for name in ("oracle", "naive"):
        run_suite(records, agents[name](), ctx, tmp_path / name, trials=1, concurrency=4)
        got[name] = summarize(records, load_responses(tmp_path / name))
    bad = [r for r in load_responses(tmp_path / "oracle") if r["label"] != "correct"]
    assert got["oracle"]["accuracy"] == 1.0, [(r["id"], r["template"], r["detail"]) for r in bad]
    fam = got["naive"]["by_family"]
    assert fam["stateful"]["accuracy"] < fam["stateless"]["accuracy"]
    assert got["naive"]["naive_trap_rate"] is not None and got["naive"]["naive_trap_rate"] > 0.5
