"""Session controls: a line that only confirms ('yes', 'looks good, apply it'), cancels ('no, scrap
that'), steps back or forward ('oops, go back one step', 'actually redo it'), asks for help ('what
can i do here?') or leaves ('bye, i'm done'). A line with anything else in it is not a control."""

from __future__ import annotations

import re

from tools.chat.read_text import FILLER

CONTROLS = {
    "ok": r"yes|yep|yeah|yup|sure|ok|okay|apply(?: (?:it|that|them|this|these|the changes?))?|go ahead|looks good|"
          r"looks great|lgtm|do it|confirm(?:ed)?|sounds good|perfect|great|fine|approved?|ship it|go for it|proceed|"
          r"accept(?:ed)?|correct|that's right|good",
    "cancel": r"no|nope|nah|cancel(?: (?:it|that))?|scrap (?:that|it)|never ?mind|forget (?:it|that)|discard(?: (?:it|that))?|"
              r"don'?t apply(?: (?:it|that))?|do not apply(?: (?:it|that))?|don'?t|do not|abort|not that|wrong",
    "undo": r"undo(?: (?:that|it|this|the|my))?(?: last| previous)?(?: (?:change|step|edit|one))?|go back(?: 1 step| one step| a step)?|"
            r"revert(?: (?:that|it|the last change))?|roll ?back|take (?:that|it) back|step back|back",
    "redo": r"(?:redo|re-?apply|bring back) what (?:i|we|you) (?:just )?(?:undid|undone|took back)|"
            r"redo(?: (?:it|that|the change))?|re-?apply(?: (?:it|that))?|do (?:it|that) again",
    "help": r"help(?: me)?|what can (?:i|you|we) (?:do|say|ask|type)(?: here)?|how does (?:this|it) work|commands|"
            r"what (?:commands )?(?:do|can) you (?:understand|do)|"
            r"what are the commands|options|usage|what do i do",
    "quit": r"quit|exit|bye|goodbye|good bye|i'm done|i am done|we're done|done|that's all|that's it|stop|close|leave|"
            r"q|see you|end|finished|all done|i'm finished",
}
_EXTRA_FILLER = r"chat|session|for now|oops|whoops|sorry|wait|hmm|um|uh|ah|thanks|thank you|cheers|please|pls|actually|ok then|alright"


_ORDER = ("cancel", "redo", "undo", "ok", "help", "quit")  # "don't apply that" is a cancel, not an "apply"


def read_control(text: str) -> tuple[str | None, float]:
    """(control, confidence) when the whole line is a control; (None, 0) otherwise. Two different
    controls in one line ('yes, undo') are none (the line is then read, and asked about)."""
    if text.strip() == "?":
        return "help", 0.95
    t = " " + re.sub(r"[,.!;:?]+|'s\b", " ", text.lower()) + " "
    t = re.sub(r"\s+", " ", t)
    found: set[str] = set()
    for name in _ORDER:
        rx = CONTROLS[name]
        pattern = rf"(?<= )(?:{rx})(?= )"
        if re.search(pattern, t):
            found.add(name)
            t = re.sub(pattern, " ", t)
    t = re.sub(rf"(?<= )(?:{_EXTRA_FILLER})(?= )", " ", t)
    rest = [w for w in t.split() if w not in FILLER]
    if rest or not found:
        return None, 0.0
    if found == {"ok", "cancel"} or len(found) > 1 and "ok" not in found:
        return None, 0.0
    if len(found) > 1:  # 'ok, undo' / 'ok go back': the other control is what is meant
        found.discard("ok")
        if len(found) > 1:
            return None, 0.0
    return found.pop(), 0.95
