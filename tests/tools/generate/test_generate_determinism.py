"""One seed → byte-identical Parquet and identical DuckDB tables; another seed → other data; a
shard depends only on (seed, entity type, shard index), so adding entity types or regenerating
one shard alone reproduces the same rows."""

from __future__ import annotations

import json

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tools.common.seeds import EMISSION, SIMULATION, rng_for
from tools.generate import build_populations, generate_bundle
from tools.generate.behaviour import build_behaviour
from tools.generate.bundle import shard_plan
from tools.generate.emit import shard_table

from ._helpers import file_sha256, spec_from, table_digest

SENSOR_TYPE = """
  - name: sensor
    table: readings
    static_table: sensors
    id: {column: sensor_id, format: "SENSOR_{i:03d}"}
    count: 30
    exemplar_column: behaviour
    attributes:
      - name: zone
        dist: {kind: categorical, values: {zone_A: 0.5, zone_B: 0.5}}
      - name: gain
        dist: {kind: normal, mean: 1.0, std: 0.1, decimals: 3}
    states:
      column: device_state
      initial: ok
      states:
        ok: {dwell: {kind: exponential, mean: 6h}}
        warn: {dwell: {kind: lognormal, median: 30m, sigma: 0.5}}
        down: {dwell: {kind: fixed, value: 1h}}
      transitions:
        ok: {warn: 0.9, down: 0.1}
        warn: {ok: 0.8, down: 0.2}
        down: {ok: 1.0}
    emission: {kind: periodic, cadence: 15m, jitter: 30s, missing_rate: 0.05}
    measurements:
      - name: temperature
        base: 21
        seasonality: [{period: 1d, amplitude: 3, peak: 15h}]
        noise: {kind: ar, phi: [0.7], sigma: 0.3}
        states: {warn: {shift: 6}}
        attribute_effects: [{attribute: gain, coef: 2}]
        decimals: 2
      - name: packets
        base: 20
        noise: {kind: poisson}
      - name: dropped
        formula: "floor(packets * 0.1)"
        integer: true
"""

SESSION_TYPES = """
  - name: user
    table: users
    id: {column: user_id, format: "U{i:04d}"}
    count: 40
    attributes:
      - name: plan
        dist: {kind: categorical, values: {free: 0.7, premium: 0.3}}
      - name: activity
        dist: {kind: lognormal, median: 3, sigma: 0.5, decimals: 2}
  - name: session
    table: events
    static_table: sessions
    id: {column: session_id, format: "S{i:05d}"}
    count: 600
    exemplar_column: segment
    arrival: {max_duration: 2h, hourly_weights: [1,1,1,1,1,1,2,3,4,4,4,4,4,4,4,4,4,4,5,5,4,3,2,1]}
    attributes:
      - name: user_id
        dist: {kind: foreign_key, entity: user, weight_by: activity}
      - name: plan
        dist: {kind: parent_attribute, via: user_id, attribute: plan}
    states:
      column: page
      initial: {home: 0.7, search: 0.3}
      terminal: [exit, purchase]
      states:
        home: {dwell: {kind: exponential, mean: 1m}}
        search: {dwell: {kind: lognormal, median: 40s, sigma: 0.5}}
        cart: {dwell: {kind: gamma, mean: 2m, shape: 2}}
        exit: {}
        purchase: {}
      transitions:
        home: {search: 0.6, cart: 0.1, exit: 0.3}
        search: {home: 0.2, cart: 0.3, exit: 0.5}
        cart: {purchase: 0.5, search: 0.2, exit: 0.3}
      overrides:
        - when: [{attribute: plan, equals: premium}]
          transitions:
            cart: {purchase: 0.8, exit: 0.2}
      timeouts:
        cart: {after: 5m, to: exit}
    emission: {kind: on_transition}
    measurements:
      - name: basket
        base: 30
        noise: {kind: iid, sigma: 5}
        bounds: [0, null]
        decimals: 2
"""

SENSOR_EXEMPLAR = """
  - name: flaky
    entity: sensor
    count: 5
    transitions: {ok: {warn: 0.5, down: 0.5}}
"""

SESSION_EXEMPLAR = """
  - name: big_spender
    entity: session
    measurements: {basket: {base: 90}}
"""

SESSION_EPOCHS = """
epochs:
  - {name: before, entity: session, start: 0s, end: 36h, count: 300, blend: {base: 0.7, big_spender: 0.3}}
  - {name: after, entity: session, start: 36h, end: 3d, count: 300, blend: {base: 0.2, big_spender: 0.8}}
"""

HEADER = """
name: determinism
seed: 11
start: "2026-02-01T00:00:00Z"
horizon: 3d
entities:
"""

ROWS_PER_SHARD = 2000  # several sensor shards


def _spec(*types: str, sessions: bool = True):
    """The header, the given entity types, the sensor exemplar and (with sessions) their assembly."""
    assembly = "exemplars:" + SESSION_EXEMPLAR + SENSOR_EXEMPLAR + SESSION_EPOCHS if sessions \
        else "exemplars:" + SENSOR_EXEMPLAR
    return spec_from(HEADER + "".join(types) + assembly)


def _parquet_hashes(out) -> dict[str, str]:
    return {p.name: file_sha256(p) for p in sorted((out / "data").glob("*.parquet"))}


