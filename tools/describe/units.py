"""Units as users write them ("kW", "°C", "mmHg", "bpm", "ms") read with pint, and conversion of a
catalog archetype's level, spread and bounds into the unit the user asked for.

pint knows SI and most engineering units; a few that telemetry users write and pint lacks are
defined here (bpm, breaths per minute, currencies as their own base units, counts).
"""

from __future__ import annotations

import re
from functools import lru_cache

import pint

_EXTRA = [
    "bpm = 1 / minute", "breaths_per_minute = 1 / minute = brpm", "count = [] = items = pcs",
    "USD = [currency_usd]", "EUR = [currency_eur]", "GBP = [currency_gbp]", "INR = [currency_inr]",
    "SGD = [currency_sgd]", "JPY = [currency_jpy]", "parts_per_billion = 1e-9 = ppb",
]
# how users write units in prose → pint names (pint parses the rest itself)
_ALIASES = {
    "°c": "degC", "ºc": "degC", "c": "degC", "deg c": "degC", "degrees c": "degC", "celsius": "degC",
    "degrees celsius": "degC", "°f": "degF", "f": "degF", "fahrenheit": "degF", "degrees fahrenheit": "degF",
    "%": "percent", "pct": "percent", "percent": "percent", "per cent": "percent", "% rh": "percent",
    "%rh": "percent", "rh": "percent", "mmhg": "mmHg", "mm hg": "mmHg", "bpm": "bpm", "beats per minute": "bpm",
    "breaths/min": "brpm", "rpm": "rpm", "kw": "kW", "mw": "MW", "w": "W", "kwh": "kWh", "mwh": "MWh", "wh": "Wh",
    "v": "V", "kv": "kV", "a": "A", "ma": "mA", "hz": "Hz", "ms": "ms", "milliseconds": "ms", "s": "s",
    "seconds": "s", "secs": "s", "min": "min", "minutes": "min", "mins": "min", "hours": "hour", "h": "hour",
    "hrs": "hour", "days": "day", "km/h": "km/hour", "kmh": "km/hour", "kph": "km/hour", "mph": "mile/hour",
    "m/s": "m/s", "km": "km", "m": "m", "meters": "m", "metres": "m", "ft": "ft", "feet": "ft", "kg": "kg",
    "g": "g", "lbs": "lb", "lb": "lb", "l": "L", "litres": "L", "liters": "L", "l/min": "L/min", "m3": "m**3",
    "m³": "m**3", "m3/h": "m**3/hour", "bar": "bar", "psi": "psi", "kpa": "kPa", "hpa": "hPa", "pa": "Pa",
    "mm/s": "mm/s", "g-force": "g0", "ppm": "ppm", "µg/m3": "microgram/m**3", "µg/m³": "microgram/m**3", "ug/m³": "microgram/m**3", "ppb": "ppb", "ug/m3": "microgram/m**3",
    "db": "dB", "dba": "dB", "mbps": "Mbit/s", "gbps": "Gbit/s", "kbps": "kbit/s", "mb": "MB", "gb": "GB",
    "mib": "MiB", "gib": "GiB", "kb/s": "kB/s", "mb/s": "MB/s", "gb/s": "GB/s", "kib/s": "KiB/s",
    "mib/s": "MiB/s", "tonnes": "t", "tonne": "t", "tons": "t", "kilometres": "km", "kilometers": "km",
    "miles": "mile", "minute": "min", "hour": "hour", "second": "s", "amps": "A", "amp": "A", "amperes": "A", "volts": "V", "watts": "W",
    "kilowatts": "kW", "kilowatt hours": "kWh", "megawatts": "MW", "bottles": "count", "units": "count", "$": "USD", "usd": "USD", "dollars": "USD", "€": "EUR", "eur": "EUR",
    "euros": "EUR", "£": "GBP", "gbp": "GBP", "pounds": "GBP", "inr": "INR", "rupees": "INR", "nm": "nmi",
    "mg/dl": "mg/dL", "mmol/l": "mmol/L", "lux": "lux", "w/m2": "W/m**2", "w/m²": "W/m**2", "cores": "count",
    "millicores": "count", "kn": "knot", "knots": "knot", "m⁻¹": "1/m", "m-1": "1/m", "m^-1": "1/m", "/m": "1/m",
    "mg/l": "mg/L", "lpm": "L/min",
}
# how a unit is written back in tables and questions
_LABELS = {"degree_Celsius": "°C", "degree_Fahrenheit": "°F", "percent": "%", "beats_per_minute": "bpm",
           "millimeter_Hg": "mmHg", "revolutions_per_minute": "rpm", "parts_per_billion": "ppb",
           "parts_per_million": "ppm"}


