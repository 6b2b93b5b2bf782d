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
        last, prev, self.joined = None, None, []
        for i, f in enumerate(self.facts):
            flow = f.flow
            if flow is None:
                continue
            self.not_understood += [f"stage '{p}': no stage name could be read from it; left out" for p in flow.unread]
            lead = self.facts[last] if last is not None else None
            joins = lead is not None and (flow.continues or not flow.subject) and i - max(last, prev or 0) <= 2 and \
                not (flow.extra and flow.named and lead.flow and lead.flow.subject and  # "A renewal can be blocked"
                     singular(flow.named[0].lower()) != singular(lead.flow.subject.split()[-1].lower()))
            if not joins:
                last = i if f.states else last
                f.flow = None if flow.extra else flow  # more endings of no flow: the sentence's own reading stands
                continue
            if flow.extra:
                for x in flow.stages:
                    target = next((s for s in lead.states if flow.back_to.get(x) and s.startswith(flow.back_to[x].lower())),
                                  None)  # "come back to available": the loop stage sits after the one it returns to
                    if x not in lead.states:
                        lead.states.insert(lead.states.index(target) + 1, x) if target else lead.states.append(x)
                lead.state_ends = list(dict.fromkeys([*lead.state_ends, *flow.ends]))
            else:
                if lead.state_ends == lead.states[-1:] or not lead.flow.ends:
                    lead.state_ends = []
                lead.state_ends = [x for x in lead.state_ends if x != lead.states[-1]]  # the flow goes on from it
                lead.states += [x for x in flow.stages if x not in lead.states]
                lead.state_ends = list(dict.fromkeys([*lead.state_ends, *flow.ends]))
            lead.state_words = f"{lead.state_words} {flow.words}".strip()
            f.states, f.state_ends = [], []
            f.flow = None
            prev = i
            self.joined.append((last, i))

    def flow_owners(self) -> None:
        """The entity each workflow sentence is about: the one its subject names, else a new event log."""
        for i, f in enumerate(self.facts):
            if f.flow is None or not f.states or (f.flow.weak and self.entities):
                continue
            words = f.flow.subject
            if not words or words.split()[-1].lower() in _NO_SUBJECT:
                words = self.lead_noun() if not self.entities else ""
            if f.flow.chain and not words:  # "process: enquiry -> ...": the thing its stages are said of, or counted
                words = next((n for n in f.flow.named if self.head_owner(n)), "") or self.counted_flow() or self.lead_noun()
            owner = self.head_owner(words) if words else self.owner[i]
            said = singular(words.split()[-1].lower()) if words else ""
            heads = {owner.split("_")[-1], *(singular(w.split()[-1].lower()) for w in self.entities[owner].words.split(" / ")
                                             if w.split())} if owner else set()
            if owner and said and said not in heads:
                owner = None  # "a test is booked" beside "test bays": the tests, not the bays
            if owner is None and said:  # "every truckload" beside "60 loads a day": a compound of the loads' noun
                owner = next((n for n, e in self.entities.items() if len(n.split("_")[-1]) >= 4 and e.kind != "static" and
                              said.endswith(n.split("_")[-1]) and said != n.split("_")[-1]), None)
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

    def per_owners(self) -> None:
        """"Per load: ..." is about the loads; "Per visit: ..." beside the one workflow read is about its events."""
        flows = [n for n, e in self.entities.items() if e.kind == "lifecycle" and e.event_driven]
        for i, f in enumerate(self.facts):
            if f.per_thing:
                head = singular(f.per_thing.split()[-1].lower())
                same = [n for n in self.entities if n.split("_")[-1] == head]  # "For each test" beside "test bays"
                self.owner[i] = (same[0] if len(same) == 1 else self.head_owner(f.per_thing)) or \
                    (flows[0] if len(flows) == 1 else self.owner[i])

    def counted_flow(self) -> str:
        """The words of the entity counted at an arrival rate ("around 12 bookings a day"), for a flow that names
        no subject ("process: enquiry -> ...")."""
        for _rate, words in arrival_rates(self.text):
            for w in re.findall(r"[a-z]+s\b", words.lower()):
                if self.head_owner(w):
                    return w
        return ""

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

