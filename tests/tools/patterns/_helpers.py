"""Shared helpers for the incident-pattern tests.

One small world (``WORLD``) has every shape an incident can land on: periodic metrics with iid,
AR, Poisson and formula keys, additive and multiplicative seasonality, a visible state machine,
a three-level topology (link <- cell -> core through foreign keys) and an arriving clickstream.
Each test adds an ``incidents:`` block, generates the bundle *with its baseline* (the same world
without incidents) and compares the two tables. Expected values always come from the spec text
(magnitudes, windows, lags, seasonal amplitudes), never from a previous run.
"""

from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from tools.generate import generate_bundle
from tools.spec import Spec, parse_spec_text

START = datetime(2026, 1, 1, tzinfo=UTC)
CADENCE = 900.0  # 15m, the cadence of every periodic table of WORLD

WORLD = """
name: patterns_world
seed: 101
start: "2026-01-01T00:00:00Z"
horizon: 2d
entities:
  - name: link
    table: links
    id: {column: link_id, format: "L{i}"}
    count: 4
    attributes:
      - name: site
        dist: {kind: categorical, values: {north: 0.5, south: 0.5}}
    emission: {kind: periodic, cadence: 15m}
    measurements:
      - name: util
        base: 50
        seasonality: [{period: 1d, amplitude: 20, peak: 14h}]
        noise: {kind: ar, phi: [0.7], sigma: 2}
        decimals: 4
      - name: latency
        formula: "5 + 0.2 * util"
        noise: {kind: iid, sigma: 0.3}
        decimals: 4
      - name: loss
        base: 1.0
        noise: {kind: iid, sigma: 0.1}
        decimals: 4
  - name: core
    table: cores
    id: {column: core_id, format: "C{i}"}
    count: 5
    emission: {kind: periodic, cadence: 15m}
    measurements:
      - name: ues
        base: 5000
        noise: {kind: ar, phi: [0.8], sigma: 50}
        integer: true
      - name: cpu
        formula: "10 + 0.008 * ues"
        noise: {kind: iid, sigma: 1.5}
        decimals: 3
  - name: cell
    table: cells
    id: {column: cell_id, format: "CELL{i:02d}"}
    count: 24
    attributes:
      - name: link_id
        dist: {kind: foreign_key, entity: link}
      - name: core_id
        dist: {kind: foreign_key, entity: core}
      - name: band
        dist: {kind: categorical, values: {low: 0.5, high: 0.5}}
    states:
      column: state
      initial: ok
      states:
        ok: {dwell: {kind: exponential, mean: 1d}}
        degraded: {dwell: {kind: lognormal, median: 30m, sigma: 0.5}}
      transitions:
        ok: {degraded: 1.0}
        degraded: {ok: 1.0}
    emission: {kind: periodic, cadence: 15m}
    measurements:
      - name: attempts
        base: 200
        seasonality: [{period: 1d, amplitude: 0.3, peak: 15h, mode: multiplicative}]
        noise: {kind: poisson}
      - name: successes
        formula: "round(attempts * 0.95)"
        integer: true
      - name: failures
        formula: "attempts - successes"
        integer: true
      - name: availability
        base: 99.5
        noise: {kind: iid, sigma: 0.05}
        states: {degraded: {shift: -1}}
        decimals: 4
      - name: temp
        base: 30
        noise: {kind: iid, sigma: 0.5}
        decimals: 4
  - name: session
    table: clicks
    id: {column: session_id, format: "S{i:05d}"}
    count: 2000
    arrival: {max_duration: 2h}
    attributes:
      - name: referrer
        dist: {kind: categorical, values: {social: 0.5, email: 0.5}}
    states:
      column: page
      initial: home
      terminal: [purchase, exit]
      states:
        home: {dwell: {kind: exponential, mean: 1m}}
        product: {dwell: {kind: exponential, mean: 2m}}
        checkout: {dwell: {kind: exponential, mean: 2m}}
        purchase: {}
        exit: {}
      transitions:
        home: {product: 0.7, exit: 0.3}
        product: {checkout: 0.5, exit: 0.5}
        checkout: {purchase: 0.8, exit: 0.2}
    emission: {kind: on_transition}
"""


