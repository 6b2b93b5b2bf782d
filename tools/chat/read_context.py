"""What reading one chat line carries from clause to clause: the spec's vocabulary, what the
conversation was last about, the days the data covers (a horizon change earlier in the same line
counts), what the previous clause was about ('... and have them report'), and how sure the reader is."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from tools.chat.read_vocab import Vocabulary


@dataclass
class Context:
    """The state of one reading."""

    vocab: Vocabulary
    last: dict | None = None
    days: int = 1
    prev_topic: str | None = None  # "incident" | "persona" | "entity" | "questions"
    prev_entity: str | None = None
    prev_kind: str | None = None  # the kind of the incident the previous clause added
    certainty: float = 1.0
    doubts: list[str] = field(default_factory=list)
    assumed: list[str] = field(default_factory=list)  # amounts proposed for what the line left out

    @property
    def start(self) -> date:
        """The first day of the data."""
        return self.vocab.spec.start_dt.date()

    def doubt(self, factor: float, why: str) -> None:
        """Lower the confidence of the reading, saying why."""
        self.certainty *= factor
        self.doubts.append(why)

    def last_of(self, kind: str) -> str | None:
        """What the conversation was last about, when it is a thing of this kind that still exists."""
        name = (self.last or {}).get(kind)
        if kind == "incident" and name and self.vocab.incident(name):
            return name
        if kind == "persona" and name in self.vocab.personas:
            return name
        return None


def describe(op) -> str:
    """One line for an operation ('edit_incident throughput_flatline duration=4h'), for Ask.understood."""
    fields = op.model_dump(exclude_defaults=True, exclude={"op"})
    return " ".join([op.op, *(f"{k}={v}" for k, v in fields.items())])
