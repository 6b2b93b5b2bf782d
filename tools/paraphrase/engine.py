"""The deterministic paraphraser: K persona variants of a canonical question.

For each persona (in a seeded rotation) candidates are built from structural choices (sentence
order, window rendering, window fronting, opener and instruction rewordings from the phrase banks)
followed by the persona's lexical habits, in a seeded order. The first candidate that keeps every
slot of the canonical question (``slots.slot_problems``) and is at least ``min_distance`` (normalized
token edit distance) from the canonical question and from the variants already kept is kept.
Pure and seeded: the same inputs give the same variants.
"""

from __future__ import annotations

import itertools
import re
import zlib
from dataclasses import dataclass, field
from datetime import date

import numpy as np

from tools.paraphrase import banks
from tools.paraphrase.distance import token_edit_distance
from tools.paraphrase.periods import render_periods
from tools.paraphrase.personas import Persona
from tools.paraphrase.slots import slot_problems
from tools.paraphrase.transforms import (
    WINDOW_RE,
    Masker,
    lexical,
    lower_first,
    render_day,
    render_moment,
    render_window,
    split_clauses,
    split_question,
    upper_first,
)

MIN_DISTANCE = 0.3
MIN_DISTANCE_NATURAL = 0.2  # one-sentence questions: fewer words to vary without moving clauses
LEAD_RE = re.compile(r"^(?P<lead>(?:⟦\d+⟧|(?:During|Before|After|Among|Considering only|Of|For) )[^?]*), "
                     r"(?P<main>(?:how many|how long|how much|what|which|did|was|were|is|are|by how|at what)\b[^?]*)\?$")
TRIES_PER_PERSONA = 24
POOL_PERSONAS = 12
POOL_PER_PERSONA = 4


@dataclass(frozen=True)
class Variant:
    """One paraphrase: its text, the persona that says it, and its distance from the canonical."""

    text: str
    persona: str
    distance: float
    source: str = "rules"


@dataclass
class Paraphrases:
    """The variants kept for one canonical question, and why a persona got none."""

    variants: list[Variant] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _window_styles(p: Persona) -> list[int]:
    if p.habits.iso_dates or p.style == "terse":
        return [2, 1, 3]
    if p.style == "perfect_grammar":
        return [1, 3, 0]
    return [1, 3, 0]


def _render(canonical: str, p: Persona, choice: tuple, anchor: date | None, rng: np.random.Generator,
            synonyms: dict[str, list[str]] | None = None) -> str:
    order, wstyle, front, opener, post_choice, date_variant = choice
    register = banks.register_of(p.style, p.formality)
    # operational people use the domain's jargon for columns (the slot check accepts those synonyms)
    jargon = {k.lower().replace("_", " "): v[0] for k, v in (synonyms or {}).items() if v} \
        if p.style in ("terse", "typos") else {}
    m = Masker(jargon)
    relative = False

    def window(mt: re.Match) -> str:
        nonlocal relative
        kind, t1, d1, _, t2, d2 = mt.groups()
        kind = kind.lower()
        a = render_moment(t1, d1, p, date_variant, anchor)
        b = render_moment(t2, d2, p, date_variant, anchor)
        relative |= any(w in a + b for w in ("today", "yesterday"))
        return m.add(render_window(kind, a, b, wstyle, p))

    def sentence(s: str) -> str:
        nonlocal relative
        s, rel = render_periods(WINDOW_RE.sub(window, s), p, date_variant, anchor, m.add)
        relative |= rel
        s = m.mask(s)
        if s.startswith("⟦"):  # a window (or value) opens the sentence
            i = int(s[1:s.index("⟧")])
            m.items[i] = upper_first(m.items[i]) if m.items[i][:1].islower() else m.items[i]
        return s

    q = split_question(canonical)
    ask = sentence(q.ask)
    pre = [sentence(c) for s in q.pre for c in (split_clauses(s) if order == 5 else [s])]
    post = [sentence(c) for s in q.post for c in (split_clauses(s) if order >= 3 else [s])]
    fronted, lead = None, None
    if front:
        mt = re.search(r", (⟦\d+⟧)(,?)", ask)
        ml = LEAD_RE.match(ask)
        if mt and m.items[int(mt.group(1)[1:-1])][:4] in ("from", "betw", "in t"):
            fronted = mt.group(1)
            ask = ask[: mt.start()] + ask[mt.end():]
        elif ml and front == 3 and ml.group("lead").startswith("During "):
            ask = f"{upper_first(ml.group('main'))} during it?"  # the incident is named after the question
            post = [f"It refers to {ml.group('lead')[7:]}."] + post
        elif ml and front == 2 and (split := _split_lead(ml.group("lead"), ml.group("main"), m)):
            pre = pre + [split[0]]  # the leading clause becomes a sentence of its own
            ask = split[1]
        elif ml and not ml.group("lead").startswith("Of "):  # clause reordering: the lead moves to the end
            lead, ask = ml.group("lead"), upper_first(ml.group("main")) + "?"
            if lead.startswith("⟦"):
                i = int(lead[1:lead.index("⟧")])
                m.items[i] = lower_first(m.items[i])
    new = banks.rewrite(ask, banks.ASK_BANK, register, opener)
    ask = new if new is not None else ask
    if fronted:
        ask = f"{fronted}, {lower_first(ask)}"
        m.items[int(fronted[1:-1])] = upper_first(m.items[int(fronted[1:-1])])
    if lead:
        ask = f"{ask[:-1].rstrip('?.')}, {lower_first(lead)}{ask[-1] if ask[-1] in '?.' else ''}"
    post = [banks.rewrite(s, banks.POST_BANK, register, post_choice) or s for s in post]
    if order == 2 and pre:  # the question first, its definitions after it
        ask = re.sub(r"\bthese times\b", "the times described after this question", ask)
        sentences = [ask] + [f"In this question, {lower_first(s[4:])}" if s.startswith("Say ") else s
                             for s in pre] + post
    elif order == 5:  # the first definition, the question, then the rest of the definitions
        sentences = pre[:1] + [ask] + pre[1:] + post
    else:
        sentences = pre + {0: [ask] + post, 1: post + [ask], 3: post[::-1] + [ask], 4: [ask] + post[::-1]}[order]
    sentences = [s if s[-1:] in ".?!" or i == len(sentences) - 1 else s + "." for i, s in enumerate(sentences)]
    text = lexical(" ".join(sentences), p, rng)
    text = m.unmask(text)
    if relative and anchor is not None:
        text = f"Today is {render_day(anchor, p)}. {text}"
    text = re.sub(r"\s+([?.,;:])", r"\1", re.sub(r"\s{2,}", " ", text)).strip()
    if p.style in ("perfect_grammar", "non_native"):
        text = upper_first(text)
    return text


