"""Read-only queries on a bundle's ``data.duckdb`` for the corpus checker (columns, spans, means)."""

from __future__ import annotations

import duckdb


class BundleData:
    """The bundle's tables: column names, distinct labels and numeric aggregates of one column.

    Numeric queries return None when the column is not numeric."""

    def __init__(self, con: duckdb.DuckDBPyConnection):
        self.con = con
        rows = con.execute("SELECT table_name FROM information_schema.tables").fetchall()
        self.tables = {r[0] for r in rows}
        self._columns: dict[str, dict[str, str]] = {}

    def columns(self, table: str | None) -> dict[str, str]:
        """Column name -> DuckDB type of ``table`` (empty when the table does not exist)."""
        if not table or table not in self.tables:
            return {}
        if table not in self._columns:
            rows = self.con.execute(f'DESCRIBE "{table}"').fetchall()
            self._columns[table] = {r[0]: str(r[1]) for r in rows}
        return self._columns[table]

    def distinct(self, table: str, column: str) -> list[str]:
        """The distinct non-null values of the column, as text."""
        rows = self.con.execute(f'SELECT DISTINCT CAST("{column}" AS VARCHAR) FROM "{table}" '
                                f'WHERE "{column}" IS NOT NULL').fetchall()
        return [r[0] for r in rows]

    def span(self, table: str, column: str) -> tuple[float | None, float | None, int] | None:
        """(min, max, number of non-null values) of a numeric column."""
        try:
            return self.con.execute(f'SELECT min(CAST("{column}" AS DOUBLE)), max(CAST("{column}" AS DOUBLE)), '
                                    f'count("{column}") FROM "{table}"').fetchone()
        except duckdb.Error:
            return None

    def fractional(self, table: str, column: str) -> int | None:
        """How many non-null values of a numeric column are not whole numbers."""
        try:
            return self.con.execute(
                f'SELECT count(*) FROM "{table}" WHERE "{column}" IS NOT NULL '
                f'AND CAST("{column}" AS DOUBLE) <> round(CAST("{column}" AS DOUBLE))').fetchone()[0]
        except duckdb.Error:
            return None

    def mean_where(self, table: str, column: str, label_column: str, labels: list[str]) -> float | None:
        """The mean of a numeric column over the rows whose ``label_column`` is one of ``labels``."""
        if not labels:
            return None
        marks = ", ".join("?" for _ in labels)
        try:
            return self.con.execute(f'SELECT avg(CAST("{column}" AS DOUBLE)) FROM "{table}" '
                                    f'WHERE CAST("{label_column}" AS VARCHAR) IN ({marks})', labels).fetchone()[0]
        except duckdb.Error:
            return None
