"""Composite entity keys in the stateful, ranking and distinct templates (issue 19): a transport link is
Device_ID + Interface_ID (4 routers carry 6 links). On the public reference tables each answer is pinned
to a plain-Python computation over the CSV rows grouped by both columns, both executors give it, and the
same question keyed by the router alone gives another answer (so each test can fail). Answers naming a
link name it ``Device_ID/Interface_ID`` (tools/queries/composite.py)."""

from __future__ import annotations

import csv
from collections import defaultdict
from datetime import datetime

import pandas as pd
import pytest

from tests.reference_data import reference_dir
from tools.queries.composite import SEPARATOR, key_columns
from tools.queries.registry import load_templates
from tools.queries.spec import Predicate, QuerySpec

FILES = ("transport_link_data.csv", "transport_link_with_inc_data.csv")
LOSS = {"column": "Packet_Loss_Percent", "op": ">", "value": 0.6}
CLEAR = {"column": "Packet_Loss_Percent", "op": "<", "value": 0.4}
LOSSY = {"predicate": LOSS}


def _links(name: str) -> dict[str, list[dict]]:
    """Rows per link (named 'RTR_001/eth2'), in time order."""
    out: dict[str, list[dict]] = defaultdict(list)
    with (reference_dir() / name).open(newline="") as f:
        for r in csv.DictReader(f):
            r["t"] = datetime.fromisoformat(r["Timestamp"])
            out[f"{r['Device_ID']}{SEPARATOR}{r['Interface_ID']}"].append(r)
    return {k: sorted(v, key=lambda r: r["t"]) for k, v in out.items()}


@pytest.fixture(scope="module", params=FILES)
def data(request, tmp_path_factory):
    """(plain rows per link, a tiny bundle of the same table)."""
    from tests.tools.queries.conftest import TinyBundle

    df = pd.read_csv(reference_dir() / request.param)
    df["Timestamp"] = pd.to_datetime(df["Timestamp"], utc=True)
    bundle = TinyBundle(tmp_path_factory.mktemp("links"), {"transport_link": df})
    return _links(request.param), bundle


def link_q(template: str, **kw) -> QuerySpec:
    return QuerySpec(template=template, table="transport_link", entity="Device_ID", time="Timestamp",
                     entity_parts=["Interface_ID"], **kw)


def per_router(bundle, q: QuerySpec):
    return bundle.answer(q.model_copy(update={"entity_parts": []}))


def lossy(r: dict) -> bool:
    return float(r["Packet_Loss_Percent"]) > 0.6


def test_state_duration_replays_each_link(data):
    """Mean duration of completed lossy episodes: from an episode's first row to the link's next row
    that is not lossy (an episode still open at the link's last row does not count)."""
    links, bundle = data
    spans = []
    for rows in links.values():
        start = None
        for i, r in enumerate(rows):
            if lossy(r) and (i == 0 or not lossy(rows[i - 1])):
                start = r["t"]
            if start is not None and not lossy(r):
                spans.append((r["t"] - start).total_seconds())
                start = None
    want = sum(spans) / len(spans)
    q = link_q("state_duration", params={"state": LOSSY, "value": "in"})
    assert bundle.answer(q) == pytest.approx(want)
    assert per_router(bundle, q) != pytest.approx(want)  # a router's two links are not one stream


def test_avg_time_between_pairs_within_each_link(data):
    """Each link's first lossy reading to its first clear reading strictly after it, averaged over links."""
    links, bundle = data
    gaps = []
    for rows in links.values():
        ta = next((r["t"] for r in rows if lossy(r)), None)
        tb = next((r["t"] for r in rows if ta is not None and r["t"] > ta
                   and float(r["Packet_Loss_Percent"]) < 0.4), None)
        if tb is not None:
            gaps.append((tb - ta).total_seconds())
    want = sum(gaps) / len(gaps)
    q = link_q("avg_time_between", params={"a": LOSS, "b": CLEAR})
    assert bundle.answer(q) == pytest.approx(want)
    assert per_router(bundle, q) != pytest.approx(want)


