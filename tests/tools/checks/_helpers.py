"""Small worlds for the checks tests (specs are inline so the tests do not depend on the packs)."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import duckdb

from tools.checks import Check, run_checks
from tools.generate import generate_bundle
from tools.spec import Spec, parse_spec_text

# A telecom world like the reference: a backhaul link whose degradation cascades to the cells it
# serves and to their core nodes, a stuck cell (flatline) and a core-node data outage. The core
# node effects are larger than in the pack so that they clear the detectability bound.
TELECOM = """
name: tel
seed: 7
start: "2026-01-01T00:00:00Z"
horizon: 3d
entities:
  - name: transport_link
    table: transport_link
    id: {column: Device_ID, format: "RTR_{i:03d}"}
    count: 6
    attributes:
      - name: Interface_ID
        dist: {kind: categorical, values: {eth0: 0.5, eth1: 0.5}}
    emission: {kind: periodic, cadence: 15m, timestamp_column: Timestamp}
    measurements:
      - name: Bandwidth_Utilization_Out
        base: 65
        seasonality: [{period: 1d, amplitude: 28.6, peak: 14h45m}, {period: 12h, amplitude: 8.8, peak: 10h15m}]
        noise: {kind: ar, phi: [0.8], sigma: 2.9}
        bounds: [0, 100]
        decimals: 2
      - name: Packet_Loss_Percent
        base: 0.5
        noise: {kind: iid, sigma: 0.12}
        bounds: [0, 100]
        decimals: 3
      - name: Latency_ms
        formula: "3.4 + 0.235 * Bandwidth_Utilization_Out"
        noise: {kind: iid, sigma: 1.0}
        bounds: [0, null]
        decimals: 2
      - name: Jitter_ms
        base: 2.0
        noise: {kind: iid, sigma: 0.2}
        bounds: [0, null]
        decimals: 3
  - name: core_node
    table: core_node
    id: {column: Core_Node_ID, format: "MME_{i:03d}"}
    count: 6
    emission: {kind: periodic, cadence: 15m, timestamp_column: Timestamp}
    measurements:
      - name: MM_AttachedUEs
        base: 5830
        seasonality: [{period: 1d, amplitude: 1846, peak: 14h45m}, {period: 12h, amplitude: 521, peak: 10h30m}]
        noise: {kind: ar, phi: [0.85], sigma: 150}
        bounds: [0, null]
        integer: true
      - name: CPU_Load
        formula: "1.5 + 0.0118 * MM_AttachedUEs"
        noise: {kind: iid, sigma: 2.7}
        bounds: [0, 100]
        decimals: 2
  - name: cell_site
    table: cell_site
    id: {column: Cell_ID, format: "CELL_{i}"}
    count: 40
    attributes:
      - name: Transport_Device_ID
        dist: {kind: foreign_key, entity: transport_link}
      - name: Core_Node_ID
        dist: {kind: foreign_key, entity: core_node}
    emission: {kind: periodic, cadence: 15m, timestamp_column: Timestamp}
    measurements:
      - name: DL_PRB_Utilization
        base: 61
        seasonality: [{period: 1d, amplitude: 26.6, peak: 14h45m}]
        noise: {kind: ar, phi: [0.8], sigma: 2.6}
        bounds: [0, 100]
        decimals: 2
      - name: RRC_ConnEstabAtt
        base: 123
        seasonality: [{period: 1d, amplitude: 0.365, peak: 14h45m, mode: multiplicative}]
        noise: {kind: poisson}
        bounds: [0, null]
      - name: RRC_ConnEstabSucc
        formula: "round(RRC_ConnEstabAtt * 0.95)"
        bounds: [0, null]
        integer: true
      - name: RRC_ConnEstabFail
        formula: "RRC_ConnEstabAtt - RRC_ConnEstabSucc"
        bounds: [0, null]
        integer: true
      - name: Cell_Availability
        base: 99.5
        noise: {kind: iid, sigma: 0.02}
        bounds: [0, 100]
        decimals: 3
incidents:
  - kind: cascade
    id: link_degradation
    root:
      kind: kpi_degradation
      id: link_degradation
      target: {entity: transport_link, ids: [RTR_002]}
      window: {start: "day 2 06:00", duration: 4h}
      ramp_in: 30m
      ramp_out: 30m
      effects: {Packet_Loss_Percent: "+4", Latency_ms: "+300%", Jitter_ms: "+400%"}
    children:
      - entity: cell_site
        via: Transport_Device_ID
        lag: 15m
        effects: {RRC_ConnEstabSucc: "-50%", Cell_Availability: "-6"}
      - entity: core_node
        via: Core_Node_ID
        lag: 15m
        effects: {CPU_Load: "+40", MM_AttachedUEs: "-25%"}
  - kind: flatline
    id: stuck_cell
    target: {entity: cell_site, random: 1}
    window: {start: "day 3 00:00", duration: 6h}
    keys: [DL_PRB_Utilization]
  - kind: data_outage
    id: core_gap
    target: {entity: core_node, ids: [MME_001]}
    window: {start: "day 1 12:00", duration: 2h}
