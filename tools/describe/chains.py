"""Stage chains and outcome sentences as people write them (issue 29).

- **Arrow chains**: "Each animal goes: intake -> stray hold (72 hours ...) -> vet exam and vaccinations -> ...
  -> adopted", "process: enquiry (Instagram DM, email, or walk-in) -> consultation -> ...", "customer brings an
  item to the counter -> we appraise it -> ... (or they walk if ...) -> the loan is active". Each arrow piece is
  one stage (``tools.describe.stage_words``); asides in brackets are left out, except "(or X)", a branch that
  ends the flow; "A or B" inside a middle piece are two stages, in the last piece the endings.
- **Outcome sentences** that go on from a flow: "Other outcomes are A, B, or C", "clients can ghost, cancel, or
  get turned away", "Jobs can be cancelled any time", "Most files ... are declined there; a handful are
  ineligible", "a job that fails QC is reprinted" (a step that comes back), "some go out to a foster home and
  come back to available" (a loop), "After the interview a student is either awarded or declined, and an
  awarded student accepts the award or turns it down", "From there the customer redeems, or extends ..., or ...".
"""

from __future__ import annotations

import re

from tools.describe.stage_words import ARTICLE, LINK, clause_stage, state_phrase, verb_phrase
from tools.describe.workflow import Flow

ARROW = re.compile(r"\s*(?:->|→|=>|⟶|-->)\s*")
_GENERIC = re.compile(r"\b(?:process|workflow|lifecycle|life cycle|flow|stages?|steps?|pipeline|it goes|goes like)\b", re.I)
_QUANT = (r"(?:most|many|some|a few|a handful|plenty|several|others|the rest|a small number|a minority|the majority|"
          r"lots|a lot|a fraction|a small share|\d+\s*%)")
_BACK = re.compile(r"\b(?:comes?|goes|go|sent|returns?|moves?)\s+back\s+(?:in)?to\s+(?:" + ARTICLE + r"\s+)?([\w-]+)|"
                   r"\breturns?\s+to\s+(?:" + ARTICLE + r"\s+)?([\w-]+)", re.I)


def top_split(text: str, pattern: re.Pattern) -> list[str]:
    """``text`` split at the matches of ``pattern`` that are outside brackets."""
    depth, marks = 0, []
    for ch in text:
        depth += 1 if ch in "([" else -1 if ch in ")]" and depth else 0
        marks.append(depth)
    out, last = [], 0
    for m in pattern.finditer(text):
        if m.start() < len(marks) and marks[m.start()] == 0 and m.start() >= last:
            out.append(text[last: m.start()])
            last = m.end()
    out.append(text[last:])
    return [o.strip() for o in out]


def _noun(words: str) -> str:
    """The thing a lead names: "Each animal goes" → animal, "each print job goes" → print job."""
    lead = re.match(r"^\s*(?:(?:the|our|all)\s+)?((?:[A-Za-z][\w-]*\s+){0,2}[A-Za-z][\w-]*s)(?=\s*(?:[,(]|$)|\s+(?:at|for|in|"
                    r"of|from|on|across|over|by|with)\b)", words)
    if lead and not re.match(rf"^\s*{ARTICLE}\b", lead.group(1), re.I):  # "Import customs declarations at a port, ..."
        return lead.group(1)
    m = re.search(rf"\b{ARTICLE}\s+((?:[a-z][\w-]*\s+)?[a-z][\w-]*)\b", words, re.I)
    if not m:
        return ""
    picked = []
    for w in m.group(1).split():
        if re.fullmatch(rf"{LINK}|goes|go|moves|passes|runs|coming|comes|arriving", w, re.I) or \
                w.lower().endswith(("ing", "ed")):
            break
        picked.append(w)
    return " ".join(picked)


def _alternatives(piece: str) -> list[str]:
    return [x for x in top_split(piece, re.compile(r",?\s+or\s+|\s+/\s+|,\s+", re.I)) if x]


