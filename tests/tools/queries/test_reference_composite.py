"""Composite entity keys (issue 19): a transport link is Device_ID + Interface_ID (4 routers carry 6
links). On the public reference table, per-link count thresholds (plain and "within T") count links,
not routers, in both executors, as plain-Python loops over the CSV rows do; other templates refuse a
composite key rather than answer per router."""

from __future__ import annotations

import csv
from collections import defaultdict
from datetime import datetime, timedelta

import pandas as pd
import pytest

from tests.reference_data import reference_dir
from tools.queries.composite import key_columns
from tools.queries.spec import Predicate, QuerySpec

LINKS = reference_dir() / "transport_link_data.csv"
LOSS = {"column": "Packet_Loss_Percent", "op": ">", "value": 0.6}


@pytest.fixture(scope="module")
def links() -> dict[tuple[str, str], list[tuple[datetime, float]]]:
    out: dict[tuple[str, str], list] = defaultdict(list)
    with LINKS.open(newline="") as f:
        for r in csv.DictReader(f):
            out[(r["Device_ID"], r["Interface_ID"])].append(
                (datetime.fromisoformat(r["Timestamp"]), float(r["Packet_Loss_Percent"])))
    return {k: sorted(v) for k, v in out.items()}


@pytest.fixture
def bundle(tiny):
    df = pd.read_csv(LINKS)
    df["Timestamp"] = pd.to_datetime(df["Timestamp"], utc=True)
    return tiny({"transport_link": df})


def link_q(template: str, **kw) -> QuerySpec:
    return QuerySpec(template=template, table="transport_link", entity="Device_ID", time="Timestamp",
                     entity_parts=["Interface_ID"], **kw)


def test_links_with_more_than_n_lossy_readings(bundle, links):
    per = {k: sum(v > 0.6 for _t, v in rows) for k, rows in links.items()}
    n = sorted(per.values())[len(per) // 2]
    want = sum(c > n for c in per.values())
    spec = link_q("entity_count_threshold", event_filter=[Predicate.model_validate(LOSS)], params={"n": n})
    assert bundle.answer(spec) == want and 0 < want < len(links)
    assert bundle.naive(spec) == len(links) == 6  # links with a lossy reading, not the 4 routers
    per_router = spec.model_copy(update={"entity_parts": []})
    routers = defaultdict(int)
    for (dev, _i), c in per.items():
        routers[dev] += c
    assert bundle.answer(per_router) == sum(c > n for c in routers.values()) != want


def _within(rows, n: int) -> bool:
    ts = sorted(t for t, v in rows if v > 0.6)
    return any(ts[i + n] - ts[i] <= timedelta(hours=1) for i in range(len(ts) - n))


def test_links_with_more_than_n_lossy_readings_within_an_hour(bundle, links):
    routers: dict[str, list] = defaultdict(list)
    for (dev, _i), rows in links.items():
        routers[dev] += rows
    differs = False
    for n in (2, 3, 4):
        want = sum(_within(rows, n) for rows in links.values())
        spec = link_q("entity_count_streak", params={"a": LOSS, "n": n, "within_s": 3600})
        assert bundle.answer(spec) == want
        per_router = bundle.answer(spec.model_copy(update={"entity_parts": []}))
        assert per_router == sum(_within(rows, n) for rows in routers.values())
        differs |= per_router != want
    assert differs  # the key matters: a router's two links are not one stream


def test_other_templates_refuse_a_composite_key():
    with pytest.raises(ValueError, match="composite"):  # the keyed templates: test_reference_composite_keyed.py
        key_columns(link_q("detect_entities", params={"key": "Latency_ms"}))  # incident_*: test_incident_composite.py


def test_a_spec_with_a_composite_link_key_gets_per_link_questions(tmp_path):
    """The spec states a composite key as the reference data has it (repeated router ids, the interface a
    `listed` attribute); the catalog reads it and the count-threshold questions count links."""
    from knowledge.packs import load_pack
    from tools.generate import generate_bundle
    from tools.queries.catalog import build_catalog
    from tools.queries.context import open_context
    from tools.queries.evaluate import run_reference, run_sql
    from tools.queries.registry import load_templates

    raw = load_pack("telecom").model_dump(mode="json", by_alias=True, exclude_defaults=True)
    link = next(e for e in raw["entities"] if e["name"] == "transport_link")
    link["id"] = {"column": "Device_ID", "values": ["RTR_001", "RTR_001", "RTR_002", "RTR_003", "RTR_004", "RTR_004"]}
    iface = next(a for a in link["attributes"] if a["name"] == "Interface_ID")
    iface["dist"] = {"kind": "listed", "values": ["eth0", "eth2", "eth3", "eth1", "eth1", "eth3"]}
    from tools.spec.model import Spec

    spec = Spec.model_validate(raw)
    assert build_catalog(spec)["transport_link"].entity_parts == ("Interface_ID",)
    assert build_catalog(load_pack("telecom"))["transport_link"].entity_parts == ()
    generate_bundle(spec, tmp_path / "b", scale=0.2, force=True)
    ctx = open_context(tmp_path / "b")
    for name in ("entity_count_threshold", "entity_count_streak"):
        t = load_templates()[name]
        cands = [c for c in t.candidates(ctx) if c.spec.table == "transport_link"]
        assert cands and all(c.spec.entity_parts == ["Interface_ID"] for c in cands)
        for c in cands[:4]:  # both executors count links (6), not routers (4)
            a, b = run_reference(ctx, t, c.spec), run_sql(ctx, t.sql(c.spec), "integer")
            assert a == b and 0 <= a <= 6
            assert t.naive(ctx.frames, c.spec) <= 6
