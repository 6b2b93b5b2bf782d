"""A measurement's spec from its catalog archetype: the unit the user asked for (converted with
pint), the level they stated or the typical one, noise, daily shape, hard bounds, whole numbers,
how each state moves it (the state's role, in the archetype's worse direction) and the plausible
range the data is checked against.
"""

from __future__ import annotations

import dataclasses
import math
import re
from typing import Any

from tools.common.durations import parse_duration
from tools.describe.catalog_model import Catalog, MeasurementArchetype, RoleEffect
from tools.describe.draft import MeasurementDraft
from tools.describe.match import singular
from tools.describe.units import convert, convert_spread, is_currency, parse_unit, unit_label

PEAKS = {"day_peak": "14h", "evening_peak": "19h", "night_peak": "3h", "business_hours": "13h", "commute": "8h",
         "solar": "12h", "night_low": "15h"}
MULTIPLICATIVE = {"throughput", "consumption", "count", "latency", "amount"}
AR_PHI = 0.7


def _unit(md: MeasurementDraft, arch: MeasurementArchetype, notes: list[str]) -> tuple[str | None, bool]:
    """The unit label to write, and whether values must be converted from the archetype's unit."""
    label = arch.unit_label or (unit_label(arch.unit) if arch.unit else None)
    if md.unit and arch.unit and parse_unit(md.unit) is not None and convert(1.0, arch.unit, md.unit) is not None:
        return md.unit, parse_unit(md.unit) != parse_unit(arch.unit)
    if md.unit and is_currency(md.unit) and is_currency(arch.unit):
        return unit_label(md.unit), False  # amounts keep their level in another currency
    if md.unit and md.unit != label:
        notes.append(f"{md.name}: '{md.unit}' is not a unit of {arch.name}; kept {label or 'no unit'}")
    return label, False


def _in_unit(value: float | None, arch: MeasurementArchetype, unit: str) -> float | None:
    if value is None or math.isinf(value):
        return value
    out = convert(value, arch.unit, unit)
    return value if out is None else round(out, 6)  # -40 °C is -40 °F, not -40.000000000000064


def role_effect(arch: MeasurementArchetype, role: str, catalog: Catalog) -> RoleEffect | None:
    """The archetype's own effect for the role, else the role's default for the archetype's class."""
    if role in arch.states:
        return arch.states[role]
    try:
        return catalog.role(role).effects.get(arch.klass)
    except StopIteration:
        return None


def _round(x: float, spread: float) -> float:
    digits = max(0, 2 - int(math.floor(math.log10(abs(spread))))) if spread > 0 else 3
    return round(x, min(digits, 6))


