"""The offline chat reader: one chat line → typed operations, an ask-back, or a session control.

Faithful first: the line is normalised (typos repaired against the spec's and the grammar's words,
number words as digits), split into clauses, and each clause is read by the reader its words call
for (show, persona, questions, the data's shape, incidents). Every reader consumes the words it
used; a word nobody accounted for, a reference that does not come down to exactly one thing, an
unknown name or a missing amount makes the whole line an :class:`Ask` naming what was understood.
References resolve from the spec's data (``read_refs``), never from rules about one bundle.
"""

from __future__ import annotations

import re

from pydantic import ValidationError

from tools.chat.ops import Ask, Reading, SetHorizon
from tools.chat.read_cascade import CASCADE_CUE, read_cascade
from tools.chat.read_context import Context, describe
from tools.chat.read_controls import read_control
from tools.chat.read_fleet import CADENCE_CUE, HORIZON_CUE, SCALE_WORDS, read_fleet
from tools.chat.read_incidents import read_incident
from tools.chat.read_mentions import take_kinds
from tools.chat.read_personas import PERSONA_CUE, read_persona
from tools.chat.read_questions import QUESTION_CUE, is_show, read_harder, read_questions, read_show
from tools.chat.read_refs import HEAD, IDENT, PRONOUN, resolve_persona
from tools.chat.read_text import UNIT, Clause, Line, NeedAsk, split_clauses
from tools.chat.read_vocab import vocabulary
from tools.chat.read_words import normalise
from tools.common.durations import parse_duration
from tools.spec.model import Spec

_INCIDENT_CHANGE = (r"\b(?:long|longer|shorter|later|earlier|sooner|move|push|shift|delay|bigger|smaller|stronger|"
                    r"weaker|start|starts|begin|hit|affect)\b|\d")
_CONTROL_WORDS = {"undo", "redo", "quit", "help", "cancel", "apply", "nevermind", "exit", "scrap"}