def read_chain(s: str) -> Flow | None:
    """The stages of an arrow chain (see the module), or None when the sentence has no chain of three stages."""
    text = " ".join(s.split()).strip(" .")
    pieces = top_split(text, ARROW)
    if len(pieces) < 3:
        return None
    first, subject = pieces[0], ""
    head = top_split(first, re.compile(r":\s*"))
    if len(head) > 1:
        bare = re.fullmatch(r"\s*(?:(?:the|our)\s+)?([a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s*", head[0], re.I) if not \
            re.search(rf"\b(?:{LINK}|goes|go|moves|passes|runs|flows|looks|works)\b", head[0], re.I) else None  # "session:"
        subject, pieces[0] = (bare.group(1) if bare else _noun(head[0])), head[-1]
        subject = re.sub(r"(?:^|\s+)(?:states?|stages?|status(?:es)?|steps?|lifecycle|flow|process)$", "", subject, flags=re.I)
        subject = "" if _GENERIC.search(subject) else subject  # "process:", "How it goes:": no subject
    else:
        lead = re.match(rf"^\s*(?:{ARTICLE}\s+)?((?:[a-z][\w-]*\s+)?[a-z][\w-]*?)\s+(?:goes|go|moves|passes|runs|flows)\s+"
                        r"(?:through\s+|like this\s*:?\s*|as follows\s*:?\s*)?(.+)$", first, re.I)
        if lead:
            subject, pieces[0] = lead.group(1), lead.group(2)
    said = re.match(rf"^\s*{ARTICLE}\s+([a-z][\w-]*)\s+(?:{LINK})\s", pieces[0], re.I)
    subject = said.group(1) if said else subject  # "Visitors book through us: a booking is requested -> ..."
    stages: list[str] = []
    ends: list[str] = []
    unread: list[str] = []
    named = [m.group(1) for p in pieces for m in [re.match(rf"^\s*(?:the|a|an|its|their)\s+([a-z][\w-]*)\s+(?:{LINK})\s",
                                                             p, re.I)] if m]
    tail = top_split(pieces[-1], re.compile(rf",\s+(?={_QUANT}\s)", re.I))
    pieces[-1], more = tail[0], tail[1:]  # "-> exited, some leave thru gate override": more endings
    for k, piece in enumerate(pieces):
        asides = re.findall(r"\(([^)]*)\)", piece)
        body = re.sub(r"\([^)]*\)", " ", piece)
        names = [n for n in (clause_stage(x) for x in _alternatives(body)) if n]
        if not names:
            unread.append(piece)
            continue
        stages += names
        if k == len(pieces) - 1:
            ends += names
        for a in asides:  # "(or they walk if they don't like the offer)": a branch that ends the flow
            branch = re.match(r"^\s*or\s+(.+)$", a, re.I)
            name = clause_stage(branch.group(1)) if branch else ""
            if name:
                stages.append(name)
                ends.append(name)
    for c in more:
        st, en, _lo = _clause(c)
        if not st:
            verb = re.match(rf"^{_QUANT}\s+(?:of them\s+)?([a-z]+)\s+(.*)$", c, re.I)
            st = en = [verb_phrase(verb.group(1), verb.group(2))] if verb else []
        stages, ends = stages + [x for x in st if x], ends + [x for x in en if x]
    stages = list(dict.fromkeys(stages))
    if len(stages) < 3:
        return None
    return Flow(subject, stages, list(dict.fromkeys(ends)), text, named=named, unread=unread, chain=True)


