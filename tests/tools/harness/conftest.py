"""A small generated iot bundle with its question suite, shared by the harness tests."""

from __future__ import annotations

import json

import pytest


@pytest.fixture(scope="session")
def iot_bundle(small_bundle):
    return small_bundle("iot", 15, 1)


@pytest.fixture(scope="session")
def iot_records(iot_bundle):
    return [json.loads(x) for x in (iot_bundle / "qa.jsonl").read_text().splitlines()]
