"""Incident specs: magnitudes, windows, target resolution (ids, where, random k by seed), overlap
rejection with a clear error, and ``compose: add`` stacking."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tools.generate import build_populations
from tools.generate.incidents.resolve import incident_window, resolve_incidents, window_seconds
from tools.patterns.magnitude import Magnitude, parse_magnitude
from tools.patterns.model import Window
from tools.spec import SpecError, parse_spec_text

from ._helpers import WORLD, assert_identical_outside, at, generate, inside, paired, spec_with

ROOT = Path(__file__).resolve().parents[3]


def test_tools_patterns_imports_on_its_own():
    """A fresh interpreter imports the pattern kinds and their union without tools.spec (the kinds
    are below the spec: tools.common <- tools.patterns <- tools.spec)."""
    code = "import sys, tools.patterns.model, tools.patterns.library; assert 'tools.spec' not in sys.modules"
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr.strip().splitlines()[-1]


# --------------------------------------------------------------------------- magnitudes

@pytest.mark.parametrize(("text", "value", "unit"), [
    (12, 12.0, "units"), (-2.5, -2.5, "units"), ("-2.5", -2.5, "units"), ("+4", 4.0, "units"),
    ("3sigma", 3.0, "sigma"), ("-1.5sigma", -1.5, "sigma"), ("2σ", 2.0, "sigma"),
    ("+40%", 0.4, "relative"), ("-40%", -0.4, "relative"), ("300%", 3.0, "relative"),
])
def test_parse_magnitude(text, value, unit):
    m = parse_magnitude(text)
    assert m.unit == unit
    assert m.value == pytest.approx(value)


@pytest.mark.parametrize("text", ["abc", "3 sigmas", "40 percent", "", "1e3x", True])
def test_bad_magnitudes_are_rejected_with_the_accepted_forms(text):
    with pytest.raises(ValueError) as err:
        parse_magnitude(text)
    assert "sigma" in str(err.value) and "%" in str(err.value)


def test_magnitudes_resolve_against_the_entity_baseline():
    assert Magnitude(3, "sigma").resolve(mean=100, std=4) == 12
    assert Magnitude(-0.4, "relative").resolve(mean=-50, std=4) == pytest.approx(-20), "relative to |mean|"
    assert Magnitude(7, "units").resolve(mean=100, std=4) == 7


def test_a_bad_magnitude_in_a_spec_names_the_key():
    with pytest.raises(SpecError) as err:
        spec_with("""
        - kind: spike
          id: s
          target: {entity: cell, ids: [CELL01]}
          window: {start: "day 1 01:00", duration: 1h}
          effects: {temp: "lots"}
        """)
    assert "effects.temp" in str(err.value)


# --------------------------------------------------------------------------- windows

def _spec(start="2026-01-01T00:00:00Z"):
    return parse_spec_text(WORLD.replace('start: "2026-01-01T00:00:00Z"', f'start: "{start}"'))


@pytest.mark.parametrize(("text", "seconds"), [
    ("day 1 00:00", 0), ("day 2 06:00", 30 * 3600), ("day 2", 24 * 3600), ("Day 1 23:45", 23.75 * 3600),
    ("2026-01-02T06:00:00Z", 30 * 3600), ("2026-01-02T07:00:00+01:00", 30 * 3600),
    ("1d6h", 30 * 3600), ("90m", 5400), ("0s", 0),
])
def test_window_start_forms(text, seconds):
    assert window_seconds(text, _spec()) == pytest.approx(seconds)


def test_day_n_counts_calendar_days_from_the_first_day_of_the_horizon():
    """With a start at 12:00, `day 1 18:00` is 6 hours in and `day 2 00:00` is 12 hours in."""
    spec = _spec("2026-01-01T12:00:00Z")
    assert window_seconds("day 1 18:00", spec) == 6 * 3600
    assert window_seconds("day 2 00:00", spec) == 12 * 3600
    assert window_seconds("1d", spec) == 24 * 3600, "offsets count from the spec start itself"


def test_day_zero_is_rejected():
    with pytest.raises(ValueError, match="day 1"):
        window_seconds("day 0 06:00", _spec())


def test_window_needs_exactly_one_of_duration_or_end():
    with pytest.raises(ValueError):
        Window(start="day 1", duration="1h", end="day 2")
    with pytest.raises(ValueError):
        Window(start="day 1")


def test_window_with_end_instead_of_duration():
    spec = spec_with("""
    - kind: level_shift
      id: w
      target: {entity: cell, ids: [CELL01]}
      window: {start: "day 1 22:00", end: "2026-01-02T01:30:00Z"}
      effects: {temp: 1}
    """)
    assert incident_window(spec.incidents[0], spec) == (22 * 3600, 25.5 * 3600)


@pytest.mark.parametrize("window", ['{start: "day 2 20:00", duration: 6h}', '{start: "day 3 01:00", duration: 1h}'])
def test_a_window_outside_the_horizon_is_rejected(window):
    spec = spec_with(f"""
    - kind: level_shift
      id: late
      target: {{entity: cell, ids: [CELL01]}}
      window: {window}
      effects: {{temp: 1}}
    """)
    with pytest.raises(SpecError) as err:
        resolve_incidents(spec, build_populations(spec, spec.seed, 1.0), spec.seed)
    assert "incidents[0].window" in str(err.value) and "horizon" in str(err.value)


# --------------------------------------------------------------------------- targets

def _resolve(incidents: str, seed: int = 101):
    spec = spec_with(incidents)
    pops = build_populations(spec, seed, 1.0)
    return resolve_incidents(spec, pops, seed), pops


def _target(target: str, seed: int = 101) -> list[str]:
    incs, pops = _resolve(f"""
    - kind: level_shift
      id: t
      target: {target}
      window: {{start: "day 1 01:00", duration: 1h}}
      effects: {{temp: 1}}
    """, seed)
    return list(pops["cell"].ids[incs[0].entities])


def test_target_by_ids():
    assert _target("{entity: cell, ids: [CELL07, CELL02]}") == ["CELL02", "CELL07"]


def test_unknown_target_ids_are_named():
    with pytest.raises(SpecError) as err:
        _target("{entity: cell, ids: [CELL02, CELL99]}")
    assert "CELL99" in str(err.value) and "target.ids" in str(err.value)


def _cells():
    spec = spec_with(_shift("any"))
    return build_populations(spec, 101, 1.0)["cell"]


def test_target_by_where_is_every_matching_entity():
    cells = _cells()
    band = cells.attrs["band"].as_objects()
    link = cells.attrs["link_id"].as_objects()
    assert _target("{entity: cell, where: [{attribute: band, equals: high}]}") == list(cells.ids[band == "high"])
    assert _target("{entity: cell, where: [{attribute: band, equals: high}, {attribute: link_id, in: [L1, L2]}]}") \
        == list(cells.ids[(band == "high") & np.isin(link, ["L1", "L2"])])


def test_random_k_is_drawn_from_the_filter_and_reproducible_by_seed():
    target = "{entity: cell, where: [{attribute: band, equals: low}], random: 3}"
    cells = _cells()
    low = set(cells.ids[cells.attrs["band"].as_objects() == "low"])
    first = _target(target)
    assert len(first) == 3 and set(first) <= low
    assert _target(target) == first, "same seed, same entities"
    draws = {tuple(_target(target, seed)) for seed in (1, 2, 3, 4, 5)}
    assert len(draws) > 1, "other seeds place the incident elsewhere"


def test_random_k_larger_than_the_candidates_is_rejected():
    with pytest.raises(SpecError) as err:
        _target("{entity: cell, random: 25}")
    assert "random" in str(err.value) and "24" in str(err.value)


def test_a_target_needs_a_selector():
    with pytest.raises(SpecError):
        spec_with("""
        - kind: spike
          id: s
          target: {entity: cell}
          window: {start: "day 1 01:00", duration: 1h}
          effects: {temp: 1}
        """)


# --------------------------------------------------------------------------- overlaps

SHIFT = """
- kind: level_shift
  id: {id}
  target: {{entity: cell, ids: {ids}}}
  window: {{start: "{start}", duration: {duration}}}
  effects: {effects}{extra}
