"""Cascades: a root incident on a link propagates to the cells it serves (foreign key on the child)
and from those cells to their core nodes (foreign key on the previous level), with lags that add
up and attenuation; children are exactly the related entities and start at root start + lag."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tools.patterns.library import trapezoid
from tools.spec import SpecError

from ._helpers import assert_identical_outside, at, generate, inside, paired, spec_with
from .test_patterns_localized import CELL_COLS, CORE_COLS, LINK_COLS

CASCADE = """
- kind: cascade
  id: backhaul
  description: link L1 degrades; its cells and their cores follow
  root:
    kind: kpi_degradation
    id: l1_down
    target: {entity: link, ids: [L1]}
    window: {start: "day 1 06:00", duration: 4h}
    ramp_out: 30m
    effects: {loss: 1.5, latency: "+50%"}
  children:
    - entity: cell
      via: link_id
      lag: 15m
      effects: {availability: -2, attempts: "-20%"}
    - entity: core
      via: core_id
      lag: 30m
      attenuation: 0.5
      effects: {cpu: 6}
"""
ROOT_START, ROOT_END = at("6h"), at("10h")
CELL_LAG, CORE_LAG = pd.Timedelta("15min"), pd.Timedelta("45min")  # lags add up level by level


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    return generate(spec_with(CASCADE), tmp_path_factory.mktemp("cascade") / "b")


@pytest.fixture(scope="module")
def related(bundle):
    """Cells served by L1 and the cores those cells use, from the generated static columns."""
    cells = bundle.table("cells", baseline=True).drop_duplicates("cell_id")
    served = cells[cells.link_id == "L1"]
    return sorted(served.cell_id), sorted(served.core_id.unique())


def test_manifest_links_root_and_children(bundle, related):
    cells, cores = related
    recs = {r["id"]: r for r in bundle.manifest["incidents"]}
    assert list(recs) == ["l1_down", "l1_down.1", "l1_down.2"]
    root, c1, c2 = recs["l1_down"], recs["l1_down.1"], recs["l1_down.2"]
    assert root["children"] == ["l1_down.1", "l1_down.2"] and root["cascade"] == "backhaul"
    assert root["entities"] == ["L1"]
    assert (c1["entity_type"], c1["level"], c1["root"], c1["entities"]) == ("cell", 1, "l1_down", cells)
    assert (c2["entity_type"], c2["level"], c2["root"], c2["entities"]) == ("core", 2, "l1_down", cores)
    assert 0 < len(cells) < 24 and 0 < len(cores) <= 5
    for rec, lag in ((c1, CELL_LAG), (c2, CORE_LAG)):
        assert pd.Timestamp(rec["start"]) == ROOT_START + lag
        assert pd.Timestamp(rec["end"]) == ROOT_END + lag
        assert rec["lag_seconds"] == lag.total_seconds()
    assert c2["signature"]["cpu"]["direction"] == "up"
    assert c1["signature"]["availability"]["direction"] == "down"


def test_root_is_degraded_only_on_its_link_and_window(bundle):
    df = paired(bundle, "links", "link_id")
    m = inside(df, "link_id", ["L1"], ROOT_START, ROOT_END)
    tau = (df.timestamp[m] - ROOT_START).dt.total_seconds().to_numpy()
    env = trapezoid(tau, 4 * 3600, 0, 1800)
    assert np.allclose((df.loss - df.loss_b)[m], 1.5 * env, atol=2e-4)
    assert ((df.latency - df.latency_b)[m] > 0).all()
    assert_identical_outside(df, m, LINK_COLS, "cascade root")


def test_cells_follow_after_the_lag_and_only_the_served_ones(bundle, related):
    cells, _ = related
    df = paired(bundle, "cells", "cell_id")
    m = inside(df, "cell_id", cells, ROOT_START + CELL_LAG, ROOT_END + CELL_LAG)
    assert m.sum() == len(cells) * 16
    assert np.allclose((df.availability - df.availability_b)[m], -2, atol=2e-4)
    assert ((df.attempts - df.attempts_b)[m] < 0).all()
    assert (df.failures[m] == df.attempts[m] - df.successes[m]).all(), "formula keys follow"
    assert_identical_outside(df, m, CELL_COLS, "cascade cells")
    at_root_start = inside(df, "cell_id", cells, ROOT_START, ROOT_START + CELL_LAG)
    assert (df.availability[at_root_start] == df.availability_b[at_root_start]).all(), "not before the lag"


def test_cores_follow_attenuated_after_both_lags(bundle, related):
    _, cores = related
    df = paired(bundle, "cores", "core_id")
    m = inside(df, "core_id", cores, ROOT_START + CORE_LAG, ROOT_END + CORE_LAG)
    assert np.allclose((df.cpu - df.cpu_b)[m], 6 * 0.5, atol=2e-3)
    assert_identical_outside(df, m, CORE_COLS, "cascade cores")


def test_via_must_be_a_foreign_key_between_the_levels():
    with pytest.raises(SpecError) as err:
        spec_with(CASCADE.replace("via: core_id", "via: band"))
    assert "children[1].via" in str(err.value) and "'band'" in str(err.value)
