"""Benchmark: infer a spec from 1M sample rows (the issue's budget: at most 20 s).

Generates a telecom-shaped world with tools.generate (cells with a combined state: a state column
plus an event column, fitted as one machine of their combinations; four
measurements, a relation to a links table; about ``--rows`` rows in the cell table), writes it as
Parquet (or CSV with --csv) to a temp directory, then times ``tools.infer.infer`` on those files:
once without the fidelity report (profile + fits) and once with it (plus regeneration and comparison).

    python bench/bench_infer.py [--rows 1000000] [--csv] [--repeat 3]

The last line is: rows=<n> infer_s=<s> with_fidelity_s=<s> (budget 20 s)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SPEC = """
name: bench_infer
seed: 1
start: "2026-01-05T00:00:00Z"
horizon: {horizon}
entities:
  - name: link
    table: links
    id: {{column: Device_ID, format: "RTR_{{i:03d}}"}}
    count: 40
    attributes:
      - {{name: Interface_ID, dist: {{kind: categorical, values: {{eth0: 0.5, eth1: 0.5}}}}}}
    emission: {{kind: periodic, cadence: 15m, timestamp_column: Timestamp}}
    measurements:
      - {{name: Latency_ms, base: 12, noise: {{kind: iid, sigma: 1}}, bounds: [0, null], decimals: 2}}
  - name: cell
    table: cells
    id: {{column: Cell_ID, format: "CELL_{{i}}"}}
    count: {cells}
    attributes:
      - {{name: Transport_Device_ID, dist: {{kind: foreign_key, entity: link}}}}
      - {{name: Base_Station_ID, dist: {{kind: categorical, values: {{eNB_001: 0.4, gNB_001: 0.6}}}}}}
      - {{name: Location_Lat, dist: {{kind: uniform, low: 40, high: 41, decimals: 6}}}}
    emission: {{kind: periodic, cadence: 15m, timestamp_column: Timestamp}}
    states:
      initial: normal
      states:
        normal: {{dwell: {{kind: exponential, mean: 1d}}}}
        degraded: {{dwell: {{kind: lognormal, median: 1h, sigma: 0.6}}}}
        degraded_alarm: {{dwell: {{kind: exponential, mean: 30m}}}}
      transitions: {{normal: {{degraded: 1.0}}, degraded: {{normal: 0.6, degraded_alarm: 0.4}},
                    degraded_alarm: {{normal: 1.0}}}}
      derived_columns:
        cell_state: {{normal: normal, degraded: degraded, degraded_alarm: degraded}}
        event: {{normal: null, degraded: null, degraded_alarm: alarm}}
    measurements:
      - name: DL_PRB_Utilization
        base: 61
        seasonality: [{{period: 1d, amplitude: 26, peak: 14h45m}}]
        noise: {{kind: ar, phi: [0.8], sigma: 2.6}}
        bounds: [0, 100]
        decimals: 2
      - {{name: RRC_ConnEstabAtt, base: 123, noise: {{kind: poisson}}, bounds: [0, null]}}
      - name: Cell_Availability
        base: 99.5
        noise: {{kind: iid, sigma: 0.02}}
        states: {{degraded: {{shift: -1.5}}, degraded_alarm: {{shift: -3}}}}
        bounds: [0, 100]
        decimals: 3
      - {{name: Packet_Loss_Percent, base: 0.5, noise: {{kind: iid, sigma: 0.1}}, bounds: [0, 100], decimals: 3}}
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=1_000_000, help="rows of the cell table (about)")
    ap.add_argument("--csv", action="store_true", help="write and read CSV instead of Parquet")
    ap.add_argument("--repeat", type=int, default=1, help="time N runs of each and print the medians")
    args = ap.parse_args()

    import pandas as pd

    from tools.generate import generate_bundle
    from tools.infer import infer
    from tools.spec import parse_spec_text

    ticks = 96 * 7  # one week of 15-minute rows per cell
    cells = max(10, round(args.rows / ticks))
    spec = parse_spec_text(SPEC.format(horizon="7d", cells=cells))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "bundle"
        generate_bundle(spec, out)
        files = [out / "data" / "links.parquet", out / "data" / "cells.parquet"]
        if args.csv:
            csvs = []
            for f in files:
                p = Path(tmp) / f"{f.stem}.csv"
                pd.read_parquet(f).to_csv(p, index=False)
                csvs.append(p)
            files = csvs
        rows = len(pd.read_parquet(out / "data" / "cells.parquet"))
        plain, full, cpu_plain, cpu_full = [], [], [], []
        for _ in range(args.repeat):
            began, cpu = time.perf_counter(), time.process_time()
            result, _ = infer(files, fidelity=False)
            plain.append(time.perf_counter() - began)
            cpu_plain.append(time.process_time() - cpu)
            began, cpu = time.perf_counter(), time.process_time()
            result, _ = infer(files, fidelity=True)
            full.append(time.perf_counter() - began)
            cpu_full.append(time.process_time() - cpu)
    ok = sum(r.ok for r in result.fidelity)
    roles = {c.name: (c.role, c.kind) for p in result.profiles if p.name == "cells" for c in p.columns.values()
             if c.role == "state"}
    print(f"cells state columns: {roles}")
    print(f"relations: {[str(r) for r in result.relations]}; fidelity {ok}/{len(result.fidelity)} pass")
    for r in result.fidelity:
        if not r.ok:
            print(f"  not within: {r.table} {r.column} {r.metric} {r.value:.3f} > {r.threshold} {r.detail}")
    print("runs: infer " + " ".join(f"{x:.2f}" for x in plain) + " | with fidelity " + " ".join(f"{x:.2f}" for x in full))
    print("cpu: infer " + " ".join(f"{x:.2f}" for x in cpu_plain) + " | with fidelity "
          + " ".join(f"{x:.2f}" for x in cpu_full) + " (process CPU seconds: what a shared machine cannot inflate)")
    print(f"rows={rows} infer_s={statistics.median(plain):.2f} with_fidelity_s={statistics.median(full):.2f} "
          "(medians; the first run includes imports; budget 20 s)")


if __name__ == "__main__":
    main()
