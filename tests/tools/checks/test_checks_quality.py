"""Data-quality checks: they pass on clean generated data (every built-in pack, small scale) and
each one fails when the data is corrupted in the way it guards against."""

from __future__ import annotations

import json

import pytest

from knowledge.packs import list_packs, load_pack
from tools.checks import run_checks

from ._helpers import SHOP, by_key, copy_bundle, execute, make_bundle


@pytest.mark.parametrize("pack", list_packs())
def test_quality_checks_pass_on_every_pack(pack, tmp_path):
    spec = load_pack(pack)
    spec = spec.model_copy(update={"incidents": []})  # the packs' incidents are the patterns tests' business
    out = make_bundle(tmp_path / pack, spec, scale=0.05)
    checks = run_checks(out)
    quality = [c for c in checks if c.kind == "quality"]
    assert quality and not [c for c in checks if c.kind == "pattern"]
    failed = [f"{c.table}.{c.name}: {c.detail}" for c in quality if not c.passed]
    assert not failed, failed
    names = {c.name for c in quality}
    assert {"nulls", "duplicate_keys"} <= names
    if any(e.emission for e in spec.entities):
        assert "timestamps_monotonic" in names


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    return make_bundle(tmp_path_factory.mktemp("shop") / "out", SHOP)


def test_clean_shop_bundle_passes_every_check(shop):
    checks = run_checks(shop)
    assert all(c.passed for c in checks), [c for c in checks if not c.passed]
    names = {(c.name, c.table) for c in checks}
    for expected in [("nulls", "readings"), ("ranges", "readings"), ("cadence", "readings"),
                     ("duplicate_keys", "readings"), ("timestamps_monotonic", "readings"),
                     ("state_transitions", "readings"), ("terminal_states", "readings"),
                     ("foreign_keys", "readings"), ("state_transitions", "visits"), ("terminal_states", "visits"),
                     ("foreign_keys", "visits"), ("duplicate_keys", "sites"), ("foreign_keys", "sensors")]:
        assert expected in names, expected
    first = json.loads(json.dumps([c.model_dump() for c in checks]))[0]
    assert set(first) == {"name", "table", "kind", "passed", "detail", "sql", "incident"}


def _row(bundle, sql):
    import duckdb

    con = duckdb.connect(str(bundle / "data.duckdb"), read_only=True)
    try:
        return con.execute(sql).fetchone()
    finally:
        con.close()


# A visit whose path is landing -> browse -> ...: its second row is a 'catalog' page.
SECOND_ROW = ("SELECT visit_id, rid FROM (SELECT visit_id, rowid AS rid, row_number() OVER "
              "(PARTITION BY visit_id ORDER BY timestamp, rowid) AS k, page FROM visits) WHERE k = 2 AND page = 'catalog' "
              "ORDER BY rid LIMIT 1")
MIDDLE = "SELECT rowid FROM readings WHERE sensor_id = 'SENSOR_01' ORDER BY timestamp LIMIT 1 OFFSET 40"

CORRUPTIONS = {
    "out of bounds": ("ranges", "readings", lambda b: [f"UPDATE readings SET temperature = 999 WHERE rowid = {_row(b, MIDDLE)[0]}"]),
    "null value": ("nulls", "readings", lambda b: [f"UPDATE readings SET humidity = NULL WHERE rowid = {_row(b, MIDDLE)[0]}"]),
    "null attribute in a static table": ("nulls", "sites", lambda b: ["UPDATE sites SET region = NULL WHERE site_id = 'SITE_0'"]),
    "row deleted inside a series": ("cadence", "readings",
                                    lambda b: [f"DELETE FROM readings WHERE rowid = {_row(b, MIDDLE)[0]}"]),
    "off the cadence grid": ("cadence", "readings", lambda b: [
        f"UPDATE readings SET timestamp = timestamp + INTERVAL 1 MINUTE WHERE rowid = {_row(b, MIDDLE)[0]}"]),
    "duplicated key": ("duplicate_keys", "readings",
                       lambda b: [f"INSERT INTO readings SELECT * FROM readings WHERE rowid = {_row(b, MIDDLE)[0]}"]),
    "duplicated static id": ("duplicate_keys", "sites",
                             lambda b: ["INSERT INTO sites SELECT * FROM sites WHERE site_id = 'SITE_1'"]),
    "timestamps swapped": ("timestamps_monotonic", "readings", lambda b: [
        "CREATE TEMP TABLE pair AS SELECT rowid AS rid, timestamp AS ts FROM readings "
        "WHERE sensor_id = 'SENSOR_02' ORDER BY timestamp LIMIT 2 OFFSET 10",
        "UPDATE readings SET timestamp = (SELECT max(ts) FROM pair) WHERE rowid = (SELECT min(rid) FROM pair)",
        "UPDATE readings SET timestamp = (SELECT min(ts) FROM pair) WHERE rowid = (SELECT max(rid) FROM pair)"]),
    "unknown state": ("state_transitions", "readings", lambda b: [
        f"UPDATE readings SET device_state = 'exploded' WHERE rowid = {_row(b, MIDDLE)[0]}"]),
    "disallowed transition": ("state_transitions", "visits", lambda b: [
        f"UPDATE visits SET page = 'cart' WHERE rowid = {_row(b, SECOND_ROW)[1]}"]),
    "row after a terminal state": ("terminal_states", "visits", lambda b: [
        "INSERT INTO visits SELECT visit_id, site_id, 'catalog', 'browse', timestamp + INTERVAL 1 MINUTE FROM visits "
        "WHERE page = 'done' LIMIT 1"]),
    "orphan foreign key": ("foreign_keys", "readings", lambda b: [
        f"UPDATE readings SET site_id = 'SITE_99' WHERE rowid = {_row(b, MIDDLE)[0]}"]),
    "orphan foreign key in a static table": ("foreign_keys", "sensors", lambda b: [
        "UPDATE sensors SET site_id = 'NOWHERE' WHERE sensor_id = 'SENSOR_00'"]),
}


@pytest.mark.parametrize("case", list(CORRUPTIONS))
def test_each_quality_check_fails_on_corrupted_data(case, shop, tmp_path):
    name, table, statements = CORRUPTIONS[case]
    bundle = copy_bundle(shop, tmp_path / "bundle")
    execute(bundle, *statements(bundle))
    checks = by_key(run_checks(bundle))
    check = checks[(name, table, None)]
    assert not check.passed, check
    assert check.detail.split()[0].replace(",", "").isdigit()  # "<n> ... ; e.g. <examples>"
    assert "e.g." in check.detail
    # the recorded SQL is standalone and counts the offending rows
    assert _row(bundle, check.sql)[0] >= 1


def test_timestamp_corruption_is_not_blamed_on_cadence(shop, tmp_path):
    """Swapping two timestamps keeps the cadence and the keys intact: only monotonicity fails."""
    bundle = copy_bundle(shop, tmp_path / "bundle")
    execute(bundle, *CORRUPTIONS["timestamps swapped"][2](bundle))
    failed = {(c.name, c.table) for c in run_checks(bundle) if not c.passed}
    assert failed == {("timestamps_monotonic", "readings")}
