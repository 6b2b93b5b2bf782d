"""English for the state-machine templates: state names, the episode definition, scopes, windows.

Every question says what an episode is, when it ends, that open episodes are left out where
durations are involved, and how the window selects (by episode start, transition time, first row).
"""

from __future__ import annotations

from tools.queries.catalog import TableView
from tools.queries.context import SynthContext
from tools.queries.registry import Candidate
from tools.queries.render import entity_filter_words, humanize, plural, pred_words, row_noun, when_words
from tools.queries.spec import Predicate, Window
from tools.queries.sql.common import ident

_NEGATE = {">": "<=", ">=": "<", "<": ">=", "<=": ">", "==": "!=", "!=": "==", "in": "not_in", "not_in": "in"}


def row1(t: TableView) -> str:
    """One row: 'event' or 'reading'."""
    return row_noun(t)[:-1]


def a_(word: str) -> str:
    """'an event', 'a reading'."""
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


def in_each(state: dict) -> str:
    """'on each page', 'in each status'."""
    col = column_words(state)
    return f"{'on' if col == 'page' else 'in'} each {col}"


def column_words(state: dict) -> str:
    """'device state', 'page', 'status' (or 'condition' for a predicated state)."""
    return humanize(state["column"]) if "column" in state else "condition"


def _nullable(ctx: SynthContext, t: TableView, column: str) -> bool:
    return bool(ctx.scalar(f"SELECT count(*) FROM {ident(t.name)} WHERE {ident(column)} IS NULL"))


def _pred(p: Predicate, t: TableView) -> str:
    """'logins above 34' (render drops the unit of plain counts)."""
    return pred_words(p, t)


def state_name(state: dict, value: str, t: TableView, ctx: SynthContext | None = None) -> str:
    """"device state 'critical'", "the condition 'CPU load above 80 percent'"."""
    if "column" in state:
        return f"{column_words(state)} '{value}'"
    p = Predicate.model_validate(state["predicate"])
    if value == "in":
        return f"the condition '{_pred(p, t)}'"
    neg = p.model_copy(update={"op": _NEGATE[p.op]})
    extra = " or no value" if ctx is not None and _nullable(ctx, t, p.column) else ""
    return f"the condition '{_pred(neg, t)}{extra}'"


def in_state(state: dict, name: str) -> str:
    """'on page 'cart'', 'in device state 'critical'', 'in the condition ...'."""
    return f"{'on' if column_words(state) == 'page' else 'in'} {name}"


def episode_def(state: dict, value: str, t: TableView, ctx: SynthContext | None = None) -> str:
    """The sentence defining an episode of a state and its end."""
    r, rs, noun = row1(t), row_noun(t), t.noun
    name = state_name(state, value, t, ctx)
    if "column" in state:
        col = column_words(state)
        body = (f"a maximal run of consecutive {rs} of one {noun} (in time order) with {col} '{value}'; "
                f"it ends at the {noun}'s next {r} with a different {col}")
    else:
        body = (f"a maximal run of consecutive {rs} of one {noun} (in time order) that meet it; "
                f"it ends at the {noun}'s next {r} that does not")
    return f"An episode of {name} is {body} ({a_(noun)}'s first {r} always starts an episode)."


def who(c: Candidate, t: TableView) -> str:
    """'sessions belonging to users whose country is 'US'' / 'sensors'."""
    ef = entity_filter_words(c.spec.entity_filter, t)
    return plural(t.noun) + (f" {ef}" if ef else "")


def between(w: Window) -> str:
    """'between 06:00 UTC on 2 January 2026 (included) and 12:00 UTC on 2 January 2026 (excluded)'."""
    return f"between {when_words(w.start_dt)} (included) and {when_words(w.end_dt)} (excluded)"


def started(w: Window | None, t: TableView) -> str:
    """' whose first event is between ... (included) and ... (excluded)' (nothing without a window)."""
    return "" if w is None else f" whose first {row1(t)} is {between(w)}"


def when(w: Window | None) -> str:
    """'between ... and ...' or 'at any time in the data'."""
    return between(w) if w is not None else "at any time in the data"


DURATION_WORDS = "Give the duration to the nearest second."
