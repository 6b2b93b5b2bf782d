"""What a described incident does and how much: its kind ("goes offline", "freezes", "a heat wave"),
its size ("by 20%", "triples", "15 degrees", "to zero") and its direction ("rises", "drops").

The kind is the first rule that fits, most specific first: a stuck or noisy reading names its
kind outright, a lost value or a silent entity is a gap or an outage, a jump that "stays" is a
shift, a change built up "over" a time or "slowly" a drift, more failures a behaviour change.
"""

from __future__ import annotations

import re

from tools.describe.units import parse_unit

_STUCK = (r"\b(?:stuck|freez(?:es|ing)|froze|frozen|flat-?lin\w*|(?:reports?|reporting|sends?|sending|shows?|showing|gives?)"
          r"\s+(?:the\s+)?same\b|same\s+(?:\w+\s+){0,2}(?:values?|readings?|numbers?)|last\s+value|repeats?\s+the\s+same|"
          r"constant\s+value|hangs?\b)")
_NOISE = r"\b(?:noisy|noise|erratic|jitter\w*|fluctuat\w*|unstable|scatter\w*|jumpy|wild(?:ly)?\s+swings?)|±"
_GAPS = (r"\b(?:missing|gaps?|nulls?|blanks?|(?:report|send|sends|give|gives|record|records|log|logs)\s+no\s+|no\s+\w+\s+"
         r"(?:values?|readings?|data)|los(?:e|es|ing|t)\s+(?:their|its|the|all)\s+[\w\s]{0,30}?(?:values?|readings?|data)|"
         r"without\s+(?:\w+\s+)?(?:values?|readings?))")
_OUTAGE = (r"\b(?:offline|off-line|outages?|down\b(?!\s*(?:by\s+)?[\d+-])|stop(?:s|ped)?\s+(?:reporting|sending|"
           r"responding|working|transmitting|logging)|silent|silenc\w*|disconnect\w*|knocks?\s+out|knocked\s+out|"
           r"dark\b|(?:link|connection|signal|contact|power|network)\s+(?:is\s+)?lost|los(?:e|es|t)\s+(?:their\s+|its\s+|"
           r"the\s+)?(?:connection|contact|link|signal|power|network)|power\s+cut|blackout|no\s+data|go(?:es)?\s+quiet|"
           r"unreachable|fail(?:s|ed)?\s+to\s+report|cut\s+off)")
_SPIKE = r"\b(?:spik\w*|jump\w*|shoots?\s+up|soar\w*|bursts?\b|peaks?\b)"
_STAYS = r"\b(?:and\s+stays?|stays?\b|remains?\b|sits?\b|from\s+then\s+on|for\s+good|permanently|onwards?)"
_SHIFT = (r"\b(?:heat\s*waves?|hot\s+spell|cold\s+snap|cold\s+spell|frost|too\s+(?:hot|cold|high|low|warm)|warm\s+up|"
          r"cool\s+down|runs?\s+(?:hot|cold))")
_DRIFT = (r"\b(?:drift\w*|creep\w*|gradual\w*|slowly|steadily|little\s+by\s+little|bit\s+by\s+bit|over\s+time|wears?\s+"
          r"out|worse\s+and\s+worse|sags?\b|sagging|progressively)")
_DEGRADE = r"\b(?:degrad\w*|worse|deteriorat\w*|congest\w*|slows?\s+down|sluggish|struggl\w*)"
_SURGE = r"\b(?:rush\w*|surg\w*|influx|flood\s+of|crowd\w*|stampede|busier)"
_DIP = (r"\b(?:dips?|dipp\w*|drops?|dropp\w*|falls?|fell|falling|cuts?|plung\w*|collaps\w*|lowers?|lowered|decreas\w*|"
        r"reduc\w*|to\s+zero|halv\w*|sinks?|down\b)")
_RISE = (r"\b(?:ris(?:e|es|ing)|rose|raises?|increas\w*|climbs?|climbing|higher|up\b|doubl\w*|tripl\w*|quadrupl\w*|"
         r"\d+(?:\.\d+)?\s*(?:x|times)\b|twice|more)")