def spec_with(incidents: str, world: str = WORLD, seed: int | None = None) -> Spec:
    """WORLD (or another spec text) plus an ``incidents:`` block written as YAML text."""
    text = textwrap.dedent(world) + "incidents:\n" + textwrap.indent(textwrap.dedent(incidents), "  ")
    spec = parse_spec_text(text)
    return spec if seed is None else spec.model_copy(update={"seed": seed})


def at(text: str) -> pd.Timestamp:
    """An offset from WORLD's start (``30h``, ``1d6h15m``) as a UTC timestamp."""
    from tools.common.durations import parse_duration

    return pd.Timestamp(START + timedelta(seconds=parse_duration(text)))


@dataclass
class Bundle:
    out: Path

    @property
    def manifest(self) -> dict:
        return json.loads((self.out / "incidents.json").read_text())

    def incident(self, iid: str) -> dict:
        return next(r for r in self.manifest["incidents"] if r["id"] == iid)

    def table(self, name: str, baseline: bool = False) -> pd.DataFrame:
        path = self.out / "data" / f"{name}{'__baseline' if baseline else ''}.parquet"
        df = pq.read_table(path).to_pandas()
        for c in df.columns:
            if isinstance(df[c].dtype, pd.CategoricalDtype):
                df[c] = df[c].astype(object)
        return df


def generate(spec: Spec, out: Path, seed: int | None = None) -> Bundle:
    generate_bundle(spec, out, seed=seed, force=True, with_baseline=True)
    return Bundle(Path(out))


def paired(b: Bundle, table: str, id_col: str, ts_col: str = "timestamp") -> pd.DataFrame:
    """Incident and baseline rows side by side (outer join on entity and timestamp; columns
    ``<col>`` from the incident world, ``<col>_b`` from the baseline, ``_merge`` says which)."""
    inc = b.table(table)
    base = b.table(table, baseline=True)
    assert not inc.duplicated([id_col, ts_col]).any() and not base.duplicated([id_col, ts_col]).any()
    return inc.merge(base, on=[id_col, ts_col], how="outer", suffixes=("", "_b"), indicator=True)


def inside(df: pd.DataFrame, id_col: str, entities, start: pd.Timestamp, end: pd.Timestamp,
           ts_col: str = "timestamp") -> np.ndarray:
    """Rows of ``entities`` with ``start <= ts < end``."""
    return (df[id_col].isin(list(entities)) & (df[ts_col] >= start) & (df[ts_col] < end)).to_numpy()


def same(a: pd.Series, b: pd.Series) -> np.ndarray:
    """Element-wise equality with null == null."""
    a, b = a.to_numpy(dtype=object), b.to_numpy(dtype=object)
    na, nb = pd.isna(a), pd.isna(b)
    eq = np.zeros(a.shape, bool)
    ok = ~na & ~nb
    eq[ok] = a[ok] == b[ok]
    return eq | (na & nb)


def assert_identical_outside(df: pd.DataFrame, mask: np.ndarray, columns: list[str], label: str) -> None:
    """Outside ``mask``: every row exists in both worlds and every column is equal."""
    out = df[~mask]
    only = out[out["_merge"] != "both"]
    assert only.empty, f"{label}: {len(only)} rows outside the incident exist in only one world:\n{only.head()}"
    for c in columns:
        eq = same(out[c], out[c + "_b"])
        assert eq.all(), f"{label}: column {c} differs outside the incident on {int((~eq).sum())} rows:\n" \
                         f"{out.loc[~eq, [c, c + '_b']].head()}"


def window_of(record: dict) -> tuple[pd.Timestamp, pd.Timestamp]:
    return pd.Timestamp(record["start"]), pd.Timestamp(record["end"])
