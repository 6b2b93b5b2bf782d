"""Find the sentences of a description that describe an incident and read each into an
``IncidentDraft``: what happens, to which entities (ids, a count, all, through a parent), when
(day, clock time, duration) and how much (size and direction), with the words of each part.

A sentence is an incident sentence when it names a kind of incident and either anchors it in time
("on day 4", "at 14:00", "on the second day") or is no reporting sentence ("5 towers go offline").
A sentence that only says something goes wrong ("sometimes things go wrong") is vague: it is kept
apart so the reader can list it as not understood. Both are hidden from the entity reader, so a
verb of an incident ("hits", "drops") never becomes an entity and "affecting 5 towers" never
becomes the fleet size.
"""

from __future__ import annotations

import re

from tools.describe.extract import find_horizon
from tools.describe.incident_draft import IncidentDraft
from tools.describe.incident_size import FAILURES, find_direction, find_size, find_what
from tools.describe.incident_when import (
    find_clock,
    find_day,
    find_duration,
    find_part_of_day,
    format_seconds,
    to_end,
)
from tools.describe.phrases import sentences

_TIME_NOUNS = (r"seconds?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|times|degrees?|percent|fold|nights?|"
               r"mornings?|evenings?|afternoons?|am|pm|x")
_SKIP_NOUNS = {"day", "days", "week", "weeks", "hour", "hours", "minute", "minutes", "night", "time", "times", "while",
               "the", "a", "an", "of", "its", "their", "his", "her", "these", "those", "that", "other", "same", "usual",
               "normal", "rest", "whole", "way", "morning", "evening", "afternoon", "at", "in", "on", "by", "to", "from",
               "release", "version", "v", "page", "step", "level", "about", "around", "up", "down", "over", "all", "every",
               "each", "across", "some", "any", "no", "than", "only", "just"}
_LINK = r"(?:in|on|at|across|of|from|inside|within|for|throughout)"
_PARENT_Q = r"(\d[\d,]*|that|those|these|this|the|its|their|one|a|an)"
_NOUN = r"([a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)"
_REPORTING = (r"\b(?:every|each)\s+(?:\d+\s*)?(?:seconds?|minutes?|hours?|days?|mins?|secs?|s|m|h)\b|\b(?:hourly|daily|"
              r"per\s+(?:\d+\s*)?(?:seconds?|minutes?|hours?|min|s|h)|minutely)\b")
_VAGUE = (r"\b(?:wrong|off\b|problems?|issues?|glitch\w*|weird\w*|unusual|anomal\w*|incidents?|strange|odd\b|hiccups?|"
          r"messy|broken|break\w*|faults?|failures?|errors?|things?\s+happen|trouble\w*|surpris\w*|chaos|mess\b|realistic)")
_ID = r"[A-Z]{1,4}-\d{1,6}[A-Z]?|[A-Z]{1,3}\d{1,6}[A-Z]?"


def _anchored(s: str) -> bool:
    day, _, _, week = find_day(s)
    start = find_clock(s)[0]
    return day is not None or week is not None or start is not None


def kind_of(s: str) -> tuple[str | None, bool, str]:
    """(kind, gradual, words) of an incident sentence (see ``find_what``); failures count as what
    changes when the sentence makes them more frequent ("fault three times as often", "doubles the
    failed tests"), not when one is the cause ("a cooling fault pushes ...")."""
    more = (rf"\b(?:{FAILURES})\w*\s+(?:[\w-]+\s+){{0,4}}?(?:as\s+often|more\s+often|\d+(?:\.\d+)?\s*(?:times|x\b|%)|"
            rf"(?:to\s+)?go(?:es)?\s+up|ris\w*|increas\w*|doubl\w*|tripl\w*)|\b(?:doubl|tripl|quadrupl|increas|rais|multipl)"
            rf"\w*\s+(?:the\s+)?(?:[\w-]+\s+)?(?:{FAILURES})")
    return find_what(s, re.search(more, s, re.I) is not None)


