"""A small generated iot bundle with its question suite, shared by the harness tests."""

from __future__ import annotations

import json

import pytest

from tools.generate import generate_bundle
from tools.queries.suite import build_suite
from tools.spec import load_pack


@pytest.fixture(scope="session")
def iot_bundle(tmp_path_factory):
    d = tmp_path_factory.mktemp("harness") / "iot"
    generate_bundle(load_pack("iot"), d, scale=0.3, force=True)
    build_suite(d, n=15, seed=1)
    return d


@pytest.fixture(scope="session")
def iot_records(iot_bundle):
    return [json.loads(x) for x in (iot_bundle / "qa.jsonl").read_text().splitlines()]