"""

# One static table, one periodic table with a visible state machine (terminal state) and one
# arriving event table with derived columns: every data-quality check has something to check.
SHOP = """
name: shop
seed: 3
start: "2026-01-01T00:00:00Z"
horizon: 2d
entities:
  - name: site
    table: sites
    id: {column: site_id, format: "SITE_{i}"}
    count: 3
    attributes:
      - name: region
        dist: {kind: categorical, values: {north: 0.5, south: 0.5}}
  - name: sensor
    table: readings
    static_table: sensors
    id: {column: sensor_id, format: "SENSOR_{i:02d}"}
    count: 8
    attributes:
      - name: site_id
        dist: {kind: foreign_key, entity: site}
    states:
      column: device_state
      initial: ok
      terminal: [retired]
      states:
        ok: {dwell: {kind: exponential, mean: 8h}}
        warn: {dwell: {kind: lognormal, median: 30m, sigma: 0.5}}
        retired: {}
      transitions:
        ok: {warn: 0.95, retired: 0.05}
        warn: {ok: 1.0}
    emission: {kind: periodic, cadence: 15m}
    measurements:
      - name: temperature
        base: 21
        seasonality: [{period: 1d, amplitude: 3, peak: 15h}]
        noise: {kind: iid, sigma: 0.4}
        states: {warn: {shift: 4}}
        bounds: [-20, 60]
        decimals: 2
      - name: humidity
        base: 45
        noise: {kind: iid, sigma: 2}
        bounds: [0, 100]
        decimals: 1
  - name: visit
    table: visits
    id: {column: visit_id, format: "V{i:04d}"}
    count: 400
    arrival: {max_duration: 2h}
    attributes:
      - name: site_id
        dist: {kind: foreign_key, entity: site}
    states:
      initial: landing
      terminal: [bought, left]
      states:
        landing: {dwell: {kind: exponential, mean: 1m}}
        browse: {dwell: {kind: exponential, mean: 2m}}
        cart: {dwell: {kind: exponential, mean: 3m}}
        bought: {}
        left: {}
      transitions:
        landing: {browse: 0.8, left: 0.2}
        browse: {browse: 0.3, cart: 0.4, left: 0.3}
        cart: {bought: 0.6, left: 0.4}
      derived_columns:
        page: {landing: home, browse: catalog, cart: cart, bought: done, left: done}
        step: {browse: browse, cart: add, bought: pay}
    emission: {kind: on_transition}
"""


def spec_of(text: str, **changes) -> Spec:
    spec = parse_spec_text(textwrap.dedent(text))
    return spec.model_copy(update=changes) if changes else spec


def make_bundle(out: Path, spec: Spec | str, *, scale: float = 1.0, seed: int | None = None,
                with_baseline: bool = False) -> Path:
    spec = spec_of(spec) if isinstance(spec, str) else spec
    generate_bundle(spec, out, seed=seed, scale=scale, force=True, with_baseline=with_baseline)
    return out


def copy_bundle(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def execute(bundle: Path, *statements: str) -> None:
    """Run SQL against a bundle's data.duckdb (to corrupt it on purpose)."""
    con = duckdb.connect(str(bundle / "data.duckdb"))
    try:
        for sql in statements:
            con.execute(sql)
    finally:
        con.close()


def by_key(checks: list[Check]) -> dict[tuple[str, str, str | None], Check]:
    return {(c.name, c.table, c.incident): c for c in checks}


def pattern_results(bundle: Path, only: set[str] | None = None) -> dict[tuple[str, str], Check]:
    return {(c.incident, c.name): c for c in run_checks(bundle, only) if c.kind == "pattern"}


def edit_incidents(bundle: Path, fn) -> None:
    path = bundle / "incidents.json"
    doc = json.loads(path.read_text())
    fn(doc["incidents"])
    path.write_text(json.dumps(doc))

