"""Chat refinements, offline: a request in plain words → a ``Refinement`` (the command grammar), and
its effect on the spec (pure functions on the spec's dict form).

Grammar (case-insensitive; see ``HELP``): show incidents | show questions | add a persona: <who
and how they write> | add a <incident kind> [on <day/weekday> <morning|afternoon|evening|night>]
[for <attribute value> <entities>] | make the <incident> cascade to the <entities> behind <ID> |
remove the <incident> | drop the <topic> questions | more [stateless|stateful|incident] questions
[about <topic>] | <N> <entities> / every <cadence> / over <horizon> | help | quit.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel

from tools.common.families import FAMILIES
from tools.describe.extract import find_cadence, find_horizon, incident_words, number, singular, snake

Op = Literal["help", "quit", "show_incidents", "show_questions", "add_persona", "add_incident", "cascade",
             "remove_incident", "drop_questions", "more_questions", "resize", "unknown"]
HELP = """I understand (one request a line):
  show me the incidents               show the questions
  add a persona: a NOC engineer who writes terse questions with abbreviations
  add a flash crowd on Friday evening for premium users      add an outage on day 3 for 2 hours
  make the outage cascade to the cells behind RTR_003        remove the flash crowd
  drop the security questions         more stateful questions about maintenance
  make it 80 sensors / every 5 minutes / over 3 days         help, quit"""
PARTS_OF_DAY = {"morning": ("08:00", "4h"), "afternoon": ("13:00", "4h"), "evening": ("18:00", "3h"),
                "night": ("01:00", "4h"), "midnight": ("00:00", "2h"), "noon": ("12:00", "2h")}
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]


class Refinement(BaseModel):
    """One parsed chat request."""

    op: Op
    text: str = ""
    kind: str | None = None  # incident kind, or the question family for more_questions
    topic: str | None = None  # persona description, question topic, incident word, target value
    target_ids: list[str] = []
    entity_word: str | None = None
    when: str | None = None  # "day N HH:MM"
    duration: str | None = None
    count: int | None = None


FAMILY_WORDS = {  # what users call a question family in chat → its name
    **{f: f for f in FAMILIES},
    "forecasting": "forecast", "prediction": "forecast", "trend": "shape", "shape and trend": "shape",
    "claims": "claim", "true or false": "claim", "false premise": "false_premise", "false-premise": "false_premise",
    "trick": "false_premise", "anomaly detection": "detection",
}


def parse_request(text: str, start: datetime | None = None, days: int = 7) -> Refinement:
    """The refinement a chat line asks for (``unknown`` when the grammar does not cover it)."""
    t = " ".join(text.split())
    low = t.lower()
    if re.fullmatch(r"(help|\?|what can you do\??)", low):
        return Refinement(op="help", text=t)
    if re.fullmatch(r"(quit|exit|bye|q|done)", low):
        return Refinement(op="quit", text=t)
    if re.search(r"\b(show|list|what are)\b.*\bincidents?\b", low):
        return Refinement(op="show_incidents", text=t)
    if re.search(r"\b(show|list)\b.*\bquestions?\b", low):
        return Refinement(op="show_questions", text=t)
    m = re.search(r"\badd (?:a |an |another )?(?:new )?persona\b[:,-]?\s*(.*)", t, re.I)
    if m:
        return Refinement(op="add_persona", text=t, topic=m.group(1).strip() or None)
    m = re.search(r"\b(?:drop|remove|delete|no more)\b\s+(?:all\s+)?(?:the\s+)?(.*?)\s*questions?\b(?:\s+(?:about|on)\s+(.+))?",
                  t, re.I) or re.match(r"\s*(?:no|without)\s+(?:any\s+)?(.+?)\s+questions?\b()", t, re.I)
    if m and m.group(1).lower().strip() in FAMILY_WORDS:  # "no unanswerable questions": the family
        return Refinement(op="drop_questions", text=t, topic=FAMILY_WORDS[m.group(1).lower().strip()])
    if m:
        return Refinement(op="drop_questions", text=t, topic=(m.group(2) or m.group(1) or "").strip() or None)
    m = re.search(rf"\bmore\s+(?:({'|'.join(sorted(FAMILY_WORDS, key=len, reverse=True))})\s+)?questions?"
                  r"(?:\s+(?:about|on|for)\s+(.+))?", t, re.I)
    if m:
        return Refinement(op="more_questions", text=t, kind=FAMILY_WORDS.get((m.group(1) or "").lower()),
                          topic=(m.group(2) or "").strip(" .") or None)
    m = re.search(r"\bcascade\b.*?\bto (?:the |all )?([a-z_ ]+?)\s+(?:behind|served by|under|on|of|attached to)\s+(\S+)", t, re.I)
    if m:
        which = re.search(r"\bthe (\w[\w ]*?) cascade", t, re.I)
        return Refinement(op="cascade", text=t,
                          entity_word=singular(m.group(1).strip().split()[-1].lower(), rules_only=True),
                          target_ids=[m.group(2).strip(".,")], topic=which.group(1) if which else None)
    kind = next((k for pat, k in incident_words(in_descriptions=False) if re.search(rf"\b(?:{pat})", low)), None)
    if kind and re.search(r"\b(remove|delete|drop|undo)\b", low):
        return Refinement(op="remove_incident", text=t, kind=kind)
    if kind and re.search(r"\b(add|inject|insert|create|simulate|put)\b", low):
        when, duration = _when(low, start, days)
        target = re.search(r"\bfor (?:the |all )?(\S+)\s+(\w+)", t, re.I)
        ids = re.findall(r"\b[A-Z][A-Z0-9]*_\d+\b", t)
        # "on 5 cells", "on three sensors": how many entities, and of which type
        many = re.search(r"\b(?:on|to|for|hitting|affecting)\s+(\d+|one|two|three|four|five|six|seven|eight|nine|ten"
                         r"|eleven|twelve)\s+([a-z]\w*)", low)
        if many and re.fullmatch(r"(hours?|minutes?|mins?|days?|weeks?|seconds?|secs?)", many.group(2)):
            many = None
        if many:
            target = None
        return Refinement(op="add_incident", text=t, kind=kind, when=when, duration=duration, target_ids=ids,
                          topic=target.group(1) if target and not ids else None,
                          entity_word=(singular(many.group(2), rules_only=True) if many else
                                       singular(target.group(2).lower(), rules_only=True) if target and not ids
                                       else None),
                          count=number(many.group(1)) if many and not ids else None)
    count = re.search(r"\b(\d[\d,]*)\s+([a-z]\w*s)\b", low)
    cadence, _ = find_cadence(t)
    horizon, _ = find_horizon(t)
    if count or cadence or horizon:
        return Refinement(op="resize", text=t, count=number(count.group(1)) if count else None,
                          entity_word=singular(count.group(2), rules_only=True) if count else None,
                          kind=cadence, duration=horizon)
    return Refinement(op="unknown", text=t)


def _when(low: str, start: datetime | None, days: int) -> tuple[str | None, str | None]:
    """('day N HH:MM', duration) from 'on Friday evening', 'on day 3 at 14:00 for 2 hours'."""
    day = None
    m = re.search(r"\bday (\d+)\b", low)
    if m:
        day = int(m.group(1))
    wd = next((i for i, w in enumerate(WEEKDAYS) if re.search(rf"\b{w}\b", low)), None)
    if day is None and wd is not None and start is not None:
        day = next((d + 1 for d in range(days) if (start + timedelta(days=d)).weekday() == wd), None)
    hhmm, duration = None, None
    part = next((p for p in PARTS_OF_DAY if re.search(rf"\b{p}\b", low)), None)
    if part:
        hhmm, duration = PARTS_OF_DAY[part]
    m = re.search(r"\bat (\d{1,2})(?::(\d\d))?\s*(am|pm)?\b", low)
    if m:
        h = int(m.group(1)) % 12 + (12 if m.group(3) == "pm" else 0) if m.group(3) else int(m.group(1))
        hhmm = f"{h:02d}:{m.group(2) or '00'}"
    m = re.search(r"\bfor (\d+|an?|one|two|three|four|five|six)\s+(hours?|minutes?|mins?)\b", low)
    if m:
        n = number(m.group(1))
        duration = f"{n}h" if m.group(2).startswith("h") else f"{n}m"
    if day is None and hhmm is None:
        return None, duration
    return f"day {day or max(1, days // 2 + 1)} {hhmm or '10:00'}", duration


def incident_id(spec: dict[str, Any], kind: str) -> str:
    """A new, unused incident id for a kind ('flash_crowd_2')."""
    ids = {i.get("id") for i in spec.get("incidents", [])} | {i.get("root", {}).get("id") for i in spec.get("incidents", [])}
    n = 1
    while f"chat_{kind}_{n}" in ids:
        n += 1
    return f"chat_{kind}_{n}"


def find_incident(spec: dict[str, Any], words: str | None, kind: str | None = None) -> dict | None:
    """The incident a request refers to: by kind, then by a word of its id or description."""
    incs = spec.get("incidents", [])
    for inc in incs:
        k = inc.get("kind") if inc.get("kind") != "cascade" else inc["root"].get("kind")
        if kind and k == kind:
            return inc
    if words:
        w = snake(words).split("_")[-1]
        for inc in incs:
            text = f"{inc.get('id', '')} {inc.get('description', '')} {inc.get('kind')}".lower()
            if w and w in text:
                return inc
    return None
