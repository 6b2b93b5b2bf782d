"""Incident questions on a composite entity key (issue 19): a transport link is Device_ID + Interface_ID.
incidents.json names the degraded link (``RTR_001/eth2``), and the incident templates ask, count, rank and
name per link through the keyed view in both executors. Answers are pinned by plain Python grouping on both
columns, and differ from the answer per router (the router's other link was not degraded)."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pandas as pd
import pytest

from tests.reference_data import reference_dir
from tools.queries.spec import EntityFilter, Predicate, QuerySpec, Window

KEY = "Device_ID__Interface_ID"
INCIDENT = ["incident_exists", "incident_kpi", "incident_affected_count", "incident_top_k",
            "incident_worst_entity", "incident_vs_baseline", "incident_cross_entity", "incident_cross_table"]


def _links(df: pd.DataFrame) -> pd.DataFrame:
    return df.assign(link=df["Device_ID"].astype(str) + "/" + df["Interface_ID"].astype(str))


def _in(df: pd.DataFrame, w: Window) -> pd.DataFrame:
    return df[(df["Timestamp"] >= w.start_dt) & (df["Timestamp"] < w.end_dt)]


# -- a generated bundle from the spec `chronoeval infer` fits on the public link table ----------------------

@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(bundle frame, {template: [outcomes]}, incident record) for the inferred link spec plus a packet-loss
    degradation of one link, RTR_001/eth2 (RTR_001 also carries eth0)."""
    from tools.generate import generate_bundle
    from tools.infer import infer
    from tools.queries.context import open_context
    from tools.queries.evaluate import evaluate
    from tools.queries.registry import load_templates
    from tools.spec.model import Spec

    result, _ = infer([reference_dir() / "transport_link_data.csv"], fidelity=False)
    raw = result.spec.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    ent = raw["entities"][0]["name"]
    raw["incidents"] = [{"kind": "kpi_degradation", "id": "eth2_loss", "target": {"entity": ent, "ids": ["RTR_001/eth2"]},
                         "window": {"start": "day 1 06:00", "duration": "4h"}, "effects": {"Packet_Loss_Percent": "+3"}}]
    out = tmp_path_factory.mktemp("links") / "b"
    generate_bundle(Spec.model_validate(raw), out, seed=1, force=True)
    templates = load_templates()
    ctx = open_context(out, seed=3)
    try:
        res = {n: [evaluate(templates[n], c, ctx) for c in templates[n].candidates(ctx)] for n in INCIDENT}
        rec = ctx.incidents[0]
    finally:
        ctx.close()
    df = _links(pd.read_parquet(out / "data" / "transport_link_data.parquet"))
    return df, res, rec


def _main(res, name: str):
    kept = [o for o in res[name] if o.kept and not o.candidate.contrast]
    assert kept, [o.reason for o in res[name]]
    return kept


def test_manifest_and_executors_agree_per_link(built):
    _df, res, rec = built
    assert rec["entities"] == ["RTR_001/eth2"] and rec["key_parts"] == ["Interface_ID"]
    assert not [o.reason for outs in res.values() for o in outs if o.disagreement]
    for name in ("incident_kpi", "incident_worst_entity", "incident_vs_baseline", "incident_affected_count"):
        assert all(o.candidate.spec.entity_parts == ["Interface_ID"] for o in _main(res, name))


def test_kpi_is_the_degraded_links_mean(built):
    df, res, _rec = built
    for o in _main(res, "incident_kpi"):
        q = o.candidate.spec
        if q.p("agg") != "mean" or q.entity_filter is None:
            continue
        (p,) = q.entity_filter.predicates
        assert p.column == KEY and p.value == ["RTR_001/eth2"]
        rows = _in(df, q.window)
        want = rows.loc[rows["link"] == "RTR_001/eth2", q.p("key")].mean()
        router = rows.loc[rows["Device_ID"] == "RTR_001", q.p("key")].mean()
        assert o.answer == pytest.approx(want) and not math.isclose(want, router, rel_tol=0.05)
        return
    pytest.fail("no mean over the affected link")


def test_worst_entity_names_the_link(built):
    df, res, _rec = built
    o = next(o for o in _main(res, "incident_worst_entity") if o.candidate.spec.p("agg") == "mean")
    q = o.candidate.spec
    b = q.p("baseline")
    w = _in(df, q.window).groupby("link")[q.p("key")].mean()
    base = _in(df, Window(**b)).groupby("link")[q.p("key")].mean()
    rise = (w - base).sort_index()
    assert o.answer == (rise.idxmax() if q.p("order") == "desc" else rise.idxmin()) == "RTR_001/eth2"
    assert "Device_ID/Interface_ID" in o.question


def test_vs_baseline_and_affected_count_per_link(built):
    df, res, _rec = built
    o = next(o for o in _main(res, "incident_vs_baseline") if o.candidate.spec.p("figure") == "ratio")
    q = o.candidate.spec
    link = _in(df, q.window).query("link == 'RTR_001/eth2'")[q.p("key")].mean()
    base = _in(df, Window(**q.p("baseline"))).query("link == 'RTR_001/eth2'")[q.p("key")].mean()
    assert o.answer["ratio"] == pytest.approx(link / base)
    for o in _main(res, "incident_affected_count"):
        assert o.answer == 1  # one link; both of RTR_001's links would be counted under the router


