"""The shortcuts that keep the checks fast give the results of the plain computation: the median,
the shared series scan (prefetch) and running the quality pass in a second thread."""

from __future__ import annotations

import numpy as np
import pytest

from tools.bundle.opened import open_bundle
from tools.checks import run
from tools.checks.quality import quality_checks
from tools.checks.series import median

from ._helpers import KINDS, TELECOM, make_bundle


def test_median_equals_numpy():
    rng = np.random.default_rng(0)
    for n in [1, 2, 3, 8, 9, 672, 673]:
        for v in (rng.standard_normal(n), rng.integers(0, 4, n).astype(float), np.round(rng.standard_normal(n), 1)):
            assert median(v) == float(np.median(v))


@pytest.fixture(scope="module", params=["kinds", "telecom"])
def bundle(request, tmp_path_factory):
    text = {"kinds": KINDS, "telecom": TELECOM}[request.param]
    return make_bundle(tmp_path_factory.mktemp(request.param) / "out", text, with_baseline=True)


def _dump(checks):
    return [c.model_dump() for c in checks]


def test_prefetch_gives_the_same_pattern_checks(bundle, monkeypatch):
    b = open_bundle(bundle, rowids=True)
    try:
        shared = _dump(run.pattern_checks(b))
        assert any(k[0] == "series" for k in b.cache)  # the checks were served from the shared scan
    finally:
        b.close()
    monkeypatch.setattr(run, "_prefetch", lambda b, only: None)
    b = open_bundle(bundle, rowids=True)
    try:
        assert _dump(run.pattern_checks(b)) == shared
    finally:
        b.close()


def test_threaded_checks_equal_serial_checks(bundle):
    b = open_bundle(bundle, rowids=True)
    try:
        serial = _dump(quality_checks(b) + run.pattern_checks(b))
    finally:
        b.close()
    b = open_bundle(bundle, rowids=True)
    try:
        assert _dump(run.all_checks(b)) == serial
    finally:
        b.close()
