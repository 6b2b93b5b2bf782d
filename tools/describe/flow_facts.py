"""Workflow and per-thing readings of one sentence (``tools.describe.sentence_facts``): a workflow reading
(``tools.describe.chains``, ``tools.describe.workflow``) replaces a state list that missed its stages or kept glue
in their names; a "Per <thing>: A, B and C" list (``tools.describe.per_lists``) gives the thing's measurements."""

from __future__ import annotations

import re

from tools.describe.chains import read_chain, read_outcomes
from tools.describe.per_lists import per_list
from tools.describe.workflow import read_flow


def _poor(states: list[str]) -> bool:
    """Whether state names read from a list kept a sentence's glue ("case_goes_filed", "after_that_it_is_...")."""
    glue = {"goes", "go", "is", "are", "it", "its", "either", "then", "that", "after", "the", "a", "an", "never", "gets"}
    return any(len(x.split("_")) > 3 or set(x.split("_")) & glue for x in states)


def take_flow(f, s: str) -> None:
    """A workflow reading replaces a state list that missed its stages or kept glue in their names."""
    flow = read_chain(s)
    if flow is None:  # a flow told in the sentence itself comes first; else what goes on from the flow before
        own, more = read_flow(s), read_outcomes(s)
        good = own is not None and not own.extra and not own.continues and (own.subject or len(own.stages) >= 3) and \
            not re.search(r"\b(?:can|could|may|might|will|would)\b", own.subject) and \
            (more is None or len(own.stages) > len(more.stages))  # "candidates can drop out: ..." goes on from a flow
        flow = own if good else more or own
    if flow is None:
        return
    f.flow = flow
    if flow.continues or flow.extra:
        f.used.append((0, len(s)))  # "A load with too much plastic is rejected": no list of values
    if flow.continues or (flow.extra and not f.states):
        return  # joined to the flow of the sentence before by the reader
    if f.states and not _poor(f.states) and len(flow.stages) <= len(f.states) and \
            not re.search(r"->|→|=>", s):
        flow.weak = True  # the list reading stands; the flow still names a subject where nothing else does
        return
    f.states, f.state_ends, f.state_words = list(flow.stages), list(flow.ends), flow.words
    start = s.find(flow.words)
    f.used.append((max(0, start), max(0, start) + len(flow.words)) if start >= 0 else (0, len(s)))


def take_per_list(f, s: str) -> None:
    """"Per load: net weight in tonnes, ...": measurements of the load, the whole sentence read."""
    read = per_list(s)
    if read is None or any(a <= read[2][0] < b for a, b in f.used):
        return
    f.per_thing = read[0]
    f.items += [("report", it) for it in read[1]]
    f.used.append((0, len(s)))
