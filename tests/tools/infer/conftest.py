"""Shared fixtures of the inference tests: the public reference tables (read in place, never copied)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def reference_dir() -> Path:
    """$CHRONOEVAL_REFERENCE_DATA, else ../shared beside the repository, else the workplace's copy.
    Missing data fails the tests: they are acceptance tests."""
    here = Path(__file__).resolve().parents[3]
    tried = [Path(os.environ["CHRONOEVAL_REFERENCE_DATA"])] if os.environ.get("CHRONOEVAL_REFERENCE_DATA") else []
    tried += [here.parent / "shared" / "reference-data", Path("/work/shared/reference-data")]
    for d in tried:
        if (d / "agentfuel-public" / "cell_site_data.csv").is_file():
            return d / "agentfuel-public"
    pytest.fail("public reference tables not found in " + ", ".join(map(str, tried)) +
                "; set CHRONOEVAL_REFERENCE_DATA to the reference-data directory", pytrace=False)


@pytest.fixture(scope="session")
def ref() -> Path:
    return reference_dir()
