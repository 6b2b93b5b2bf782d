"""Foreign keys in a generated bundle: every key resolves, parent attributes are copied from the
parent, and ``weight_by`` makes heavier parents proportionally more frequent (checked in DuckDB)."""

from __future__ import annotations

import duckdb
import numpy as np
import pytest
from scipy import stats

from tools.generate import generate_bundle

from ._helpers import spec_from

RELATIONS = """
name: relations
seed: 21
start: "2026-01-01T00:00:00Z"
horizon: 2d
entities:
  - name: region
    table: regions
    id: {column: region_id, format: "R{i:02d}"}
    count: 6
    attributes:
      - name: climate
        dist: {kind: categorical, values: {hot: 0.3, mild: 0.4, cold: 0.3}}
  - name: user
    table: users
    id: {column: user_id, format: "U{i:04d}"}
    count: 120
    attributes:
      - name: region_id
        dist: {kind: foreign_key, entity: region}
      - name: climate
        dist: {kind: parent_attribute, via: region_id, attribute: climate}
      - name: activity
        dist: {kind: integer, low: 1, high: 10}
      - name: tier
        dist: {kind: categorical, values: {free: 0.7, premium: 0.3}}
  - name: session
    table: events
    static_table: sessions
    id: {column: session_id, format: "S{i:06d}"}
    count: 30000
    arrival: {max_duration: 2h}
    attributes:
      - name: user_id
        dist: {kind: foreign_key, entity: user, weight_by: activity}
      - name: tier
        dist: {kind: parent_attribute, via: user_id, attribute: tier}
      - name: user_climate
        dist: {kind: parent_attribute, via: user_id, attribute: climate}
    states:
      column: page
      initial: home
      terminal: [exit]
      states:
        home: {dwell: {kind: exponential, mean: 2m}}
        exit: {}
      transitions:
        home: {exit: 1.0}
    emission: {kind: on_transition}
  - name: device
    table: device_metrics
    id: {column: device_id, format: "D{i:03d}"}
    count: 50
    attributes:
      - name: owner
        dist: {kind: foreign_key, entity: user}
    emission: {kind: periodic, cadence: 1h}
    measurements:
      - name: cpu
        base: 40
        noise: {kind: iid, sigma: 5}
"""


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    out = tmp_path_factory.mktemp("relations") / "bundle"
    spec = spec_from(RELATIONS)
    generate_bundle(spec, out)
    con = duckdb.connect(str(out / "data.duckdb"), read_only=True)
    yield spec, con
    con.close()


FOREIGN_KEYS = [  # (child table, child column, parent table, parent id column)
    ("users", "region_id", "regions", "region_id"),
    ("sessions", "user_id", "users", "user_id"),
    ("events", "user_id", "users", "user_id"),
    ("device_metrics", "owner", "users", "user_id"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("child", "col", "parent", "pid"), FOREIGN_KEYS)
def test_every_foreign_key_resolves(bundle, child, col, parent, pid):
    _, con = bundle
    n = con.execute(f'SELECT count(*) FROM "{child}" WHERE "{col}" IS NOT NULL').fetchone()[0]
    assert n > 0
    orphans = con.execute(
        f'SELECT count(*) FROM "{child}" c ANTI JOIN "{parent}" p ON c."{col}" = p."{pid}"').fetchone()[0]
    assert orphans == 0, f"{orphans} rows of {child}.{col} point at no {parent}.{pid}"
    nulls = con.execute(f'SELECT count(*) FROM "{child}" WHERE "{col}" IS NULL').fetchone()[0]
    assert nulls == 0


@pytest.mark.slow
@pytest.mark.parametrize(("child", "via", "col", "parent", "pid", "pcol"), [
    ("users", "region_id", "climate", "regions", "region_id", "climate"),
    ("sessions", "user_id", "tier", "users", "user_id", "tier"),
    ("events", "user_id", "tier", "users", "user_id", "tier"),
    ("sessions", "user_id", "user_climate", "users", "user_id", "climate"),  # a copy of a copy
])
def test_parent_attribute_copies_match_parent(bundle, child, via, col, parent, pid, pcol):
    _, con = bundle
    total, mismatched = con.execute(
        f'SELECT count(*), count(*) FILTER (WHERE c."{col}" IS DISTINCT FROM p."{pcol}") '
        f'FROM "{child}" c JOIN "{parent}" p ON c."{via}" = p."{pid}"').fetchone()
    assert total == con.execute(f'SELECT count(*) FROM "{child}"').fetchone()[0]
    assert mismatched == 0
    # the copy is not trivially constant
    assert con.execute(f'SELECT count(DISTINCT "{col}") FROM "{child}"').fetchone()[0] > 1


@pytest.mark.slow
def test_weight_by_makes_heavier_parents_more_frequent(bundle):
    spec, con = bundle
    n_sessions = spec.entity("session").count
    rows = con.execute(
        'SELECT u.activity, count(s.session_id) FROM users u LEFT JOIN sessions s USING (user_id) '
        'GROUP BY u.user_id, u.activity').fetchall()
    weight = np.array([r[0] for r in rows], float)
    observed = np.array([r[1] for r in rows], float)
    assert observed.sum() == n_sessions
    expected = n_sessions * weight / weight.sum()  # P(parent) proportional to its weight_by attribute
    chi2, p = stats.chisquare(observed, expected)
    assert p > 1e-3, f"children per parent do not follow weight_by (chi2={chi2:.1f}, p={p:.2g})"
    heavy, light = weight >= 8, weight <= 3
    ratio = observed[heavy].mean() / observed[light].mean()
    assert ratio == pytest.approx(weight[heavy].mean() / weight[light].mean(), rel=0.1)


@pytest.mark.slow
def test_unweighted_foreign_key_is_uniform(bundle):
    spec, con = bundle
    counts = np.array([r[0] for r in con.execute(
        "SELECT count(u.user_id) FROM regions r LEFT JOIN users u USING (region_id) GROUP BY r.region_id"
    ).fetchall()], float)
    assert counts.size == spec.entity("region").count
    assert counts.sum() == spec.entity("user").count
    chi2, p = stats.chisquare(counts)  # every parent equally likely
    assert p > 1e-3, f"users per region are not uniform (chi2={chi2:.1f}, p={p:.2g})"
