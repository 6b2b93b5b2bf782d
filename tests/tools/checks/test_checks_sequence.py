"""The sequence checks' fast paths (the clean-table certificate and the storage-order scan): each is
taken only when it provably gives the counts of the canonical sorted pass, violations are still
caught, and every recorded SQL reproduces its verdict."""

from __future__ import annotations

import re

import pytest

from tools.bundle.opened import Bundle, open_bundle
from tools.checks import run_checks
from tools.checks.sequence import certified_clean, seq_checks, seq_sql, stream_counts
from tools.checks.tables import table_infos

from ._helpers import SHOP, TELECOM, by_key, copy_bundle, execute, make_bundle
from .test_checks_quality import CORRUPTIONS, _row


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    return make_bundle(tmp_path_factory.mktemp("shop") / "out", SHOP)


def _counts(bundle, table: str) -> tuple[list[int] | None, list[int]]:
    """(fast-path counts or None, canonical sorted-pass counts) of the paired checks of a table."""
    b = open_bundle(bundle, rowids=True)
    try:
        t = next(t for t in table_infos(b.spec, b.tables) if t.name == table)
        paired = [c for c in seq_checks(b, t) if c.paired]
        sums = "".join(f", count(*) FILTER (WHERE {c.pred})" for c in paired)
        return stream_counts(b, t, paired), [int(n) for n in b.one(f"SELECT count(*){sums} FROM ({seq_sql(t)}) s")[1:]]
    finally:
        b.close()


@pytest.mark.parametrize("table", ["readings", "visits"])
def test_fast_path_is_taken_on_generated_data_and_agrees(shop, table):
    fast, canonical = _counts(shop, table)
    assert fast is not None, "the writer's order (entity-major, time-ordered) should allow the storage-order scan"
    assert fast == canonical


# Corruptions that keep every entity contiguous and in time order: the fast path runs and must fail.
IN_ORDER = {"row deleted inside a series": "readings", "off the cadence grid": "readings",
            "unknown state": "readings", "disallowed transition": "visits"}


@pytest.mark.parametrize("case", list(IN_ORDER))
def test_fast_path_catches_violations(case, shop, tmp_path):
    name, table, statements = CORRUPTIONS[case]
    bundle = copy_bundle(shop, tmp_path / "bundle")
    execute(bundle, *statements(bundle))
    fast, canonical = _counts(bundle, IN_ORDER[case])
    assert fast is not None and fast == canonical
    if case != "unknown state":  # known states of a periodic table are a single-row check, not a paired one
        assert sum(fast) >= 1
    assert not by_key(run_checks(bundle))[(name, table, None)].passed


REORDERED = {
    # every entity still in time order, but interleaved: not one run per entity
    "rows stored in time order": ["CREATE TABLE r2 AS SELECT * FROM readings ORDER BY timestamp, sensor_id",
                                  "DROP TABLE readings", "ALTER TABLE r2 RENAME TO readings"],
    # a row of SENSOR_03 stored again at the end (a second run of that entity)
    "duplicate appended": ["INSERT INTO readings SELECT * FROM readings WHERE sensor_id = 'SENSOR_03' "
                           "ORDER BY timestamp LIMIT 1 OFFSET 5"],
    # t, t+1, t: the duplicate is not next to its twin in file order (a descent precedes it)
    "duplicate two rows later": [
        "UPDATE readings SET timestamp = (SELECT timestamp FROM readings WHERE sensor_id = 'SENSOR_04' "
        "ORDER BY timestamp LIMIT 1 OFFSET 10) WHERE rowid = (SELECT rowid FROM readings WHERE sensor_id = "
        "'SENSOR_04' ORDER BY timestamp LIMIT 1 OFFSET 12)"],
}


@pytest.mark.parametrize("case", list(REORDERED))
def test_fast_path_declines_when_storage_order_is_not_time_order(case, shop, tmp_path):
    bundle = copy_bundle(shop, tmp_path / "bundle")
    execute(bundle, *REORDERED[case])
    fast, canonical = _counts(bundle, "readings")
    assert fast is None
    checks = by_key(run_checks(bundle))
    if case == "rows stored in time order":  # a different storage order is no defect
        assert all(c.passed for c in checks.values() if c.table == "readings"), checks
    else:  # the pairs the storage order cannot see are still found by the sorted pass
        assert not checks[("duplicate_keys", "readings", None)].passed
        assert canonical[0] >= 1


