"""The one place SQL text is built from names and values: quoted identifiers and literals.

Spec names are validated as identifiers, but a bundle may come from anyone and an answer or a
label may hold any text, so every name that enters SQL goes through ``quote_ident`` and every
value through ``quote_literal`` (standard SQL quoting, valid in DuckDB and PostgreSQL). A test
(``tests/tools/test_sqlsafe.py``) scans the code for SQL f-strings that interpolate names without them.
"""

from __future__ import annotations

import math


class UnsafeSQLText(ValueError):
    """A name or value that cannot be put into SQL at all (a NUL character)."""


def _text(value: str, what: str) -> str:
    if "\x00" in value:
        raise UnsafeSQLText(f"{what} {value[:40]!r} contains a NUL character, which SQL cannot hold")
    return value


def quote_ident(name: str) -> str:
    """``name`` as one double-quoted SQL identifier (``a"b`` -> ``"a""b"``); never split on dots."""
    if not isinstance(name, str) or not name:
        raise UnsafeSQLText(f"SQL identifier must be a non-empty string, got {name!r}")
    return '"' + _text(name, "SQL identifier").replace('"', '""') + '"'


def quote_qualified(*parts: str) -> str:
    """``schema.table`` from its parts, each quoted (``quote_qualified("baseline", "cells")``)."""
    return ".".join(quote_ident(p) for p in parts)


def quote_literal(value: object) -> str:
    """A SQL literal: NULL, TRUE/FALSE, an integer, a float (NaN and infinities as casts) or a
    single-quoted string (``O'Brien`` -> ``'O''Brien'``); anything else is quoted as ``str(value)``."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "CAST('NaN' AS DOUBLE)"
        if math.isinf(value):
            return f"CAST('{'-' if value < 0 else ''}Infinity' AS DOUBLE)"
        return repr(value)
    return "'" + _text(str(value), "SQL string").replace("'", "''") + "'"


def quote_path(path: object) -> str:
    """A file path as a SQL string literal (``COPY ... TO 'path'``, ``read_parquet('path')``)."""
    return quote_literal(str(path))
