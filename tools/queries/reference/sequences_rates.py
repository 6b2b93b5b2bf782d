"""pandas reference for ``conversion_rate`` and ``count_in_state`` (split from ``reference/sequences.py``,
whose stream, events and window semantics they share: whole streams replayed, the window selects the
anchor events by their time)."""

from __future__ import annotations

import numpy as np

from tools.queries.reference.frames import Frames
from tools.queries.reference.sequences import (
    NONE,
    event,
    first_after,
    first_time,
    in_window,
    stream,
    x_in_entities_with_y,
)
from tools.queries.spec import QuerySpec


# ---------------------------------------------------------------- conversion_rate
def conversion_rate(frames: Frames, q: QuerySpec) -> float | None:
    """Percent of the entities whose first A is in the window that have a B strictly after that
    first A (at any later time); None when no entity's first A is in the window."""
    s = stream(frames, q)
    ta = first_time(s, event(s, q.p("a")))
    reached = in_window(q, ta)
    if not reached.any():
        return None
    tb = first_after(s, event(s, q.p("b")), ta)
    return 100.0 * float(np.count_nonzero(reached & (tb != NONE))) / float(np.count_nonzero(reached))


def conversion_rate_naive(frames: Frames, q: QuerySpec) -> float | None:
    """Misreading: B rows divided by A rows (in the window), in percent."""
    s = stream(frames, q)
    w = in_window(q, s.t)
    na = np.count_nonzero(event(s, q.p("a")) & w)
    nb = np.count_nonzero(event(s, q.p("b")) & w)
    return 100.0 * nb / na if na else None


# ---------------------------------------------------------------- count_in_state
def count_in_state(frames: Frames, q: QuerySpec) -> int:
    """X events in the window while the entity's state is open: strictly after its first ``open``
    event and strictly before the first ``close`` event after that (open to the end if none)."""
    s = stream(frames, q)
    t_open = first_time(s, event(s, q.p("open")))
    t_close = first_after(s, event(s, q.p("close")), t_open)
    lo, hi = t_open[s.gid], t_close[s.gid]
    ok = event(s, q.p("x")) & in_window(q, s.t) & (lo != NONE) & (s.t > lo) & (s.t < hi)
    return int(np.count_nonzero(ok))


def count_in_state_naive(frames: Frames, q: QuerySpec) -> int:
    """Misreading: X events in the window of entities that ever had an ``open`` event."""
    return x_in_entities_with_y(frames, q, "open")
