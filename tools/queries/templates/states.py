"""State-machine templates: state_duration, first_passage_time, transition_counts, common_paths,
revisit_count, state_occupancy, threshold_without_outcome.

Each works on a visible state column (``params.state = {"column": ...}``) or a predicated state
(``{"predicate": ...}``: in/out). Episodes are maximal runs of one state per entity, replayed over
the whole history; the window selects what counts (episode starts, transition times, entities'
first rows or interval starts), and every question says which. Executors:
``reference/states.py`` (pandas), ``sql/states.py`` (DuckDB); naive readings in
``reference/states_naive.py``; candidates in ``templates/states_candidates.py``.
"""

from __future__ import annotations

from tools.queries.context import SynthContext
from tools.queries.reference import states as ref
from tools.queries.reference import states_naive as naive
from tools.queries.reference import states_outcome as outcome
from tools.queries.registry import Candidate, Template, register
from tools.queries.render import fmt_duration, humanize, plural, row_noun
from tools.queries.sql import states as sql
from tools.queries.templates import states_candidates as cands
from tools.queries.templates.states_words import (
    DURATION_WORDS,
    a_,
    between,
    column_words,
    episode_def,
    in_each,
    in_state,
    row1,
    started,
    state_name,
    when,
    who,
)


def _parts(c: Candidate, ctx: SynthContext, value: str | None = None):
    q = c.spec
    t = ctx.catalog[q.table]
    st = q.p("state")
    v = value if value is not None else q.p("value")
    return q, t, st, state_name(st, v, t, ctx), episode_def(st, v, t, ctx)


def _group_words(c: Candidate, ctx: SynthContext) -> str:
    """' Break it down by model (from the sensors table); ...' for a grouped spec."""
    q = c.spec
    if q.group_by is None:
        return ""
    t = ctx.catalog[q.table]
    via = q.p("group_via")
    src = (f"from the {via['table']} table, matched on {via['key']}" if via
           else f"the value on the {row1(t)} where the episode starts")
    return (f" Break it down by {humanize(q.group_by)} ({src}); episodes without a {humanize(q.group_by)} are "
            "left out. Give each duration to the nearest second.")


def render_duration(c: Candidate, ctx: SynthContext) -> str:
    q, t, st, name, defn = _parts(c, ctx)
    to = q.p("to")
    conds = ([f"started {between(q.window)}"] if q.window else []) + (
        [f"ended by entering {state_name(st, to, t, ctx)} (episodes followed directly by any other state are "
         "left out)"] if to else [])
    scope = ("the completed episodes that " + " and ".join(conds)) if conds else "all completed episodes"
    return (f"How long, on average, did an episode of {name} last for {who(c, t)}? Count {scope}. {defn} An "
            f"episode still open at the end of the data is not completed and is left out; each {t.noun}'s whole "
            f"history is used to find where an episode ends, even after the window."
            f"{_group_words(c, ctx) or ' ' + DURATION_WORDS}")


def render_passage(c: Candidate, ctx: SynthContext) -> str:
    q, t, st, name, defn = _parts(c, ctx)
    r, ps = row1(t), plural(t.noun)
    return (f"Among the {who(c, t)}{started(q.window, t)} that entered {name} at least once (at any time), "
            f"what is the mean time from {a_(t.noun)}'s first {r} to its first entry into {name}? Entering it "
            f"means the first {r} of an episode of it. {defn} {a_(t.noun).capitalize()} whose first {r} is already "
            f"{in_state(st, name)} counts with 0 seconds; {ps} that never enter it are left out. {DURATION_WORDS}")


def render_transitions(c: Candidate, ctx: SynthContext) -> str:
    q, t, st, name, _d = _parts(c, ctx)
    col, v, rs, r = column_words(st), q.p("value"), row_noun(t), row1(t)
    return (f"For {who(c, t)}, how many transitions out of {name} went into each other {col}, counting "
            f"transitions that happened {when(q.window)}? A transition out of '{v}' is a change of a "
            f"{t.noun}'s {col} from '{v}' to another value between two consecutive {rs} of that {t.noun}; "
            f"consecutive {rs} that stay in '{v}' are not transitions. It happens at the first {r} with the "
            f"new {col}, and each {t.noun}'s whole history is used to find it. Answer with the number of "
            f"transitions for each next {col}.")


