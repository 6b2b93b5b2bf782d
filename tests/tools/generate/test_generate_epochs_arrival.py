"""Global assembly: epoch blends over exemplars (exact largest-remainder shares, arrivals inside
their epoch, exemplar overrides visible in the data) and hour-of-day arrival weights."""

from __future__ import annotations

import duckdb
import numpy as np
import pytest
from scipy import stats

from tools.common.durations import parse_duration
from tools.common.dwell import dwell_mean_seconds
from tools.generate import generate_bundle

from ._helpers import column, emit_type, spec_from

SESSIONS = """
name: epoch_sessions
seed: 31
start: "2026-01-05T00:00:00Z"
horizon: 8d
entities:
  - name: session
    table: events
    static_table: sessions
    id: {column: session_id, format: "S{i:06d}"}
    count: 2833
    exemplar_column: segment
    arrival: {max_duration: 2h}
    states:
      column: page
      initial: home
      terminal: [exit, purchase]
      states:
        home: {dwell: {kind: exponential, mean: 3m}}
        search: {dwell: {kind: lognormal, median: 2m, sigma: 0.5}}
        cart: {dwell: {kind: gamma, mean: 4m, shape: 2}}
        exit: {}
        purchase: {}
      transitions:
        home: {search: 0.6, cart: 0.3, exit: 0.1}
        search: {home: 0.3, cart: 0.5, exit: 0.2}
        cart: {purchase: 0.1, search: 0.3, exit: 0.6}
    emission: {kind: on_transition}
    measurements:
      - name: basket
        base: 30
        noise: {kind: iid, sigma: 5}
exemplars:
  - name: browser
    entity: session
  - name: buyer
    entity: session
    duration: 20m
    transitions: {cart: {purchase: 0.7, exit: 0.3}}
    measurements: {basket: {base: 80}}
epochs:
  - {name: early, entity: session, start: 0s, end: 3d, count: 1001, blend: {browser: 0.8, buyer: 0.2}}
  - {name: late, entity: session, start: 3d, end: 7d, count: 1499, blend: {browser: 0.3, buyer: 0.7}}
  - {name: tail, entity: session, start: 7d, end: 8d, count: 333, blend: {base: 0.5, buyer: 0.5}}
"""


@pytest.fixture(scope="module")
def sessions(tmp_path_factory):
    out = tmp_path_factory.mktemp("epochs") / "bundle"
    spec = spec_from(SESSIONS)
    generate_bundle(spec, out)
    con = duckdb.connect(str(out / "data.duckdb"), read_only=True)
    per_session = con.execute("""
        SELECT session_id, any_value(segment) AS segment, count(DISTINCT segment) AS n_segments,
               epoch(min(timestamp)) AS first_t, epoch(max(timestamp)) AS last_t
        FROM events GROUP BY session_id""").fetchall()
    yield spec, con, per_session
    con.close()


def _epoch_windows(spec):
    t0 = spec.start_dt.timestamp()
    return [(ep, t0 + parse_duration(ep.start), t0 + parse_duration(ep.end)) for ep in spec.epochs]


@pytest.mark.slow
def test_sessions_arrive_and_stay_inside_their_epoch(sessions):
    spec, _, per_session = sessions
    windows = _epoch_windows(spec)
    assert len(per_session) == sum(ep.count for ep in spec.epochs)
    for sid, _, n_segments, first, last in per_session:
        assert n_segments == 1, f"{sid} changes exemplar within one session"
        inside = [ep.name for ep, lo, hi in windows if lo <= first < hi]
        assert len(inside) == 1, f"{sid} starts at {first}, outside every epoch"
        ep, lo, hi = next(w for w in windows if w[0].name == inside[0])
        assert last < hi, f"{sid} runs past the end of epoch {ep.name}"
    for ep, lo, hi in windows:  # every epoch gets exactly its own count of arrivals
        assert sum(1 for r in per_session if lo <= r[3] < hi) == ep.count, ep.name