"""


def _shift(iid, ids="[CELL03]", start="day 1 06:00", duration="4h", effects="{temp: 2}", extra=""):
    return SHIFT.format(id=iid, ids=ids, start=start, duration=duration, effects=effects, extra=extra)


def test_overlap_on_the_same_entity_and_key_is_rejected_clearly():
    with pytest.raises(SpecError) as err:
        _resolve(_shift("first") + _shift("second", ids="[CELL01, CELL03]", start="day 1 09:00"))
    msg = str(err.value)
    assert "incidents[1]" in msg and "'first'" in msg and "temp" in msg and "compose: add" in msg


@pytest.mark.parametrize("other", [
    _shift("b", ids="[CELL04]"),                                    # other entity
    _shift("b", effects="{availability: -1}"),                      # other key
    _shift("b", start="day 1 10:00"),                               # adjacent window (end is exclusive)
])
def test_no_overlap_when_entity_key_or_time_differ(other):
    incs, _ = _resolve(_shift("a") + other)
    assert [i.id for i in incs] == ["a", "b"]


def test_an_outage_overlaps_any_value_incident_on_the_same_entity():
    with pytest.raises(SpecError, match="overlaps incident 'a'"):
        _resolve(_shift("a") + '- {kind: data_outage, id: gone, target: {entity: cell, ids: [CELL03]}, '
                               'window: {start: "day 1 08:00", duration: 1h}}')


CASCADE = """
- kind: cascade
  id: c
  root:
    kind: level_shift
    id: root
    target: {entity: link, ids: [L1]}
    window: {start: "day 1 06:00", duration: 4h}
    effects: {loss: 1}
  children:
    - {entity: cell, via: link_id, lag: 15m, effects: {temp: 2}}