_LIST = r"\w[\w )(-]*,\s*\w[^,]*\b(?:or|and)\b|\w+,\s*\w+,\s*\w+"  # "normal, offline or tampered": states or values


def is_incident(s: str) -> bool:
    """A sentence that describes an incident (see the module docstring): a kind anchored in time, or
    without a time a kind on stated targets for a stated duration ("5 towers go offline for 3h"),
    never a list of states ("ATMs are in service, out of cash or offline") nor the data's span."""
    if kind_of(s)[0] is None or len(re.findall(r"->|→|=>", s)) >= 2:
        return False  # "intake -> stray hold (72 hours ...) -> ...": the stages of a workflow
    if _anchored(s):
        return True
    if re.search(_REPORTING, s, re.I) or re.search(_LIST, s) or find_horizon(s)[0] is not None:
        return False
    inc = read_incident(s)
    return bool(inc.count or inc.ids or inc.all) and inc.duration is not None


def is_vague(s: str) -> bool:
    """A sentence that says something goes wrong without saying what, to which or when."""
    return (re.search(_VAGUE, s, re.I) is not None and not re.search(r"\d|->|→|=>", s) and not re.search(_REPORTING, s, re.I)
            and not re.search(_LIST, s) and kind_of(s)[0] is None)


def split_incidents(text: str) -> tuple[str, list[IncidentDraft], list[str]]:
    """(the text without its incident and vague sentences, the incidents read, the vague sentences)."""
    kept, incidents, vague = [], [], []
    for sent in sentences(text):
        parts = []
        clauses = re.split(r";\s+", sent)
        if is_incident(sent) and not any(re.search(_REPORTING, c, re.I) and not is_incident(c) for c in clauses):
            clauses = [sent]  # "A leak starts on day 20; from then the pressure sits 0.8 bar lower": one incident
        for clause in clauses:
            if is_incident(clause):
                incidents.append(read_incident(clause.strip().rstrip(".")))
            elif is_vague(clause):
                vague.append(clause.strip())
            else:
                parts.append(clause)
        if parts:
            kept.append("; ".join(parts))
    rest = " ".join(k if re.search(r"[.!?]$", k) else k + "." for k in kept)
    return rest, incidents, vague


def _ids_in(s: str) -> list[tuple[int, str, str]]:
    """(position, noun before it or "", id) of every id the sentence names ("sensor S-014", "line 3")."""
    out = []
    for m in re.finditer(rf"(?:\b([A-Za-z][a-z]+)\s+)?\b({_ID})\b(?!\.\d)", s):
        prev = s[: m.start()].rstrip()
        listed = re.search(rf"(?:{_ID})\s*(?:,|\+|and|&|or)\s*$", prev)
        noun = (m.group(1) or "").lower()
        if (noun and noun[0].islower() is False) or noun in _SKIP_NOUNS:
            noun = ""
        if "-" in m.group(2) or noun or listed:
            out.append((m.start(2), noun, m.group(2)))
    for m in re.finditer(r"\b([A-Za-z][a-z]+)\s+(\d{1,6}[A-Z]?|[A-Z]\b)(?:'s)?(?![\d.:,]?\d)(?!\s*(?:%|°|[ap]m\b|"
                         + _TIME_NOUNS + r")\b)", s):
        noun = m.group(1).lower()
        nxt = s[m.end():].split()[:1]
        if nxt and m.group(2).isdigit() and re.fullmatch(r"[a-z][\w-]*", nxt[0]) and re.search(r"(?:ing|ed|[^s]s)$", noun):
            continue  # "affecting 5 towers", "takes 5 towers": a count, not an id
        if noun in _SKIP_NOUNS or re.fullmatch(r"(?:by|of|up|to|is|are|was|at|in|on|for|about|around|falls?|rises?|"
                                               r"drops?|runs?|sits?|stays?|climbs?|jumps?|ending|ends?|and|or|than|"
                                               r"with|after|before|until|from|between|the|d|day|days)", noun):
            continue
        if not any(p == m.start(2) for p, _, _ in out):
            out.append((m.start(2), noun, m.group(2)))
    return sorted(out)


