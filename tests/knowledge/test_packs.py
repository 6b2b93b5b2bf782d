"""Every built-in pack validates, round-trips, generates, and has domain-shaped tables."""

from pathlib import Path

import duckdb
import pytest

from knowledge.packs import list_packs, load_pack
from tools.generate import generate_bundle
from tools.spec import dump_spec, parse_spec_text

PACKS = ["ecommerce", "iot", "observability", "security", "telecom"]


def test_all_five_packs_ship():
    assert set(PACKS) <= set(list_packs())


@pytest.mark.parametrize("name", PACKS)
def test_pack_round_trips(name):
    spec = load_pack(name)
    assert parse_spec_text(dump_spec(spec)) == spec
    assert spec.personas, "packs carry personas for the paraphraser"


@pytest.fixture(scope="module")
def bundles(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("packs")
    return {name: Path(generate_bundle(load_pack(name), root / name).out) for name in PACKS}


def _con(bundles, name):
    return duckdb.connect(str(bundles[name] / "data.duckdb"), read_only=True)


def _columns(con, table):
    return [r[0] for r in con.execute(f'DESCRIBE "{table}"').fetchall()]


def _cadence_seconds(con, table, id_col, ts_col):
    """The distinct gaps between consecutive rows of one entity."""
    rows = con.execute(f'''
        SELECT DISTINCT epoch(ts - lag(ts) OVER (PARTITION BY id ORDER BY ts)) AS gap
        FROM (SELECT "{id_col}" AS id, "{ts_col}" AS ts FROM "{table}") WHERE true
        QUALIFY gap IS NOT NULL''').fetchall()
    return sorted(r[0] for r in rows)


def test_telecom_tables_match_the_agentfuel_shape(bundles):
    con = _con(bundles, "telecom")
    assert _columns(con, "transport_link") == ["Device_ID", "Interface_ID", "Bandwidth_Utilization_Out",
                                               "Packet_Loss_Percent", "Latency_ms", "Jitter_ms", "Timestamp"]
    assert {"MM_AttachedUEs", "SM_ActivePDUSessions", "CPU_Load", "Timestamp"} <= set(_columns(con, "core_node"))
    cell = set(_columns(con, "cell_site"))
    assert {"Cell_ID", "Base_Station_ID", "Location_Lat", "Location_Lon", "Transport_Device_ID",
            "RRC_ConnEstabAtt", "RRC_ConnEstabSucc", "RRC_ConnEstabFail", "DL_PRB_Utilization",
            "Cell_Availability", "Timestamp"} <= cell
    for table, key in [("transport_link", "Device_ID"), ("core_node", "Core_Node_ID"), ("cell_site", "Cell_ID")]:
        assert _cadence_seconds(con, table, key, "Timestamp") == [900.0]
    att, succ, fail, bad = con.execute("""SELECT avg(RRC_ConnEstabAtt), avg(RRC_ConnEstabSucc), avg(RRC_ConnEstabFail),
        count(*) FILTER (WHERE RRC_ConnEstabSucc + RRC_ConnEstabFail <> RRC_ConnEstabAtt) FROM cell_site""").fetchone()
    assert bad == 0 and 50 < att < 300 and succ > 0.8 * att and fail < 0.2 * att
    lo, med, hi = con.execute("SELECT min(Cell_Availability), median(Cell_Availability), max(Cell_Availability) "
                              "FROM cell_site").fetchone()
    assert 0 <= lo and hi <= 100 and 98 < med < 100
    loss, lat = con.execute("SELECT median(Packet_Loss_Percent), median(Latency_ms) FROM transport_link").fetchone()
    assert 0 <= loss < 2 and 3 < lat < 60
    orphans = con.execute("""SELECT count(*) FROM cell_site c ANTI JOIN transport_link t
        ON c.Transport_Device_ID = t.Device_ID""").fetchone()[0]
    assert orphans == 0


def test_ecommerce_is_a_users_table_plus_a_clickstream(bundles):
    con = _con(bundles, "ecommerce")
    assert _columns(con, "users")[:1] == ["user_id"]
    assert {"age", "country", "subscription_type", "device_type"} <= set(_columns(con, "users"))
    assert _columns(con, "sessions") == ["session_id", "user_id", "referrer", "page", "action",
                                         "did_purchase", "timestamp"]
    pages = {r[0] for r in con.execute("SELECT DISTINCT page FROM sessions").fetchall()}
    assert {"homepage", "search", "product", "cart", "checkout", "exit"} <= pages
    # a purchase only happens after a checkout in the same session
    bad = con.execute("""SELECT count(*) FROM (SELECT session_id,
            min(timestamp) FILTER (WHERE action = 'purchase') AS buy,
            min(timestamp) FILTER (WHERE page = 'checkout') AS co FROM sessions GROUP BY 1)
        WHERE buy IS NOT NULL AND (co IS NULL OR co > buy)""").fetchone()[0]
    assert bad == 0
    rate = con.execute("SELECT avg(p) FROM (SELECT max(did_purchase) p FROM sessions GROUP BY session_id)").fetchone()[0]
    assert 0.01 < rate < 0.2
    flag_consistent = con.execute("""SELECT count(*) FROM (SELECT session_id FROM sessions GROUP BY 1
        HAVING min(did_purchase) <> max(did_purchase))""").fetchone()[0]
    assert flag_consistent == 0
    orphans = con.execute("SELECT count(*) FROM sessions s ANTI JOIN users u USING (user_id)").fetchone()[0]
    assert orphans == 0
    # sessions start over the whole horizon, not all at once
    days = con.execute("SELECT count(DISTINCT date_trunc('day', timestamp)) FROM sessions").fetchone()[0]
    assert days >= 3


def test_iot_readings_are_sensor_shaped(bundles):
    con = _con(bundles, "iot")
    cols = set(_columns(con, "readings"))
    assert {"sensor_id", "device_state", "temperature_c", "humidity_pct", "pressure_hpa", "battery_pct",
            "signal_dbm", "timestamp"} <= cols
    assert {"sensor_id", "zone", "firmware"} <= set(_columns(con, "sensors"))
    states = {r[0] for r in con.execute("SELECT DISTINCT device_state FROM readings").fetchall()}
    assert {"operational", "warning", "critical", "maintenance", "offline"} <= states
    assert len(_cadence_seconds(con, "readings", "sensor_id", "timestamp")) == 1
    t_lo, t_hi, h_lo, h_hi, b_lo, b_hi, p_med = con.execute("""SELECT min(temperature_c), max(temperature_c),
        min(humidity_pct), max(humidity_pct), min(battery_pct), max(battery_pct), median(pressure_hpa)
        FROM readings""").fetchone()
    assert -40 <= t_lo and t_hi <= 85 and 0 <= h_lo and h_hi <= 100 and 0 <= b_lo and b_hi <= 100
    assert 950 < p_med < 1070


def test_observability_has_metrics_and_deploy_events(bundles):
    con = _con(bundles, "observability")
    tables = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    assert {"host_metrics", "deploys"} <= tables
    assert {"request_rate", "error_rate", "p95_latency_ms", "cpu_pct", "memory_pct"} <= set(_columns(con, "host_metrics"))
    err_lo, err_hi, cpu_hi = con.execute("SELECT min(error_rate), max(error_rate), max(cpu_pct) FROM host_metrics").fetchone()
    assert 0 <= err_lo and err_hi <= 100 and cpu_hi <= 100
    assert con.execute("SELECT count(*) FROM deploys").fetchone()[0] > 0


def test_security_has_login_and_egress_activity(bundles):
    con = _con(bundles, "security")
    assert {"logins", "failed_logins", "process_starts", "outbound_bytes"} <= set(_columns(con, "host_activity"))
    neg = con.execute("""SELECT count(*) FROM host_activity WHERE logins < 0 OR failed_logins < 0
        OR process_starts < 0 OR outbound_bytes < 0""").fetchone()[0]
    assert neg == 0