@pytest.mark.slow
def test_epoch_exemplar_shares_equal_blend_weights(sessions):
    spec, _, per_session = sessions
    for ep, lo, hi in _epoch_windows(spec):
        segs = [r[1] for r in per_session if lo <= r[3] < hi]
        assert set(segs) == set(ep.blend), f"{ep.name}: exemplars {set(segs)} vs blend {set(ep.blend)}"
        for name, w in ep.blend.items():
            got = segs.count(name)
            assert abs(got - w * ep.count) < 1, f"{ep.name}: {got} {name} sessions, blend says {w * ep.count:.1f}"


@pytest.mark.slow
def test_exemplar_overrides_show_in_the_data(sessions):
    spec, con, per_session = sessions
    sm = spec.entity("session").states
    buyer = next(x for x in spec.exemplars if x.name == "buyer")
    # transitions out of cart, per exemplar, each within 3 SE of its own spec row
    rows = con.execute("""
        SELECT segment, nxt, count(*) FROM (
          SELECT segment, page, lead(page) OVER (PARTITION BY session_id ORDER BY timestamp) AS nxt FROM events)
        WHERE page = 'cart' AND nxt IS NOT NULL GROUP BY ALL""").fetchall()
    for segment in ("browser", "buyer", "base"):
        row = {**sm.transitions, **(buyer.transitions if segment == "buyer" else {})}["cart"]
        counts = {nxt: c for s, nxt, c in rows if s == segment}
        n = sum(counts.values())
        assert n >= 150, f"too few cart exits for {segment}"
        for dst in sm.states:
            p = row.get(dst, 0.0)
            se = np.sqrt(p * (1 - p) / n)
            assert abs(counts.get(dst, 0) / n - p) <= max(3 * se, 1e-12), f"{segment}: P(cart->{dst})"
    # the measurement base override
    base = spec.entity("session").measurements[0]
    for segment, level in (("browser", base.base), ("base", base.base), ("buyer", buyer.measurements["basket"].base)):
        mean, sd, n = con.execute(
            "SELECT avg(basket), stddev_samp(basket), count(*) FROM events WHERE segment = ?", [segment]).fetchone()
        assert abs(mean - level) <= 4 * sd / np.sqrt(n), f"{segment}: mean basket {mean:.2f} vs {level}"
    # the exemplar duration caps its sessions only
    cap = parse_duration(buyer.duration)
    spans = {seg: [r[4] - r[3] for r in per_session if r[1] == seg] for seg in ("buyer", "browser")}
    assert max(spans["buyer"]) < cap
    assert max(spans["browser"]) > cap, "browser sessions never exceed the buyer cap: the check is vacuous"


SENSORS = """
name: epoch_sensors
seed: 32
start: "2026-01-05T00:00:00Z"
horizon: 4d
entities:
  - name: sensor
    table: readings
    id: {column: sensor_id, format: "SN{i:04d}"}
    count: 200
    exemplar_column: behaviour
    states:
      column: state
      initial: ok
      states:
        ok: {dwell: {kind: exponential, mean: 4h}}
        warn: {dwell: {kind: exponential, mean: 1h}}
      transitions:
        ok: {warn: 1.0}
        warn: {ok: 1.0}
    emission: {kind: periodic, cadence: 30m}
    measurements:
      - name: temperature
        base: 20
        noise: {kind: iid, sigma: 1}
exemplars:
  - name: flaky
    entity: sensor
    dwell: {ok: {kind: exponential, mean: 30m}}
    measurements: {temperature: {base: 35}}
epochs:
  - {name: calm, entity: sensor, start: 0s, end: 2d, count: 200, blend: {base: 0.8, flaky: 0.2}}
  - {name: stormy, entity: sensor, start: 2d, end: 4d, count: 151, blend: {base: 0.3, flaky: 0.7}}
"""