@lru_cache(maxsize=1)
def registry() -> pint.UnitRegistry:
    """The unit registry (pint's defaults plus the telemetry units above)."""
    ureg = pint.UnitRegistry(autoconvert_offset_to_baseunit=True)
    for line in _EXTRA:
        if line.split("=")[0].strip() in ureg:  # a newer pint may know it already
            continue
        try:
            ureg.define(line)
        except pint.errors.RedefinitionError:
            pass
    return ureg


def parse_unit(text: str | None, strict: bool = False) -> pint.Unit | None:
    """The unit written as ``text`` ("kW", "°C", "beats per minute"), or None when it is not a unit.

    ``strict`` (for words a user wrote): pint reads almost any short word as a prefixed unit ("amps"
    is attometre per second), so only aliases, exact symbols ("kW", "psi") and full names, singular
    or plural ("volts"), count."""
    if not text:
        return None
    raw = text.strip().strip(".,;()")
    t = raw.lower()
    name = _ALIASES.get(t, raw)
    try:
        unit = registry().parse_units(name)
    except (pint.errors.UndefinedUnitError, pint.errors.DefinitionSyntaxError, AttributeError, ValueError,
            TypeError, AssertionError, KeyError):
        return None
    if strict and t not in _ALIASES:
        symbol, full = f"{unit:~}".replace(" ", ""), str(unit)
        parts = re.split(r"\s*/\s*", raw)  # "kg/m³", "mg/L": a ratio of units each written as a unit
        if raw.replace(" ", "") != symbol and t not in (full.lower(), full.lower() + "s") and not (
                len(parts) == 2 and all(parse_unit(x.rstrip("²³"), strict=True) is not None for x in parts)):
            return None
    return unit


def unit_label(unit: pint.Unit | str | None) -> str | None:
    """How a unit is written in a spec and in questions ("kW", "°C", "%")."""
    if unit is None:
        return None
    u = parse_unit(unit) if isinstance(unit, str) else unit
    if u is None:
        return str(unit)
    long = str(u)
    if long == "count":
        return None  # "in millicores", "in units": a plain number
    label = _LABELS.get(long, f"{u:~P}" or long)
    return re.sub(r"(?<![A-Za-zµ])([mµcd]?)l(?![A-Za-z])", r"\1L", label)  # litres as L: "l" reads as 1


def convert(value: float, src: str | pint.Unit, dst: str | pint.Unit) -> float | None:
    """``value`` in ``src`` expressed in ``dst`` (offset units such as °C → °F included); None when
    the two are not of one dimension."""
    ureg = registry()
    a = parse_unit(src) if isinstance(src, str) else src
    b = parse_unit(dst) if isinstance(dst, str) else dst
    if a is None or b is None:
        return None
    try:
        return float(ureg.Quantity(value, a).to(b).magnitude)
    except pint.errors.DimensionalityError:
        return None


def convert_spread(value: float, src: str, dst: str) -> float | None:
    """A difference (a standard deviation) in ``src`` expressed in ``dst``: no offset (1 K = 1 °C)."""
    zero, one = convert(0.0, src, dst), convert(value, src, dst)
    return None if zero is None or one is None else abs(one - zero)


UNIT_WORD = re.compile(r"(?:°\s?[cf]|%|\$|€|£|[a-zµ/²³%0-9*.-]+(?:\s+per\s+[a-z]+)?)", re.I)


def is_currency(unit: str | pint.Unit | None) -> bool:
    """Whether a unit is money (USD, EUR, ...): amounts in one currency are modelled like another's."""
    u = parse_unit(unit) if isinstance(unit, str) else unit
    return u is not None and "[currency" in str(u.dimensionality)
