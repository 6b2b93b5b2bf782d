"""Domain plausibility: every value of a measurement lies in the range a domain expert accepts and is
whole where it must be (``Measurement.plausible``, set from the domain catalog).

The generator's ``bounds`` clip values, so a check against them could only fail on a generator bug;
the plausible range is independent domain knowledge (SpO2 ≤ 100, money ≥ 0, retries whole), so this
check fails when a spec's levels, state effects or incidents would produce values no expert accepts.
"""

from __future__ import annotations

from tools.bundle.opened import Bundle
from tools.checks.model import Check, qi, ql
from tools.checks.tables import TableInfo, table_infos


def _inner(t: TableInfo, m) -> str:
    p = m.plausible
    col = qi(m.name)
    conds = ([f"{col} < {p.low!r}"] if p.low is not None else []) + \
            ([f"{col} > {p.high!r}"] if p.high is not None else []) + \
            ([f"{col} <> round({col})"] if p.integer else [])
    ts = f"epoch_us({qi(t.ts_col)})" if t.ts_col else "NULL::BIGINT"
    return (f"SELECT {t.key} AS entity, {ts} AS t_us, {ql(m.name + '=')} || CAST({col} AS VARCHAR) AS what "
            f"FROM {qi(t.name)} WHERE {col} IS NOT NULL AND ({' OR '.join(conds)})")


def _describe(m) -> str:
    p = m.plausible
    lo = "-inf" if p.low is None else f"{p.low:g}"
    hi = "inf" if p.high is None else f"{p.high:g}"
    return f"{m.name} in [{lo}, {hi}]{' and whole' if p.integer else ''}" + (f" ({p.source})" if p.source else "")


def plausibility_checks(b: Bundle) -> list[Check]:
    """One check per table whose measurements carry a plausible range."""
    from tools.checks.quality import result

    out = []
    for t in table_infos(b.spec, b.tables):
        ms = [m for m in t.measurements if getattr(m, "plausible", None) is not None
              and (m.plausible.low is not None or m.plausible.high is not None or m.plausible.integer)]
        if not ms:
            continue
        inner = " UNION ALL ".join(_inner(t, m) for m in ms)
        n = int(b.one(f"SELECT count(*) AS violations FROM ({inner}) v")[0])
        c = result(b, "plausibility", t, inner, n, "every value plausible for its domain: "
                   + ", ".join(_describe(m) for m in ms), "values no domain expert would accept")
        out.append(c)
    return out
