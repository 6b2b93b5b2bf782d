"""Fixtures of the knowledge tests: the packaged domain catalog, parsed once per module."""

from __future__ import annotations

import pytest

from knowledge.catalog import CATALOG_DIR, load_catalog_from


@pytest.fixture(scope="module")
def catalog():
    """The whole catalog (every file of knowledge/catalog), validated."""
    return load_catalog_from(CATALOG_DIR)
