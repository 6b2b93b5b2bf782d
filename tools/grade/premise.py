"""Grading questions whose right answer rejects the premise or names the missing data.

A ``false_premise`` question is answered correctly by a response that rejects its premise ("there is
no RTR_009", "sensor_0003 never went 'critical' that day", "the data ends on 3 January"); an
``unanswerable`` one by a response that says the data cannot answer it AND names what is missing
("there is no humidity column"). A response that answers anyway (a figure, a cause) is a fabrication
and is incorrect, also when it hedges the figure with a vague doubt.
"""

from __future__ import annotations

import re

from tools.grade.scalars import Verdict

PREMISE_FAMILIES = ("false_premise", "unanswerable")

_REJECT = re.compile(
    r"\bthere (?:is|was|are|were) no\b|\bthere's no\b|\bha(?:s|d|ve) no\b|"
    r"^\W*(?:it|they|that|this|he|she)?\s*(?:didn't|did not|doesn't|does not|wasn't|was not)\b|"
    r"\bthere (?:isn't|wasn't|aren't|weren't)\b|\bno (?:such|record|records|data|rows?|readings?|events?|entry|entries|"
    r"column|field|attribute|table|information|evidence|mention|trace|sign)\b|"
    r"\b(?:does|do|did)(?:n't| not) (?:exist|happen|occur|appear|enter|go|reach|fail|exceed|rise|have|record|report|"
    r"contain|include|show|cross)\b|\bnever\b|\bnon-?existent\b|\bnot (?:present|found|available|recorded|part of|"
    r"in the (?:data|dataset|tables?)|among|one of|a (?:column|field|known))\b|"
    r"\b(?:cannot|can't|could not|couldn't|unable to) (?:find|locate|see|answer|determine|compute|calculate|be answered)\b|"
    r"\bfalse premise\b|\bpremise\b.{0,40}\b(?:false|wrong|incorrect|mistaken)\b|\bunanswerable\b|"
    r"\b(?:lacks?|lacking|missing|absent)\b|\bonly (?:covers|spans|goes|runs)\b|\b(?:ends|stops) (?:on|at|before)\b|"
    r"\bout(?:side)? (?:of )?the (?:data|time) ?range\b|\bno \w+ (?:named|called|column|field|with id)\b",
    re.I | re.S | re.M)


def _terms(record: dict) -> list[str]:
    """The words that name what is missing or false (the fake id, the missing column...)."""
    p = (record.get("params") or {}).get("params") or {}
    out = [str(p[k]) for k in ("missing", "id") if p.get(k)]
    if p.get("kind") == "event" and p.get("event"):
        out.append(str(p["event"].get("value")))
    if p.get("kind") == "date" and p.get("day"):
        out.append(str(p["day"]).split()[0] + " " + str(p["day"]).split()[1])
    return out


def _named(term: str, text: str) -> bool:
    """The response names ``term`` (any spelling: 'wind speed', 'wind_speed', 'windspeed')."""
    norm = re.sub(r"[^a-z0-9]", "", text.lower())
    t = re.sub(r"[^a-z0-9]", "", term.lower())
    return bool(t) and (t in norm or t.rstrip("s") in norm)


def match_premise(text: str, record: dict) -> Verdict:
    """Correct when the response rejects the premise (false_premise) or refuses naming the missing
    data (unanswerable); a response that answers anyway is a fabrication."""
    if not _REJECT.search(text):
        return Verdict(False, True, "answers as if the premise held (fabricated answer)", None, reason="fabricated")
    if record.get("family") == "unanswerable":
        terms = _terms(record)
        if terms and not any(_named(t, text) for t in terms):
            return Verdict(False, True, f"refuses without naming the missing data ({terms[0]})", None,
                           reason="unnamed_missing_data")
        return Verdict(True, True, "", None, reason="names_missing_data")
    return Verdict(True, True, "", None, reason="premise_rejected")