def measurement_spec(md: MeasurementDraft, arch: MeasurementArchetype, roles: dict[str, str], catalog: Catalog,
                     notes: list[str], cadence_s: float | None = None) -> dict[str, Any]:
    """The spec dict of one catalog-matched measurement; ``roles`` maps the entity's states to roles;
    ``notes`` collects what was adjusted (a stated level outside the bounds, a unit that does not fit);
    ``cadence_s`` is the reporting interval (a per-day total is reported per interval)."""
    unit, conv = _unit(md, arch, notes)
    lo, hi = arch.bounds
    level, spread = arch.typical, arch.spread
    if conv:
        level, lo, hi = _in_unit(level, arch, unit), _in_unit(lo, arch, unit), _in_unit(hi, arch, unit)
        spread = convert_spread(spread, arch.unit, unit) or spread
    per_s = parse_duration(arch.per) if arch.per else None
    if per_s and cadence_s and cadence_s < per_s and not (md.unit and "/" in md.unit):
        f = cadence_s / per_s  # "rumination minutes" every 2 hours: the minutes of those 2 hours
        level, spread = level * f, spread * f
        lo, hi = (None if lo is None else lo * f), (None if hi is None else hi * f)
        unit = unit.split("/")[0] if unit else unit
        notes.append(f"{md.name}: {arch.name} is counted per {arch.per} in the catalog; each reading here "
                     f"counts its own interval ({level:g} {unit or ''} typical)")
    if md.low is not None and math.isinf(md.low) and md.low < 0:
        lo = None  # "negative when regenerating": the text allows what the catalog rules out
    elif md.low is not None and (lo is None or md.low > lo):
        lo = md.low
    if md.high is not None and (hi is None or md.high < hi):
        hi = md.high
    if lo is not None and hi is not None and hi <= lo:
        lo, hi = (arch.bounds if not conv else (_in_unit(arch.bounds[0], arch, unit), _in_unit(arch.bounds[1], arch, unit)))
        notes.append(f"{md.name}: the stated limits contradict {arch.name}'s bounds; kept the catalog's")
    if (lo is not None and level < lo) or (hi is not None and level > hi):
        level = (lo + hi) / 2 if lo is not None and hi is not None else (lo if lo is not None else hi)
        spread = min(spread, abs(level) * 0.1 or spread)
    if md.level is not None:
        if (lo is not None and md.level < lo) or (hi is not None and md.level > hi):
            notes.append(f"{md.name}: stated level {md.level:g} is outside {arch.name}'s bounds "
                         f"[{lo}, {hi}]; kept the typical {level:g}")
        else:
            if arch.typical and arch.noise == "poisson":
                spread = spread * math.sqrt(max(md.level, 0) / max(level, 1e-9))
            level = md.level
    m: dict[str, Any] = {"name": md.name, "description": f"{arch.name} (catalog: {arch.id})"}
    if unit:
        m["unit"] = unit
    integer = arch.integer or md.whole
    if arch.noise == "poisson" and integer and (lo is None or lo >= 0):
        m["noise"] = {"kind": "poisson"}
        level = max(level, 0.05)
    elif arch.noise == "iid":
        m["noise"] = {"kind": "iid", "sigma": _round(spread, spread)}
    else:
        m["noise"] = {"kind": "ar", "phi": [AR_PHI], "sigma": _round(spread * math.sqrt(1 - AR_PHI ** 2), spread)}
    m["base"] = _round(level, spread or abs(level) * 0.01 or 1.0)
    if arch.daily != "flat" and arch.daily_amplitude > 0 and not arch.event_level:
        mult = arch.klass in MULTIPLICATIVE and level > 0
        amp = min(arch.daily_amplitude, 0.95) if mult else arch.daily_amplitude * abs(level)
        m["seasonality"] = [{"period": "1d", "amplitude": _round(amp, 0.01), "peak": PEAKS[arch.daily],
                             "mode": "multiplicative" if mult else "additive"}]
    effects = {}
    sign = 1.0 if arch.worse == "up" else -1.0
    for state, role in roles.items():
        eff = role_effect(arch, role, catalog)
        if eff is None or (eff.scale == 1 and eff.worse == 0 and eff.shift == 0 and eff.noise_scale == 1):
            continue
        e: dict[str, float] = {}
        if eff.scale != 1:
            e["scale"] = eff.scale
        if eff.worse or eff.shift:
            e["shift"] = _round((sign * eff.worse + eff.shift) * spread, spread)
        if eff.noise_scale != 1:
            e["noise_scale"] = eff.noise_scale
        effects[state] = e
    if effects:
        m["states"] = effects
    if lo is not None or hi is not None:
        m["bounds"] = [lo, hi]
    if integer:
        m["integer"] = True
    elif arch.decimals is not None:
        m["decimals"] = arch.decimals
    else:
        m["decimals"] = 2
    m["plausible"] = {"low": lo, "high": hi, "integer": integer, "source": f"catalog: {arch.id}"}
    return m


_KIND_CLASS = {"latency": ("latency", "up"), "error": ("error", "up"), "failures": ("error", "up"),
               "usage": ("consumption", "up"), "level": ("storage", "down"), "counter": ("count", "down"),
               "rate": ("throughput", "down"), "output": ("throughput", "down"), "gauge": ("condition", "up")}


