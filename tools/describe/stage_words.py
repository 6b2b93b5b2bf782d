"""One stage of a workflow named from the words people write for it (issue 29): a state phrase ("stray hold
(72 hours ...)" → stray_hold, "available for adoption" → available, "in the chair" → in_chair), a clause with a
subject ("the loan is active" → active, "a booking is requested" → requested), a verb phrase ("we appraise it"
→ appraised, "make a loan offer" → loan_offer_made, "arrives at the weighbridge" → arrived, "get turned away"
→ turned_away, "go out to a foster home" → foster_home) or "X and Y" (the first part that names a stage).
A phrase that cannot be read confidently (a negation, glue left in the name) names no stage: ``""``."""

from __future__ import annotations

import re

from tools.describe.extract import snake
from tools.describe.workflow import participle

ARTICLE = r"(?:a|an|the|each|every|his|her|their|its|our|your|this|that|some)"
PRONOUN = r"(?:we|they|you|i|he|she|it|someone|somebody|staff)"
PARTICLE = r"(?:back|down|up|out|off|away|over|in)"
LINK = r"(?:is|are|was|were|gets|get|got|goes|go|becomes|become|has been|have been|will be|can be|may be)"
# a preposition or conjunction that starts what a stage is not: where, why, how long, under what condition
CUT = re.compile(r"\s+(?:by|for|to|at|from|with|while|before|after|until|till|within|when|via|because|unless|if|so|"
                 r"where|which|who|whose|once|each|every|per|on|in|into|onto|over|under|through|across|during|"
                 r"there|here|instead|too|anyway|again|first|then|as|like|than|about|around)\b.*$", re.I)
# words no stage name may keep: left only when a phrase was cut in the wrong place
GLUE = {"and", "or", "the", "a", "an", "for", "every", "each", "over", "with", "from", "to", "by", "on", "is", "are",
        "was", "were", "be", "it", "they", "them", "this", "that", "which", "while", "when", "then", "also", "some",
        "all", "its", "their", "our", "during", "until", "about", "around", "goes", "gets", "has", "have", "had", "we",
        "you", "if", "can", "may", "will", "not", "never", "of", "at", "there", "get", "go", "do", "does"}
_NEGATION = re.compile(r"\b(?:never|not|no longer|don't|doesn't|didn't|isn't|aren't|won't|cannot|can't)\b", re.I)
_MOVE = re.compile(r"^(?:go|goes|went|come|comes|move|moves|head|heads|is sent|are sent|gets sent|get sent)\s+"
                   r"(?:out\s+|off\s+|over\s+)?(?:to|into)\s+(?:" + ARTICLE + r"\s+)?(.+)$", re.I)


def _clean(words: str, limit: int = 3, where: bool = False) -> str:
    """The identifier of a short phrase, or "" when glue or a number is left in it or it is too long (``where``:
    its first word is the preposition of a place, "on hold")."""
    w = [x for x in re.findall(r"[A-Za-z][\w-]*(?:/[A-Za-z][\w-]*)?", words) if x.lower() not in ("a", "an", "the")]
    if not w or len(w) > limit:
        return ""
    name = snake(" ".join(w))
    parts = name.split("_")[1:] if where else name.split("_")
    return "" if set(parts) & GLUE or re.search(r"\d", words) else name


def state_phrase(text: str) -> str:
    """"available for adoption" → available, "adoption pending" → adoption_pending, "in the chair" → in_chair."""
    p = re.sub(r"^(?:either|then|now|finally|eventually|later|next|just|also)\s+", "", text.strip(" ,.;:"), flags=re.I)
    p = re.sub(r"^(?:declared|marked|deemed|reported|recorded|logged|put|placed|kept|left)\s+(?=(?:as\s+)?\w)", "", p,
               flags=re.I)
    p = re.sub(r"^as\s+", "", p, flags=re.I)
    lead = re.match(r"^(in|on|under|out of)\s+(?:" + ARTICLE + r"\s+)?([\w-]+(?:\s+[\w-]+)?)", p, re.I)
    if lead:  # "in the chair", "on hold": where the thing is, its preposition kept
        return _clean(f"{lead.group(1)} {CUT.sub('', ' ' + lead.group(2)).strip()}", where=True)
    if re.match(rf"^(?:{ARTICLE}|by|for|to|at|from|with|via|of)\b", p, re.I) and not re.match(r"^(?:a|an)\s+[\w-]+$", p, re.I):
        return ""  # "by post", "the other": a way or a pointer, not a stage
    return _clean(CUT.sub("", p))


def verb_phrase(verb: str, rest: str) -> str:
    """A stage told as a verb and what follows it: "appraise it" → appraised, "write the pawn ticket" →
    pawn_ticket_written, "arrives at the weighbridge" → arrived, "turns it down" → turned_down."""
    rest = rest.strip(" ,.;:")
    move = _MOVE.match(f"{verb} {rest}".strip())
    if move:  # "go out to a foster home": the place it goes to
        return state_phrase(move.group(1))
    done = participle(verb)
    pron = re.match(rf"^(?:it|them|him|her|this|that|one)\b\s*({PARTICLE})?\b", rest, re.I)
    if pron:
        return _clean(f"{done} {pron.group(1) or ''}")
    obj = re.match(rf"^(?:{ARTICLE}|his|her)\s+(.+)$", rest, re.I)
    if obj:
        noun = CUT.sub("", " " + obj.group(1)).split()[-2:]
        return _clean(" ".join([*noun, done])) if noun else _clean(done)
    asked = re.match(rf"^(?:for|about)\s+(?:{ARTICLE}\s+)?([a-z][\w-]*)\b", rest, re.I)
    if asked:  # "ask for a refund" → refund_asked
        return _clean(f"{asked.group(1)} {done}")
    part = re.match(rf"^({PARTICLE})\b", rest, re.I)
    if part:
        return _clean(f"{done} {part.group(1)}")
    bare = CUT.sub("", " " + rest).split()
    if bare and len(bare) <= 2 and all(re.fullmatch(r"[a-z][a-z-]*", x) for x in bare) and not \
            any(x.endswith(("ed", "ing")) for x in bare):
        return _clean(" ".join([*bare, done]))  # "leaves site" → site_left
    return _clean(done)