# Every pattern kind once, on separate entities and times, in a world with daily seasonality,
# counts, a derived key, a visible periodic state machine and an arriving event table.
KINDS = """
name: kinds
seed: 11
start: "2026-01-05T00:00:00Z"
horizon: 4d
entities:
  - name: meter
    table: meters
    id: {column: meter_id, format: "M{i:02d}"}
    count: 16
    states:
      column: mode
      initial: normal
      states:
        normal: {dwell: {kind: exponential, mean: 6h}}
        eco: {dwell: {kind: lognormal, median: 1h, sigma: 0.4}}
        alarm: {dwell: {kind: lognormal, median: 20m, sigma: 0.4}}
      transitions:
        normal: {eco: 0.9, alarm: 0.1}
        eco: {normal: 1.0}
        alarm: {normal: 1.0}
    emission: {kind: periodic, cadence: 15m}
    measurements:
      - name: load
        base: 50
        seasonality: [{period: 1d, amplitude: 10, peak: 14h}]
        noise: {kind: iid, sigma: 1.0}
        decimals: 3
      - name: requests
        base: 40
        seasonality: [{period: 1d, amplitude: 0.3, peak: 14h, mode: multiplicative}]
        noise: {kind: poisson}
      - name: power
        formula: "2 * load + 5"
        noise: {kind: iid, sigma: 0.5}
        decimals: 3
  - name: visit
    table: visits
    id: {column: visit_id, format: "V{i:05d}"}
    count: 4000
    arrival: {max_duration: 2h}
    attributes:
      - name: channel
        dist: {kind: categorical, values: {ads: 0.3, organic: 0.7}}
    states:
      column: page
      initial: home
      terminal: [bought, left]
      states:
        home: {dwell: {kind: exponential, mean: 1m}}
        cart: {dwell: {kind: exponential, mean: 3m}}
        bought: {}
        left: {}
      transitions:
        home: {cart: 0.6, left: 0.4}
        cart: {bought: 0.7, left: 0.3}
    emission: {kind: on_transition}
incidents:
  - {kind: spike, id: spike, target: {entity: meter, ids: [M00]}, window: {start: "day 1 10:00", duration: 45m},
     effects: {load: 8sigma}}
  - {kind: dip, id: dip, target: {entity: meter, ids: [M01]}, window: {start: "day 1 20:00", duration: 1h},
     effects: {load: 8sigma}}
  - {kind: level_shift, id: shift, target: {entity: meter, ids: [M02, M03]}, window: {start: "day 2 03:00", duration: 3h},
     effects: {load: "+8sigma"}}
  - {kind: kpi_degradation, id: degradation, target: {entity: meter, ids: [M04]},
     window: {start: "day 2 12:00", duration: 4h}, ramp_in: 30m, ramp_out: 30m, effects: {requests: "-60%"}}
  - {kind: variance_burst, id: noisy, target: {entity: meter, ids: [M05]}, window: {start: "day 3 01:00", duration: 4h},
     effects: {load: 8sigma}}
  - {kind: slow_drift, id: drift, target: {entity: meter, ids: [M06]}, window: {start: "day 3 00:00", duration: 1d},
     effects: {load: 40}}
  - {kind: null_burst, id: nulls, target: {entity: meter, ids: [M07]}, window: {start: "day 1 06:00", duration: 2h},
     keys: [load, requests]}
  - {kind: flatline, id: stuck, target: {entity: meter, ids: [M08]}, window: {start: "day 2 08:00", duration: 5h},
     keys: [load]}
  - {kind: correlation_break, id: decoupled, target: {entity: meter, ids: [M09]},
     window: {start: "day 3 06:00", duration: 6h}, keys: [power]}
  - {kind: seasonality_break, id: season, target: {entity: meter, ids: [M10]}, window: {start: "day 2 00:00", duration: 12h},
     keys: [load], mode: invert}
  - {kind: flash_crowd, id: surge, target: {entity: meter, ids: [M11]}, window: {start: "day 4 09:00", duration: 2h},
     keys: [requests], surge: "+300%"}
  - {kind: data_outage, id: outage, target: {entity: meter, ids: [M12]}, window: {start: "day 1 15:00", duration: 3h}}
  - {kind: behavior_shift, id: alarms, target: {entity: meter, ids: [M13, M14]}, window: {start: "day 3 12:00", duration: 12h},
     transitions: {normal: {alarm: 1.0}}, dwell: {normal: {kind: fixed, value: 30m}, alarm: {kind: fixed, value: 2h}}}
  - {kind: flash_crowd, id: crowd, target: {entity: visit, where: [{attribute: channel, equals: ads}]},
     window: {start: "day 2 18:00", duration: 2h}, surge: "+300%"}
  - {kind: behavior_shift, id: checkout_bug, target: {entity: visit, where: [{attribute: channel, equals: organic}]},
     window: {start: "day 3 08:00", duration: 10h}, transitions: {cart: {bought: 0.1, left: 0.9}}}
"""

# Hidden states (no state column): a behaviour shift shows only through a measurement's state effect.
HIDDEN = """
name: hid
seed: 2
start: "2026-01-01T00:00:00Z"
horizon: 3d
entities:
  - name: link
    table: links
    id: {column: link_id, format: "L{i}"}
    count: 8
    states:
      initial: healthy
      states:
        healthy: {dwell: {kind: exponential, mean: 1d}}
        degraded: {dwell: {kind: lognormal, median: 30m, sigma: 0.6}}
      transitions:
        healthy: {degraded: 1.0}
        degraded: {healthy: 1.0}
    emission: {kind: periodic, cadence: 15m}
    measurements:
      - name: loss
        base: 0.5
        noise: {kind: iid, sigma: 0.12}
        states: {degraded: {shift: 2.0, noise_scale: 3}}
        bounds: [0, 100]
        decimals: 3
incidents:
  - kind: behavior_shift
    id: flappy
    target: {entity: link, ids: [L1, L2]}
    window: {start: "day 2 06:00", duration: 12h}
    transitions: {healthy: {degraded: 1.0}}
    dwell: {healthy: {kind: fixed, value: 30m}, degraded: {kind: fixed, value: 2h}}
"""
