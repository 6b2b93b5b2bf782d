"""Requests about the question suite and views: add questions ('add 4 stateful questions', 'add 5
questions on throughput'), drop them ('get rid of the event count questions'), make the suite
harder ('these questions are way too easy'), and show things ('what questions do we have about
outages?', 'list the incidents', 'what have we changed so far?'). Topics are the spec's measurements
(column names) and states; a topic that is neither is asked about."""

from __future__ import annotations

import re

from tools.chat.ops import AddQuestions, DropQuestions, MakeHarder, ShowItems
from tools.chat.read_context import Context
from tools.chat.read_mentions import take_family, take_measurement, take_state, take_template
from tools.chat.read_text import Clause, NeedAsk

QUESTION_CUE = (r"\b(?:questions?|quiz|harder|tougher|toughen|step it up|raise the bar|difficult|difficulty|too easy|"
                r"easier|challenging|trivial|simple questions)\b")
HARDER = (r"\b(?:harder|tougher|more (?:difficult|challenging)|difficulty|too (?:easy|simple|trivial)|"
          r"not (?:hard|difficult|challenging) enough|challenge|toughen(?: (?:it|the suite|the questions))?(?: up)?|"
          r"step it up|raise the bar)\b")
DROP = (r"\b(?:drop|remove|delete|get rid of|no more|without|stop asking|don'?t want|do not want|exclude|skip|kill|"
        r"ditch|lose|cut|scrap|no)\b")
ADD = (r"\b(?:add|more|generate|create|write|give (?:me|us)|include|i want|we need|another|extra|additional|new|ask|"
       r"throw in|get)\b")
SHOW_LEAD = (r"^\s*(?:(?:can|could|would) you\s+|please\s+|pls\s+|let me\s+|i want to\s+|i'd like to\s+)*"
             r"(?:show|list|display|print|view|see|give me (?:a )?list|what|which|how many|where)\b")
SHOW_WORDS = (r"\b(?:show|list|display|print|view|see|give|what|which|how many|are|is|there|do|does|we|have|got|exist|"
              r"so far|currently|me|us|just|only|all|the|of|now|right|yet|up|until|look|looks|like|again|and|please|pls|"
              r"full|whole|current|our|my|did|change)\b")
_TOPIC_LEAD = r"\b(?:about|on|regarding|concerning|covering|involving|around|related to|for|with|of)\b"


def read_harder(cl: Clause, ctx: Context) -> list | None:
    """make_harder when the clause asks for harder questions (None when it does not)."""
    if cl.find(r"\b(?:easier|simpler|less (?:difficult|challenging))\b"):
        raise NeedAsk("I can make the suite harder, not easier; drop a family instead?", confidence=0.3)
    m = cl.grab(HARDER)
    if not m:
        return None
    cl.grab_all(r"\b(?:make|crank|bump|turn|ramp|raise|increase|up|questions?|suite|set|eval|these|are|way|them)\b")
    return [MakeHarder()]


def _topic(cl: Clause, ctx: Context) -> str | None:
    from tools.queries.refresh import TOPIC_WORDS  # topics named by what their questions are made of

    lead = cl.find(_TOPIC_LEAD)
    named = cl.grab(rf"\b({'|'.join(TOPIC_WORDS)})\b")
    name = named.group(1) if named else take_measurement(cl, ctx.vocab) or take_state(cl, ctx.vocab)
    if name:
        cl.grab(_TOPIC_LEAD)
        return name
    if lead and cl.view[lead.end():].strip():
        words = " ".join(cl.view[lead.end():].split())
        raise NeedAsk(f"the data has no measurement or state called '{words}' (measurements: "
                      f"{', '.join(ctx.vocab.measurements)}; states: {', '.join(ctx.vocab.states) or 'none'})",
                      confidence=0.3)
    return None


