"""The text of a chat line as the reader sees it: normalised (lower case, typos repaired, number words
as digits) while remembering where every character came from, split into clauses, with a record of
which characters a reading has used, so words nobody accounted for can be found and asked about.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

# Words that never change what a request means (politeness, articles, helpers, pronouns left over
# once references are resolved). Negations, quantities and comparatives are deliberately absent.
FILLER = frozenset("""
a an the please pls plz kindly could can would will you we i me us let lets let's just only also now then
actually maybe perhaps so hey hi hello thanks thank cheers that this these those of in on at for to with by
should must shall want wants wanna like need needs have has had do does is are be been being there here some
all way too really very instead rather again well as it its it's our my your their them they one ones and
i'd i'm we'd we're you're currently current existing think guess ok okay alright right cool great hmm oh um
yeah quickly go ahead bit little already both any each every s u ur anymore any more fine
""".split())

UNIT = r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|wks?|[smhdw])"
UNIT_WORD = r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?)"


class NeedAsk(Exception):  # noqa: N818 - it is a reading outcome, not a failure
    """A clause that cannot be applied faithfully: the question back, the candidates, what was
    understood, and how sure the reader is that asking is right."""

    def __init__(self, question: str, candidates: Iterable[str] = (), understood: Iterable[str] = (),
                 confidence: float = 0.4):
        super().__init__(question)
        self.question = question
        self.candidates = list(candidates)
        self.understood = list(understood)
        self.confidence = confidence


@dataclass
class Line:
    """One chat line: ``text`` is the normalised form; ``starts``/``ends`` give, for each character
    of it, the span of the original it came from; ``used`` marks characters a reading has used."""

    original: str
    text: str = ""
    starts: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)
    used: list[bool] = field(default_factory=list)
    repairs: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, original: str) -> Line:
        """A line with the original text lower-cased (one character for one character)."""
        low = "".join(c.lower() if len(c.lower()) == 1 else c for c in original)
        n = len(low)
        return cls(original, low, list(range(n)), list(range(1, n + 1)), [False] * n)

    def sub(self, pattern: str, repl: Callable[[re.Match], str | None]) -> None:
        """Replace matches (``repl`` returns None to keep one), keeping the map to the original."""
        text, starts, ends, pos = [], [], [], 0
        for m in re.finditer(pattern, self.text):
            new = repl(m)
            if new is None or m.start() == m.end():
                continue
            text.append(self.text[pos:m.start()])
            starts += self.starts[pos:m.start()]
            ends += self.ends[pos:m.start()]
            text.append(new)
            starts += [self.starts[m.start()]] * len(new)
            ends += [self.ends[m.end() - 1]] * len(new)
            pos = m.end()
        text.append(self.text[pos:])
        starts += self.starts[pos:]
        ends += self.ends[pos:]
        self.text, self.starts, self.ends = "".join(text), starts, ends
        self.used = [False] * len(self.text)

    def source(self, a: int, b: int) -> str:
        """The original words behind the normalised span ``[a, b)``."""
        while a < b and self.text[a].isspace():
            a += 1
        while b > a and self.text[b - 1].isspace():
            b -= 1
        return self.original[self.starts[a]:self.ends[b - 1]] if a < b else ""


@dataclass
class Clause:
    """A window ``[a, b)`` on a line: searched on its unused characters, marking what it uses."""

    line: Line
    a: int
    b: int

    @property
    def view(self) -> str:
        """The clause's text with used characters blanked (positions unchanged, offset by ``a``)."""
        t, u = self.line.text, self.line.used
        return "".join(" " if u[i] else t[i] for i in range(self.a, self.b))

    def find(self, pattern: str) -> re.Match | None:
        """The first match of ``pattern`` on the unused text (positions relative to the clause)."""
        return re.search(pattern, self.view)

    def take(self, m: re.Match | None, group: int | str = 0) -> re.Match | None:
        """Mark a match (or one group of it) as used; returns the match."""
        if m is not None and m.start(group) >= 0:
            for i in range(self.a + m.start(group), self.a + m.end(group)):
                self.line.used[i] = True
        return m

    def take_span(self, a: int, b: int) -> None:
        """Mark the clause-relative span ``[a, b)`` as used."""
        for i in range(self.a + a, self.a + b):
            self.line.used[i] = True

    def grab(self, pattern: str) -> re.Match | None:
        """Find and take."""
        return self.take(self.find(pattern))

    def grab_all(self, pattern: str) -> int:
        """Take every match; how many there were."""
        n = 0
        while self.grab(pattern):
            n += 1
        return n

    def has(self, pattern: str) -> bool:
        """Whether the unused text matches."""
        return self.find(pattern) is not None

    def source(self, a: int, b: int) -> str:
        """The original words of a clause-relative span."""
        return self.line.source(self.a + a, self.a + b)

    def sub(self, a: int, b: int) -> Clause:
        """A clause on part of this one (clause-relative span)."""
        return Clause(self.line, self.a + a, self.a + b)

    def leftover(self) -> list[str]:
        """Unused words that are not filler (what the reading could not account for)."""
        words = re.findall(r"[a-z0-9_'%+.:-]+", self.view)
        return [w for w in (w.strip(".:-'") for w in words) if w and w not in FILLER and not re.fullmatch(r"[-+.:]+", w)]

    def words(self) -> list[str]:
        """All words of the clause (used or not)."""
        return re.findall(r"[a-z0-9_']+", self.line.text[self.a:self.b])


_VERBS = (r"add|drop|remove|delete|make|set|move|show|list|display|extend|shorten|lengthen|use|have|cover|put|"
          r"change|turn|push|shift|report|sample|double|halve|triple|scale|get rid|increase|decrease|reduce|raise|"
          r"lower|update|edit|inject|insert|create|include|give|rename|span|crank|bump|cut|trim|delay|postpone|"
          r"bring|pull|swap|replace|modify|generate|write|no more|undo|redo|apply|kill|ditch|discard|start|new")


def split_clauses(line: Line) -> list[Clause]:
    """Clauses of a line: at ';', a sentence end, 'then', or 'and'/',' followed by a request verb
    ('... on 4 towers and drop the stateless questions'); 'the flatline and the outage' stays one."""
    t = line.text
    cuts = [0]
    lead = rf"(?:then\s+|also\s+|please\s+|pls\s+|can you\s+|could you\s+)*(?:{_VERBS}|another|one more|1 more)\b"
    for m in re.finditer(rf";\s*|,?\s+and then\s+|,\s*then\s+|"
                         rf"(?:(?<=[a-z0-9)])[.!?]\s+|,\s*(?:and\s+)?|\s+and\s+|\s+but\s+)(?={lead})", t):
        cuts += [m.start(), m.end()]
    cuts.append(len(t))
    out = []
    for a, b in zip(cuts[::2], cuts[1::2], strict=True):
        clause = Clause(line, a, b)
        if clause.leftover() or re.search(r"[a-z0-9]", t[a:b]) and not all(w in FILLER for w in clause.words()):
            out.append(clause)
    return out