def _targets(s: str, inc: IncidentDraft) -> None:
    """Entity words, ids, count, all and the parent of the sentence ``s``."""
    words = inc.words
    for pos, noun, ident in _ids_in(s):
        before = s[:pos]
        quantified = re.search(rf"\b(?:all|every|each|\d+|the)\s+(?:of\s+the\s+)?[a-z][\w-]*(?:\s+[a-z][\w-]*){{0,2}}\s+"
                               rf"{_LINK}\s+(?:the\s+)?(?:{noun}\s+)?(?:(?:{_ID}|\d+)\s*(?:,|\+|and|&)\s*)*$", before,
                               re.I) if noun else None
        if quantified and noun:
            inc.parent_ids.append(ident)
            inc.parent_words = inc.parent_words or noun
            words["parent"] = quantified.group(0) + ident
        else:
            inc.ids.append(ident)
            if noun and noun not in inc.entity_words:
                inc.entity_words.append(noun)
            words["ids"] = (words.get("ids", "") + " " + f"{noun} {ident}".strip()).strip()
    par = re.search(rf"\b(?:(all|every|each)\s+(?:of\s+)?(?:the\s+)?|(?<![\w.:,-])(?<!day\s)(?<!days\s)(\d[\d,]*\d|\d)\s+|the\s+)?{_NOUN}\s+{_LINK}\s+"
                    rf"(?:(\d[\d,]*)\s+of\s+(?:the\s+)?|{_PARENT_Q}\s+)([a-z][\w-]*(?:\s+[a-z][\w-]*)?)\b", s, re.I)
    while par and (par.group(3).split()[-1].lower() in _SKIP_NOUNS or re.fullmatch(_TIME_NOUNS, par.group(6).split()[0],
                                                                                     re.I)
                   or par.group(6).split()[0].lower() in _SKIP_NOUNS):
        par = re.compile(par.re.pattern, re.I).search(s, par.start() + 1)
    if par:
        q = (par.group(4) or par.group(5) or "").lower()
        pw = par.group(6).split()
        plural = next((i for i, x in enumerate(pw) if x.lower().endswith("s") and len(x) > 3), None)
        many = q.replace(",", "").isdigit() and int(q.replace(",", "")) > 1 or q in ("those", "these")
        parent = " ".join(pw[: plural + 1]) if plural is not None and many else pw[0]
        if q.replace(",", "").isdigit() and int(q.replace(",", "")) > 0:
            inc.parent_count = int(q.replace(",", ""))
        elif q in ("one", "a", "an"):
            inc.parent_count = 1
        elif q in ("those", "these", "that", "this"):
            earlier = re.search(rf"\b(\d[\d,]*)\s+{re.escape(parent.split()[-1])}", s, re.I)
            inc.parent_count = int(earlier.group(1).replace(",", "")) if earlier else None
        if q not in ("the", "its", "their") or inc.parent_ids:
            inc.parent_words = inc.parent_words or parent
            words["parent"] = par.group(0)
            inc.entity_words.insert(0, par.group(3).split()[-1].lower())
            if par.group(1):
                inc.all, words["all"] = True, par.group(0)
            elif par.group(2):
                inc.count, words["count"] = int(par.group(2).replace(",", "")), par.group(0)
    if not inc.all:
        a = re.search(r"\b(?:all|every|each)\s+(?:of\s+)?(?:the\s+)?(?:(\d[\d,]*)\s+)?([a-z][\w-]*(?:\s+[a-z][\w-]*){0,2})",
                      s, re.I)
        while a and re.fullmatch(_TIME_NOUNS, a.group(2).split()[0], re.I):
            a = re.compile(a.re.pattern, re.I).search(s, a.end())
        whole = re.search(r"\b(?:the\s+)?(?:whole|entire)\s+([a-z][\w-]*)|\b(site|fleet|network|plant|city|system)-wide\b",
                          s, re.I)
        if whole and re.fullmatch(_TIME_NOUNS, whole.group(1) or "x", re.I):
            whole = None
        if a:
            inc.all, words["all"] = True, a.group(0)
            if a.group(1):
                inc.count = inc.count or int(a.group(1).replace(",", ""))
            inc.entity_words += [x for x in a.group(2).lower().split() if x not in _SKIP_NOUNS]
        elif whole:
            inc.all, words["all"] = True, whole.group(0)
            inc.entity_words.append((whole.group(1) or whole.group(2)).lower())
    if inc.count is None and not inc.ids:
        for m in re.finditer(r"(?<![\w.:,-])(\d[\d,]*)\s+(?!of\b)([a-z][\w-]*(?:\s+[a-z][\w-]*){0,2})", s, re.I):
            head = _head(m.group(2))
            pre = s[: m.start()].rstrip().split()[-1:] or [""]
            if re.fullmatch(_TIME_NOUNS, m.group(2).split()[0], re.I) or head in _SKIP_NOUNS or not head.endswith("s") \
                    or m.group(1) in inc.ids + inc.parent_ids \
                    or re.fullmatch(r"(?:by|per|every|each|day|days|d\d+|to|about)", pre[0].lower()) \
                    or (inc.parent_words and head == _head(inc.parent_words)):
                continue
            inc.count, words["count"] = int(m.group(1).replace(",", "")), m.group(0)
            inc.entity_words.append(head)
            break
    if inc.count is None and inc.ids:
        inc.count = None


