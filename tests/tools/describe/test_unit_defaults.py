"""A measurement the catalog may not know gets a unit, level and bounds from what the text says (its
unit, a stated level, range or limit) or, failing that, from its dimension and unit (issue 29): never a
fixed "around 100". Each sentence is written for this test, not taken from a description corpus."""

from __future__ import annotations

import re

import pytest

from knowledge.catalog import load_catalog
from tools.describe.compose_world import compose_world
from tools.describe.understand import understand

CAT = load_catalog()
_UNIT_WORDS = r"(?:^|_)(?:in|f|degf|kw|mm|psi|kpa|mg|l|min|g|kg|m3|m|ppm|cm|s|h|gbp|usd)(?:_|$)"


def _measurement(text: str, pattern: str):
    spec, _decisions, _notes = compose_world(understand(text, CAT), CAT)
    ms = [m for e in spec.entities for m in e.measurements]
    found = [m for m in ms if re.search(pattern, m.name)]
    assert found, f"no measurement matching {pattern!r} in {[m.name for m in ms]}"
    return found[0]


# (sentence, name pattern, unit pattern, level range, lowest allowed lower bound or None for "no bound
# needed", highest allowed upper bound or None)
CASES = [
    ("12 pottery dryers report chamber temperature in °F every minute for 3 days.",
     "temp", r"°F", (40.0, 130.0), None, None),
    ("8 glass furnaces report crucible temperature in °F (around 2,100°F) every minute for 2 days.",
     "temp", r"°F", (2000.0, 2200.0), None, None),
    ("20 print shops report press power draw in kW every 5 minutes for a week.",
     "power|draw", r"^kW$", (0.3, 25.0), 0.0, None),
    ("15 aquaponics tanks report dissolved oxygen in mg/L (normally 6-9) every 10 minutes for a week.",
     "oxygen", r"mg/L|mg / l", (6.0, 9.0), 0.0, None),
    ("30 rainwater cisterns report water depth in mm every hour for 10 days.",
     "depth", r"^mm$", (10.0, 5000.0), 0.0, None),
    ("10 dough proofers report chamber fullness as a % of capacity (0-100) every minute for a day.",
     "full", r"^%$", (1.0, 99.0), 0.0, 100.0),
    ("40 cider kegs report head pressure in psi every 15 minutes for a week.",
     "pressure", r"^psi$", (1.0, 150.0), 0.0, None),
    ("25 bee hives report hive weight in g every hour for 2 weeks.",
     "weight", r"^g$", (1000.0, 200000.0), 0.0, None),
    ("50 irrigation valves report water flow in L/min every 5 minutes for a week.",
     "flow", r"L/min|l/min", (0.5, 1000.0), 0.0, None),
    ("18 oyster racks report stocking density in kg/m³ (under 25) every hour for a week.",
     "density", r"kg/m", (0.5, 25.0), 0.0, 25.0),
]


@pytest.mark.parametrize("text, pattern, unit, level, low, high", CASES, ids=[c[1] + str(i) for i, c in enumerate(CASES)])
def test_unit_and_level(text, pattern, unit, level, low, high):
    m = _measurement(text, pattern)
    assert m.unit and re.search(unit, m.unit), m.unit
    assert not re.search(_UNIT_WORDS, m.name) or m.name == "in", f"a unit in the column name: {m.name}"
    assert level[0] <= m.base <= level[1], f"{m.name} level {m.base} {m.unit}"
    lo, hi = m.bounds
    if low is not None:
        assert lo is not None and lo >= low, m.bounds
    if high is not None:
        assert hi is not None and hi <= high, m.bounds


def test_a_stated_sign_is_kept_and_counts_are_whole():
    m = _measurement("6 electric ferries report battery power in kW (negative when charging) every minute "
                     "for 3 days.", "power")
    assert m.bounds[0] is None or m.bounds[0] < 0
    m = _measurement("12 museums report number of visitors every hour for 2 weeks.", "visitor")
    assert m.integer and m.bounds[0] == 0