FAILURES = r"fault|fail|crash|cancel|reject|jam|error|abandon|declin|refus|dropped|timeout"
_OFTEN = r"\b(?:as\s+often|more\s+often|times\s+as\s+(?:many|often|much)|more\s+(?:\w+\s+)?(?:often|frequent\w*))"

UP_WORDS = (r"\b(?:ris(?:e|es|ing)|rose|raises?|up\b|upwards?|higher|increas\w*|climb\w*|jump\w*|spik\w*|surg\w*|rush\w*|"
            r"warm\w*|hott?er|too\s+(?:hot|warm|high)|longer|more|creeps?\s+up|doubl\w*|tripl\w*|quadrupl\w*|twice|"
            r"soar\w*|heat\s*wave|hot\s+spell|peaks?|bigger|larger)")
DOWN_WORDS = (r"\b(?:drops?|dropp\w*|falls?|fell|falling|down\b|downwards?|lower\w*|decreas\w*|sags?|sagging|cuts?|"
              r"dips?|dipp\w*|cool\w*|cold\w*|too\s+(?:cold|low)|less|fewer|shorter|to\s+zero|reduc\w*|halv\w*|sinks?|"
              r"plung\w*|collaps\w*|cold\s+snap|cold\s+spell|frost)")
_MULT = {"twice": 2.0, "doubl": 2.0, "tripl": 3.0, "quadrupl": 4.0, "halv": 0.5}


def find_what(text: str, failure_measure: bool) -> tuple[str | None, bool, str]:
    """(kind, gradual, the words) of the incident a sentence describes; ``failure_measure``: the
    sentence names a count of failures (faults, crashes, cancellations)."""
    t = text
    for what, pattern in (("stuck", _STUCK), ("noise", _NOISE)):
        m = re.search(pattern, t, re.I)
        if m:
            return what, False, m.group(0)
    gaps, outage = re.search(_GAPS, t, re.I), re.search(_OUTAGE, t, re.I)
    if gaps:
        return "gaps", False, gaps.group(0)
    if outage and not re.search(r"\bto\s+zero\b", t, re.I):
        return "outage", False, outage.group(0)
    stays, spike = re.search(_STAYS, t, re.I), re.search(_SPIKE, t, re.I)
    shift = re.search(_SHIFT, t, re.I)
    drift, degrade = re.search(_DRIFT, t, re.I), re.search(_DEGRADE, t, re.I)
    over = re.search(r"\b(?:by|of)\s+[^,;]{1,40}?\bover\s+(?:the\s+)?(?:\d+|an?|next|following|first)\b", t, re.I)
    often = re.search(_OFTEN, t, re.I)
    rise = re.search(_RISE, t, re.I)
    if spike and not stays:
        return "spike", False, spike.group(0)
    if failure_measure and (often or rise):
        return "behaviour", False, (often or rise).group(0)
    if shift or stays:
        return "shift", False, (shift or stays).group(0)
    if degrade:
        return "degradation", bool(drift or over), degrade.group(0) + (f" … {drift.group(0)}" if drift else "")
    if drift or over:
        return "drift", True, (drift or over).group(0)
    surge = re.search(_SURGE, t, re.I)
    if surge:
        return "surge", False, surge.group(0)
    dip = re.search(_DIP, t, re.I)
    if dip:
        return "dip", False, dip.group(0)
    if rise or often:
        return "shift", False, (rise or often).group(0)
    return None, False, ""


