"""The held-back horizon: forecast questions on every pack, checked on rows agents never see.

Holding back moves the last day of every table into holdout/ (data/ and data.duckdb keep the rest),
the agent's workspace and exports hold no held-back row, questions of the other families stay in
the visible data (their gold SQL still gives their answers), and nothing is held back unless asked.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections import Counter

import duckdb
import pandas as pd
import pytest

from tools.queries.context import open_context
from tools.queries.holdout import HoldoutError, read_holdout, split_holdout
from tools.queries.record import gold_sql_mismatches
from tools.queries.suite import synthesize

PACKS = ("ecommerce", "iot", "observability", "security", "telecom")
_HELD: dict = {}


def held(pack_suites, tmp_path_factory, pack: str):
    """A copy of the pack's bundle with its last day held back, and its forecast suite."""
    if pack not in _HELD:
        d = tmp_path_factory.mktemp(f"held-{pack}") / pack
        shutil.copytree(pack_suites[pack], d)
        split_holdout(d, "1d")
        ctx = open_context(d)
        try:
            _HELD[pack] = d, synthesize(ctx, only={"forecast": 6, "stateless": 3})
        finally:
            ctx.close()
    return _HELD[pack]


@pytest.mark.parametrize("pack", PACKS)
def test_every_pack_gives_six_forecast_questions_checked_on_held_back_rows(pack, pack_suites, tmp_path_factory):
    d, s = held(pack_suites, tmp_path_factory, pack)
    assert not s.disagreements
    assert Counter(r["family"] for r in s.records)["forecast"] == 6, s.shortfall
    cut = read_holdout(d)["cut"]
    for r in s.records:
        if r["family"] == "forecast":
            p = r["params"]["params"]
            assert r["params"]["window"]["start"] >= cut and "holdout/" in r["gold_sql"]
            tol = r["tolerance"]["rel"]
            assert abs(p["naive_forecast"] - r["answer"]) > tol * abs(r["answer"])  # seasonal naive fails
            assert abs(p["model_forecast"] - r["answer"]) <= tol * abs(r["answer"])  # Holt-Winters passes
            assert f"{p['tol_pct']}%" in r["question"]
        else:  # questions over the visible data end at the cut
            w = r["params"].get("window")
            assert w is None or w["end"] <= cut
    assert gold_sql_mismatches(d / "data.duckdb", s.records) == []


def test_the_split_partitions_the_rows_and_is_idempotent(pack_suites, tmp_path_factory):
    d, _ = held(pack_suites, tmp_path_factory, "iot")
    doc = read_holdout(d)
    src = pack_suites["iot"]
    for name, t in doc["tables"].items():
        before = pd.read_parquet(src / "data" / f"{name}.parquet")
        vis, back = pd.read_parquet(d / "data" / f"{name}.parquet"), pd.read_parquet(d / t["file"])
        assert len(vis) + len(back) == len(before) and len(back) == t["rows"] > 0
        assert vis[t["time"]].max() < pd.Timestamp(doc["cut"]) <= back[t["time"]].min()
        con = duckdb.connect(str(d / "data.duckdb"), read_only=True)
        assert con.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0] == len(vis)
        con.close()
    assert split_holdout(d, "1d") == doc
    with pytest.raises(HoldoutError, match="already holds back"):
        split_holdout(d, "12h")
    manifest = json.loads((d / "manifest.json").read_text())["files"]
    assert manifest["holdout/holdout.json"] == hashlib.sha256((d / "holdout" / "holdout.json").read_bytes()).hexdigest()


def test_agents_and_exports_never_see_held_back_rows(pack_suites, tmp_path_factory, tmp_path):
    from tools.bundle.tables import write_tables
    from tools.harness.workspace import agent_workspace

    d, _ = held(pack_suites, tmp_path_factory, "telecom")
    cut = pd.Timestamp(read_holdout(d)["cut"])
    for backend in ("duckdb", "parquet", "csv"):
        with agent_workspace(d, backend, parent=tmp_path) as ws:
            assert not list(ws.root.rglob("holdout*"))
            if backend == "duckdb":
                con = duckdb.connect(ws.context.db_path, read_only=True)
                for (name,) in con.execute("SELECT table_name FROM information_schema.tables").fetchall():
                    cols = [c[0] for c in con.execute(f'DESCRIBE "{name}"').fetchall()]
                    if "Timestamp" in cols:
                        assert con.execute(f'SELECT max("Timestamp") FROM "{name}"').fetchone()[0] < cut
                con.close()
            else:
                for f in (ws.root / "data").iterdir():
                    df = pd.read_parquet(f) if backend == "parquet" else pd.read_csv(f)
                    if "Timestamp" in df:
                        assert pd.to_datetime(df["Timestamp"], utc=True).max() < cut
    out = tmp_path / "export"
    out.mkdir()
    write_tables(d, out, "csv")
    for f in out.iterdir():
        df = pd.read_csv(f)
        if "Timestamp" in df:
            assert pd.to_datetime(df["Timestamp"], utc=True).max() < cut


def test_oracle_passes_and_seasonal_naive_fails_the_forecasts(pack_suites, tmp_path_factory, tmp_path):
    from tools.harness import build_context, load_responses, reference_agents, run_suite, summarize

    d, s = held(pack_suites, tmp_path_factory, "ecommerce")
    records = [r for r in s.records if r["family"] == "forecast"]
    agents, ctx = reference_agents(records, d), build_context(d)
    got = {}
    for name in ("oracle", "naive"):
        run_suite(records, agents[name](), ctx, tmp_path / name, trials=1, concurrency=2)
        got[name] = summarize(records, load_responses(tmp_path / name))
    assert got["oracle"]["accuracy"] == 1.0 and got["naive"]["accuracy"] == 0.0
    assert got["oracle"]["families"]["forecast"]["mase"] == 0.0
    assert got["naive"]["families"]["forecast"]["mase"] == pytest.approx(1.0)
    assert got["naive"]["families"]["forecast"]["mape"] > 0


def test_nothing_is_held_back_unless_asked(pack_suites):
    d = pack_suites["telecom"]
    assert read_holdout(d) is None and not (d / "holdout").exists()
    files = json.loads((d / "manifest.json").read_text())["files"]
    for f in (d / "data").glob("*.parquet"):
        assert files[f"data/{f.name}"] == hashlib.sha256(f.read_bytes()).hexdigest()
    ctx = open_context(d)
    try:
        from tools.queries.suite import quotas

        assert set(quotas(ctx, None)) <= {"stateless", "stateful", "incident"}
    finally:
        ctx.close()