def _split_lead(lead: str, main: str, m: Masker) -> tuple[str, str] | None:
    """'During the X, how many ...?' → ('Consider the X.', 'How many ... during it?'), and the like
    for a leading window, 'Among the X', 'Of the X' and 'Considering only ...'; None otherwise."""
    main = upper_first(main)
    if lead.startswith("⟦"):
        i = int(lead[1:lead.index("⟧")])
        m.items[i] = lower_first(m.items[i])
        return f"Consider the period {lead}.", f"{main}, in that period?"
    if lead.startswith("During "):
        return f"Consider {lead[7:]}.", f"{main} during it?"
    if lead.startswith("Considering only "):
        return f"Consider only {lead[17:]}.", f"{main}?"
    if lead.startswith("Among ") and not main.lower().startswith("which"):
        return f"Consider {lead[6:]}.", f"{main}, among them?"
    if lead.startswith("Of ") and main.lower().startswith("what percentage "):
        return f"Consider {lead[3:]}.", f"What percentage of them {main[16:]}?"
    return None


def _choices(canonical: str, p: Persona, rng: np.random.Generator) -> list[tuple]:
    q = split_question(canonical)
    register = banks.register_of(p.style, p.formality)
    n_open = max(banks.bank_size(q.ask, banks.ASK_BANK, register), 1)
    n_post = max([banks.bank_size(s, banks.POST_BANK, register) for s in q.post] + [1])
    fronts = ([1, 0] if p.habits.fronts_window else [0, 1]) + ([2] if LEAD_RE.match(q.ask) else []) \
        + ([3] if LEAD_RE.match(q.ask) and q.ask.startswith("During ") else [])
    if not q.pre and not q.post:  # a natural one-sentence question: persona variants keep its clause order
        fronts = [0]
    orders = [0] + ([1] if q.post else []) + ([2] if q.pre else []) \
        + ([3, 4] if sum(len(split_clauses(s)) for s in q.post) > 1 else []) \
        + ([5] if sum(len(split_clauses(s)) for s in q.pre) > 1 else [])
    combos = list(itertools.product(orders, _window_styles(p), fronts, range(n_open),
                                    range(n_post), [0, 1]))
    order = rng.permutation(len(combos))
    return [combos[i] for i in order]


def rng_for(seed: int, *keys: str) -> np.random.Generator:
    """A generator for one (question, persona): independent of every other draw."""
    return np.random.default_rng(np.random.SeedSequence([seed, *(zlib.crc32(k.encode()) for k in keys)]))