"""


def test_a_cascade_child_overlapping_another_incident_is_rejected():
    """The child level runs 06:15-10:15 on the cells of L1: a shift from 10:00 on one of them collides."""
    incs, pops = _resolve(CASCADE)
    child_cell = pops["cell"].ids[incs[1].entities[0]]
    with pytest.raises(SpecError, match="overlaps incident 'root.1'"):
        _resolve(CASCADE + _shift("late", ids=f"[{child_cell}]", start="day 1 10:00"))
    incs, _ = _resolve(CASCADE + _shift("later", ids=f"[{child_cell}]", start="day 1 10:15"))
    assert [i.id for i in incs] == ["root", "root.1", "later"]


def test_compose_add_stacks_the_effects(tmp_path):
    """Two shifts on one cell, the second with compose: add: +2 alone, +2 + 5 where they overlap,
    +5 alone after the first ends; nothing anywhere else."""
    spec = spec_with(_shift("a", duration="4h") + _shift("b", start="day 1 08:00", effects="{temp: 5}",
                                                         extra="\n  compose: add"))
    b = generate(spec, tmp_path / "b")
    df = paired(b, "cells", "cell_id")
    delta = (df["temp"] - df["temp_b"]).to_numpy()
    only_a = inside(df, "cell_id", ["CELL03"], at("6h"), at("8h"))
    both = inside(df, "cell_id", ["CELL03"], at("8h"), at("10h"))
    only_b = inside(df, "cell_id", ["CELL03"], at("10h"), at("12h"))
    assert np.allclose(delta[only_a], 2, atol=1e-3) and only_a.sum() == 8
    assert np.allclose(delta[both], 7, atol=1e-3) and both.sum() == 8
    assert np.allclose(delta[only_b], 5, atol=1e-3) and only_b.sum() == 8
    assert_identical_outside(df, only_a | both | only_b, ["temp", "attempts", "availability"], "compose add")
