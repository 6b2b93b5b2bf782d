"""Workflows told in a sentence (issue 29): a countable thing walked through named stages ("filed ->
served -> heard, or its dismissed", "is reserved, then paid for, and after that it is either scanned,
refunded, or ...", "go through a, b and end as c or d", "stages: a, b; outcome: c / d") read as its
stages in order (the user's words as identifiers, without subject, linking verbs or trailing phrases)
and the final alternatives that end it; and arrival rates ("roughly forty filed every working day",
"~1,200 a month") as arrivals per day."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tools.describe.extract import snake

_IRREGULAR = {"pay": "paid", "hold": "held", "send": "sent", "lose": "lost", "buy": "bought", "leave": "left",
              "keep": "kept", "find": "found", "write": "written", "give": "given", "take": "taken", "sell": "sold",
              "make": "made", "put": "put", "set": "set", "run": "run", "win": "won", "see": "seen", "get": "got",
              "begin": "begun", "issue": "issued", "close": "closed", "ship": "shipped", "plan": "planned",
              "drop": "dropped", "stop": "stopped", "submit": "submitted", "cancel": "cancelled", "admit": "admitted",
              "refer": "referred", "transfer": "transferred", "commit": "committed", "bring": "brought", "draw": "drawn",
              "choose": "chosen", "drive": "driven", "throw": "thrown", "break": "broken", "tell": "told", "teach": "taught",
              "catch": "caught", "build": "built", "lend": "lent", "spend": "spent", "lead": "led", "meet": "met",
              "hear": "heard", "read": "read", "cut": "cut", "shut": "shut", "hang": "hung", "fly": "flown",
              "ride": "ridden", "wear": "worn", "tear": "torn", "freeze": "frozen", "hide": "hidden", "steal": "stolen",
              "speak": "spoken", "come": "come", "go": "gone", "do": "done", "bid": "bid", "let": "let", "quit": "quit",
              "deal": "dealt", "feel": "felt", "seek": "sought", "sweep": "swept", "weep": "wept", "split": "split",
              "rebuild": "rebuilt", "rewrite": "rewritten", "redraw": "redrawn", "withdraw": "withdrawn",
              "forgive": "forgiven", "undergo": "undergone"}
PARTICIPLES = set(_IRREGULAR.values())
_LINK = (r"passes through|pass through|goes through|go through|moves? (?:on )?to|then|finally|eventually|either|is|are|be|been|being|get|gets|got|goes|go|gone|becomes|become|it|its|it's|they|"
         r"them|and|or|after|that|this|from|there|later|usually|normally|sometimes|often|also|next|first|just|can|may|"
         r"might|will|must|should|never|still|ends?|up|as|in|into|to|some|are then|"
         r"is then|it is|a|an|the")
_CUE = re.compile(r"^\s*(?:final\s+)?(?:outcomes?|results?)\s*:|^\s*(?:some|many|a few|others|the rest)\s|"
                  r"^\s*[\w-]+s\s+(?:that|which)\s+(?:aren't|are not|don't|do not|haven't|have not|never|are never)\s|->|→|=>|\bthen\b|\beither\b|\bstarts? when\b|\bgo(?:es)? through\b|\bstages?\s*:|\bfrom there\b|"
                  r"\bafter that\b|\bend(?:s)? (?:as|in|up)\b", re.I)
_SEP = re.compile(r"\s*(?:->|→|=>)\s*|\s*;\s*|\s*,?\s+(?:and\s+then|and\s+after\s+that|and|then|or|unless|before\s+being)\s+|"
                  r"\s*,\s*(?:then\s+)?", re.I)
_CUT = re.compile(r"\s+(?:by|for|to|at|from|with|while|before|after|until|within|when|via|because|unless|if|so|"
                  r"where|which|who|up to|back to|each|every|per|once|twice|(?:on|in|into|onto|over|under)\s+(?:the|a|an|his|her|their|its|\d))\b.*$",
                  re.I)
_PEOPLE_THE = re.compile(r"^(?:the|his|her|their|its)\s+[\w-]+\s+(?=\S)", re.I)
_LOOP = re.compile(r"\b(?:returns?|goes|go|sent|comes?)\s+back\b|\breturns?\s+to\b|\bback\s+to\b|\bagain\b|\brepeat", re.I)


@dataclass
class Flow:
    """Stages read from one sentence; ``ends`` are the final alternatives, ``continues`` says the sentence
    goes on from the one before ("From there it is either ...")."""

    subject: str
    stages: list[str]
    ends: list[str]
    words: str
    continues: bool = False
    loops: list[str] = field(default_factory=list)
    extra: bool = False  # "some are declined": more endings of the flow before, not its next stages
    weak: bool = False  # a plain state list read the same sentence as well
    named: list[str] = field(default_factory=list)  # nouns the stages are said of ("the loan is active")
    unread: list[str] = field(default_factory=list)  # pieces that name no stage confidently (not understood)
    back_to: dict[str, str] = field(default_factory=dict)  # a stage that comes back to an earlier one
    chain: bool = False  # told as an arrow chain (tools.describe.chains): a workflow even without a subject


def participle(verb: str) -> str:
    """'pays' → 'paid', 'renew' → 'renewed', 'books' → 'booked', 'checks' → 'checked'."""
    v = verb.lower()
    if v.endswith(("ed", "en")) or v in _IRREGULAR.values():
        return v
    base = v[:-2] if v.endswith(("ches", "shes", "sses", "xes")) else v[:-3] + "y" if v.endswith("ies") else \
        v[:-1] if v.endswith("s") and not v.endswith("ss") else v
    if base in _IRREGULAR:
        return _IRREGULAR[base]
    if base.endswith("e"):
        return base + "d"
    if base.endswith("y") and len(base) > 2 and base[-2] not in "aeiou":
        return base[:-1] + "ied"
    return base + "ed"


def _verbish(word: str) -> bool:
    w = word.lower()
    return w.endswith(("ed", "en")) or w in _IRREGULAR.values() or w in _IRREGULAR


def stage_name(piece: str, cut: bool = True) -> str:
    """The stage a clause names, in the user's words: 'case goes filed' → filed, 'it is either scanned at the door'
    → scanned, 'the holder never turns up (no-show)' → no_show, 'placed on hold while ...' → on_hold."""
    label = re.search(r"\(([a-z][\w -]{1,20})\)\s*$", piece, re.I)
    if label and len(label.group(1).split()) <= 2 and not _LOOP.search(label.group(1)):
        return snake(label.group(1))
    p = re.sub(r"\([^)]*\)", " ", piece).strip(" .,:;")
    started = re.match(r"^.*?\bstarts?\s+(?:when|with|as)\s+", p, re.I)
    p = p[started.end():] if started else p
    p = re.sub(r"^(?:a|an|the|his|her|their)\s+[\w-]+\s+(?=(?!is\b|has\b|was\b)[a-z]+s\b)", "", p, flags=re.I)
    p = re.sub(r"^(?:a|an|the)\s+[\w-]+\s+(?:is|are|gets)\s+", "", p, flags=re.I) if started else p
    p = re.sub(r"^(?:a|an)\s+([\w-]+)\s+(?:is|are|gets)\s+(?=[a-z]+ed\b|[a-z]+en\b|sent\b|made\b|held\b|paid\b)",
               lambda m: m.group(1) + " ", p, flags=re.I)  # "a quote is sent": a new thing, named with its noun
    p = _PEOPLE_THE.sub("", p) if re.match(r"^(?:the|his|her|their|its)\s+[\w-]+\s+(?:[a-z]+\s+)?"
                                           r"(?:is|are|gets|get|can|may|will|never|checks?|pays?|[a-z]+s)\b", p, re.I) else p
    for _ in range(8):
        new = re.sub(rf"^(?:{_LINK})\s+", "", p, flags=re.I)
        new = re.sub(r"^(?:[\w-]+\s+)?(?:goes|go|gets|get|is|are|can|may|will)\s+(?=\S)", "", new, count=1, flags=re.I) \
            if re.match(r"^[\w-]+\s+(?:goes|go|gets|get|is|are|can|may|will)\s", new, re.I) and not \
            _verbish(new.split()[0]) else new
        if new == p:
            break
        p = new
    p = re.sub(r"^(?:declared|marked|deemed|reported|found|recorded|logged)\s+(?=\w)", "", p, flags=re.I)
    p = re.sub(r"^(?:placed|put|kept|left)\s+(?=(?:on|in)\s)", "", p, flags=re.I)
    p = _CUT.sub("", p).strip() if cut else p
    p = re.sub(r"^(?:a|an|the)\s+", "", p, flags=re.I)
    w = p.split()
    if not w or w[0].lower() in ("by", "with", "via", "at", "for", "to", "from", "of"):
        return ""  # "either online or by post": a way, not a stage
    if len(w) >= 2 and w[1].lower() in ("it", "them", "the", "a", "an", "up", "in", "out", "online", "off") and \
            not _verbish(w[0]) and re.fullmatch(r"[a-z]+", w[0]):
        particle = w[1].lower() if w[1].lower() in ("in", "out", "up", "off") else ""
        return snake(f"{participle(w[0])} {particle}".strip())  # "renew it up to three times" → renewed
    if len(w) == 1 and re.fullmatch(r"[a-z]+s", w[0]) and not w[0].endswith(("ss", "us", "is")):
        return snake(participle(w[0]))  # "pays" → paid
    w = [x for x in w if x.lower() not in ("a", "an", "the")]
    return snake(" ".join(w[:3]))


def _split(text: str) -> list[tuple[str, str]]:
    """(separator before, piece) of a stage text."""
    out, last, sep = [], 0, ""
    for m in _SEP.finditer(text):
        out.append((sep, text[last: m.start()]))
        s = m.group(0).strip().lower()
        sep = "or" if re.search(r"\b(?:or|unless)\b", s) else "then" if re.search(r"then|->|→|=>|after|before|;", s) else \
            "and" if "and" in s else ","
        last = m.end()
    out.append((sep, text[last:]))
    return [(s, p.strip()) for s, p in out if p.strip()]


def _subject(s: str) -> tuple[str, str]:
    """(subject words, the stage text) of a workflow sentence."""
    m = re.match(r"^\s*(?:(?:a|an|the|each|every|our|all)\s+)?((?:[\w-]+\s+){0,2}?[\w-]+?)\s+"
                 r"(go(?:es)?\s+through|go(?:es)?|is|are|get|gets|starts?\s+(?:when|with|as))\s+(.*)$", s, re.I)
    if m and not re.search(r"[,:;]", m.group(1)):
        return m.group(1), (f"{m.group(2)} " if m.group(2).lower().startswith("start") else "") + m.group(3)
    m = re.match(r"^\s*(?:(?:a|an|the|each|every|our|all)\s+)?((?:[A-Za-z][\w-]*\s+){0,3}?[A-Za-z][\w-]*)\s*"
                 r"(?:(?:[,(]|\s(?:for|at|in|of|from|on|across|over|by|with)\s)[^:]*?)?:\s*(.*)$", s)
    if m:
        words = m.group(1).strip()
        return ("" if re.fullmatch(r"(?:stages?|steps?|workflow|process|lifecycle|flow)", words, re.I) else words), m.group(2)
    return "", s


def read_flow(s: str) -> Flow | None:
    """The stages and endings a sentence walks through, or None when it tells no workflow."""
    if not _CUE.search(s):
        return None
    text = re.sub(r"\s+", " ", s).strip(" .")
    text = re.sub(r"\b(is|are|gets?)\s+then\b", r"then \1", text, flags=re.I)  # "and is then either": one step
    staged = re.search(r"\bstages?\s*:\s*(?P<steps>[^;.]+?)\s*;\s*(?:final\s+)?outcomes?\s*:\s*(?P<ends>.+)$", text, re.I)
    through = re.search(r"\bgo(?:es)?\s+through\s+(?P<steps>.+?)\s*,?\s+(?:and\s+)?end(?:s)?\s+(?:as|in|up(?:\s+as)?)\s+"
                        r"(?P<ends>.+)$", text, re.I)
    outcome = re.match(r"^\s*(?:final\s+)?(?:outcomes?|results?|endings?|ends?)\s*:\s*(.+)$", text, re.I)
    extra = re.match(r"^\s*(?:some|many|a few|others|the rest)\s+(?:of them\s+|[\w-]+\s+){0,2}?(?:are|is|get|end up|end as|"
                     r"become)\s+(?:either\s+)?(.+)$", text, re.I) or \
        re.match(r"^\s*[\w-]+s\s+(?:that|which)\s+(?:aren't|are not|don't|do not|haven't been|have not been|never get|"
                 r"are never)\s+[^,]+?\s+(?:are|get)\s+(?:then\s+)?(.+)$", text, re.I)
    if outcome or extra:
        ends = [stage_name(p) for p in re.split(r"\s*/\s*|\s*,\s*(?:or\s+)?|\s+or\s+", (outcome or extra).group(1)) if p.strip()]
        ends = [x for x in ends if x and len(x.split("_")) <= 3]
        return Flow("", ends, ends, text, True, extra=extra is not None) if ends else None
    cont = re.match(r"^\s*(?:from there|after that|then|after this|afterwards|next)\b,?\s*", text, re.I)
    subject = ""
    if staged or through:
        m = staged or through
        subject = _subject(text[: m.start()] + " is x")[0] if through else _subject(text[: m.start()])[0]
        steps = [stage_name(p) for _sep, p in _split(m.group("steps"))]
        ends = [stage_name(p) for p in re.split(r"\s*/\s*|\s*,\s*(?:or\s+)?|\s+or\s+", m.group("ends")) if p.strip()]
        stages = [x for x in [*steps, *ends] if x]
        return Flow(subject, list(dict.fromkeys(stages)), [x for x in ends if x], m.group(0)) if len(stages) >= 3 else None
    if cont:
        body = text[cont.end():]
    else:
        subject, body = _subject(text)
        first = re.split(r"\s*(?:->|→|=>)\s*", body)[0]
        if re.search(r"->|→|=>", body) and ":" in first:
            body = body[body.index(":") + 1:]
    body = re.split(r",?\s+(?:with|recording|reporting|logging|where|carrying)\s+(?:a|an|the|its|their|each)\s", body,
                    maxsplit=1, flags=re.I)[0]  # "..., with a duration in minutes": what is recorded, not a stage
    pieces = _split(body)
    if len(pieces) < 2 and not cont and not re.search(r"\bstarts?\s+(?:when|with|as)\b", text, re.I):
        return None
    names: list[tuple[str, str, str]] = []
    for sep, p in pieces:  # "a pass, a pass with advisories": the whole words where the cut ones repeat a stage
        n = stage_name(p)
        names.append((sep, stage_name(p, cut=False) if n and any(n == x for _s, x, _p in names) else n, p))
    names = [(sep, n, p) for sep, n, p in names if n and len(n.split("_")) <= 4]
    if not names:
        return None
    either = next((i for i, (_s, _n, p) in enumerate(names) if re.search(r"\beither\b", p, re.I)), None)
    first_or = next((i for i, (sep, _n, _p) in enumerate(names) if sep == "or"), None)
    if first_or is not None:  # "then it is returned, or it goes overdue and is then either ...": from the first choice
        group = max([i for i in range(first_or) if names[i][0] in ("then", "and", "")] or [0])
        either = group if either is None else min(either, group)
    ends: list[str] = []
    loops = [n for _s, n, p in names if _LOOP.search(p)]
    if either is not None:
        branches: list[list[tuple[str, str]]] = [[]]
        for sep, n, _p in names[either:]:
            if sep == "or" and branches[-1]:
                branches.append([])
            branches[-1].append((sep, n))
        for b in branches:
            sequence = any(sep in ("and", "then") for sep, _n in b[1:])
            picks = [b[-1][1]] if sequence else [n for _s, n in b]
            ends += [x for x in picks if x not in loops]
    else:
        ends = [names[-1][1]]
    stages = list(dict.fromkeys(n for _s, n, _p in names))
    told = sum(any(t.endswith(("ed", "en")) or t in _IRREGULAR.values() for t in x.split("_")) for x in stages)
    if any(re.search(r"\d|(?:^|_)(?:each|either|x|or|and)(?:_|$)", x) for x in stages) or told < max(1, len(stages) / 4):
        return None  # "144 oak barrels, French or American oak, each either new, ...": no stages
    if len(stages) < 3 and not cont and not (re.search(r"\bstarts?\s+(?:when|with|as)\b", text, re.I) and subject):
        return None
    return Flow(subject, stages, list(dict.fromkeys(ends)), body, bool(cont), loops)


_RATE = re.compile(r"(?:~\s*|\b(?:about|around|roughly|approximately|approx\.?|some|nearly|over|up to)\s+)?"
                   r"\b(\d[\d,]*(?:\.\d+)?)\s+(?:[a-z][\w-]*\s+){0,4}?(?:a|per|each|every|/)\s*(working\s+|business\s+|week)?"
                   r"(day|week|month|year)\b", re.I)


def arrival_rates(text: str) -> list[tuple[float, str]]:
    """(arrivals per day, words) of every rate a text states: "roughly 40 new cases filed every working day"
    → 40 × 5/7, "approximately 600 applications are received each week" → 600/7, "~1,200 a month" → 1200 × 12/365."""
    out = []
    for m in _RATE.finditer(text):
        between = text[m.end(1): m.start(2) if m.group(2) else m.start(3)]
        if re.search(r"\b(?:times|hours?|minutes?|seconds?|days?|weeks?|months?|years?|km|miles?|kg|%)\b", between, re.I) or \
                re.search(r"[$€£¥]\s*$", text[: m.start(1)]):
            continue  # "$38,000 a year" is money, not arrivals
        n = float(m.group(1).replace(",", ""))
        rate = n / {"day": 1.0, "week": 7.0, "month": 365 / 12, "year": 365.0}[m.group(3).lower()]
        if m.group(2) and m.group(2).strip().lower() in ("working", "business", "week"):
            rate *= 5 / 7
        out.append((rate, m.group(0)))
    return out