def _pool(canonical: str, personas: list[Persona], seed: int, key: str, anchor: date | None,
          synonyms: dict[str, list[str]] | None, min_distance: float) -> list[Variant]:
    """Up to POOL_PER_PERSONA valid candidates per persona, each with another structure."""
    pool: list[Variant] = []
    for p in personas[:POOL_PERSONAS]:
        rng = rng_for(seed, key, p.name, "pool")
        structures: set[tuple] = set()
        for choice in _choices(canonical, p, rng)[:TRIES_PER_PERSONA]:
            if (choice[0], choice[2]) in structures:
                continue
            text = _render(canonical, p, choice, anchor, rng, synonyms)
            d0 = token_edit_distance(canonical, text)
            if d0 >= min_distance and not slot_problems(canonical, text, synonyms):
                pool.append(Variant(text, p.name, round(d0, 3)))
                structures.add((choice[0], choice[2]))
                if len(structures) >= POOL_PER_PERSONA:
                    break
    return pool


def _far_subset(pool: list[Variant], k: int, existing: list[str], min_distance: float) -> list[Variant]:
    """The first k candidates (pool order, distinct personas) pairwise at least ``min_distance``
    apart and from ``existing``; depth-first, so the result is deterministic."""
    far: dict[tuple[int, int], bool] = {}

    def ok(i: int, j: int) -> bool:
        if (i, j) not in far:
            far[(i, j)] = far[(j, i)] = token_edit_distance(pool[i].text, pool[j].text) >= min_distance
        return far[(i, j)]

    usable = [i for i, v in enumerate(pool) if all(token_edit_distance(t, v.text) >= min_distance for t in existing)]

    def dfs(chosen: list[int], start: int) -> list[int] | None:
        if len(chosen) == k:
            return chosen
        for n, i in enumerate(usable[start:], start):
            if pool[i].persona in {pool[c].persona for c in chosen} or not all(ok(i, c) for c in chosen):
                continue
            found = dfs(chosen + [i], n + 1)
            if found:
                return found
        return None

    found = dfs([], 0)
    return [pool[i] for i in found] if found else []


def min_distance_for(canonical: str) -> float:
    """The least token edit distance a variant keeps from ``canonical`` (and the other variants)."""
    q = split_question(canonical)
    return MIN_DISTANCE_NATURAL if not q.pre and not q.post else MIN_DISTANCE


def paraphrase(canonical: str, personas: list[Persona], k: int, *, seed: int = 0, key: str = "",
               anchor: date | None = None, synonyms: dict[str, list[str]] | None = None,
               min_distance: float | None = None, existing: list[str] = ()) -> Paraphrases:
    """Up to ``k`` variants of ``canonical`` from distinct personas (tried in the given order).

    ``key`` (the question id) seeds the choices; ``anchor`` is the data's last day (for relative
    dates); ``existing`` are texts the variants must also be far from (e.g. LLM variants);
    ``min_distance`` defaults to MIN_DISTANCE, MIN_DISTANCE_NATURAL for a one-sentence question. A fast
    greedy pass usually finds them; when it falls short, a pool of valid candidates with distinct
    structures is searched for k that are far enough apart."""
    if min_distance is None:
        min_distance = min_distance_for(canonical)
    out = Paraphrases()
    kept = list(existing)
    used_orders: set[int] = set()
    used_fronts: set[int] = set()
    for p in personas:
        if len(out.variants) >= k:
            break
        rng = rng_for(seed, key, p.name)
        # structures (sentence order, fronting) not used by a kept variant first: they are the far ones
        ranked = sorted(_choices(canonical, p, rng), key=lambda c: (c[0] in used_orders, c[2] in used_fronts))
        for choice in ranked[:TRIES_PER_PERSONA]:
            text = _render(canonical, p, choice, anchor, rng, synonyms)
            d0 = token_edit_distance(canonical, text)
            if d0 < min_distance or any(token_edit_distance(t, text) < min_distance for t in kept):
                continue
            if slot_problems(canonical, text, synonyms):
                continue
            out.variants.append(Variant(text, p.name, round(d0, 3)))
            used_orders.add(choice[0])
            used_fronts.add(choice[2])
            kept.append(text)
            break
    if len(out.variants) < k:
        better = _far_subset(_pool(canonical, personas, seed, key, anchor, synonyms, min_distance), k,
                             list(existing), min_distance)
        if len(better) > len(out.variants):
            out.variants = better
    if len(out.variants) < k:
        out.notes.append(f"only {len(out.variants)} of {k} variants keep every slot at distance >= {min_distance} "
                         "from the canonical question and from each other")
    return out