def _duckdb_digests(out) -> dict[str, str]:
    con = duckdb.connect(str(out / "data.duckdb"), read_only=True)
    try:
        names = [r[0] for r in con.execute("SELECT table_name FROM information_schema.tables ORDER BY 1").fetchall()]
        return {n: table_digest(con.sql(f'SELECT * FROM "{n}" ORDER BY ALL').to_arrow_table()) for n in names}
    finally:
        con.close()


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The same spec generated twice with seed 11 (once implicitly, from spec.seed) and once with seed 12."""
    base = tmp_path_factory.mktemp("det")
    spec = _spec(SENSOR_TYPE, SESSION_TYPES)
    a = base / "a"
    b = base / "b"
    c = base / "c"
    generate_bundle(spec, a, rows_per_shard=ROWS_PER_SHARD)
    generate_bundle(spec, b, seed=spec.seed, rows_per_shard=ROWS_PER_SHARD)
    generate_bundle(spec, c, seed=spec.seed + 1, rows_per_shard=ROWS_PER_SHARD)
    return spec, a, b, c


@pytest.mark.slow
def test_same_seed_gives_byte_identical_parquet(runs):
    spec, a, b, _ = runs
    ha, hb = _parquet_hashes(a), _parquet_hashes(b)
    expected_tables = {f"{t}.parquet" for t in ("readings", "sensors", "users", "events", "sessions")}
    assert set(ha) == expected_tables
    assert ha == hb
    # the manifest records the same digests
    manifest = json.loads((a / "manifest.json").read_text())
    assert {k.removeprefix("data/"): v for k, v in manifest["files"].items() if k.endswith(".parquet")} == ha
    assert manifest["seed"] == spec.seed
    assert (a / "spec.yaml").read_text() == (b / "spec.yaml").read_text()


@pytest.mark.slow
def test_same_seed_gives_identical_duckdb_tables(runs):
    _, a, b, _ = runs
    da, db = _duckdb_digests(a), _duckdb_digests(b)
    assert set(da) == {"readings", "sensors", "users", "events", "sessions"}
    assert da == db


@pytest.mark.slow
def test_duckdb_tables_hold_the_parquet_rows(runs):
    _, a, _, _ = runs
    con = duckdb.connect(str(a / "data.duckdb"), read_only=True)
    try:
        for p in sorted((a / "data").glob("*.parquet")):
            n = pq.read_metadata(p).num_rows
            assert con.execute(f'SELECT count(*) FROM "{p.stem}"').fetchone()[0] == n
            diff = con.execute(f"""SELECT count(*) FROM (
                (SELECT * FROM "{p.stem}" EXCEPT ALL SELECT * FROM read_parquet('{p}'))
                UNION ALL (SELECT * FROM read_parquet('{p}') EXCEPT ALL SELECT * FROM "{p.stem}"))""").fetchone()[0]
            assert diff == 0, p.stem
    finally:
        con.close()


@pytest.mark.slow
def test_different_seed_gives_different_data(runs):
    _, a, _, c = runs
    ha, hc = _parquet_hashes(a), _parquet_hashes(c)
    da, dc = _duckdb_digests(a), _duckdb_digests(c)
    for table in ("readings", "events", "sessions", "users", "sensors"):
        assert ha[f"{table}.parquet"] != hc[f"{table}.parquet"], table
        assert da[table] != dc[table], table


@pytest.mark.slow
def test_adding_entity_types_leaves_existing_tables_unchanged(tmp_path):
    seed = 11
    alone = _spec(SENSOR_TYPE, sessions=False)
    assert [e.name for e in alone.entities] == ["sensor"]
    assert [x.name for x in alone.exemplars] == ["flaky"]
    extra = _spec(SESSION_TYPES, SENSOR_TYPE)  # two more types, declared before the sensor
    generate_bundle(alone, tmp_path / "alone", seed=seed, rows_per_shard=ROWS_PER_SHARD)
    generate_bundle(extra, tmp_path / "extra", seed=seed, rows_per_shard=ROWS_PER_SHARD)
    h1, h2 = _parquet_hashes(tmp_path / "alone"), _parquet_hashes(tmp_path / "extra")
    assert set(h1) == {"readings.parquet", "sensors.parquet"}
    for name in h1:
        assert h1[name] == h2[name], f"{name} changed when other entity types were added"
    d1, d2 = _duckdb_digests(tmp_path / "alone"), _duckdb_digests(tmp_path / "extra")
    assert d1["readings"] == d2["readings"] and d1["sensors"] == d2["sensors"]


def _plain(table: pa.Table) -> pa.Table:
    """Dictionary columns decoded, so a fresh Arrow shard compares with rows read back from Parquet."""
    cols = [c.combine_chunks() for c in table.columns]
    cols = [c.dictionary_decode() if pa.types.is_dictionary(c.type) else c for c in cols]
    return pa.table(dict(zip(table.column_names, cols, strict=True)))


@pytest.mark.slow
def test_each_shard_regenerates_alone(runs):
    spec, a, _, _ = runs
    seed, name = spec.seed, "sensor"
    pop = build_populations(spec, seed, 1.0)[name]
    plan = [units for _, units in shard_plan(pop, ROWS_PER_SHARD)]
    assert len(plan) >= 3, "the test needs several shards"
    written = _plain(pq.read_table(a / "data" / "readings.parquet"))
    behaviour = build_behaviour(pop)
    start = spec.start_dt.timestamp()
    shards = {}
    for k in reversed(range(len(plan))):  # each shard alone, in an order unlike generation
        shards[k] = _plain(shard_table(pop, behaviour, plan[k], start,
                                       rng_for(seed, name, SIMULATION, k), rng_for(seed, name, EMISSION, k)))
    offset = 0
    for k in range(len(plan)):
        alone = shards[k]
        got = written.slice(offset, alone.num_rows)
        offset += alone.num_rows
        assert set(got.column("sensor_id").to_pylist()) == set(pop.ids[pop.unit_entity[plan[k]]].tolist())
        assert alone.equals(got.cast(alone.schema)), f"shard {k} differs when regenerated alone"
    assert offset == written.num_rows
