"""Workflows across sentences (issue 29): a sentence that goes on from the one before ("From there it is
either ...", "Some bookings are no-shows", "outcome: closed / rejected") joins its flow; the thing a flow
is about becomes an event log (a new entity when the catalog has none) with arrivals at the stated rate."""

from __future__ import annotations

import re

from tools.describe.compose_machine import TERMINAL_ROLES, state_role
from tools.describe.match import singular
from tools.describe.reader_base import parse_days
from tools.describe.reader_containers import ContainerReader
from tools.describe.workflow import arrival_rates

_NO_SUBJECT = {"it", "they", "this", "that", "there", "each", "every", "some", "stages", "stage", "steps", "process"}


class FlowReader(ContainerReader):
    """The workflow part of the reader."""

    joined: list[tuple[int, int]]

    def join_flows(self) -> None:
        """Merge each sentence that goes on from a workflow into that workflow's sentence."""
        last, self.joined = None, []
        for i, f in enumerate(self.facts):
            flow = f.flow
            if flow is None:
                continue
            lead = self.facts[last] if last is not None else None
            joins = lead is not None and (flow.continues or not flow.subject) and i - last <= 2
            if not joins:
                last = i if f.states else last
                continue
            if flow.extra:
                lead.states += [x for x in flow.stages if x not in lead.states]
                lead.state_ends = list(dict.fromkeys([*lead.state_ends, *flow.ends]))
            else:
                if lead.state_ends == lead.states[-1:] or not lead.flow.ends:
                    lead.state_ends = []
                lead.states += [x for x in flow.stages if x not in lead.states]
                lead.state_ends = list(dict.fromkeys([*lead.state_ends, *flow.ends]))
            lead.state_words = f"{lead.state_words} {flow.words}".strip()
            f.states, f.state_ends = [], []
            f.flow = None
            self.joined.append((last, i))

    def flow_owners(self) -> None:
        """The entity each workflow sentence is about: the one its subject names, else a new event log."""
        for i, f in enumerate(self.facts):
            if f.flow is None or not f.states or (f.flow.weak and self.entities):
                continue
            words = f.flow.subject
            if not words or words.split()[-1].lower() in _NO_SUBJECT:
                words = self.lead_noun() if not self.entities else ""
            owner = self.head_owner(words) if words else self.owner[i]
            said = singular(words.split()[-1].lower()) if words else ""
            heads = {owner.split("_")[-1], *(singular(w.split()[-1].lower()) for w in self.entities[owner].words.split(" / ")
                                             if w.split())} if owner else set()
            if owner and said and said not in heads:
                owner = None  # "a test is booked" beside "test bays": the tests, not the bays
            if owner is None and words:
                owner = self.new_lifecycle(re.sub(r"^(?:\d[\d,]*|about|around|roughly|approximately)\s+", "", words))
            if owner is None:
                continue
            e = self.entities[owner]
            e.kind, e.event_driven = "lifecycle", True
            self.owner[i] = owner
            for a, b in self.joined:
                if a == i:
                    self.owner[b] = owner
            self.started_by(f.text, owner)

    def flow_steps(self) -> None:
        """A stage the flow goes on from ("approved, then completed") is a step, whatever its role says."""
        for i, f in enumerate(self.facts):
            e = self.entities.get(self.owner[i] or "")
            if f.flow is None or e is None or e.kind != "lifecycle" or e.states != f.states:
                continue
            for x in e.states:
                if x not in e.terminal and x not in e.continues and state_role(x, True, self.catalog, 1)[0] in TERMINAL_ROLES:
                    e.continues.append(x)

    def started_by(self, text: str, owner: str) -> None:
        """"A loan starts when an item is checked out": the items counted elsewhere are the loans."""
        m = re.search(r"\bstarts?\s+(?:when|with|as)\s+(?:a|an|the)\s+([\w-]+)", text, re.I)
        head = owner.split("_")[-1]
        compound = re.search(rf"\b{head}s?\s+([a-z]+s)\b", self.text, re.I)  # "permit applications": the permits
        counted = compound and any(compound.group(1).lower() in w.lower() for _r, w in arrival_rates(self.text))
        for other in {self.head_owner(m.group(1)) if m else None, self.head_owner(compound.group(1)) if counted else None}:
            if other is not None and other != owner and other in self.entities and not self.entities[other].states:
                self.merge(other, owner, m.group(0) if m else compound.group(0))

    def merge(self, other: str, owner: str, why: str) -> None:
        """Read the entity ``other`` as the same thing as ``owner``."""
        o, e = self.entities.pop(other), self.entities[owner]
        e.words = f"{e.words} / {o.words}"
        e.count = e.count or o.count
        if f"count {other}" in self.evidence:
            self.evidence.setdefault(f"count {owner}", self.evidence.pop(f"count {other}"))
        self.evidence[f"entity {owner}"] += f"; '{o.words}' read as the same thing ('{why}')"
        self.evidence.pop(f"entity {other}", None)
        self.owner = [owner if x == other else x for x in self.owner]

    def lead_noun(self) -> str:
        """The plural noun a description opens with ("Warranty claims for a kitchen appliance maker, ...")."""
        m = re.match(r"^\s*(?:(?:the|our|all)\s+)?((?:[A-Za-z][\w-]*\s+){0,2}[A-Za-z][\w-]*s)\b", self.sents[0] if self.sents
                     else "")
        return m.group(1) if m and singular(m.group(1).split()[-1].lower()) != m.group(1).split()[-1].lower() else ""

    def flow_counts(self) -> None:
        """Arrivals of a workflow entity at the stated rate over the horizon ("~600 received each week")."""
        days = parse_days(self.horizon) or 7
        owners = {self.owner[i] for i, f in enumerate(self.facts) if f.flow is not None and f.states}
        for name in owners:
            e = self.entities.get(name or "")
            said = self.evidence.get(f"count {name}", "")
            if e is None or e.kind != "lifecycle" or "a day" in said:
                continue
            rates = [(r, w) for r, w in arrival_rates(self.text)
                     if all(self.head_owner(x) in (None, name) or singular(x) == name.split("_")[-1]
                            for x in re.findall(r"[a-z]+s\b", w.lower()))]
            if not rates:  # "eight performances a week" counts the performances, not the tickets
                continue
            per_day, words = rates[0]
            if e.count is None or said:
                e.count = max(1, round(per_day * days))
                self.evidence[f"count {name}"] = f"'{words}': {per_day:.4g} a day over {days} days"

