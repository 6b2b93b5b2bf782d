"""The pandas executor's data access: row order in the file never changes an answer."""

import pandas as pd

from tools.queries.reference.frames import Frames, entity_rows
from tools.queries.spec import QuerySpec

ROWS = pd.DataFrame({
    "id": ["b", "a", "b", "a", "c"],
    "state": ["x", "y", "y", "x", "x"],
    "timestamp": ["2026-01-01T00:10Z", "2026-01-01T00:05Z", "2026-01-01T00:00Z", "2026-01-01T00:00Z",
                  "2026-01-01T00:00Z"],
})


def q():
    return QuerySpec(template="event_count", table="t", entity="id", time="timestamp")


def test_rows_come_back_grouped_by_entity_in_time_order(tiny):
    b = tiny({"t": ROWS})
    df = entity_rows(b.frames, q())
    per = {k: list(g["state"]) for k, g in df.groupby("id", observed=True, sort=False)}
    assert per == {"a": ["x", "y"], "b": ["y", "x"], "c": ["x"]}
    ids = list(df["id"])
    assert sorted(set(ids), key=ids.index) == [ids[0], *[x for i, x in enumerate(ids[1:], 1) if x != ids[i - 1]]]


def test_text_columns_are_categorical_whatever_the_file_encoding(tiny):
    b = tiny({"t": ROWS})
    df = Frames(b.root).table("t")
    assert isinstance(df["id"].dtype, pd.CategoricalDtype)
    assert isinstance(df["state"].dtype, pd.CategoricalDtype)


def test_already_ordered_files_are_not_reordered(tiny):
    ordered = ROWS.assign(timestamp=pd.to_datetime(ROWS["timestamp"], utc=True)).sort_values(
        ["id", "timestamp"], ascending=[False, True])  # entity blocks in any order, time ascending
    b = tiny({"t": ordered})
    df = entity_rows(b.frames, q())
    assert list(df["id"]) == ["c", "b", "b", "a", "a"]