def generic_measurement(md: MeasurementDraft, roles: dict[str, str], catalog: Catalog, notes: list[str],
                        event: bool = False) -> dict[str, Any]:
    """A measurement the catalog does not know, modelled as an ad-hoc archetype: its class from the
    name rules of ``tools.describe.profiles`` (a rate, a latency, a level...), a level the text states
    or else one plausible for the dimension and unit it gives (``tools.describe.unit_defaults``),
    whole numbers for counts ("number of bottles", "bikes available"), never negative for durations,
    masses, lengths, money and counts unless the text says it can be, the limits the user stated;
    states move it like any measurement of its class. Its plausible range is only what the unit and
    the text rule out; ``notes`` says where the level and the limits came from."""
    from tools.describe.profiles import measurement_profile
    from tools.describe.unit_defaults import unit_level

    p = measurement_profile(md.name)
    klass, worse = _KIND_CLASS.get(p.kind, ("condition", "up"))
    if md.unit and klass in ("condition", "storage") and re.search(
            r"(?:/|\bper\s+)(?:s|sec|second|min|minute|h|hr|hour)s?$", md.unit.strip(), re.I):
        klass, worse = "throughput", "down"  # "bottles per minute": a rate that stops when the machine stops
    spanned = re.match(r"(?:number_of_)?(seconds|minutes|hours|days|weeks)(?:_|$)", md.name)
    if spanned and not md.unit:  # "days from filing to disposition": a duration in days, not a count
        md = md.model_copy(update={"unit": {"seconds": "s", "minutes": "min", "hours": "h", "days": "d",
                                            "weeks": "week"}[spanned.group(1)]})
    unit = parse_unit(md.unit) if md.unit else None
    label = (unit_label(unit) if unit is not None else md.unit) if md.unit else p.unit
    if unit is not None and str(unit.dimensionality) != "dimensionless" and p.kind in ("failures", "counter", "error"):
        klass, worse = "condition", "up"  # "bean temp at drop" in °C is no count of drops
        p = dataclasses.replace(p, integer=False, bounds=(None, None))
    plural = any(w.endswith("s") and not w.endswith("ss") and len(w) > 3 for w in md.words.lower().split())
    count = not spanned and (bool(re.match(r"(?:number|count|total|amount)_of|n_|total_[a-z]+s$", md.name)) or
                             md.name.endswith("_count") or (plural and not md.unit and p.kind in ("gauge", "counter")))
    lo: float | None = 0.0 if p.bounds[0] is not None and p.bounds[0] >= 0 else None
    hi: float | None = p.bounds[1]
    level, spread, integer, noise = p.base, max(p.sigma, abs(p.base) * 0.05), p.integer, "ar"
    source = f"default for a {p.kind} named like '{md.name}': {level:g}{' ' + label if label else ''}"
    signed = md.low is not None and math.isinf(md.low) and md.low < 0  # "negative when regenerating"
    money = re.search(r"price|fare|fee|cost|amount|revenue|charge|payment|spend|(?:daily|nightly|hourly)_rate|"
                      r"rate_per|value$|balance|tip|(?:^|_)(?:paid|wager\w*|win|coin_(?:in|out))(?:_|$)", md.name)
    if money and (not md.unit or is_currency(md.unit)):  # money: never negative, cents
        label = unit_label(md.unit) if md.unit else None
        level = md.level or 25.0
        source = f"level {level:g} stated" if md.level else "default for an amount of money: 25"
        # a spread of a fifth of the level keeps a price off zero in hundreds of thousands of rows
        klass, worse, spread, lo, hi, integer, noise = "amount", "up", level * 0.2, 0.0, None, False, "iid"
    elif md.name in ("age", "patient_age", "customer_age") and not md.unit:
        label, level, spread, integer, noise, lo, hi = "years", 45.0, 18.0, True, "iid", 0.0, 110.0
    elif count and not money:  # per event: a few (nights, guests; retries often none); per reading: tens
        rare = re.search(r"retr|error|fail|defect|reject|complaint|cancel|return|incident|alarm|renew|times_|hold|"
                         r"escalat|reopen|revis|amend|adjourn|postpon|resubmi|redial", md.name)
        level = md.level or ((0.5 if rare else 2.0) if event else 20.0)
        source = f"level {level:g} stated" if md.level else f"default for a count {'per event' if event else 'per reading'}: {level:g}"
        klass, worse, integer, noise, lo, hi, spread = "count", "down", True, "poisson", 0.0, None, level ** 0.5
        if event and not rare:
            lo = 1.0  # an event has at least one (night, guest, item)
    elif md.unit:
        level, spread, lo, hi, source = unit_level(md.name, md.level, unit, label, p.unit, p.base, event)
    elif md.level is not None:
        level, spread, source = md.level, abs(md.level) * 0.05 or spread, f"level {md.level:g} stated"
    if signed:
        lo = None
    elif md.low is not None:
        lo = md.low if lo is None else max(lo, md.low)
    if md.high is not None:
        hi = md.high if hi is None else min(hi, md.high)
    stated = md.low is not None and md.high is not None and not signed
    if stated and not md.unit and re.search(r"score|rating|grade|stars|rank", md.name) and \
            float(md.low).is_integer() and float(md.high).is_integer():
        integer, noise = True, "iid"  # "credit score (300-850)", "rating from 1 to 5": whole points
    if stated and md.level is None and not lo <= level <= hi:  # a stated range: the level sits inside it
        level, spread = (lo + hi) / 2, (hi - lo) / 8
        source = f"level {level:g}: the middle of the stated range {lo:g}-{hi:g}"
    if getattr(md, "whole", False) or (unit is None and md.unit and re.fullmatch(
            r"[a-z]{3,}s/(?:s|sec|second|min|minute|h|hr|hour|d|day)", md.unit)):
        integer = True  # "skiers uplifted per hour": whole skiers in each interval
    if hi is not None and level > hi:
        level, spread = hi * 0.6, hi * 0.1
        source += f"; lowered to {level:g} under the stated limit {hi:g}"
    if lo is not None and level < lo:
        level = lo + spread
        source += f"; raised to {level:g} over the limit {lo:g}"
    arch = MeasurementArchetype(
        id=md.name, name=md.words or md.name.replace("_", " "), field="general", synonyms=[md.name],
        unit=str(unit) if unit is not None else None, unit_label=label, klass=klass, typical=level, spread=spread,
        bounds=(lo, hi), integer=integer, decimals=None if integer else (p.decimals if p.decimals is not None else 2),
        noise=noise if not (noise == "poisson" and not integer) else "ar", worse=worse, event_level=event)
    m = measurement_spec(md.model_copy(update={"low": None, "high": None, "level": None}), arch, roles, catalog,
                         notes)
    m["description"] = f"{arch.name} (not in the catalog: generic {klass})"
    m["plausible"] = {"low": lo, "high": hi, "integer": integer, "source": "the unit and the limits in the text"}
    if lo is None and hi is None and not integer:
        m.pop("plausible")
    limits = "no limits" if lo is None and hi is None else f"limits [{_g(lo)}, {_g(hi)}]"
    notes.append(f"{md.name}: no catalog entry; modelled as a generic {klass}{' in ' + label if label else ''}: "
                 f"{source}; {limits}" + (" (negative values allowed, as stated)" if signed else ""))
    return m


def _g(x: float | None) -> str:
    return "-" if x is None else f"{x:g}"


def named_directions(measurements: list[dict], roles: dict[str, str]) -> list[dict]:
    """A "too low / too high" state that names what is low ("out of cash", "low battery") moves only the
    measurements it names, when the entity has one: the cabinet temperature of an ATM out of cash is
    no lower."""
    filler = {"low", "high", "too", "out", "of", "empty", "running", "over", "under"}
    for state, role in roles.items():
        if role not in ("low", "high"):
            continue
        words = {singular(w) for w in state.split("_")} - filler
        named = [m for m in measurements if words & {singular(w) for w in m["name"].split("_")}]
        if not named:
            continue
        for m in measurements:
            if m not in named and state in m.get("states", {}):
                m["states"].pop(state)
                if not m["states"]:
                    m.pop("states")
    return measurements