def _selectors(cl: Clause, ctx: Context) -> dict:
    template = take_template(cl, ctx.vocab)
    family = take_family(cl)
    cl.grab_all(r"\b(?:questions?|kinds? of|type of|types of)\b")
    return {"template": template, "family": family, "topic": _topic(cl, ctx)}


def read_questions(cl: Clause, ctx: Context) -> list:
    """add_questions / drop_questions of one clause."""
    ctx.prev_topic = "questions"
    if cl.find(DROP) and not cl.find(r"\bno\b\s*$"):
        cl.grab(DROP)
        sel = _selectors(cl, ctx)
        cl.grab_all(r"\b(?:some|few|several|any|these|those)\b")
        if not any(sel.values()):
            raise NeedAsk("which questions: a family (stateless, stateful, incident, ...), a template or a topic?",
                          confidence=0.4)
        return [DropQuestions(**sel)]
    verb = cl.grab(ADD)
    count = cl.grab(r"\b(\d+)\b(?=\s+(?:more\s+|new\s+|extra\s+|additional\s+)?(?:[a-z_]+\s+){0,3}questions?\b)")
    cl.grab_all(r"\b(?:some|few|several|more|new|extra|additional|couple|bunch|handful|lots|lot)\b")
    sel = _selectors(cl, ctx)
    if not verb and not count and not any(sel.values()):
        raise NeedAsk("add or drop which questions?", confidence=0.3)
    n = int(count.group(1)) if count else None
    if n == 0:
        raise NeedAsk("how many questions, more than zero?")
    return [AddQuestions(count=n, **sel)]


def read_show(cl: Clause, ctx: Context) -> list:
    """The show operation of one clause ('show me just the stateful questions')."""
    if cl.grab(r"\b(?:changed|changes|change log|changelog|history|edits|what we did|done so far|undo history|"
               r"(?<=did we )change|(?<=did i )change|(?<=did we )do)\b"):
        cl.grab_all(SHOW_WORDS)
        return [ShowItems(what="history")]
    shown = [(m.start(), ShowItems(what=what)) for what, rx in (
        ("incidents", r"\bincidents?\b|\banomal(?:y|ies)\b"), ("personas", r"\bpersonas?\b"),
        ("spec", r"\b(?:spec|specification|yaml|config|configuration|settings|setup)\b")) if (m := cl.grab(rx))]
    if cl.find(r"\bquestions?\b") and shown:
        raise NeedAsk("one thing at a time: the questions, or the incidents, personas and spec?", confidence=0.4)
    if shown:
        cl.grab_all(SHOW_WORDS)
        return [op for _, op in sorted(shown, key=lambda x: x[0])]
    if cl.find(r"\bquestions?\b|\bqa\b|\banswers?\b"):
        cl.grab_all(r"\b(?:answers?|qa|and)\b")
        sel = _selectors(cl, ctx)
        cl.grab_all(SHOW_WORDS)
        if sel["template"]:
            raise NeedAsk("I can show questions by family or topic, not by template", confidence=0.4)
        return [ShowItems(what="questions", family=sel["family"], topic=sel["topic"])]
    cl.grab_all(SHOW_WORDS)
    what = " ".join(cl.leftover())
    raise NeedAsk("I can show the questions, incidents, personas, the spec or the history" +
                  (f", not '{what}'" if what else "; which one?"), confidence=0.1 if not what else 0.3)


def is_show(cl: Clause) -> bool:
    """Whether the clause asks to see something rather than change it."""
    if re.fullmatch(r"\s*(?:the\s+)?(?:history|change ?log|versions)\s*[?.!]?\s*", cl.view):
        return True  # a bare "history"
    if re.search(SHOW_LEAD, cl.view) and re.search(r"\b(?:history|changes|changed|change ?log|what did (?:we|i|you) (?:change|do))\b",
                                                   cl.view):
        return True
    return bool(re.search(SHOW_LEAD, cl.view)) and not re.search(
        r"\b(?:add|remove|delete|drop|move|make|change|set|extend|shorten|put|inject|double|halve)\b", cl.view)
