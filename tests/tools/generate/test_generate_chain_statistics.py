"""Statistical fidelity of the semi-Markov simulator against the spec's own parameters.

Each test simulates many units directly (populations → behaviour → simulate), or emits rows
through the real shard path, and compares with expectations derived from the spec: transition
rows, dwell means (``dwell_mean_seconds``), the semi-Markov stationary law, absorption
probabilities, attribute-conditioned overrides and timeouts.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from tools.common.durations import parse_duration
from tools.common.dwell import dwell_mean_seconds

from ._helpers import (
    assert_rows_within_3se,
    column,
    completed_dwells,
    embedded_stationary,
    emit_type,
    simulate_type,
    spec_from,
    spec_matrix,
    transitions,
)

CHAIN = """
name: chain_stats
start: "2026-01-01T00:00:00Z"
horizon: 30d
entities:
  - name: machine
    table: machine_metrics
    id: {column: machine_id, format: "M{i:05d}"}
    count: 1000
    states:
      column: state
      initial: idle
      states:
        idle: {dwell: {kind: exponential, mean: 2h}}
        busy: {dwell: {kind: gamma, mean: 45m, shape: 2.5}}
        fault: {dwell: {kind: lognormal, median: 20m, sigma: 0.8}}
        maint: {dwell: {kind: uniform, low: 1h, high: 3h}}
        reboot: {dwell: {kind: fixed, value: 5m}}
      transitions:
        idle: {idle: 0.2, busy: 0.65, fault: 0.15}
        busy: {idle: 0.7, fault: 0.2, maint: 0.1}
        fault: {maint: 0.5, reboot: 0.3, idle: 0.2}
        maint: {idle: 1.0}
        reboot: {idle: 0.6, busy: 0.4}
    emission: {kind: periodic, cadence: 20m}
"""


@pytest.fixture(scope="module")
def chain():
    return simulate_type(spec_from(CHAIN), "machine", seed=101)


@pytest.mark.slow
def test_transition_frequencies_within_3_standard_errors(chain):
    sm = chain.spec.entity("machine").states
    p = spec_matrix(sm.transitions, chain.states)
    counts = transitions(chain.seg, len(chain.states))
    assert_rows_within_3se(counts, p, chain.states, list(sm.transitions), "base chain")


@pytest.mark.slow
def test_mean_dwell_per_state_within_5_percent(chain):
    sm = chain.spec.entity("machine").states
    state, dwell = completed_dwells(chain.seg)  # the last, censored segment of each unit is excluded
    for i, name in enumerate(chain.states):
        expected = dwell_mean_seconds(sm.states[name].dwell)
        got = dwell[state == i]
        assert got.size > 2000, f"too few completed {name} segments"
        assert got.mean() == pytest.approx(expected, rel=0.05), f"mean dwell in {name}"
    # shape sanity: the fixed dwell is exact, the uniform one stays inside [low, high]
    assert np.all(dwell[state == chain.states.index("reboot")] == parse_duration("5m"))
    maint = dwell[state == chain.states.index("maint")]
    assert maint.min() >= parse_duration("1h") - 1 and maint.max() <= parse_duration("3h") + 1


@pytest.mark.slow
def test_state_occupancy_matches_semi_markov_stationary_law():
    spec = spec_from(CHAIN)
    sm = spec.entity("machine").states
    states = list(sm.states)
    nu = embedded_stationary(spec_matrix(sm.transitions, states))
    m = np.array([dwell_mean_seconds(sm.states[s].dwell) for s in states])
    pi = nu * m / (nu * m).sum()
    _, rows = emit_type(spec, "machine", seed=202)
    cadence = parse_duration(spec.entity("machine").emission.cadence)
    assert rows.num_rows == 1000 * int(spec.horizon_seconds // cadence)
    label = column(rows, sm.column)
    for s, expected in zip(states, pi, strict=True):
        share = float(np.mean(label == s))
        assert abs(share - expected) <= 0.02, f"occupancy of {s}: {share:.4f} vs stationary {expected:.4f}"


OVERRIDES = """
name: override_stats
start: "2026-01-01T00:00:00Z"
horizon: 20d
entities:
  - name: machine
    id: {column: machine_id, format: "M{i:05d}"}
    count: 1600
    attributes:
      - name: firmware
        dist: {kind: categorical, values: {v1: 0.5, v2: 0.5}}
      - name: age
        dist: {kind: uniform, low: 0, high: 10}
    states:
      column: state
      initial: idle
      states:
        idle: {dwell: {kind: exponential, mean: 2h}}
        busy: {dwell: {kind: gamma, mean: 45m, shape: 2.5}}
        fault: {dwell: {kind: lognormal, median: 20m, sigma: 0.8}}
      transitions:
        idle: {busy: 0.8, fault: 0.2}
        busy: {idle: 0.9, fault: 0.1}
        fault: {idle: 1.0}
      overrides:
        - when: [{attribute: firmware, equals: v2}]
          transitions:
            idle: {busy: 0.4, fault: 0.6}
        - when: [{attribute: age, ge: 7}]
          dwell:
            busy: {kind: exponential, mean: 2h}
    emission: {kind: on_transition}
