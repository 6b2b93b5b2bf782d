"""Tiny hand-made bundles for executor tests: tables written as Parquet and into data.duckdb."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd
import pytest

from tools.queries.answers import agree, canonical
from tools.queries.reference.frames import Frames
from tools.queries.registry import load_templates
from tools.queries.spec import QuerySpec


class TinyBundle:
    """A directory with ``data/<table>.parquet`` and ``data.duckdb`` holding the same tables."""

    def __init__(self, root: Path, tables: dict[str, pd.DataFrame]):
        self.root = root
        (root / "data").mkdir(parents=True, exist_ok=True)
        con = duckdb.connect(str(root / "data.duckdb"))
        for name, df in tables.items():
            df = df.copy()
            for c in df.columns:
                if c in ("timestamp", "ts") or c.endswith("_at"):
                    df[c] = pd.to_datetime(df[c], utc=True)
            df.to_parquet(root / "data" / f"{name}.parquet", index=False)
            con.execute(f'CREATE TABLE "{name}" AS SELECT * FROM read_parquet(?)',
                        [str(root / "data" / f"{name}.parquet")])
        con.close()
        self.frames = Frames(root)

    def run(self, q: QuerySpec) -> tuple:
        """(pandas answer, SQL answer) in canonical form for the template named by ``q``."""
        t = load_templates()[q.template]
        a = canonical(t.reference(self.frames, q), t.type_of(q))
        con = duckdb.connect(str(self.root / "data.duckdb"), read_only=True)
        con.execute("SET TimeZone = 'UTC'")
        row = con.execute(t.sql(q)).fetchone()
        con.close()
        return a, canonical(None if row is None else row[0], t.type_of(q))

    def answer(self, q: QuerySpec):
        """The answer both executors agree on (the test fails if they do not)."""
        a, b = self.run(q)
        assert agree(a, b), f"pandas {a!r} != SQL {b!r}"
        return a

    def naive(self, q: QuerySpec):
        """The template's naive (stateless misreading) answer."""
        t = load_templates()[q.template]
        return canonical(t.naive(self.frames, q), t.type_of(q))


@pytest.fixture
def tiny(tmp_path):
    """Factory: ``tiny({"events": df, ...})`` → TinyBundle."""
    n = [0]

    def make(tables: dict[str, pd.DataFrame]) -> TinyBundle:
        n[0] += 1
        return TinyBundle(tmp_path / f"b{n[0]}", tables)

    return make
