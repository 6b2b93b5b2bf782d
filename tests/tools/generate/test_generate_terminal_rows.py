"""A periodic entity that enters a terminal state reports it once, then stops."""

import numpy as np

from ._helpers import column, emit_type, spec_from

SPEC = """
name: decommission
start: "2026-01-01T00:00:00Z"
horizon: 3d
entities:
  - name: pump
    id: {column: pump_id, format: "P{i}"}
    count: 400
    states:
      column: status
      initial: running
      terminal: [retired]
      states:
        running: {dwell: {kind: exponential, mean: 12h}}
        repair: {dwell: {kind: fixed, value: 2h}}
        retired: {}
      transitions:
        running: {repair: 0.7, retired: 0.3}
        repair: {running: 1.0}
    emission: {kind: periodic, cadence: 10m}
    measurements:
      - {name: flow, base: 10, noise: {kind: iid, sigma: 1}}
"""


def test_periodic_rows_stop_after_the_terminal_state_is_reported_once():
    spec = spec_from(SPEC)
    _, rows = emit_type(spec, "pump", seed=4)
    ids, status = column(rows, "pump_id"), column(rows, "status")
    ts = column(rows, "timestamp")
    retired = 0
    full = int(3 * 86400 / 600)
    for pid in np.unique(ids):
        s = status[ids == pid]
        if "retired" in s:
            retired += 1
            assert s[-1] == "retired" and (s == "retired").sum() == 1, pid
            assert len(s) < full
        else:
            assert len(s) == full
        t = ts[ids == pid]
        assert (np.diff(t) == 600).all()  # seconds
    assert retired > 100, "the test needs many retirements to mean anything"