def test_transition_counts_per_link(data):
    """Transitions out of the lossy state: a lossy row followed, on the same link, by a clear one."""
    links, bundle = data
    n = sum(lossy(a) and not lossy(b) for rows in links.values() for a, b in zip(rows, rows[1:], strict=False))
    q = link_q("transition_counts", params={"state": LOSSY, "value": "in"})
    assert bundle.answer(q) == {"out": n}
    assert per_router(bundle, q) != {"out": n}


def test_top_k_by_peak_loss_names_links(data):
    links, bundle = data
    peaks = {k: max(float(r["Packet_Loss_Percent"]) for r in rows) for k, rows in links.items()}
    best = sorted(peaks.items(), key=lambda kv: (-kv[1], kv[0]))[:2]
    q = link_q("top_k_by_aggregate", params={"k": 2, "key": "Packet_Loss_Percent", "agg": "max"})
    got = bundle.answer(q)
    assert [name for name, _v in got] == [name for name, _v in best]
    assert [v for _n, v in got] == pytest.approx([v for _n, v in best])
    assert all(SEPARATOR in name for name, _v in got)  # 'RTR_001/eth0', not 'RTR_001'
    assert [name for name, _v in per_router(bundle, q)] != [name for name, _v in best]


def test_distinct_count_counts_links(data):
    links, bundle = data
    want = sum(any(float(r["Packet_Loss_Percent"]) > 1.2 for r in rows) for rows in links.values())
    high = Predicate(column="Packet_Loss_Percent", op=">", value=1.2)
    q = link_q("distinct_count", event_filter=[high])
    assert bundle.answer(q) == want
    routers = {k.split(SEPARATOR)[0] for k, rows in links.items()
               if any(float(r["Packet_Loss_Percent"]) > 1.2 for r in rows)}
    assert per_router(bundle, q) == len(routers) != want


@pytest.mark.parametrize("name", ["state_reached", "revisit_count", "first_passage_time", "sequence_match",
                                  "state_occupancy", "alternating_count", "group_aggregate"])
def test_other_keyed_templates_agree_per_link(data, name):
    """Both executors agree on the full key for the rest of the keyed templates (bundle.answer asserts it)."""
    _links_, bundle = data
    params = {"state_reached": {"state": LOSSY, "value": "in"}, "revisit_count": {"state": LOSSY, "value": "in"},
              "first_passage_time": {"state": LOSSY, "value": "in"}, "sequence_match": {"steps": [LOSS, CLEAR]},
              "state_occupancy": {"state": LOSSY}, "alternating_count": {"state": LOSSY, "a": "out", "b": "in"},
              "group_aggregate": {"agg": "max", "key": "Jitter_ms"}}[name]
    q = link_q(name, params=params, group_by="Device_ID" if name == "group_aggregate" else None)
    got = bundle.answer(q)
    if name == "group_aggregate":  # grouped by the entity: one group per link, named by its full key
        assert got == pytest.approx({k: max(float(r["Jitter_ms"]) for r in rows) for k, rows in _links_.items()})
    elif name in ("state_reached", "sequence_match"):
        assert got == 6 and per_router(bundle, q) == 4


def test_refusals_and_static_filters():
    from tools.queries.composite import keyed_spec
    from tools.queries.spec import EntityFilter

    with pytest.raises(ValueError, match="composite"):
        key_columns(link_q("forecast_mean"))
    ef = EntityFilter(predicates=[Predicate(column="tier", op="==", value="core")], table="routers",
                      key="Device_ID", ref="router_id")
    with pytest.raises(ValueError, match="one column"):
        keyed_spec(link_q("state_reached", entity_filter=ef, params={"state": LOSSY, "value": "in"}))
    via = {"table": "routers", "key": "Device_ID", "ref": "router_id"}
    with pytest.raises(ValueError, match="one column"):
        keyed_spec(link_q("occupancy_by", group_by="tier", params={"state": LOSSY, "value": "in", "group_via": via}))
    t = load_templates()["state_reached"]
    plain = link_q("state_reached", params={"state": LOSSY, "value": "in"}).model_copy(update={"entity_parts": []})
    assert "__keyed" not in t.sql(plain)  # a single-column key runs the template's SQL unchanged


