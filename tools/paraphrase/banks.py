"""Phrase banks: alternative wordings of the asking sentence's opener and of the instruction
sentences the templates share, per writing register.

Registers: ``formal`` (perfect grammar), ``terse`` (keyword-like), ``casual`` (quick chat message,
with typos added later) and ``non_native``. Each entry is a regex over a (masked) sentence and the
replacement templates (``str.format`` with the regex groups and ``places``). Every replacement
keeps the sentence's slots: it may only move or reword the words around them.
"""

from __future__ import annotations

import re

Bank = list[tuple[re.Pattern, dict[str, list[str]]]]


def _b(rx: str, **by_register: list[str]) -> tuple[re.Pattern, dict[str, list[str]]]:
    return re.compile(rx), by_register


ASK_BANK: Bank = [
    _b(r"^Of the (?P<x>.+?), what percentage (?P<y>.+)\?$",
       formal=["What percentage of the {x} {y}?", "Out of the {x}, what share in percent {y}?"],
       terse=["% of the {x} {y}?", "of {x}: what % {y}?"],
       casual=["what % of the {x} {y}?", "out of the {x} what percentage {y}?"],
       non_native=["Out of the {x}, what is the percentage which {y}?", "What percentage of the {x} {y}?"]),
    _b(r"^How long, on average, (?P<rest>.+)\?$",
       formal=["On average, how long {rest}?", "Please answer the following: on average, how long {rest}?"],
       terse=["avg: how long {rest}?", "how long on average {rest}?"],
       casual=["on average how long {rest}?", "quick q: on avg how long {rest}?"],
       non_native=["In average, how long {rest}?", "Please tell: on average how long {rest}?"]),
    _b(r"^How many (?P<rest>(?:(?!\b(?:did|do|does)\b).)+)\?$",
       formal=["Could you tell me how many {rest}?", "I would like to know how many {rest}.",
               "Please determine how many {rest}."],
       terse=["how many {rest}?", "count: how many {rest}?"],
       casual=["how many {rest}??", "need to know how many {rest}", "quick q - how many {rest}?"],
       non_native=["Please tell me how many {rest}.", "Kindly let me know how many {rest}.",
                   "I want to know that how many {rest}?"]),
    _b(r"^How many (?P<rest>.+)\?$",
       formal=["Could you check the following: how many {rest}?", "Here is my question: how many {rest}?"],
       terse=["how many {rest}?", "q: how many {rest}?"],
       casual=["how many {rest}??", "quick q - how many {rest}?"],
       non_native=["Please tell, how many {rest}?", "Kindly check how many {rest}?"]),
    _b(r"^What (?:was|is) the (?P<rest>.+)\?$",
       formal=["Please give me the {rest}.", "I would like to know the {rest}.", "Could you report the {rest}?"],
       terse=["{rest}?", "need the {rest}"],
       casual=["whats the {rest}?", "can u get me the {rest}", "what was the {rest}??"],
       non_native=["Please tell the {rest}.", "Kindly share the {rest}.", "What is the value of the {rest}?"]),
    _b(r"^Which (?P<rest>.+)\?$",
       formal=["Could you tell me which {rest}?", "Please identify which {rest}."],
       terse=["which {rest}?", "q: which {rest}?"],
       casual=["which {rest}??", "need to know which {rest}"],
       non_native=["Please tell me which {rest}.", "Kindly let me know which {rest}."]),
    _b(r"^(?P<ask>.+\?)$",
       formal=["Here is my question: {ask_l}", "Please answer the following: {ask_l}"],
       terse=["q: {ask_l}", "{ask}"],
       casual=["quick q: {ask_l}", "{ask_l}?"],
       non_native=["Please help me with this: {ask_l}", "Kindly answer this: {ask_l}"]),
]

