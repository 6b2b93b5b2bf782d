"""Smaller behaviours: counters vs gauges, numeric families, dwell families, skewed relations, id formats."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tools.infer import infer
from tools.infer.assemble import id_format
from tools.infer.fidelity import entity_for_table
from tools.infer.fit_dist import fit_dwell, fit_numeric
from tools.infer.skew import weight_sigma


def _write(tmp_path, name: str, frame: pd.DataFrame):
    p = tmp_path / name
    frame.to_csv(p, index=False)
    return p


def test_counters_gauges_and_cumulative_counters(tmp_path):
    rng = np.random.default_rng(0)
    n, ents = 96, 4
    ts = pd.date_range("2026-01-01", periods=n, freq="15min", tz="UTC")
    frame = pd.DataFrame({
        "host_id": np.repeat([f"H{i}" for i in range(ents)], n),
        "ts": np.tile(ts.strftime("%Y-%m-%dT%H:%M:%SZ"), ents),
        "cpu": rng.normal(50, 5, n * ents).round(2),
        "request_count": rng.poisson(30, n * ents),
        "bytes_total": np.cumsum(rng.integers(1, 100, n * ents)).reshape(ents, n).ravel(),
    })
    result, _ = infer([_write(tmp_path, "hosts.csv", frame)])
    kinds = {c.name: c.kind for c in result.profiles[0].columns.values() if c.role == "measurement"}
    assert kinds == {"cpu": "gauge", "request_count": "count", "bytes_total": "cumulative counter"}
    ms = {m.name: m for m in entity_for_table(result.spec, "hosts").measurements}
    assert ms["request_count"].noise.kind == "poisson" and ms["request_count"].base == pytest.approx(30, rel=0.05)
    assert ms["cpu"].decimals == 2 and ms["cpu"].noise.kind == "iid"
    assert ms["bytes_total"].integer and ms["bytes_total"].trend > 0


def test_numeric_family_by_goodness_of_fit():
    rng = np.random.default_rng(1)
    assert fit_numeric(rng.uniform(40, 41, 2000)).dist.kind == "uniform"
    assert fit_numeric(rng.lognormal(3, 0.8, 2000)).dist.kind == "lognormal"
    assert fit_numeric(rng.normal(-5, 2, 2000)).dist.kind == "normal"
    assert fit_numeric(np.full(10, 7.0)).dist.kind == "constant"


def test_dwell_family_by_goodness_of_fit():
    rng = np.random.default_rng(2)
    assert fit_dwell(np.full(50, 60.0)).dist.kind == "fixed"
    assert fit_dwell(rng.exponential(600, 3000)).dist.kind == "exponential"
    assert fit_dwell(rng.lognormal(4, 1.0, 3000)).dist.kind == "lognormal"
    g = fit_dwell(rng.gamma(8, 50, 3000)).dist
    assert g.kind in ("gamma", "lognormal")  # shape 8 gamma and a lognormal are close; KS picks the nearer


def test_id_formats():
    assert id_format(pd.Series(["RTR_001", "RTR_002", "RTR_010"]), "x") == ("RTR_{i:03d}", None)
    assert id_format(pd.Series(["CELL_0", "CELL_1", "CELL_12"]), "x") == ("CELL_{i}", None)
    fmt, note = id_format(pd.Series(["MME_001", "UPF_002"]), "core node")
    assert fmt == "CORE_NODE_{i}" and "guess" in note


def test_skewed_relation_gets_a_parent_weight(tmp_path):
    rng = np.random.default_rng(3)
    users = pd.DataFrame({"user_id": [f"U{i}" for i in range(200)], "plan": rng.choice(["a", "b"], 200)})
    weights = rng.lognormal(0, 1.0, 200)
    owner = rng.choice(200, 3000, p=weights / weights.sum())
    rows = []
    for s, u in enumerate(owner):
        for k, page in enumerate(["home", "exit"]):
            rows.append((f"S{s}", f"U{u}", page, f"2026-01-01T00:{k:02d}:00Z"))
    sessions = pd.DataFrame(rows, columns=["session_id", "user_id", "page", "ts"])
    result, _ = infer([_write(tmp_path, "users.csv", users), _write(tmp_path, "sessions.csv", sessions)])
    fk = next(a for a in entity_for_table(result.spec, "sessions").attributes if a.name == "user_id").dist
    assert fk.kind == "foreign_key" and fk.weight_by == "sessions_weight"
    weight = next(a for a in entity_for_table(result.spec, "users").attributes if a.name == "sessions_weight")
    assert weight.emit is False and weight.dist.sigma == pytest.approx(1.0, abs=0.25)
    assert "# hidden weight: sessions rows per users entity" in result.yaml_text
    row = next(r for r in result.fidelity if r.metric == "KS children per parent")
    assert row.ok, row


def test_even_relation_needs_no_weight():
    assert weight_sigma(np.random.default_rng(4).poisson(5, 500)) is None