def read_request(text: str, spec: Spec, last: dict | None = None) -> Reading:
    """What one chat line means for this spec: operations, an ask-back, or a control. ``last`` is what
    the conversation was last about ({"incident": id} or {"persona": name}); pronouns resolve to it."""
    vocab = vocabulary(spec)
    line = _line(text, vocab)
    control, sure = read_control(line.text)
    if control:
        return Reading(control=control, confidence=round(sure * 0.9 ** len(line.repairs), 3))
    reading, ctx = _read(text, vocab, last, vocab.days)
    horizons = [int(-(-parse_duration(o.horizon) // 86400)) for o in reading.ops if isinstance(o, SetHorizon)]
    if reading.ask and ctx.days > vocab.days or reading.ask and horizons and max(horizons) > vocab.days:
        again, _ = _read(text, vocab, last, max([ctx.days, *horizons]))
        if again.ask is None:
            return again
    return reading


def _line(text: str, vocab) -> Line:
    line = Line.of(text)
    normalise(line, vocab.words | _CONTROL_WORDS, keep=set(vocab.personas) | {i.id for i in vocab.incidents})
    return line


def _read(text: str, vocab, last: dict | None, days: int) -> tuple[Reading, Context]:
    line = _line(text, vocab)
    ctx = Context(vocab, last, days)
    ops: list = []
    asks: list[NeedAsk] = []
    for cl in split_clauses(line):
        try:
            got = read_clause(cl, ctx)
            left = cl.leftover()
            if left:
                raise NeedAsk(f"I did not understand '{' '.join(left)}'", understood=[describe(o) for o in got],
                              confidence=0.3)
            ops += got
        except NeedAsk as ask:
            asks.append(ask)
        except (ValidationError, ValueError) as exc:
            asks.append(NeedAsk(f"that does not make a valid change: {_first_error(exc)}", confidence=0.3))
    if asks:
        ask = asks[0]
        understood = [describe(o) for o in ops] + ask.understood
        return Reading(ask=Ask(question=ask.question, candidates=ask.candidates, understood=understood),
                       confidence=round(ask.confidence, 3)), ctx
    if not ops:
        return Reading(ask=Ask(question=f"I did not understand '{text.strip()}'"), confidence=0.1), ctx
    sure = ctx.certainty * 0.9 ** len(line.repairs) * 0.97 * (0.6 if ctx.assumed else 1.0)
    return Reading(ops=ops, confidence=round(sure, 3), assumed=ctx.assumed), ctx


def _first_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(e["msg"] for e in exc.errors()[:2])
    return str(exc)


def read_clause(cl: Clause, ctx: Context) -> list:
    """The operations of one clause (raises NeedAsk), read by the reader its words call for."""
    if is_show(cl):
        return read_show(cl, ctx)
    if _about_persona(cl, ctx):
        return read_persona(cl, ctx)
    if cl.find(QUESTION_CUE):
        harder = read_harder(cl, ctx)
        if harder is not None:
            return harder
        if cl.find(r"\bquestions?\b"):
            return read_questions(cl, ctx)
    if cl.find(CASCADE_CUE):
        return read_cascade(cl, ctx)
    incident_words = _incident_words(cl, ctx)
    if _about_fleet(cl, ctx, incident_words):
        return read_fleet(cl, ctx)
    if incident_words or _about_incident(cl, ctx):
        return read_incident(cl, ctx)
    raise NeedAsk(f"I did not understand '{' '.join(cl.leftover()) or cl.source(0, cl.b - cl.a)}'", confidence=0.1)


def _about_incident(cl: Clause, ctx: Context) -> bool:
    """No kind or incident word, but a pronoun, a move, 'another', or 'add a <something>' (asked about)."""
    return bool(cl.find(PRONOUN) or cl.find(r"\b(?:move|push|shift|delay|postpone|reschedule)\b")
                or ctx.prev_kind and cl.find(r"^\s*(?:another|one more|1 more)\b")
                or cl.find(r"^\s*(?:\w+\s+){0,3}?(?:add|inject|put|create|simulate|insert)\s+(?:a|an|another|some)\s+\w+"))


def _incident_words(cl: Clause, ctx: Context) -> bool:
    v = ctx.vocab
    if take_kinds(cl, v, consume=False) or cl.find(HEAD):
        return True
    return any(not (v.entity_for_id(m.group(0)) or m.group(0) in v.personas or m.group(0) in v.measurements)
               for m in re.finditer(IDENT, cl.view))


def _about_persona(cl: Clause, ctx: Context) -> bool:
    if cl.find(r"\bpersonas?\b"):
        return True
    if cl.find(r"^\s*(?:\w+\s+){0,2}?(?:(?:add|create)\s+)?(?:one|another)\b(?!\s+(?:incident|outage))") and \
            ctx.prev_topic == "persona":
        return True
    if ctx.last_of("persona") and cl.find(r"\b(?:it|its|that one|this one|them|they|their)\b") and (
            cl.find(PERSONA_CUE) or not cl.find(_INCIDENT_CHANGE)):
        return True
    saved = list(cl.line.used)
    try:
        named = resolve_persona(Clause(cl.line, cl.a, cl.b), ctx) if (
            cl.find(PERSONA_CUE) or not cl.find(r"\b(?:it|its|their|them|they|that|this)\b")) else None
    except NeedAsk:
        named = "?"
    finally:
        cl.line.used[:] = saved
    return named is not None


def _about_fleet(cl: Clause, ctx: Context, incident_words: bool) -> bool:
    strong = cl.find(r"\b(?:horizon|cadence|interval|report|reports|reporting|sample|sampling|frequency)\b")
    if incident_words and not strong:
        return False
    if strong or cl.find(HORIZON_CUE) or cl.find(CADENCE_CUE):
        return True
    for m in re.finditer(r"\b(\d+)\s+(?:more\s+|fewer\s+|extra\s+|additional\s+|new\s+)?(?:[a-z]+\s+){0,2}?([a-z]+)\b",
                         cl.view):
        word = m.group(2)
        if ctx.vocab.entities_for(word) or word.endswith("s") and len(word) > 3 and not re.fullmatch(
                rf"{UNIT}|questions?|incidents?|personas?|times|percent|hours|minutes|days|weeks|seconds", word):
            return True
    m = cl.find(SCALE_WORDS)
    return bool(m and any(ctx.vocab.entities_for(w) for w in re.findall(r"[a-z]+", cl.view[m.end():])))
