"""A plausible level, spread and sign for a measurement the catalog does not know, from the dimension
of the unit the user gave (read by pint) and what its name says it is: a temperature is room-like
unless it is a freezer's, a body's or a furnace's; a pressure in psi, kPa or bar is a gauge pressure
of a couple of bar; a power draw is a few kW. The level is chosen in a reference unit and converted
into the user's, so "chamber temperature in °F" is around 68 °F, never a 30-70 number in a °F column.

A dimension with no physical default (a length, a mass, a flow) takes a number the user's choice of
unit suggests: people pick the unit that keeps their numbers in tens ("fill level in mm" is tens of
mm, "distance in km" tens of km).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pint

from tools.describe.units import convert, convert_spread

# (dimensionality, name pattern or "" for any, level, reference unit, spread as a fraction of the level
# or an absolute spread in the reference unit when negative, lower bound in the reference unit, what it is)
_RULES: list[tuple[str, str, float, str, float, float | None, str]] = [
    ("[temperature]", r"freez|frozen|cold_?stor|blast", -18.0, "degC", -2.0, -273.15, "a freezer temperature"),
    ("[temperature]", r"fridge|chill|refrigerat|cooler|cold_room|reefer", 4.0, "degC", -1.0, -273.15,
     "a chilled temperature"),
    ("[temperature]", r"body|skin|patient|core_temp|fever", 37.0, "degC", -0.4, -273.15, "a body temperature"),
    ("[temperature]", r"cpu|gpu|chip|processor|die_|core\b|server|inlet", 55.0, "degC", -5.0, -273.15,
     "an electronics temperature"),
    ("[temperature]", r"engine|oil|coolant|exhaust|motor|bearing|winding|gearbox", 80.0, "degC", -6.0, -273.15,
     "a machine temperature"),
    ("[temperature]", r"oven|bak|roast|bean|fry|grill", 190.0, "degC", -10.0, -273.15, "an oven temperature"),
    ("[temperature]", r"furnace|kiln|firing|flame|melt|smelt|forge|crucible", 1000.0, "degC", -60.0, -273.15,
     "a furnace temperature"),
    ("[temperature]", r"water|sea|pool|pond|lake|river|tank", 15.0, "degC", -1.5, -273.15, "a water temperature"),
    ("[temperature]", r"outdoor|ambient|outside|weather|air", 15.0, "degC", -3.0, -273.15, "an outdoor temperature"),
    ("[temperature]", "", 20.0, "degC", -1.5, -273.15, "a room temperature"),
    ("[mass] / [length] / [time] ** 2", r"differential|headspace|vacuum|suction|draft|draught|delta",
     5.0, "kPa", -2.0, None, "a small pressure difference"),
    ("[mass] / [length] / [time] ** 2", r"tyre|tire", 2.3, "bar", 0.08, 0.0, "a tyre pressure"),
    ("[mass] / [length] / [time] ** 2", r"hydraulic", 150.0, "bar", 0.1, 0.0, "a hydraulic pressure"),
    ("[mass] / [length] / [time] ** 2", r"baro|atmo|air_pressure|weather", 1013.0, "hPa", -6.0, 0.0,
     "an air pressure"),
    ("[mass] / [length] / [time] ** 2", "", 2.0, "bar", 0.1, 0.0, "a gauge pressure"),
    ("[mass] * [length] ** 2 / [time] ** 3", r"traction|propulsion|plant|station|substation|site|factory|building",
     250.0, "kW", 0.25, 0.0, "the power of a large installation"),
    ("[mass] * [length] ** 2 / [time] ** 3", "", 3.0, "kW", 0.25, 0.0, "a power draw of a few kW"),
    ("[mass] * [length] ** 2 / [time] ** 2", "", 1.0, "kWh", 0.3, 0.0, "the energy of one reading"),
    ("[length] / [time]", r"wind", 6.0, "m/s", 0.25, 0.0, "a wind speed"),
    ("[length] / [time]", r"current|tide|tidal|river|stream|water|flow", 0.3, "m/s", 0.3, 0.0, "a water current"),
    ("[length] / [time]", r"walk|pace|pedestrian|run", 5.0, "km/h", 0.2, 0.0, "a walking pace"),
    ("[length] / [time]", r"lift|conveyor|belt|line_speed|cable|escalator|hoist|elevator", 4.0, "m/s", 0.15, 0.0,
     "a conveyor or lift speed"),
    ("[time] / [length]", "", 6.0, "min/km", 0.1, 0.0, "a running pace"),
    ("[mass] / [length] ** 3", r"stocking|biomass", 15.0, "kg/m**3", 0.15, 0.0, "a stocking density"),
    ("[length] / [time]", "", 40.0, "km/h", 0.25, 0.0, "a vehicle speed"),
    ("[length]", r"odometer|mileage", 60000.0, "km", 0.5, 0.0, "an odometer reading"),
    ("[mass]", r"hive", 40.0, "kg", 0.15, 0.0, "a beehive's weight"),
    ("[mass]", r"person|patient|body|passenger", 75.0, "kg", 0.15, 0.0, "a person's weight"),
    ("[current]", "", 10.0, "A", 0.15, 0.0, "a current"),
    ("[mass] * [length] ** 2 / [time] ** 3 / [current]", "", 230.0, "V", 0.02, 0.0, "a mains voltage"),
    ("1 / [time]", r"heart|pulse|beat", 70.0, "1/min", 0.12, 0.0, "a heart rate"),
]
_EVENT_ENERGY = 20.0  # kWh for one event (a firing, a charging session), not one reading
_TIME = {"millisecond": 150.0, "second": 30.0, "minute": 20.0, "hour": 3.0, "day": 5.0, "week": 2.0}
_SIGNED_NAMES = r"net_|balance|profit|loss|delta|change|offset|deviation|position|elevation|altitude|bias|error$|" \
                r"difference|imbalance|flow_direction"
_CONVENIENT = 30.0
# a unit whose values differ by what is measured in it: a signal-to-noise ratio is no sound level
_NAMED_LABEL = [(r"snr|signal|margin|noise_ratio", "dB", 15.0), (r"loss|attenuation|gain", "dB", 3.0),
                (r"co2|carbon_dioxide", "ppm", 600.0), (r"elevation|inclination|tilt|pitch|roll", "deg", 30.0)]
# units whose own name says what is measured, and its usual level
_BY_LABEL = {"rpm": 1500.0, "bpm": 70.0, "dB": 60.0, "Hz": 50.0, "ppm": 600.0, "ppb": 20.0, "lux": 300.0,
             "km/h": 40.0, "mph": 25.0, "knot": 12.0, "mmHg": 120.0, "dBm": -75.0}


@dataclass(frozen=True)
class UnitDefault:
    """A level for a measurement the catalog does not know, in the user's unit, and where it came from."""

    level: float
    spread: float
    low: float | None
    why: str