def _gateway_spec():
    """The iot pack with a composite sensor key: 8 gateways with 3 ports each (gateway id repeated, the
    port a ``listed`` attribute), 3 days, no incidents."""
    from knowledge.packs import load_pack
    from tools.spec.model import Spec

    raw = load_pack("iot").model_dump(mode="json", by_alias=True, exclude_defaults=True)
    e = raw["entities"][0]
    e["id"] = {"column": "sensor_id", "values": [f"GW_{i // 3:02d}" for i in range(24)]}
    e["count"] = 24
    e["attributes"].append({"name": "port", "dist": {"kind": "listed", "values": [f"p{i % 3}" for i in range(24)]}})
    raw.update(horizon="3d", incidents=[])
    return Spec.model_validate(raw)


@pytest.fixture(scope="module")
def gateways(tmp_path_factory):
    """A synthesis context over the generated gateway/port bundle."""
    from tools.generate import generate_bundle
    from tools.queries.context import open_context

    root = tmp_path_factory.mktemp("gateways") / "b"
    generate_bundle(_gateway_spec(), root, scale=1.0, force=True)
    return open_context(root)


def test_synthesis_offers_keyed_templates_on_a_composite_table(gateways):
    """Candidates of the keyed templates carry the full key; both executors agree on them; a ranking names
    sensors as gateway/port; suite.json states the key and its format."""
    from tools.queries.answers import agree
    from tools.queries.conventions import suite_header
    from tools.queries.evaluate import run_reference, run_sql
    from tools.queries.natural import natural

    ctx = gateways
    header = suite_header(ctx.catalog, 2026)["tables"]["readings"]
    assert header["key"] == ["sensor_id", "port"] and header["key_format"] == "sensor_id/port"
    assert "sensor_id/port" in suite_header(ctx.catalog, 2026)["preamble"]
    templates = load_templates()
    for name in ("state_duration", "transition_counts", "top_transitions", "common_paths", "avg_time_between",
                 "top_k_by_aggregate", "distinct_count", "threshold_without_outcome", "transition_count_by",
                 "reached_by", "group_aggregate"):
        t = templates[name]
        cands = [c for c in t.candidates(ctx) if c.spec.table == "readings"]
        assert cands and all(c.spec.entity_parts == ["port"] for c in cands), name
        runs = 0
        for c in cands:
            a = run_reference(ctx, t, c.spec)
            assert agree(a, run_sql(ctx, t.sql(c.spec), t.type_of(c.spec))), (name, c.spec.to_json())
            if name == "top_k_by_aggregate":  # the ranking names gateway/port, and the evidence says so
                assert all(label.count(SEPARATOR) == 1 and label.startswith("GW_") for label, _v in a or [])
                assert natural(t, c, ctx, "")[1].endswith("Name each sensor as sensor_id/port.")
            runs += 1
            if runs == 2:
                break
        assert runs, name


def test_partitioned_table_answers_per_link(tmp_path, data):
    """A table in parts (one router's links in different parts): the streamed reference answers per link
    as on one file, also for the templates whose part-by-part merge groups by the first column alone."""
    from tools.queries.reference.frames import Frames
    from tools.queries.stream import StreamExecutor

    _links_, bundle = data
    df = pd.read_parquet(bundle.root / "data" / "transport_link.parquet")
    parts = tmp_path / "data" / "transport_link"
    parts.mkdir(parents=True)
    first = df["Interface_ID"].isin(["eth0", "eth1"])  # RTR_001/eth0 in part 0, RTR_001/eth2 in part 1
    df[first].to_parquet(parts / "part-00000.parquet", index=False)
    df[~first].to_parquet(parts / "part-00001.parquet", index=False)
    ex, templates = StreamExecutor(tmp_path), load_templates()
    assert ex.partitioned(link_q("distinct_count"))
    for q in (link_q("top_k_by_aggregate", params={"k": 2, "key": "Packet_Loss_Percent", "agg": "max"}),
              link_q("state_duration", params={"state": LOSSY, "value": "in"}),
              link_q("distinct_count", event_filter=[Predicate(column="Packet_Loss_Percent", op=">", value=1.2)])):
        assert ex.run(templates[q.template], q, Frames(tmp_path)) == bundle.answer(q), q.template