def test_fast_path_declines_on_a_hash_collision(shop, monkeypatch):
    real = Bundle.id_stats

    def colliding(self, table, id_col):
        ids, hashes, null = real(self, table, id_col)
        return ids, hashes - 1, null

    monkeypatch.setattr(Bundle, "id_stats", colliding)
    assert _counts(shop, "readings")[0] is None
    assert all(c.passed for c in run_checks(shop))


@pytest.mark.parametrize("case", ["clean", *CORRUPTIONS])
def test_recorded_sql_reproduces_every_quality_verdict(case, shop, tmp_path):
    bundle = copy_bundle(shop, tmp_path / "bundle")
    if case != "clean":
        execute(bundle, *CORRUPTIONS[case][2](bundle))
    for c in run_checks(bundle):
        if c.kind != "quality":
            continue
        n = _row(bundle, c.sql)[0]
        if c.passed:
            assert n == 0, (case, c)
        else:
            assert n == int(re.match(r"[\d,]+", c.detail).group().replace(",", "")), (case, c)


@pytest.fixture(scope="module")
def telecom(tmp_path_factory):
    return make_bundle(tmp_path_factory.mktemp("tel") / "out", TELECOM)


def _certified(bundle, table: str) -> bool:
    b = open_bundle(bundle, rowids=True)
    try:
        t = next(t for t in table_infos(b.spec, b.tables) if t.name == table)
        return certified_clean(b, t, [c for c in seq_checks(b, t) if c.paired])
    finally:
        b.close()


def test_certificate_holds_only_where_there_is_nothing_to_count(telecom):
    assert _certified(telecom, "transport_link")
    assert not _certified(telecom, "core_node")  # the data_outage leaves a gap: counted (and allowed)
    assert all(c.passed for c in run_checks(telecom) if c.kind == "quality")


ONE = "SELECT rowid FROM transport_link WHERE Device_ID = 'RTR_001' ORDER BY Timestamp LIMIT 1 OFFSET 30"
BROKEN = {
    "row deleted": ("cadence", [f"DELETE FROM transport_link WHERE rowid = ({ONE})"]),
    # steps of two ticks stored two rowids apart: t - step * rowid stays constant, contiguity does not
    "every other row deleted": ("cadence", ["DELETE FROM transport_link WHERE Device_ID = 'RTR_004' AND rowid % 2 = 0"]),
    "off the grid": ("cadence", [f"UPDATE transport_link SET Timestamp = Timestamp + INTERVAL 1 MINUTE WHERE rowid = ({ONE})"]),
    "a whole series shifted off the grid": ("cadence", [
        "UPDATE transport_link SET Timestamp = Timestamp + INTERVAL 1 MINUTE WHERE Device_ID = 'RTR_003'"]),
    "duplicate appended": ("duplicate_keys", [f"INSERT INTO transport_link SELECT * FROM transport_link WHERE rowid = ({ONE})"]),
    "timestamps swapped": ("timestamps_monotonic", [
        "CREATE TEMP TABLE pair AS SELECT rowid AS rid, Timestamp AS ts FROM transport_link "
        "WHERE Device_ID = 'RTR_002' ORDER BY Timestamp LIMIT 2 OFFSET 10",
        "UPDATE transport_link SET Timestamp = (SELECT max(ts) FROM pair) WHERE rowid = (SELECT min(rid) FROM pair)",
        "UPDATE transport_link SET Timestamp = (SELECT min(ts) FROM pair) WHERE rowid = (SELECT max(rid) FROM pair)"]),
    "null timestamp": ("nulls", [f"UPDATE transport_link SET Timestamp = NULL WHERE rowid = ({ONE})"]),
    # 16 minutes before a 15-minute grid's start is off the grid, although truncating division says
    # "one step before the first row" (the check floors, it does not truncate)
    "row 16 minutes before the start": ("cadence", [
        "INSERT INTO transport_link SELECT * REPLACE (Timestamp - INTERVAL 16 MINUTE AS Timestamp) "
        "FROM transport_link WHERE Device_ID = 'RTR_001' ORDER BY Timestamp LIMIT 1"]),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_certificate_breaks_on_every_corruption_and_the_check_fails(case, telecom, tmp_path):
    name, statements = BROKEN[case]
    bundle = copy_bundle(telecom, tmp_path / "bundle")
    execute(bundle, *statements)
    assert not _certified(bundle, "transport_link")
    check = by_key(run_checks(bundle))[(name, "transport_link", None)]
    assert not check.passed, check
    assert _row(bundle, check.sql)[0] >= 1
