"""Every record's gold SQL in the Postgres and Spark dialects returns the record's answer, on the real
engines: the PostgreSQL the suite starts, and one local PySpark session for this module."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import pytest

from tools.bundle.layout import table_files, table_names
from tools.export import load_postgres
from tools.queries.answers import agree, canonical
from tools.queries.dialects import DIALECTS, gold_sql_dialects

PACKS = ("ecommerce", "iot", "observability", "security", "telecom")


def _records(bundle) -> list[dict]:
    return [json.loads(x) for x in (bundle / "qa.jsonl").read_text().splitlines()]


def _java_home() -> str:
    java = shutil.which("java")
    if java is None:
        pytest.fail("no java on PATH: install Debian's default-jre-headless (`make test` runs "
                    "make java), or `apt-get install -y default-jre-headless` as root", pytrace=False)
    return os.path.dirname(os.path.dirname(os.path.realpath(java)))


@pytest.fixture(scope="module")
def spark():
    """One small local Spark session (2 cores, UI off, loopback only, UTC)."""
    from pyspark.sql import SparkSession

    mp = pytest.MonkeyPatch()
    if "JAVA_HOME" not in os.environ:
        mp.setenv("JAVA_HOME", _java_home())
    mp.setenv("SPARK_LOCAL_IP", "127.0.0.1")
    s = (SparkSession.builder.master("local[2]").appName("chronoeval-gold-sql")
         .config("spark.ui.enabled", "false").config("spark.driver.memory", "512m")
         .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
         .config("spark.sql.session.timeZone", "UTC").config("spark.sql.shuffle.partitions", "1")
         .config("spark.sql.ansi.enabled", "false").config("spark.log.level", "ERROR")
         .config("spark.ui.showConsoleProgress", "false")
         # tiny tables: planning and code generation dominate, so interpret instead of compiling
         .config("spark.sql.codegen.wholeStage", "false").config("spark.sql.codegen.factoryMode", "NO_CODEGEN")
         .config("spark.sql.adaptive.enabled", "false").getOrCreate())
    yield s
    s.stop()
    mp.undo()


def _plain(v):
    """Spark / psycopg results as the Python values DuckDB gives (dicts for structs)."""
    if hasattr(v, "asDict"):
        return {k: _plain(x) for k, x in v.asDict().items()}
    if isinstance(v, list | tuple):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, dt.datetime) and v.tzinfo is None:
        return v.replace(tzinfo=dt.UTC)
    return v


def _check(r: dict, row) -> str | None:
    got = canonical(None if row is None else _plain(row[0]), r["answer_type"])
    if agree(got, r["answer"]):
        return None
    return f"{r['id']} ({r['template']}): got {got!r}, answer is {r['answer']!r}"


def test_every_record_carries_the_five_dialects(pack_suites):
    for pack in PACKS:
        for r in _records(pack_suites[pack]):
            assert set(r["gold_sql_dialects"]) == set(DIALECTS)
            assert r["gold_sql_dialects"] == gold_sql_dialects(r["gold_sql"])


@pytest.mark.slow
def test_postgres_gold_sql_returns_every_answer(pack_suites, postgres_dsn):
    import psycopg

    bad = []
    for pack in PACKS:
        load_postgres(pack_suites[pack], postgres_dsn, schema=pack, replace=True)
        with psycopg.connect(postgres_dsn, autocommit=True) as pg:
            pg.execute(f"SET search_path TO {pack}")
            pg.execute("SET TimeZone TO 'UTC'")
            for r in _records(pack_suites[pack]):
                try:
                    row = pg.execute(r["gold_sql_dialects"]["postgres"]).fetchone()
                except psycopg.Error as exc:
                    bad.append(f"{pack} {r['id']} ({r['template']}): {str(exc).splitlines()[0]}")
                    continue
                if (msg := _check(r, row)) is not None:
                    bad.append(f"{pack} {msg}")
    assert not bad, "\n".join(bad)


def _run_spark(spark, pack: str, r: dict) -> str | None:
    """None when the record's Spark SQL returns its answer, else what went wrong."""
    try:
        row = spark.sql(r["gold_sql_dialects"]["spark"]).first()
    except Exception as exc:  # noqa: BLE001 - every failure is listed with its record
        return f"{pack} {r['id']} ({r['template']}): {str(exc).splitlines()[0][:300]}"
    msg = _check(r, row)
    return None if msg is None else f"{pack} {msg}"


@pytest.mark.slow
def test_spark_gold_sql_returns_every_answer(pack_suites, spark):
    bad = []
    for pack in PACKS:
        bundle = pack_suites[pack]
        for name in table_names(bundle):
            spark.read.parquet(*[str(p) for p in table_files(bundle, name)]).cache().createOrReplaceTempView(name)
        with ThreadPoolExecutor(2) as pool:  # Spark plans one query while it runs another (≈1.4x)
            bad += [m for m in pool.map(partial(_run_spark, spark, pack), _records(bundle)) if m is not None]
    assert not bad, "\n".join(bad)