def _items(listed: str, verbs: bool) -> list[str]:
    """Stage names of a list of outcomes: states ("returned to owner"), or verb phrases after "can"; a short
    label in brackets names its item ("not turn up (no-show)")."""
    out = []
    for x in _alternatives(listed):
        label = re.search(r"\(([a-z][\w -]{1,20})\)\s*$", x, re.I)
        if label and len(label.group(1).split()) <= 2:
            out.append(state_phrase(label.group(1)))
            continue
        x = re.sub(r"^(?:and|or|either)\s+", "", re.sub(r"\([^)]*\)", " ", x).strip(), flags=re.I)
        w = x.split()
        if not w or re.match(r"^(?:not|never|no longer)\b", x, re.I):
            continue
        if verbs and not re.match(rf"^(?:{LINK})\b", x, re.I):
            out.append(verb_phrase(w[0], " ".join(w[1:])))
        else:
            out.append(clause_stage(x))
    return [n for n in out if n]


def _clause(c: str) -> tuple[list[str], list[str], dict[str, str]]:
    """(stages, endings, loops) one clause of an outcome sentence names."""
    back = _BACK.search(c)
    if back:  # "some go out to a foster home ... and come back to available": a stage that loops
        name = clause_stage(c[: back.start()])
        return ([name], [], {name: back.group(1) or back.group(2)}) if name else ([], [], {})
    m = re.match(r"^(?:the\s+)?(?:other|possible|alternative|final|remaining)?\s*(?:outcomes?|endings?|results?|exits?)\s+"
                 r"(?:are|is|include|can be|could be)\s*:?\s*(?P<list>.+)$", c, re.I)
    if m:
        ends = _items(m.group("list"), False)
        return ends, ends, {}
    m = re.match(rf"^(?:{ARTICLE}|any)\s+[\w-]+(?:\s+[\w-]+)?\s+(?:that|which|who|with|without)\s+[^,]+?\s+(?:is|are|gets|get)\s+"
                 r"(?:then\s+)?(?P<rest>(?:[a-z]+ed|[a-z]+en)\b.*)$", c, re.I)
    if m:  # "a load with too much plastic is rejected": an ending; "a job that fails QC is reprinted": done again
        name = clause_stage(m.group("rest"))
        if not name:
            return [], [], {}
        return ([name], [], {name: ""}) if _again(name) else ([name], [name], {})
    m = re.match(rf"^(?:{ARTICLE}\s+)?(?P<subj>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s+can\s+(?:also\s+)?(?P<be>be\s+)?(?P<list>.+)$",
                 c, re.I)
    if m and (m.group("be") or re.search(r"\bor\b", m.group("list"))) and \
            not re.search(r"\b(?:then|either|is|are|it|up to)\b", re.sub(r"\([^)]*\)", "", m.group("list")), re.I):
        listed = m.group("list").split(":", 1)  # "candidates can drop out at any stage: rejected, withdrawn, or ..."
        ends = _items(listed[1], False) if len(listed) > 1 else \
            _items(re.sub(r"\s+(?:any\s*time|at any time|anytime)\b.*$", "", listed[0], flags=re.I), not m.group("be"))
        return ends, ends, ({"": m.group("subj").split()[-1]} if m.group("be") else {})  # "Jobs can be cancelled"
    m = re.match(rf"^{_QUANT}\b.*?\b(?:are|is|get|gets|end up|ends up|become|becomes)\s+(?:then\s+|either\s+)?(?P<list>.+)$",
                 c, re.I)
    if m:
        tail = [t.group(1) for t in re.finditer(r"\b(?:are|is|get|gets|end up|become)\s+(?:then\s+|either\s+)?(.+?)"
                                                  r"(?=\s+and\s+(?:are|is|get)\b|$)", c, re.I)
                if not re.search(r"\b(?:never|not|n't)\s*$", c[: t.start()], re.I)]
        ends = [n for t in tail for n in _items(t, False)]
        return ends, ends, {}
    return [], [], {}