def _dims(unit: pint.Unit) -> str:
    return str(unit.dimensionality)


def unit_default(name: str, unit: pint.Unit, label: str, event: bool = False) -> UnitDefault:
    """The default level, spread and lower bound of a measurement named ``name`` in ``unit`` (written
    ``label``); ``event`` when each value belongs to one event (a firing's energy) rather than one
    reading. Never negative unless the dimension or the name allows it (a temperature, a net value)."""
    dims = _dims(unit)
    signed = bool(re.search(_SIGNED_NAMES, name))
    named = [r for r in _RULES if r[0] == dims and r[1] and re.search(r[1], name)]
    by_name = next((v for pattern, unit_of, v in _NAMED_LABEL if unit_of == label and re.search(pattern, name)), None)
    if by_name is not None:
        return UnitDefault(by_name, abs(by_name) * 0.12, None if label == "dB" else 0.0,
                           f"default for '{name}' in {label}: {_fmt(by_name)} {label}")
    if not named and label in _BY_LABEL:  # a unit that says what it measures: rpm, bpm, dB, Hz
        level = _BY_LABEL[label]
        lo = None if signed or dims == "[temperature]" or label == "dB" else 0.0
        return UnitDefault(level, abs(level) * 0.12, lo, f"default for a value in {label}: {_fmt(level)} {label}")
    for dim, _pattern, level, ref, spread, low, what in named + [r for r in _RULES if r[0] == dims and not r[1]]:
        if dim == "[mass] * [length] ** 2 / [time] ** 2" and event:
            level, what = _EVENT_ENERGY, "the energy of one event"
        value = convert(level, ref, unit)
        if value is None:
            continue
        sd = convert_spread(abs(spread) if spread < 0 else abs(level) * spread, ref, unit) or abs(value) * 0.1
        lo = None if signed or low is None else convert(low, ref, unit)
        return UnitDefault(value, sd, lo, f"default for {what} in {label}: {_fmt(value)} {label}")
    if dims == "[time]":
        base = next((v for k, v in _TIME.items() if str(unit).startswith(k)), _CONVENIENT)
        return UnitDefault(base, base * 0.3, None if signed else 0.0,
                           f"default for a duration in {label}: {_fmt(base)} {label}")
    lo = None if signed or dims in ("[temperature]",) else 0.0
    return UnitDefault(_CONVENIENT, _CONVENIENT * 0.12, lo,
                       f"default for a {dims.strip('[]') or 'number'} in {label}: {_fmt(_CONVENIENT)} {label} "
                       "(tens of the unit the text chose)")


def _fmt(x: float) -> str:
    return f"{x:,.4g}" if abs(x) < 1e5 else f"{x:,.0f}"


def unit_level(name: str, stated: float | None, unit: pint.Unit | None, label: str | None, profile_unit: str | None,
               profile_base: float, event: bool = False) -> tuple[float, float, float | None, float | None, str]:
    """(level, spread, low, high, where the level came from) of a measurement the catalog does not know
    that the text gives a unit for: a percentage stays in [0, 100]; a unit pint reads gets the
    default of its dimension (``unit_default``); a unit pint cannot read ("bottles per minute") the
    name's default. A stated level replaces the default level, with a spread of an eighth of it."""
    if label == "%":
        level = profile_base if profile_unit == "%" else 50.0
        d = UnitDefault(level, max(abs(level) * 0.12, 0.5), 0.0, f"default for a percentage: {_fmt(level)} %")
        hi: float | None = 100.0
    elif unit is not None:
        d, hi = unit_default(name, unit, label or str(unit), event), None
    else:
        d = UnitDefault(profile_base, abs(profile_base) * 0.12 or 0.1, 0.0,
                        f"default for a value named like '{name}' in {label}: {_fmt(profile_base)}")
        hi = None
    if stated is None:
        return d.level, d.spread, d.low, hi, d.why
    return stated, abs(stated) * 0.05 or d.spread, d.low, hi, f"level {_fmt(stated)} {label or ''} stated".replace("  ", " ")
