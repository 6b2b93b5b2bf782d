"""DDL only: roles and defaults from types and names, every default reported as a guess."""

from __future__ import annotations

import pytest

from tools.infer import InferError, infer
from tools.infer.fidelity import regenerate
from tools.spec.io import parse_spec_text

DDL = """
CREATE TABLE links (
  device_id VARCHAR PRIMARY KEY,
  vendor TEXT,
  capacity_gbps DOUBLE
);
-- one row per link every interval
CREATE TABLE link_metrics (
  device_id VARCHAR REFERENCES links(device_id),
  ts TIMESTAMP NOT NULL,
  latency_ms DOUBLE,
  loss_pct DOUBLE,
  error_count INTEGER,
  PRIMARY KEY (device_id, ts)
);
CREATE TABLE alarms (
  alarm_id BIGINT PRIMARY KEY,
  device_id VARCHAR,
  raised_at TIMESTAMPTZ,
  cpu_temp REAL,
  FOREIGN KEY (device_id) REFERENCES links (device_id)
);
"""


@pytest.fixture
def drafted(tmp_path):
    p = tmp_path / "schema.sql"
    p.write_text(DDL)
    return infer([], ddl=p)


def test_ddl_names_and_types_give_defaults(drafted):
    result, report = drafted
    assert [e.name for e in result.spec.entities] == ["device", "alarm"]  # named from the id column, as from samples
    links = result.spec.entity("device")
    assert links.static_table == "links" and links.table == "link_metrics"  # metrics folded into the dimension
    assert links.emission.cadence == "15m" and links.emission.timestamp_column == "ts"
    ms = {m.name: m for m in links.measurements}
    assert ms["latency_ms"].unit == "ms" and ms["latency_ms"].bounds == (0, None)
    assert ms["loss_pct"].bounds == (0, 100) and ms["loss_pct"].unit == "%"
    assert ms["error_count"].noise.kind == "poisson"
    assert {a.name: a.emit for a in links.attributes} == {"vendor": "static", "capacity_gbps": "static"}
    alarms = result.spec.entity("alarm")
    assert {a.name: a.dist.kind for a in alarms.attributes} == {"device_id": "foreign_key"}
    assert next(a for a in alarms.attributes if a.name == "device_id").dist.entity == "device"
    assert "## Guesses" in report and "latency-like" in report and "placeholder labels" in report
    assert parse_spec_text(result.yaml_text) == result.spec


def test_ddl_spec_generates(drafted):
    tables = regenerate(drafted[0].spec, seed=1, scale=0.5)
    assert set(tables) == {"links", "link_metrics", "alarms"} and len(tables["link_metrics"]) > 0
    assert tables["link_metrics"]["loss_pct"].between(0, 100).all()


def test_ddl_without_create_table(tmp_path):
    p = tmp_path / "x.sql"
    p.write_text("SELECT 1;")
    with pytest.raises(InferError, match="no CREATE TABLE statement found"):
        infer([], ddl=p)


def test_samples_plus_ddl_adds_tables_without_samples(tmp_path):
    csv = tmp_path / "hosts.csv"
    csv.write_text("host_id,ts,cpu\n" + "".join(f"H{e},2026-01-01T{h:02d}:00:00Z,{50 + e + h % 3}\n"
                                                 for e in range(3) for h in range(10)))
    ddl = tmp_path / "s.sql"
    ddl.write_text("CREATE TABLE hosts (host_id TEXT, ts TIMESTAMP, cpu DOUBLE);\n"
                   "CREATE TABLE disks (disk_id TEXT PRIMARY KEY, size_gb DOUBLE);")
    result, _ = infer([csv], ddl=ddl)
    assert [e.name for e in result.spec.entities] == ["host", "disk"]  # both named from their id columns
    assert any(g.startswith("disks") for g in result.guesses)
    assert "from the DDL only" in result.yaml_text


def test_samples_plus_ddl_foreign_key_points_at_the_fitted_entity(tmp_path):
    csv = tmp_path / "hosts.csv"
    csv.write_text("host_id,ts,cpu\n" + "".join(f"H{e},2026-01-01T{h:02d}:00:00Z,{50 + e + h % 3}\n"
                                                 for e in range(3) for h in range(10)))
    ddl = tmp_path / "s.sql"
    ddl.write_text("CREATE TABLE hosts (host_id TEXT PRIMARY KEY, ts TIMESTAMP, cpu DOUBLE);\n"
                   "CREATE TABLE host_disks (disk_id TEXT PRIMARY KEY, host_id TEXT REFERENCES hosts(host_id));")
    result, _ = infer([csv], ddl=ddl)
    disk = result.spec.entity("disk")
    assert next(a for a in disk.attributes if a.name == "host_id").dist.entity == "host"  # the DDL's 'hosts' is the fitted 'host'