def render_paths(c: Candidate, ctx: SynthContext) -> str:
    q, t, st, _n, _d = _parts(c, ctx, "")
    col, rs, ps = column_words(st), row_noun(t), plural(t.noun)
    n, k = q.p("n", 3), q.p("k", 3)
    return (f"For each of the {who(c, t)}{started(q.window, t)}, list the {col} values it went through in time "
            f"order, merging consecutive {rs} with the same {col} into one step, and keep its first {n} steps "
            f"as a path written like 'x > y > z'; {ps} with fewer than {n} steps are left out. Which {k} paths "
            f"were followed by the most {ps}, and by how many {ps} each? Rank by number of {ps}, ties broken "
            "alphabetically by path.")


def render_revisit(c: Candidate, ctx: SynthContext) -> str:
    q, t, st, name, defn = _parts(c, ctx)
    r = row1(t)
    return (f"How many {who(c, t)} had at least 2 separate episodes of {name} starting {when(q.window)}? "
            f"{defn} Two episodes are separate when at least one {r} not in {name} lies between them. Each "
            f"{t.noun}'s whole history is used: an episode that began before the window does not count, and "
            "one that starts in the window counts even if it ends after it.")


def render_occupancy(c: Candidate, ctx: SynthContext) -> str:
    q, t, st, _n, _d = _parts(c, ctx, "")
    col, rs, r = column_words(st), row_noun(t), row1(t)
    which = ("count the intervals that start in the window, in full even if they end after it, and leave out"
             if q.window else "leave out")
    return (f"What percentage of the time did {who(c, t)} spend {in_each(st)}, {when(q.window)}? Weight by "
            f"time, not by {rs}: each {r}'s {col} lasts from its timestamp until the same {t.noun}'s next {r}; "
            f"{which} each {t.noun}'s last {r}, whose interval has no end. Answer with the percentage of the "
            f"total time for each {col}, rounded to 2 decimal places.")


def render_threshold(c: Candidate, ctx: SynthContext) -> str:
    q, t, st, a, defn = _parts(c, ctx)
    ost = q.p("outcome_state") or st
    b = state_name(ost, q.p("outcome"), t, ctx)
    h, r = fmt_duration(float(q.p("horizon_s"))), row1(t)
    return (f"How many {who(c, t)} entered {a} at least once {when(q.window)} and then did not reach {b} "
            f"within {h} of that entry? For each entry into {a} (the first {r} of an episode of it) in the "
            f"window, look for {a_(r)} with {b} from the entry's timestamp (included) up to {h} later "
            f"(included); {a_(t.noun)} counts if at least one of its entries has no such {r}. Only that "
            f"{h} window matters: reaching {b} later, or before the entry, does not change it. {defn}")


def _duration_candidates(ctx):
    return [*cands.duration_candidates(ctx), *cands.grouped_duration_candidates(ctx)]


register(Template("state_duration", "stateful", "duration", ref.state_duration, sql.state_duration,
                  render_duration, _duration_candidates, naive=naive.state_duration,
                  answer_type_for=lambda q: "mapping" if q.group_by else "duration"))
register(Template("first_passage_time", "stateful", "duration", ref.first_passage_time, sql.first_passage_time,
                  render_passage, cands.passage_candidates, naive=naive.first_passage_time))
register(Template("transition_counts", "stateful", "mapping", ref.transition_counts, sql.transition_counts,
                  render_transitions, cands.transition_candidates, naive=naive.transition_counts))
register(Template("common_paths", "stateful", "ranking", ref.common_paths, sql.common_paths,
                  render_paths, cands.path_candidates, naive=naive.common_paths, difficulty="hard"))
register(Template("revisit_count", "stateful", "integer", ref.revisit_count, sql.revisit_count,
                  render_revisit, cands.revisit_candidates, naive=naive.revisit_count))
register(Template("state_occupancy", "stateful", "mapping", ref.state_occupancy, sql.state_occupancy,
                  render_occupancy, cands.occupancy_candidates, naive=naive.state_occupancy))
register(Template("threshold_without_outcome", "stateful", "integer", outcome.threshold_without_outcome,
                  sql.threshold_without_outcome, render_threshold, cands.threshold_candidates,
                  naive=naive.threshold_without_outcome, difficulty="hard"))
