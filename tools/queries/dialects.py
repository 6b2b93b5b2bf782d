"""``gold_sql`` in the warehouses' dialects: sqlglot transpiles the DuckDB gold SQL to Spark SQL,
Snowflake, BigQuery, PostgreSQL and Trino, with our own rewrites where sqlglot's output is wrong or
missing for a construct the SQL compiler uses (each rewrite below says which). Tests run the
Postgres and Spark versions on real engines over every pack's suite and compare with the answer.

Composite answers (DESIGN "canonical answer encodings") come back in each engine's natural nested
type: Postgres returns JSON (``json_build_object``/``json_agg``/``json_object_agg``), Spark, Trino,
Snowflake and BigQuery their struct, array and map types.
"""

from __future__ import annotations

import functools

DIALECTS = ("spark", "snowflake", "bigquery", "postgres", "trino")


def _epoch_us(x, dialect: str):
    """Microseconds since the epoch of a timestamp (DuckDB ``epoch_us``)."""
    from sqlglot import exp, parse_one

    sql = {"postgres": "CAST(EXTRACT(EPOCH FROM _x_) * 1000000 AS BIGINT)", "spark": "UNIX_MICROS(_x_)",
           "bigquery": "UNIX_MICROS(_x_)", "snowflake": "DATE_PART(EPOCH_MICROSECOND, _x_)",
           "trino": "CAST(TO_UNIXTIME(_x_) * 1000000 AS BIGINT)"}[dialect]
    tree = parse_one(sql, read=dialect)
    return tree.transform(lambda n: x.copy() if isinstance(n, exp.Column) and n.name == "_x_" else n)


def _epoch_s(x, dialect: str):
    """Seconds since the epoch with the fraction (DuckDB ``epoch``; Spark's UNIX_TIMESTAMP truncates)."""
    from sqlglot import exp

    return exp.Div(this=_epoch_us(x, dialect), expression=exp.Literal.number("1e6"))


def _microseconds(n, dialect: str):
    """An interval of ``n`` microseconds (DuckDB ``to_microseconds``)."""
    from sqlglot import exp, parse_one

    if dialect in ("bigquery", "snowflake"):
        return exp.Interval(this=n.copy(), unit=exp.Var(this="MICROSECOND"))
    if dialect == "trino" and isinstance(n, exp.Literal) and not n.is_string:  # day-to-second fields only
        return exp.Interval(this=exp.Literal.string(f"{int(n.this) / 1e6:.6f}"), unit=exp.Var(this="SECOND"))
    sql = {"postgres": "(_n_) * INTERVAL '1 microsecond'",
           "spark": "MAKE_DT_INTERVAL(0, 0, 0, CAST(_n_ AS DECIMAL(18, 6)) / 1000000)",
           "trino": "PARSE_DURATION(CAST(_n_ AS VARCHAR) || 'us')"}[dialect]
    tree = parse_one(sql, read=dialect)
    return tree.transform(lambda c: n.copy() if isinstance(c, exp.Column) and c.name == "_n_" else c)


def _order_of(agg):
    """``(inner expression, [Ordered])`` of an aggregate's argument (``list(x ORDER BY ...)``)."""
    from sqlglot import exp

    inner = agg.this
    if isinstance(inner, exp.Order):
        return inner.this, list(inner.expressions)
    return inner, []


def _pg_json(node):
    """Postgres has no struct literal: structs and tuples become JSON."""
    from sqlglot import exp

    if isinstance(node, exp.Struct):
        args = []
        for e in node.expressions:
            if isinstance(e, exp.PropertyEQ | exp.Alias):
                args += [exp.Literal.string(e.this.name if isinstance(e, exp.PropertyEQ) else e.alias), e.expression
                         if isinstance(e, exp.PropertyEQ) else e.this]
            else:
                args += [exp.Literal.string(f"f{len(args) // 2}"), e]
        return exp.Anonymous(this="JSON_BUILD_OBJECT", expressions=args)
    if isinstance(node, exp.Tuple):
        return exp.Anonymous(this="JSON_BUILD_ARRAY", expressions=list(node.expressions))
    return node