def find_size(text: str) -> tuple[float | None, str | None, str | None, str]:
    """(size, "%"|"x"|"units"|"zero", unit, words); the size is positive, the direction is read apart."""
    zero = re.search(r"\b(?:to|at|hits?|reach\w*)\s+(?:zero|0|nothing|nil)\b(?!\s*[.:]\d)", text, re.I)
    if zero:
        return 0.0, "zero", None, zero.group(0)
    found: list[tuple[int, float, str, str | None, str]] = []
    for m in re.finditer(r"(?<![\w.])[+-]?(\d+(?:\.\d+)?)\s*(?:%|per\s*cent|percent)", text, re.I):
        found.append((m.start(), float(m.group(1)), "%", None, m.group(0)))
    for m in re.finditer(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:x\b|×|times\b|-?fold\b)", text, re.I):
        found.append((m.start(), float(m.group(1)), "x", None, m.group(0)))
    for m in re.finditer(r"\b(twice|doubl\w*|tripl\w*|quadrupl\w*|halv\w*)", text, re.I):
        key = next(k for k in _MULT if m.group(1).lower().startswith(k))
        found.append((m.start(), _MULT[key], "x", None, m.group(0)))
    cue = (r"(?:\bby|\bof|\babout|\baround|\broughly|\bsome|\bnearly|\bapproximately|±|\+|-|\bup|\bdown|\brises?|\bfalls?|"
           r"\bdrops?|\bclimbs?|\bjumps?|\bsags?|\bruns?|\bis|\bare|\bsits?|\bstays?|\bending(?:\s+up)?|\bjust)\s*")
    sized = re.compile(rf"(?:{cue})(\d+(?:\.\d+)?)\s*(°\s*[CFK]\b|degrees?(?:\s+[CF]\b)?|[A-Za-zµ°/³²]+(?:/[A-Za-z]+)?)"
                       r"(?:\s+(?:too\s+)?(?:lower|higher|warmer|colder|hotter|cooler|more|less|above|below|hot|cold))?", re.I)
    m = sized.search(text)
    while m:  # matches may overlap ("W-12 by 2 m"): search again just after each start
        unit = _unit(m.group(2))
        if unit is not None:
            found.append((m.start(1), float(m.group(1)), "units", unit, m.group(0).strip()))
        m = sized.search(text, m.start() + 1)
    for m in re.finditer(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(°\s*[CFK]\b|degrees?)", text, re.I):
        if not any(f[0] == m.start(1) for f in found):
            found.append((m.start(1), float(m.group(1)), "units", _unit(m.group(2)), m.group(0)))
    if not found:
        return None, None, None, ""
    _, value, kind, unit, words = min(found, key=lambda f: f[0])
    return value, kind, unit, words


def _unit(words: str) -> str | None:
    """The unit of a size ("°C", "bar"), None for words that are no unit or units of time or counts."""
    w = words.strip()
    if re.fullmatch(r"degrees?(?:\s+C)?|°\s*C", w, re.I):
        return "°C"
    if re.fullmatch(r"degrees?\s+F|°\s*F", w, re.I):
        return "°F"
    if re.fullmatch(r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|h|days?|d|weeks?|w|months?|am|pm|times|x|%|in|at|"
                    r"on|to|[a-z]+s)",
                    w, re.I) and w not in ("ms", "Mbps", "mbps", "kbps", "rpm"):
        return None
    if w.lower() in ("m",):
        return "m"
    parts = w.split("/") if "/" in w else [w]
    for part in parts:
        try:
            u = parse_unit(part, strict=True)
        except Exception:  # noqa: BLE001 - any word pint cannot read is no unit
            return None
        if u is None or (str(getattr(u, "dimensionality", "")) == "[time]" and len(parts) == 1 and w != "ms"):
            return None
    return w


def find_direction(text: str, near: int | None = None) -> tuple[str | None, str]:
    """("up"|"down", words): the direction word nearest to ``near`` (the size), else the first one."""
    hits = [(m.start(), "up", m.group(0)) for m in re.finditer(UP_WORDS, text, re.I)]
    hits += [(m.start(), "down", m.group(0)) for m in re.finditer(DOWN_WORDS, text, re.I)]
    zero = re.search(r"\bto\s+(?:zero|0|nothing)\b", text, re.I)
    if zero:
        return "down", zero.group(0)
    if not hits:
        return None, ""
    pos, way, words = min(hits, key=lambda h: (abs(h[0] - near) if near is not None else h[0], h[0]))
    return way, words
