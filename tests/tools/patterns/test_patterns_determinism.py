"""Determinism with incidents: one seed -> byte-identical Parquet files and incidents.json (random
targets, random noise patterns, added sessions and behaviour shifts included); another seed places
random targets elsewhere."""

from __future__ import annotations

import hashlib

from ._helpers import generate, spec_with, window_of

MIXED = """
- kind: variance_burst
  id: noisy
  target: {entity: cell, random: 4}
  window: {start: "day 1 03:00", duration: 6h}
  effects: {temp: 2}
- kind: correlation_break
  id: decoupled
  target: {entity: link, random: 2}
  window: {start: "day 1 12:00", duration: 8h}
  keys: [latency]
- kind: level_shift
  id: shifted
  target: {entity: core, random: 2}
  window: {start: "day 2 01:00", duration: 3h}
  effects: {cpu: "2sigma"}
- kind: flash_crowd
  id: crowd
  target: {entity: session, where: [{attribute: referrer, equals: social}]}
  window: {start: "day 1 18:00", duration: 2h}
  surge: "+150%"
- kind: behavior_shift
  id: nobuy
  target: {entity: session, random: 400}
  window: {start: "day 2 06:00", duration: 10h}
  transitions:
    checkout: {exit: 1.0}
- kind: data_outage
  id: gap
  target: {entity: cell, random: 3}
  window: {start: "day 2 12:00", duration: 2h}
"""


def _digests(out):
    files = sorted((out / "data").glob("*.parquet")) + [out / "incidents.json"]
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


def test_same_seed_same_bytes(tmp_path):
    spec = spec_with(MIXED)
    a = generate(spec, tmp_path / "a")
    b = generate(spec, tmp_path / "b")
    da, db = _digests(a.out), _digests(b.out)
    assert len(da) == 2 * 4 + 1, "four tables, each with its baseline, plus incidents.json"
    assert da == db
    assert (a.out / "incidents.json").read_text() == (b.out / "incidents.json").read_text()


def test_another_seed_moves_random_targets(tmp_path):
    spec = spec_with(MIXED)
    a = generate(spec, tmp_path / "a", seed=101)
    b = generate(spec, tmp_path / "b", seed=202)
    moved = [i for i in ("noisy", "decoupled", "shifted", "nobuy", "gap")
             if a.incident(i)["entities"] != b.incident(i)["entities"]]
    assert len(moved) >= 4, f"random targets should follow the seed; only {moved} moved"
    for i in ("noisy", "decoupled", "shifted", "nobuy", "gap"):
        assert window_of(a.incident(i)) == window_of(b.incident(i)), "windows come from the spec, not the seed"


def test_baseline_does_not_depend_on_the_incidents(tmp_path):
    """The baseline written next to an incident world is the world without incidents: the same
    bytes whatever incidents the spec carries."""
    a = generate(spec_with(MIXED), tmp_path / "a")
    b = generate(spec_with("""
    - kind: spike
      id: only
      target: {entity: cell, ids: [CELL01]}
      window: {start: "day 1 01:00", duration: 15m}
      effects: {temp: 1}
    """), tmp_path / "b")
    for table in ("links", "cores", "cells", "clicks"):
        name = f"{table}__baseline.parquet"
        assert _digests(a.out)[name] == _digests(b.out)[name], table