def _again(name: str) -> bool:
    """Whether a participle says something is done again: "re" and a word of its own ("reprinted", "resubmitted";
    not "rejected", "returned")."""
    from wordfreq import zipf_frequency

    word = name.split("_")[0]
    return word.startswith("re") and len(word) > 6 and zipf_frequency(word[2:], "en") >= 2.5 and \
        not re.match(r"^re(?:turn|tir|ceiv|ject|fus|leas|solv|deem|fund|mov|sign|port|cord|quest|quir|serv|main|duc|"
                     r"pair|plac|new|view|cover|spond|search|fer|call|mind|sort|lax|tain|ward|gard|strict)", word)


def read_outcomes(s: str) -> Flow | None:
    """More stages and endings of the flow before (see the module), or None."""
    text = " ".join(s.split()).strip(" .")
    after = re.match(r"^after\s+(?:the|an?|its|their)\s+([\w-]+(?:\s+[\w-]+)?)\s*,?\s+(?:" + ARTICLE +
                     r"\s+)?[\w-]+\s+(?:is|are|gets)\s+(?:either\s+)?(?P<rest>.+)$", text, re.I)
    if after:  # "After the interview a student is either awarded or declined, and an awarded student accepts ..."
        return _after(after.group(1), after.group("rest"), text)
    there = re.match(r"^(?:from there|after that|then|afterwards|next)\s*,?\s+(?P<rest>.+)$", text, re.I)
    if there and re.search(r"\bor\b", there.group("rest")):  # "From there the customer redeems, or extends ..., or ..."
        names, loops = [], []
        pieces = top_split(there.group("rest"), re.compile(r",?\s+or\s+|,\s+and\s+(?=after|once|when|then)", re.I))
        if any("," in re.sub(r"\([^)]*\)", "", p) for p in pieces):
            return None  # "either approved, printed and dispatched, or ...": a sequence in a branch (tools.describe.workflow)
        for piece in pieces:
            inner = re.search(rf"\b(?:the|a|an|its|their)\s+[\w-]+\s+(?:{LINK})\s+(.+)$", piece, re.I) \
                if re.match(r"^(?:after|once|when|then)\b", piece, re.I) else None
            name = clause_stage(inner.group(1) if inner else piece)
            names += [name] if name else []
            loops += [name] if name and _BACK.search(piece) else []  # "(after which it returns to review)"
        if len(names) >= 2:
            return Flow("", names, [x for x in names if x not in loops], text, continues=True, loops=loops)
    stages: list[str] = []
    ends: list[str] = []
    loops: dict[str, str] = {}
    said: list[str] = []  # the thing a passive "can be" is said of, to join only the flow of that thing
    for c in top_split(text, re.compile(rf",?\s+and\s+(?={_QUANT}\b|{ARTICLE}\s)|;\s*|,\s+but\s+", re.I)):
        st, en, lo = _clause(c)
        stages += [x for x in st if x not in stages]
        ends += [x for x in en if x not in ends]
        said += [lo.pop("")] if "" in lo else []
        loops.update(lo)
    if not stages:
        return None
    return Flow("", stages, ends, text, extra=True, loops=list(loops), back_to={k: v for k, v in loops.items() if v},
                named=said)


def _after(stage: str, rest: str, text: str) -> Flow | None:
    first = state_phrase(stage)
    parts = top_split(rest, re.compile(r",\s+and\s+(?=(?:a|an|the|each)\s)", re.I))
    ends = _items(re.sub(r"^either\s+", "", parts[0], flags=re.I), False)
    stages = [first, *ends] if first else list(ends)
    for p in parts[1:]:  # "an awarded student accepts the award or turns it down": what follows one of the endings
        m = re.match(r"^(?:a|an|the|each)\s+([a-z]+)\s+[\w-]+\s+(?P<list>.+)$", p, re.I)
        if m and m.group(1).lower() in ends:
            more = _items(m.group("list"), True)
            ends = [x for x in ends if x != m.group(1).lower()] + more
            stages += more
    return Flow("", list(dict.fromkeys(stages)), list(dict.fromkeys(ends)), text, continues=True) if len(stages) >= 2 \
        else None
