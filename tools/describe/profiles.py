"""Defaults the spec writer takes from names: a measurement's unit, level, noise and bounds from
its name ("p95_latency" → milliseconds, lognormal-like, ≥ 0), and a state's role from its name
("fault" is a down state, "maintenance" a service state), which sets the transitions, dwell times
and how each measurement behaves in that state.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

STATE_CLASSES = ("active", "idle", "reduced", "down", "service")
_STATE_WORDS = [  # first match wins: "in_service" is active, "service" is service
    ("active", r"^in_service$|normal|operational|running|active|healthy|^ok$|online|^up$|heating|cooling|driving|"
               r"flying|loading|returning|charging|producing|serving|busy|available|open|working"),
    ("down", r"fault|fail|down|offline|outage|error|critical|crash|broken|grounded|tripped|out_of|unavailable|"
             r"dead|alarm|stopped|lost|unreachable"),
    ("service", r"maint|repair|service|calibrat|inspect|upgrad|restart|reboot|test"),
    ("idle", r"idle|park|standby|sleep|pause|wait|closed|off$|dormant"),
    ("reduced", r"curtail|degrad|warn|throttl|congest|limit|slow|low|partial|high|overload|busy"),
]


def state_class(name: str, position: int) -> str:
    """The role of a state named by the user; an unknown name is active if listed first, else reduced."""
    for cls, pattern in _STATE_WORDS:
        if re.search(pattern, name):
            return cls
    return "active" if position == 0 else "reduced"


# how strongly a state of each class leads to states of each class (the spec writer normalises)
TRANSITION_WEIGHTS = {
    "active": {"active": 3.0, "idle": 2.0, "reduced": 2.0, "down": 0.6, "service": 0.4},
    "idle": {"active": 4.0, "reduced": 0.5, "down": 0.3, "service": 0.5},
    "reduced": {"active": 4.0, "idle": 1.0, "down": 1.0, "service": 0.5},
    "down": {"service": 3.0, "active": 2.0, "idle": 1.0},
    "service": {"active": 4.0, "idle": 1.0},
}
# dwell per class at a 15-minute cadence (scaled up for slower cadences so states stay visible)
DWELL = {
    "active": {"kind": "exponential", "mean": "8h"},
    "idle": {"kind": "lognormal", "median": "2h", "sigma": 0.8},
    "reduced": {"kind": "lognormal", "median": "45m", "sigma": 0.7},
    "down": {"kind": "lognormal", "median": "40m", "sigma": 0.8},
    "service": {"kind": "gamma", "mean": "2h", "shape": 4},
}


@dataclass(frozen=True)
class Profile:
    """How one measurement is generated, and how it reacts to each state class."""

    kind: str  # latency | error | usage | level | counter | failures | rate | output | gauge
    unit: str | None
    base: float
    sigma: float
    bounds: tuple[float | None, float | None] = (0.0, None)
    decimals: int | None = 2
    integer: bool = False
    daily: float = 0.0  # daily swing: relative (multiplicative) for rates/outputs, absolute otherwise
    trend: float = 0.0
    effects: dict[str, dict] = field(default_factory=dict)


_EFFECTS = {
    # health metrics move a little in reduced states and a lot only in short 'down' episodes, so a
    # state episode is not mistaken for an injected incident (the localized check)
    "latency": {"down": {"scale": 2.5}, "reduced": {"scale": 1.2}},
    "error": {"down": {"shift": 5.0, "noise_scale": 3}, "reduced": {"shift": 0.3}},
    "failures": {"down": {"shift": 2.0}},
    "output": {"down": {"scale": 0.0, "noise_scale": 0}, "service": {"scale": 0.0, "noise_scale": 0},
               "idle": {"scale": 0.05, "noise_scale": 0.2}, "reduced": {"scale": 0.5}},
    "rate": {"down": {"scale": 0.0, "noise_scale": 0}, "service": {"scale": 0.0, "noise_scale": 0},
             "idle": {"scale": 0.1}, "reduced": {"scale": 0.6}},
    "counter": {"down": {"scale": 0.1}, "service": {"scale": 0.0}, "idle": {"scale": 0.2}, "reduced": {"scale": 0.7}},
    "usage": {"down": {"noise_scale": 2}, "reduced": {"shift": 20.0}, "idle": {"scale": 0.3}},
    "level": {},
    "gauge": {"down": {"noise_scale": 3}, "reduced": {"noise_scale": 2}, "service": {"noise_scale": 0.3}},
}

# (name pattern, kind, unit, base) — first match wins; order matters ("error_rate" before "rate")
_NAMES = [
    (r"specific_gravity|^sg$|relative_density", "gauge", None, 1.05),
    (r"p99|p999", "latency", "ms", 350.0), (r"p95|p90", "latency", "ms", 250.0),
    (r"latency|delay|response_time|rtt|ping|lag|duration|wait", "latency", "ms", 120.0),
    (r"error_rate|fail\w*_rate|drop\w*_rate|loss|reject\w*_rate|abandon", "error", "%", 0.5),
    (r"availability|uptime|success_rate", "level", "%", 99.5),
    (r"battery|cash|fuel|charge|tank|fill", "level", "%", 75.0),
    (r"cpu|memory|mem_|util|usage|throttl|load|occupancy|_pct$|percent|saturation|disk", "usage", "%", 45.0),
    (r"humidity", "gauge", "%RH", 45.0),
    (r"restart|kill|oom|error|fail|crash|alarm|fault|reboot|timeout|exception|drop", "failures", None, 0.3),
    (r"count|transactions|requests|calls|logins|attempts|events|sessions|orders|messages|packets|hits|jobs",
     "counter", None, 40.0),
    (r"users|connections|clients|subscribers|devices|visitors|ues?$|active_", "counter", None, 80.0),
    (r"throughput|traffic|rps|qps|request_rate|bandwidth|flow|_rate$|rate$", "rate", None, 250.0),
    (r"power_draw|power_usage|power_consumption", "output", "kW", 12.0),
    (r"power|output|generation|production|yield", "output", "kW", 1500.0),
    (r"energy|consumption|kwh", "output", "kWh", 2.5),
    (r"rotor|rpm", "output", "rpm", 14.0), (r"fan", "output", "rpm", 1200.0),
    (r"wind_speed", "gauge", "m/s", 6.0), (r"speed|velocity", "output", "km/h", 60.0),
    (r"altitude|height|elevation", "output", "m", 120.0),
    (r"temp", "gauge", "C", 21.0), (r"pressure", "gauge", "hPa", 1013.0),
    (r"vibration", "gauge", "mm/s", 2.5), (r"voltage", "gauge", "V", 230.0), (r"current|amps", "gauge", "A", 10.0),
    (r"signal|rssi|snr", "gauge", "dBm", -75.0),
]


def measurement_profile(name: str) -> Profile:
    """The generation profile for a measurement called ``name`` (a generic gauge when no rule matches)."""
    kind, unit, base = next(((k, u, b) for p, k, u, b in _NAMES if re.search(p, name)), ("gauge", None, 100.0))
    effects = _EFFECTS[kind]
    if kind == "latency":
        return Profile(kind, unit, base, 0.08 * base, decimals=1, daily=0.15, effects=effects)
    if kind == "error":
        return Profile(kind, unit, base, 0.15, (0.0, 100.0), decimals=2, effects=effects)
    if kind == "level":
        trend = -0.0 if base > 99 else -1.0
        return Profile(kind, unit, base, 0.05 if base > 99 else 0.3, (0.0, 100.0), decimals=2, trend=trend,
                       effects=effects)
    if kind == "usage":
        return Profile(kind, unit, base, 4.0, (0.0, 100.0), decimals=1, daily=10.0, effects=effects)
    if kind in ("failures", "counter"):
        return Profile(kind, unit, base, 0.0, (0.0, None), decimals=None, integer=True,
                       daily=0.4 if kind == "counter" else 0.0, effects=effects)
    if kind in ("rate", "output"):
        return Profile(kind, unit, base, 0.05 * base, decimals=1, daily=0.3 if kind == "rate" else 0.1, effects=effects)
    bounds = (0.0, 100.0) if unit == "%RH" else (None, None) if base <= 0 or unit in ("C", "dBm") else (0.0, None)
    return Profile(kind, unit, base, max(0.02 * abs(base), 0.1 if abs(base) >= 5 else 0.01), bounds, decimals=2,
                   daily=0.05 * abs(base),
                   effects=effects)


# the degradation an injected incident applies to a health metric of each kind: well beyond what
# the states do to it (a 'down' latency is 2.5x), so the pattern check can tell the incident apart
DEGRADATION = {"latency": "+400%", "error": 10.0, "failures": 10.0, "usage": 40.0, "level": -30.0,
               "output": "-70%", "rate": "-70%", "counter": "-70%", "gauge": "8sigma"}