# -- the public table with an incident: RTR_001/eth0 degraded from 2 January 00:00 (25 readings) -------------

W = Window(start="2026-01-02T00:00:00Z", end="2026-01-02T06:15:00Z")
BASE = {"start": "2026-01-01T00:00:00Z", "end": "2026-01-01T06:15:00Z"}


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    from tests.tools.queries.conftest import TinyBundle

    df = pd.read_csv(reference_dir() / "transport_link_with_inc_data.csv")
    df["Timestamp"] = pd.to_datetime(df["Timestamp"], utc=True)
    return _links(df), TinyBundle(tmp_path_factory.mktemp("inc"), {"transport_link": df})


def lq(template: str, **kw) -> QuerySpec:
    return QuerySpec(template=template, table="transport_link", entity="Device_ID", time="Timestamp",
                     entity_parts=["Interface_ID"], **kw)


def links(*xs) -> EntityFilter:
    return EntityFilter(predicates=[Predicate(column=KEY, op="in", value=list(xs))])


def test_reference_kpi_vs_baseline_and_cross_entity(ref):
    df, b = ref
    p = {"key": "Packet_Loss_Percent", "agg": "mean"}
    want = _in(df, W).query("link == 'RTR_001/eth0'")["Packet_Loss_Percent"].mean()
    router = _in(df, W).query("Device_ID == 'RTR_001'")["Packet_Loss_Percent"].mean()
    assert b.answer(lq("incident_kpi", window=W, entity_filter=links("RTR_001/eth0"), params=p)) == pytest.approx(want)
    per_router = QuerySpec(template="incident_kpi", table="transport_link", entity="Device_ID", time="Timestamp",
                           window=W, params=p,
                           entity_filter=EntityFilter(predicates=[Predicate(column="Device_ID", op="in",
                                                                            value=["RTR_001"])]))
    assert b.answer(per_router) == pytest.approx(router) and not math.isclose(want, router, rel_tol=0.05)
    assert b.answer(lq("incident_cross_entity", window=W, entity_filter=links("RTR_001/eth0"), params=p)) == \
        pytest.approx(want)
    base = _in(df, Window(**BASE)).query("link == 'RTR_001/eth0'")["Packet_Loss_Percent"].mean()
    got = b.answer(lq("incident_vs_baseline", window=W, entity_filter=links("RTR_001/eth0"),
                      params={**p, "direction": "up", "baseline": BASE, "figure": "ratio"}))
    assert got == {"value": want > base, "ratio": pytest.approx(want / base)}


def test_reference_worst_entity_and_top_k_name_links(ref):
    df, b = ref
    key = "Latency_ms"
    w = _in(df, W).groupby("link")[key].mean()
    rise = (w - _in(df, Window(**BASE)).groupby("link")[key].mean()).sort_index()
    got = b.answer(lq("incident_worst_entity", window=W, params={"key": key, "agg": "mean", "order": "desc",
                                                                  "baseline": BASE}))
    assert got == rise.idxmax() == "RTR_001/eth0"
    top = sorted(w.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
    got = b.answer(lq("incident_top_k", window=W, params={"key": key, "agg": "mean", "k": 3, "order": "desc"}))
    assert [e for e, _v in got] == [e for e, _v in top] and [v for _e, v in got] == pytest.approx([v for _e, v in top])


def test_reference_affected_count_and_exists_per_link(ref):
    df, b = ref
    key, n = "Packet_Loss_Percent", 3
    w, base = _in(df, W), _in(df, Window(**BASE))
    shift = w.groupby("link")[key].mean() - base.groupby("link")[key].mean()
    sd = base.groupby("link")[key].std()
    want = int(((shift > n * sd) & (sd > 0)).sum())
    p = {"key": key, "agg": "mean", "rule": "shift", "direction": "up", "n": n, "baseline": BASE}
    assert b.answer(lq("incident_affected_count", window=W, params=p)) == want == 1
    # whole clock hours of the window: 00:00 .. 05:00 on 2 January; any link's hourly mean above the value
    hours = w[w["Timestamp"] < datetime(2026, 1, 2, 6, tzinfo=UTC)]
    hourly = hours.groupby(["link", hours["Timestamp"].dt.floor("h")])[key].mean()
    router = hours.groupby(["Device_ID", hours["Timestamp"].dt.floor("h")])[key].mean()
    value = float(router.max())  # no router-hour is above it (RTR_001's hours mix eth0 with eth2)
    assert float(hourly.max()) > value
    e = {"key": key, "agg": "mean", "op": ">", "value": value, "per": "entity"}
    assert b.answer(lq("incident_exists", window=W, params=e)) is True  # per router (plain Python): False
    assert b.answer(lq("incident_exists", window=W, params={**e, "value": float(hourly.max())})) is False