_PREPOSITIONS = {"in", "on", "at", "to", "from", "by", "for", "with", "into", "onto", "under", "over", "out", "off", "up",
                 "after", "before", "during", "until", "via", "through", "across", "of", "as"}


def _verbal(word: str, rest: str) -> bool:
    """Whether a clause's first word is a verb: a third-person form ("arrives", "departs") or a base form an
    object or particle follows ("make a loan offer", "appraise it", "turn away")."""
    w = word.lower()
    if w in _PREPOSITIONS:
        return False
    third = re.fullmatch(r"[a-z]{3,}s", w) and not w.endswith(("ss", "us", "is", "ous")) and not \
        re.search(r"(?:tion|sion|ment|ness|ance|ence|ity|ing|er|or|al|ic|ist|ism|ure|age|ee|ant|ent)s$", w)  # nouns
    follows = re.match(rf"^(?:{ARTICLE}|it|them|him|her|back|down|up|out|off|away|over)\b|^in$", rest, re.I)
    return bool(third and (not rest or follows or re.match(r"^(?:at|to|from|into|by|with|on)\b", rest, re.I))) or \
        bool(follows and not w.endswith(("ed", "en", "ing")) and re.fullmatch(r"[a-z]{2,}", w))


def clause_stage(piece: str) -> str:
    """The stage a piece of a workflow names, or "" when it cannot be read confidently (see the module)."""
    p = re.sub(r"\([^)]*\)|\[[^\]]*\]", " ", piece)
    p = re.sub(r"\s+(?:and|or|but)$", "", " ".join(p.split()).strip(" ,.;:"), flags=re.I)
    p = re.sub(r"^(?:and\s+|or\s+)?(?:then|finally|eventually|next|after that|afterwards|later|either)\b,?\s*", "", p,
               flags=re.I)
    p = re.sub(r"^(?:it's|it’s|its|they're|they’re)\s+(?=[a-z]+(?:ed|en)\b)", "is ", p, flags=re.I)  # "or its refused"
    for part in re.split(r"\s+and\s+|\s*&\s*", p):  # "vet exam and vaccinations": the first part that names a stage
        name = _one(part.strip())
        if name:
            return name
    return ""


def _one(p: str) -> str:
    p = re.split(r"\s+(?:if|unless|because|so that|when|once|until|while)\s", p, maxsplit=1, flags=re.I)[0]
    if not p or _NEGATION.search(p):
        return ""  # "never comes back": no stage of its own
    move = _MOVE.match(re.sub(rf"^(?:{ARTICLE}\s+)?(?:[\w-]+\s+)?(?=(?:go|goes|come|comes|move|moves|is sent|are sent)\b)",
                              "", p, flags=re.I))
    if move:  # "some animals go out to a foster home": the place they go to
        return state_phrase(move.group(1))
    subj = re.match(rf"^(?:{ARTICLE}\s+)?(?:[\w-]+\s+){{0,2}}?{LINK}\s+(?:then\s+|either\s+)?(.+)$", p, re.I)
    if subj and not re.match(rf"^(?:{PRONOUN})\s+(?!{LINK})", p, re.I):
        rest = subj.group(1)
        first = rest.split()[0]
        if re.match(r"^(?:a|an|the)\s", rest, re.I) and len(rest.split()) > 2:
            return ""
        return state_phrase(rest) if not _verbal(first, " ".join(rest.split()[1:])) or first.lower().endswith("ed") \
            else verb_phrase(first, " ".join(rest.split()[1:]))
    who = re.match(rf"^{PRONOUN}\s+(?:can\s+|will\s+|then\s+|may\s+|just\s+|also\s+)?([a-z]+)\b\s*(.*)$", p, re.I)
    if who:
        return verb_phrase(who.group(1), who.group(2))
    noun = re.match(rf"^(?:{ARTICLE}\s+)?([a-z][\w-]*)\s+(?:can\s+|will\s+|then\s+|may\s+)?([a-z]{{3,}}s)\b\s*(.*)$", p, re.I)
    if noun and not noun.group(1).lower().endswith("s") and not noun.group(2).lower().endswith(("ss", "us", "is")) and \
            (not noun.group(3) or re.match(rf"^(?:{ARTICLE}|it|them|{PARTICLE}|at|to|from|into|with|on)\b",
                                           noun.group(3), re.I)):
        return verb_phrase(noun.group(2), noun.group(3))  # "customer accepts", "the boat arrives at the berth"
    w = p.split()
    if _verbal(w[0], " ".join(w[1:])):
        return verb_phrase(w[0], " ".join(w[1:]))
    return state_phrase(p)
