"""Persona requests: add one ('add a persona: a network operations manager who wants daily
summaries', '... called noc_analyst - ... style: formal'), change one ("make the field technician's
style more formal", 'change its description to: ...'), remove one ('drop that persona'). Description
and style are the user's own words, taken from the original text (case kept); the style only when
the user says how they write."""

from __future__ import annotations

import re

from tools.chat.ops import AddPersona, EditPersona, RemovePersona
from tools.chat.read_context import Context
from tools.chat.read_refs import resolve_persona
from tools.chat.read_text import Clause, NeedAsk
from tools.chat.read_words import adjective

PERSONA_CUE = r"\b(?:personas?|description|described|style|writes?|writing|tone|voice|sound|sounds|talks?)\b"
REMOVE = r"\b(?:remove|delete|drop|get rid of|kill|discard|ditch|lose|scrap)\b"
ADD = r"\b(?:add|create|new|introduce|include|i want|we need|make)\b"
_STYLE_TAIL = (r"(?:[.,;]\s*|\s+-\s+|\s+)(?:and\s+)?(?:style\s*[:=-]\s*|(?:who\s+|that\s+)?(?:writes?|talks?)\s+"
               r"(?:in\s+)?|writing\s+(?:in\s+)?)(.+)$")
_VALUE = r"\s*(?:to be|to|as|is|should be|=|into)?\s*[:=\-–—]?\s*(?:more\s+|a bit more\s+|a little more\s+)?(.+)$"


def read_persona(cl: Clause, ctx: Context) -> list:
    """The persona operations of one clause."""
    ctx.prev_topic = "persona"
    if cl.find(r"\brename\b|\bcall (?:it|them|him|her)\b"):
        raise NeedAsk("renaming a persona is not something chat can do: remove it and add one with the new name",
                      confidence=0.3)
    lead = cl.view.lstrip()
    if re.match(rf"(?:\w+\s+){{0,3}}?{REMOVE}", lead) and cl.grab(REMOVE):
        name = resolve_persona(cl, ctx)
        cl.grab_all(r"\bpersonas?\b")
        if not name:
            raise NeedAsk("which persona?", ctx.vocab.personas, ["remove_persona"], confidence=0.4)
        return [RemovePersona(persona=name)]
    # "make a new persona" adds one; "make the X persona more casual" changes X
    adding = cl.find(rf"^\s*(?:\w+\s+){{0,3}}?(?:{ADD}(?<!make)\s+(?:a\s+|an\s+|another\s+|one\s+more\s+)?|"
                     rf"\bmake\s+(?:a|an|another|one\s+more)\s+)(?:new\s+)?"
                     rf"(?:[a-z_-]+\s+){{0,3}}?(?:persona|presona)\b|^\s*(?:\w+\s+){{0,2}}?new\s+persona\b")
    if adding:
        return [_add(cl, ctx, adding.end())]
    one = cl.find(r"^\s*(?:\w+\s+){0,2}?(?:(?:add|create)\s+)?(?:one|another(?:\s+one)?)\b")
    if one:
        return [_add(cl, ctx, one.end())]
    return [_edit(cl, ctx)]


def _add(cl: Clause, ctx: Context, after: int) -> AddPersona:
    view = cl.view
    head = re.search(r"\b(?:persona|presona|one|another)\b", view[:after])
    before = view[:head.start()] if head else ""
    words = [w for w in re.findall(r"[a-z][\w-]*", before) if w not in
             {"add", "create", "new", "a", "an", "another", "please", "pls", "can", "could", "you", "we", "i",
              "want", "need", "introduce", "include", "make", "one", "more", "also", "then", "and", "let's"}]
    name = None
    m = re.compile(r"\s*(?:called|named)\s+['\"]?([a-z][\w-]*)['\"]?").match(view, after)
    if m:
        name = m.group(1).replace("-", "_")
        after = m.end()
    rest = re.compile(r"\s*(?:[:=\-–—,]|\bfor\b|\bwho is\b|\bthat is\b|\bas\b|\bof\b)?\s*").match(view, after).end()
    text = cl.source(rest, len(view))
    if words:
        text = f"a {' '.join(words)} {text}".strip()
    style = ""
    s = re.search(_STYLE_TAIL, text, re.I)
    if s:
        style = _style(s.group(1))
        text = text[:s.start()]
    description = text.strip(" .,;:-–—\"'“”")
    if not description:
        raise NeedAsk("who is the persona? describe them ('add a persona: a night-shift NOC analyst')",
                      confidence=0.4)
    if name and name in ctx.vocab.personas:
        raise NeedAsk(f"there is already a persona called {name}")
    cl.take_span(0, len(view))
    return AddPersona(name=name, description=description, style=style)


def _style(text: str) -> str:
    t = text.strip(" .,;:-–—\"'“”")
    return adjective(t.lower()) if re.fullmatch(r"[A-Za-z]+ly", t) else t


def _edit(cl: Clause, ctx: Context) -> EditPersona:
    fields: dict[str, str] = {}
    m = cl.find(rf"\bdescription\b{_VALUE}") or cl.find(r"\b(?:be\s+)?(?:described|describe (?:it|them|him|her))\s+as\s+(.+)$")
    if m:
        fields["description"] = cl.source(m.start(1), m.end(1)).strip(" .;:-–—\"'“”")
        cl.take(m)
    m = (cl.find(rf"\bstyle\b{_VALUE}")
         or cl.find(r"\b(?:should\s+|to\s+)?(?:write|writes|talk|talks|sound|sounds|speak|speaks)\s+(?:in\s+|like\s+)?"
                    r"(?:more\s+)?(.+)$")
         or cl.find(r"\b(?:be\s+)?more\s+([a-z]+)\s*$"))
    if m and "description" not in fields:
        fields["style"] = _style(cl.source(m.start(1), m.end(1)))
        cl.take(m)
    cl.grab_all(r"\b(?:make|change|set|update|edit|modify|switch|personas?|should|'s)\b")
    name = resolve_persona(cl, ctx)
    cl.grab_all(r"\b(?:personas?|'s)\b")
    if not name:
        raise NeedAsk("which persona?", ctx.vocab.personas, confidence=0.4)
    if not fields:
        raise NeedAsk(f"what should change about {name}: its description or its style?",
                      understood=[f"edit_persona persona={name}"], confidence=0.4)
    return EditPersona(persona=name, **fields)