"""


@pytest.mark.slow
def test_attribute_conditioned_overrides_change_behaviour():
    run = simulate_type(spec_from(OVERRIDES), "machine", seed=303)
    sm = run.spec.entity("machine").states
    states, pop = run.states, run.pop
    fw = pop.attrs["firmware"].as_objects()[pop.unit_entity]
    age = pop.attrs["age"].as_objects().astype(float)[pop.unit_entity]
    base = spec_matrix(sm.transitions, states)
    v2 = spec_matrix({**sm.transitions, **sm.overrides[0].transitions}, states)
    n = len(states)
    c1 = transitions(run.seg, n, fw == "v1")
    c2 = transitions(run.seg, n, fw == "v2")
    assert_rows_within_3se(c1, base, states, list(sm.transitions), "firmware v1 (no override)")
    assert_rows_within_3se(c2, v2, states, list(sm.transitions), "firmware v2 (override)")
    # both overrides at once: old v2 machines follow the v2 row too
    c_both = transitions(run.seg, n, (fw == "v2") & (age >= 7))
    assert_rows_within_3se(c_both, v2, states, ["idle"], "v2 and age>=7", min_visits=500)
    # the two groups differ far beyond sampling noise
    i, j = states.index("idle"), states.index("fault")
    f1, f2 = c1[i, j] / c1[i].sum(), c2[i, j] / c2[i].sum()
    se = np.sqrt(f1 * (1 - f1) / c1[i].sum() + f2 * (1 - f2) / c2[i].sum())
    assert (f2 - f1) / se > 10

    # the numeric condition (age >= 7) replaces the busy dwell only
    state, dwell = completed_dwells(run.seg)
    seg_old = (age >= 7)[run.seg.unit[:-1][run.seg.unit[1:] == run.seg.unit[:-1]]]
    busy = state == states.index("busy")
    old_mean = dwell_mean_seconds(sm.overrides[1].dwell["busy"])
    young_mean = dwell_mean_seconds(sm.states["busy"].dwell)
    assert dwell[busy & seg_old].mean() == pytest.approx(old_mean, rel=0.05)
    assert dwell[busy & ~seg_old].mean() == pytest.approx(young_mean, rel=0.05)
    idle = state == states.index("idle")
    expected_idle = dwell_mean_seconds(sm.states["idle"].dwell)
    assert dwell[idle & seg_old].mean() == pytest.approx(expected_idle, rel=0.05)
    assert dwell[idle & ~seg_old].mean() == pytest.approx(expected_idle, rel=0.05)


SESSIONS = """
name: terminal_stats
start: "2026-01-01T00:00:00Z"
horizon: 4d
entities:
  - name: session
    id: {column: session_id, format: "S{i:06d}"}
    count: 20000
    arrival: {max_duration: 1d}
    states:
      column: page
      initial: {home: 0.6, search: 0.4}
      terminal: [exit, purchase]
      states:
        home: {dwell: {kind: exponential, mean: 1m}}
        search: {dwell: {kind: lognormal, median: 40s, sigma: 0.6}}
        cart: {dwell: {kind: gamma, mean: 3m, shape: 2}}
        exit: {}
        purchase: {}
      transitions:
        home: {search: 0.5, cart: 0.2, exit: 0.3}
        search: {home: 0.3, search: 0.2, cart: 0.3, exit: 0.2}
        cart: {purchase: 0.4, search: 0.3, exit: 0.3}
    emission: {kind: EMISSION}
"""


def _absorption(sm, states: list[str]) -> dict[str, float]:
    """P(ending in each terminal state) from the spec's initial law and transient block."""
    p = spec_matrix(sm.transitions, states)
    transient = [i for i, s in enumerate(states) if s not in sm.terminal]
    absorbing = [i for i, s in enumerate(states) if s in sm.terminal]
    q, r = p[np.ix_(transient, transient)], p[np.ix_(transient, absorbing)]
    b = np.linalg.solve(np.eye(len(transient)) - q, r)
    init = np.array([sm.initial.get(states[i], 0.0) for i in transient])
    return {states[a]: float(init @ b[:, k]) for k, a in enumerate(absorbing)}


