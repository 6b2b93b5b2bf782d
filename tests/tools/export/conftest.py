"""A throwaway PostgreSQL cluster (Debian's package: initdb/pg_ctl under /usr/lib/postgresql/*/bin,
run as the ``postgres`` user when the tests run as root) listening on 127.0.0.1 on a free port, and
a small generated bundle with its suite."""

from __future__ import annotations

import glob
import json
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest


def _pg_bin() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        pytest.fail("PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin: install Debian's "
                    "`postgresql` package (`make test` does it via make postgres, or run "
                    "`apt-get install -y postgresql` as root)", pytrace=False)
    return Path(found[-1]).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def postgres_dsn():
    bin_dir = _pg_bin()
    root = Path(tempfile.mkdtemp(prefix="chronoeval-pg-"))
    data, sock = root / "data", root / "sock"
    sock.mkdir()
    as_postgres = os.geteuid() == 0
    if as_postgres:
        shutil.chown(root, "postgres")
        shutil.chown(sock, "postgres")
    prefix = ["runuser", "-u", "postgres", "--"] if as_postgres else []
    port = _free_port()
    subprocess.run([*prefix, str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres",
                    "--no-sync", "-E", "UTF8"], check=True, capture_output=True)
    subprocess.run([*prefix, str(bin_dir / "pg_ctl"), "-D", str(data), "-w", "-l", str(root / "log"), "-o",
                    f"-p {port} -k {sock} -c listen_addresses=127.0.0.1 -c fsync=off", "start"],
                   check=True, capture_output=True)
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*prefix, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                       capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def export_bundle_dir(small_bundle):
    return small_bundle("telecom", 15, 2)


@pytest.fixture(scope="session")
def export_records(export_bundle_dir):
    return [json.loads(x) for x in (export_bundle_dir / "qa.jsonl").read_text().splitlines()]