def test_the_grader_reads_link_labels():
    """Rankings and mappings whose labels are composite keys: the router part of a label is no stray id."""
    from tools.grade.structured import match_mapping, match_ranking

    want = [["RTR_001/eth0", 2.0], ["RTR_001/eth2", 1.55]]
    assert match_ranking("1. RTR_001/eth0 (2.00%)\n2. RTR_001/eth2 (1.55%)", want, {}).correct
    assert not match_ranking("1. RTR_001/eth2 (1.55%)\n2. RTR_001/eth0 (2.00%)", want, {}).correct
    assert not match_ranking("1. RTR_001/eth0 (2.00%)\n2. RTR_003/eth1 (1.51%)", want, {}).correct
    assert match_mapping("RTR_001/eth0: 3, RTR_004/eth3: 1", {"RTR_001/eth0": 3, "RTR_004/eth3": 1}, {}).correct
    assert not match_mapping("RTR_001/eth0: 3, RTR_004/eth3: 2", {"RTR_001/eth0": 3, "RTR_004/eth3": 1}, {}).correct


def test_an_entity_filter_selects_links(data):
    """Readings of the links that ever lost more than 1.3% of packets: the router's other link is not one."""
    links, bundle = data
    want = sum(len(rows) for rows in links.values() if any(float(r["Packet_Loss_Percent"]) > 1.3 for r in rows))
    ef = {"predicates": [{"column": "Packet_Loss_Percent", "op": ">", "value": 1.3}]}
    q = link_q("event_count", entity_filter=ef)
    assert bundle.answer(q) == want
    assert per_router(bundle, q) > want


def test_a_static_attribute_filter_selects_sensors_by_the_full_key(gateways):
    """"Readings of the sensors in zone Z": the static table has one row per (gateway, port); a gateway's
    ports may sit in different zones, so matching the gateway alone would take rows of other zones."""
    from tools.queries.evaluate import run_reference, run_sql

    ctx = gateways
    rows = pd.read_parquet(ctx.bundle / "data" / "readings.parquet", columns=["sensor_id", "port"])
    static = pd.read_parquet(ctx.bundle / "data" / "sensors.parquet", columns=["sensor_id", "port", "zone"])
    counts = {}
    for zone in sorted(static["zone"].unique()):
        pairs = set(map(tuple, static.loc[static["zone"] == zone, ["sensor_id", "port"]].to_numpy()))
        gws = {g for g, _p in pairs}
        want = sum((g, p) in pairs for g, p in rows.itertuples(index=False))
        by_gateway = sum(g in gws for g in rows["sensor_id"])
        ef = {"predicates": [{"column": "zone", "op": "==", "value": zone}], "table": "sensors",
              "key": "sensor_id", "ref": "sensor_id"}
        q = QuerySpec.model_validate({"template": "event_count", "table": "readings", "entity": "sensor_id",
                                      "time": "timestamp", "entity_parts": ["port"], "entity_filter": ef})
        t = load_templates()["event_count"]
        assert run_reference(ctx, t, q) == run_sql(ctx, t.sql(q), "integer") == want
        counts[zone] = (want, by_gateway)
    assert any(w != g for w, g in counts.values())  # some gateway has ports in two zones


def test_a_group_read_from_the_static_table_follows_the_full_key(gateways):
    """Readings per zone, the zone read from the static table (one row per gateway/port)."""
    from tools.queries.evaluate import run_reference, run_sql

    ctx = gateways
    rows = pd.read_parquet(ctx.bundle / "data" / "readings.parquet", columns=["sensor_id", "port"])
    static = pd.read_parquet(ctx.bundle / "data" / "sensors.parquet", columns=["sensor_id", "port", "zone"])
    zone_of = {(g, p): z for g, p, z in static.itertuples(index=False)}
    want: dict[str, int] = defaultdict(int)
    for g, p in rows.itertuples(index=False):
        want[zone_of[(g, p)]] += 1
    q = QuerySpec.model_validate({"template": "group_aggregate", "table": "readings", "entity": "sensor_id",
                                  "time": "timestamp", "entity_parts": ["port"], "group_by": "zone",
                                  "params": {"agg": "count", "group_table": "sensors", "group_key": "sensor_id",
                                             "group_ref": "sensor_id"}})
    t = load_templates()["group_aggregate"]
    assert run_reference(ctx, t, q) == run_sql(ctx, t.sql(q), "mapping") == dict(want)