def _postgres(node):
    from sqlglot import exp

    if isinstance(node, exp.MapFromEntries) and isinstance(node.this, exp.ArrayAgg):
        inner, order = _order_of(node.this)
        if isinstance(inner, exp.Tuple) and len(inner.expressions) == 2:  # map_from_entries(list((k, v)))
            k, v = inner.expressions
            agg = exp.Anonymous(this="JSON_OBJECT_AGG", expressions=[k, v])
            return agg if not order else exp.Anonymous(this="JSON_OBJECT_AGG", expressions=[
                k, exp.Order(this=v, expressions=order)])
    if isinstance(node, exp.ArrayAgg):
        inner, order = _order_of(node)
        if isinstance(inner, exp.Tuple | exp.Struct):
            arg = _pg_json(inner)
            return exp.Anonymous(this="JSON_AGG", expressions=[exp.Order(this=arg, expressions=order) if order else arg])
    if isinstance(node, exp.Struct):
        return _pg_json(node)
    if isinstance(node, exp.Explode) and isinstance(node.this, exp.GenerateSeries):
        return node.this  # unnest(range(a, b)): generate_series already returns rows
    if isinstance(node, exp.ArgMax | exp.ArgMin):  # (array_agg(x ORDER BY t DESC))[1]; DuckDB skips NULL keys
        desc = isinstance(node, exp.ArgMax)
        key = node.expression
        agg = exp.ArrayAgg(this=exp.Order(this=node.this, expressions=[
            exp.Ordered(this=key, desc=desc, nulls_first=False)]))
        filt = exp.Filter(this=agg, expression=exp.Where(this=exp.Not(this=exp.Is(this=key.copy(), expression=exp.Null()))))
        return exp.Bracket(this=exp.Paren(this=filt), expressions=[exp.Literal.number(0)])  # sqlglot adds 1
    if isinstance(node, exp.Subquery) and not node.alias and isinstance(node.parent, exp.From | exp.Join):
        return exp.Subquery(this=node.this, alias=exp.TableAlias(this=exp.to_identifier("_sq")))
    if isinstance(node, exp.Select) and isinstance(node.args.get("group"), exp.Group) and node.args["group"].args.get("all"):
        keep = [exp.Literal.number(i) for i, e in enumerate(node.expressions, 1) if not e.find(exp.AggFunc)]
        node.set("group", exp.Group(expressions=keep))
    return node


def _spark_sorted_list(node, where=None):
    """Spark's collect_list has no ORDER BY: sort the collected structs with a comparator, then keep
    the values (``list(x ORDER BY k1 DESC, k2) [FILTER (WHERE ...)]``)."""
    from sqlglot import exp, parse_one

    inner, order = _order_of(node)
    if not order:
        return None
    keys = [exp.alias_(o.this.copy(), f"_k{i}") for i, o in enumerate(order)]
    collected = f"COLLECT_LIST(NAMED_STRUCT({', '.join(f'{chr(39)}_k{i}{chr(39)}, _K{i}_' for i in range(len(order)))}, '_v', _V_))"
    cases = []
    for i, o in enumerate(order):
        lt, gt = ("1", "-1") if o.args.get("desc") else ("-1", "1")
        cases.append(f"WHEN _l._k{i} < _r._k{i} THEN {lt} WHEN _l._k{i} > _r._k{i} THEN {gt}")
    sql = f"TRANSFORM(ARRAY_SORT({collected}, (_l, _r) -> CASE {' '.join(cases)} ELSE 0 END), _s -> _s._v)"
    tree = parse_one(sql, read="spark")
    subs = {f"_K{i}_": k.this for i, k in enumerate(keys)} | {"_V_": inner}

    def put(n):
        if isinstance(n, exp.Column) and n.name in subs:
            return subs[n.name].copy()
        return n

    tree = tree.transform(put)
    if where is not None:  # the aggregate's FILTER goes on the collect_list inside
        collect = tree.find(exp.ArrayAgg)
        collect.replace(exp.Filter(this=collect.copy(), expression=where.copy()))
    return tree