@pytest.mark.slow
def test_terminal_states_are_never_left():
    spec = spec_from(SESSIONS.replace("EMISSION", "on_transition"))
    sm = spec.entity("session").states
    run = simulate_type(spec, "session", seed=404)
    seg, states = run.seg, run.states
    is_terminal = np.isin(np.array(states, dtype=object)[seg.state], sm.terminal)
    last = np.r_[seg.unit[1:] != seg.unit[:-1], True]
    assert is_terminal.any()
    assert not np.any(is_terminal & ~last), "a unit has segments after entering a terminal state"
    # nearly every session is absorbed long before max_duration; the split follows the spec
    ended = np.array(states, dtype=object)[seg.state[last]]
    n = ended.size
    assert np.isin(ended, sm.terminal).mean() > 0.999
    for s, p in _absorption(sm, states).items():
        se = np.sqrt(p * (1 - p) / n)
        assert abs(np.mean(ended == s) - p) <= 3 * se, f"share of sessions ending in {s}"

    # the emitted event log: nothing follows a terminal event of the same session
    _, rows = emit_type(spec, "session", seed=404)
    ids, pages = column(rows, "session_id"), column(rows, "page")
    term = np.isin(pages, sm.terminal)
    same_next = np.r_[ids[1:] == ids[:-1], False]
    assert not np.any(term & same_next)


@pytest.mark.slow
def test_terminal_state_persists_in_periodic_rows():
    spec = spec_from(SESSIONS.replace("EMISSION", "periodic, cadence: 1m").replace("count: 20000", "count: 3000")
                     .replace("max_duration: 1d", "max_duration: 2h"))
    sm = spec.entity("session").states
    _, rows = emit_type(spec, "session", seed=405)
    ids, pages, ts = column(rows, "session_id"), column(rows, "page"), column(rows, "timestamp")
    order = np.lexsort((ts, ids))
    ids, pages = ids[order], pages[order]
    term = np.isin(pages, sm.terminal)
    assert term.any()
    # once a session's row is terminal, every later row of that session is the same terminal state
    same_next = np.r_[ids[1:] == ids[:-1], False]
    left = term[:-1] & same_next[:-1] & (pages[1:] != pages[:-1])
    assert not left.any()


TIMEOUTS = """
name: timeout_stats
start: "2026-01-01T00:00:00Z"
horizon: 20d
entities:
  - name: ticket
    id: {column: ticket_id, format: "T{i:05d}"}
    count: 1000
    states:
      column: status
      initial: open
      states:
        open: {dwell: {kind: exponential, mean: 2h}}
        pending: {dwell: {kind: lognormal, median: 1h, sigma: 1.0}}
        escalated: {dwell: {kind: fixed, value: 30m}}
        resolved: {dwell: {kind: exponential, mean: 1h}}
      transitions:
        open: {resolved: 0.6, pending: 0.4}
        pending: {open: 0.5, resolved: 0.5}
        escalated: {open: 1.0}
        resolved: {open: 1.0}
      timeouts:
        open: {after: 4h, to: escalated}
        pending: {after: 3h, to: escalated}
    emission: {kind: on_transition}
"""


@pytest.mark.slow
def test_timeouts_cap_dwell_and_redirect():
    spec = spec_from(TIMEOUTS)
    sm = spec.entity("ticket").states
    run = simulate_type(spec, "ticket", seed=505)
    seg, states, pop = run.seg, run.states, run.pop
    nxt_same = np.r_[seg.unit[1:] == seg.unit[:-1], False]
    end = np.where(nxt_same, np.r_[seg.t[1:], 0], pop.unit_t1[seg.unit])
    dwell = end - seg.t  # includes the censored last segment, cut at the unit's end
    survival = {
        "open": stats.expon(scale=parse_duration("2h")).sf(parse_duration("4h")),
        "pending": stats.lognorm(s=1.0, scale=parse_duration("1h")).sf(parse_duration("3h")),
    }
    for name, timeout in sm.timeouts.items():
        i = states.index(name)
        after = parse_duration(timeout.after)
        in_state = seg.state == i
        assert dwell[in_state].max() <= after, f"a dwell in {name} exceeds its timeout"
        done = in_state & nxt_same
        hit = done & (dwell >= after)
        n = int(done.sum())
        p = survival[name]
        assert abs(hit.sum() / n - p) <= 3 * np.sqrt(p * (1 - p) / n), f"timeout rate of {name}"
        nxt = np.r_[seg.state[1:], -1]
        assert np.all(nxt[hit] == states.index(timeout.to)), f"timed-out {name} must go to {timeout.to}"
        # dwells that ended before the timeout follow the ordinary row
        ordinary = done & (dwell < after)
        counts = np.bincount(nxt[ordinary], minlength=len(states))
        row = spec_matrix(sm.transitions, states)[i]
        for j, pj in enumerate(row):
            se = np.sqrt(pj * (1 - pj) / ordinary.sum())
            assert abs(counts[j] / ordinary.sum() - pj) <= max(3 * se, 1e-12)