POST_BANK: Bank = [
    _b(r"^Round to (?P<n>\d+) decimal places?\.$",
       formal=["Please round the answer to {n} decimal {places}.", "The answer should be rounded to {n} decimal {places}."],
       terse=["{n} dp.", "round: {n} decimal {places}"],
       casual=["round to {n} decimals pls", "{n} decimal {places} is fine"],
       non_native=["Please round it to {n} decimal {places}.", "Answer should be rounded upto {n} decimal {places}."]),
    _b(r"^Round the (?P<what>[a-z ]+) to (?P<n>\d+) decimal places?\.$",
       formal=["Please round the {what} to {n} decimal {places}.", "Give the {what} to {n} decimal {places}."],
       terse=["{what}: {n} dp.", "{what} to {n} decimal {places}"],
       casual=["{what} to {n} decimals pls", "{n} decimal {places} for the {what} is fine"],
       non_native=["Kindly round off the {what} till {n} decimal {places}.", "The {what} should be in {n} decimal {places}."]),
    _b(r"^Give a percentage rounded to (?P<n>\d+) decimal places?\.$",
       formal=["Answer with a percentage rounded to {n} decimal {places}.", "Express it as a percentage with {n} decimal {places}."],
       terse=["as %, {n} dp.", "percentage, {n} decimal {places}"],
       casual=["as a % w/ {n} decimal {places} pls", "percentage pls, {n} decimal {places}"],
       non_native=["Please give in percentage with {n} decimal {places}.", "Answer in percentage upto {n} decimal {places}."]),
    _b(r"^Give a whole number\.$",
       formal=["Answer with a whole number.", "The answer should be a whole number."],
       terse=["integer.", "whole number."], casual=["whole number pls", "just a whole number"],
       non_native=["Please give answer in whole number.", "Answer should be whole number only."]),
    _b(r"^(?P<each>Give each duration|Give the duration|Round) to the nearest second\.$",
       formal=["Round the answer to the nearest second.", "Please give it to the nearest second."],
       terse=["nearest second.", "round to nearest second"], casual=["to the nearest second pls", "nearest second is fine"],
       non_native=["Please give it till the nearest second.", "Round it off to nearest second."]),
    _b(r"^Count (?P<a>[\w ]+), not (?P<b>[\w ]+)\.$",
       formal=["Count {a} rather than {b}.", "The count is of {a}, not {b}."],
       terse=["count {a}, not {b}.", "{a} not {b}."], casual=["count {a} not {b}", "I mean {a}, not {b}"],
       non_native=["Please count {a} and not {b}.", "Count is of {a} only, not {b}."]),
    _b(r"^Give the value as recorded, in (?P<u>.+)\.$",
       formal=["Report the value exactly as recorded, in {u}.", "Give the value as it was recorded, in {u}."],
       terse=["value as recorded, in {u}.", "raw value, in {u}."], casual=["raw value in {u} pls", "value as recorded ({u})"],
       non_native=["Please give value as it is recorded, in {u}.", "Value should be as recorded, in {u}."]),
    _b(r"^List them from highest to lowest with each one's value\.$",
       formal=["Order them from highest to lowest and give each one's value.", "Give each one's value, from highest to lowest."],
       terse=["highest to lowest, with values.", "sorted highest to lowest + values"],
       casual=["highest to lowest with values pls", "sort highest to lowest, show values"],
       non_native=["Please list from highest to lowest with value of each one.", "Give them highest to lowest with each value."]),
    _b(r"^Answer the later value minus the earlier value \(negative if it fell\)\.$",
       formal=["Give the later value minus the earlier value (negative if it fell).",
               "The answer is the later value minus the earlier one (negative if it fell)."],
       terse=["later minus earlier (negative if it fell).", "delta = later - earlier, negative if it fell"],
       casual=["later minus earlier pls (negative if it fell)", "later value minus earlier value, negative if it fell"],
       non_native=["Please give later value minus earlier value (negative if it fell).",
                   "Answer is later value minus earlier value, negative if it fell."]),
]


def register_of(style: str, formality: str) -> str:
    """The phrase-bank register for a persona's style."""
    return {"perfect_grammar": "formal", "terse": "terse", "typos": "casual", "non_native": "non_native"}[style]


def rewrite(sentence: str, bank: Bank, register: str, choice: int) -> str | None:
    """The ``choice``-th rewording of a sentence in a register, or None when no bank entry fits."""
    for rx, options in bank:
        m = rx.match(sentence)
        if not m:
            continue
        opts = options.get(register) or options["formal"]
        g = m.groupdict()
        if "ask" in g:
            g["ask_l"] = g["ask"][:1].lower() + g["ask"][1:] if g["ask"][1:2].islower() else g["ask"]
        g["places"] = "place" if g.get("n") == "1" else "places"
        return opts[choice % len(opts)].format(**g)
    return None


def bank_size(sentence: str, bank: Bank, register: str) -> int:
    """How many rewordings the bank has for this sentence in this register (0: none)."""
    for rx, options in bank:
        if rx.match(sentence):
            return len(options.get(register) or options["formal"])
    return 0