@pytest.mark.slow
def test_long_lived_entities_follow_each_epoch_blend():
    spec = spec_from(SENSORS)
    _, rows = emit_type(spec, "sensor", seed=spec.seed)
    ids, beh, ts = column(rows, "sensor_id"), column(rows, "behaviour"), column(rows, "timestamp")
    temp, state = column(rows, "temperature"), column(rows, "state")
    cadence = parse_duration(spec.entity("sensor").emission.cadence)
    for ep, lo, hi in _epoch_windows(spec):
        m = (ts >= lo) & (ts < hi)
        active = np.unique(ids[m])
        assert active.size == ep.count, f"{ep.name}: {active.size} active sensors"
        assert m.sum() == ep.count * int((hi - lo) // cadence), f"{ep.name}: every active sensor reports all epoch long"
        pairs = {(i, b) for i, b in zip(ids[m], beh[m], strict=True)}
        assert len(pairs) == ep.count, f"{ep.name}: a sensor changes behaviour inside an epoch"
        labels = [b for _, b in pairs]
        for name, w in ep.blend.items():
            assert abs(labels.count(name) - w * ep.count) < 1, f"{ep.name}: share of {name}"
    # overrides visible: the flaky base level and its shorter 'ok' dwell (more time in 'warn')
    flaky = next(x for x in spec.exemplars if x.name == "flaky")
    m_base = spec.entity("sensor").measurements[0].base
    assert temp[beh == "flaky"].mean() == pytest.approx(flaky.measurements["temperature"].base, abs=0.1)
    assert temp[beh == "base"].mean() == pytest.approx(m_base, abs=0.1)
    occupancy = {b: np.mean(state[beh == b] == "warn") for b in ("base", "flaky")}
    sm = spec.entity("sensor").states
    warn = dwell_mean_seconds(sm.states["warn"].dwell)  # alternating chain: occupancy ∝ mean dwell
    expected = {"base": warn / (warn + dwell_mean_seconds(sm.states["ok"].dwell)),
                "flaky": warn / (warn + dwell_mean_seconds(flaky.dwell["ok"]))}
    for b, e in expected.items():
        assert occupancy[b] == pytest.approx(e, abs=0.03), f"warn occupancy of {b}"


ARRIVALS = """
name: arrivals
start: "START"
horizon: HORIZON
entities:
  - name: session
    id: {column: session_id, format: "S{i:06d}"}
    count: 20000
    arrival: {max_duration: 1h, hourly_weights: WEIGHTS}
    states:
      column: page
      initial: home
      terminal: [exit]
      states:
        home: {dwell: {kind: exponential, mean: 5m}}
        exit: {}
      transitions:
        home: {exit: 1.0}
    emission: {kind: on_transition}
"""

WEIGHTS = [0, 0, 0, 0, 0, 0, 1, 2, 4, 6, 6, 5, 5, 5, 6, 6, 5, 5, 6, 8, 9, 7, 3, 1]


def _check_hourly_arrivals(start: str, horizon: str) -> None:
    text = ARRIVALS.replace("START", start).replace("HORIZON", horizon).replace("WEIGHTS", str(WEIGHTS))
    spec = spec_from(text)
    _, rows = emit_type(spec, "session", seed=41)
    ids, ts = column(rows, "session_id"), column(rows, "timestamp")
    first = np.r_[True, ids[1:] != ids[:-1]]  # rows are entity-major, time-ordered within a session
    starts = ts[first]
    assert starts.size == spec.entity("session").count
    t0 = spec.start_dt.timestamp()
    assert starts.min() >= t0 and starts.max() < t0 + spec.horizon_seconds
    hour = ((starts // 3600) % 24).astype(int)
    observed = np.bincount(hour, minlength=24)
    # exposure: seconds of the horizon that fall in each UTC hour of day
    grid = np.arange(t0, t0 + spec.horizon_seconds, 60.0)
    exposure = np.bincount(((grid // 3600) % 24).astype(int), minlength=24)
    w = np.array(WEIGHTS, float) * exposure
    expected = starts.size * w / w.sum()
    zero = expected == 0
    assert observed[zero].sum() == 0, f"arrivals in zero-weight UTC hours; per hour: {observed.tolist()}"
    chi2, p = stats.chisquare(observed[~zero], expected[~zero])
    assert p > 1e-3, f"hour-of-day histogram does not follow hourly_weights (chi2={chi2:.1f}, p={p:.2g})"


@pytest.mark.slow
def test_arrivals_follow_hourly_weights():
    _check_hourly_arrivals("2026-01-01T00:00:00Z", "5d6h")


@pytest.mark.slow
def test_arrivals_follow_hourly_weights_when_start_is_not_on_the_hour():
    _check_hourly_arrivals("2026-01-01T07:30:00Z", "5d")