def _head(noun: str) -> str:
    """The head noun of a few words ("filling machines" → "machines"), stopping at a verb-like word."""
    ws = [w for w in noun.lower().split() if w not in ("the", "of")]
    return next((w for w in ws if w.endswith("s") and len(w) > 3), ws[0] if ws else noun.lower())


def read_incident(s: str) -> IncidentDraft:
    """The incident one sentence describes (fields it does not state stay None)."""
    inc = IncidentDraft(text=s)
    w = inc.words
    inc.what, inc.gradual, w["what"] = kind_of(s)
    _targets(s, inc)
    day, day_span, w["day"], week = find_day(s)
    inc.day = day
    if week:
        inc.weekday, inc.week = week
    start, clock_span, w["start"] = find_clock(s)
    part_start, part_span, part_words = find_part_of_day(s)
    inc.start = start or part_start
    if not start and part_start:
        w["start"] = part_words
    seconds, w["duration"] = find_duration(s)
    if seconds is None and clock_span:
        seconds, w["duration"] = clock_span, w["start"]
    if seconds is None and day_span:
        seconds, w["duration"] = day_span, w["day"]
    if seconds is None and part_span and (not start or part_start == "00:00"):
        seconds, w["duration"] = part_span, part_words
    if seconds is not None and seconds > 0:
        inc.duration = format_seconds(seconds)
    if (stays := to_end(s)) and inc.duration is None:
        inc.to_end, w["duration"] = True, stays
    inc.size, inc.size_unit, inc.unit, w["size"] = find_size(s)
    near = s.find(w["size"]) if w["size"] else None
    inc.direction, w["direction"] = find_direction(s, near)
    if inc.what == "shift" and not re.search(r"heat|cold|hot|frost|stay|remain|sits|from then|onward|for good", s, re.I) \
            and inc.direction == "up" and seconds is not None and seconds <= 3600:
        inc.what = "spike"  # a short rise that does not stay is a spike
    if inc.what == "dip" and (inc.to_end or (seconds or 0) >= 86400) and inc.size_unit != "zero":
        inc.what = "shift"  # a drop that lasts days is a new level, not a dip
    if inc.size_unit == "x" and inc.size is not None and inc.direction is None:
        inc.direction = "up" if inc.size > 1 else "down"
    spans = [w.get(k, "") for k in ("day", "start", "duration", "size")]
    subject = s
    for span in sorted(filter(None, spans), key=len, reverse=True):
        subject = subject.replace(span, " ")
    inc.subject = " ".join(subject.split())
    inc.words = {k: v for k, v in w.items() if v}
    return inc
