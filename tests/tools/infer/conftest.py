"""Shared fixtures of the inference tests: the public reference tables (read in place, never copied)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.reference_data import reference_dir


@pytest.fixture(scope="session")
def ref() -> Path:
    return reference_dir()