def _spark(node):
    from sqlglot import exp

    if isinstance(node, exp.CTE) and node.args.get("materialized") is not None:
        node.set("materialized", None)  # Spark has no [NOT] MATERIALIZED hint
    if isinstance(node, exp.Filter) and isinstance(node.this, exp.ArrayAgg):
        return _spark_sorted_list(node.this, node.expression) or node
    if isinstance(node, exp.ArrayAgg):
        return _spark_sorted_list(node) or node
    if isinstance(node, exp.TimeToUnix):
        return _epoch_s(node.this, "spark")
    if isinstance(node, exp.PercentileCont) and node.expression is not None:  # Spark 4: percentile_cont(p) WITHIN GROUP
        return exp.Anonymous(this="PERCENTILE", expressions=[node.this, node.expression])
    return node


def _spark_doubles(node):
    """DuckDB computes with a fractional literal (``/ 1000000.0``) in DOUBLE; Spark would use DECIMAL
    and cut the result's scale to 6 digits."""
    from sqlglot import exp

    if isinstance(node, exp.Literal) and not node.is_string and ("." in node.this or "e" in node.this.lower()):
        if not isinstance(node.parent, exp.Cast | exp.DataType):
            return exp.Cast(this=node.copy(), to=exp.DataType.build("DOUBLE"))
    return node


def _common(dialect: str):
    def fix(node):
        from sqlglot import exp

        if isinstance(node, exp.Anonymous) and node.name.lower() == "epoch_us":
            return _epoch_us(node.expressions[0], dialect)
        if isinstance(node, exp.Anonymous) and node.name.lower() == "to_microseconds":
            return _microseconds(node.expressions[0], dialect)
        if isinstance(node, exp.DateDiff) and node.text("unit").lower() in ("microsecond", "microseconds", "us"):
            return exp.Paren(this=exp.Sub(this=_epoch_us(node.this, dialect),
                                          expression=_epoch_us(node.expression, dialect)))
        return node

    return fix


@functools.lru_cache(maxsize=4096)
def transpile(sql: str, dialect: str) -> str:
    """``sql`` (DuckDB) in ``dialect`` (one of ``DIALECTS``)."""
    import sqlglot
    from sqlglot.errors import ErrorLevel

    if dialect not in DIALECTS:
        raise ValueError(f"unknown SQL dialect {dialect!r}; use one of {', '.join(DIALECTS)}")
    tree = sqlglot.parse_one(sql, read="duckdb").transform(_common(dialect))
    if dialect == "postgres":
        tree = tree.transform(_postgres)
    elif dialect == "spark":
        tree = tree.transform(_spark).transform(_spark_doubles)
    # sqlglot logs what it cannot express (e.g. NULLS LAST in BigQuery's ARRAY_AGG); the Postgres and
    # Spark versions are executed by the tests, the other three are best effort (docs/SCALE.md)
    return tree.sql(dialect=dialect, unsupported_level=ErrorLevel.IGNORE)


def gold_sql_dialects(sql: str) -> dict[str, str]:
    """``{dialect: sql}`` for every warehouse dialect. A construct our rewrites do not know falls back
    to sqlglot's own output; SQL sqlglot cannot transpile at all is left out (never a wrong query
    that looks right: the tests run every pack's Postgres and Spark versions)."""
    import sqlglot
    from sqlglot.errors import ErrorLevel

    out = {}
    for d in DIALECTS:
        try:
            out[d] = transpile(sql, d)
        except (sqlglot.errors.SqlglotError, ValueError, KeyError, AttributeError):
            try:
                out[d] = sqlglot.transpile(sql, read="duckdb", write=d, unsupported_level=ErrorLevel.IGNORE)[0]
            except sqlglot.errors.SqlglotError:
                continue
    return out
