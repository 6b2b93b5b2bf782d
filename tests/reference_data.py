"""Where the public reference tables are: read in place, never copied into the repository."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def reference_dir() -> Path:
    """$CHRONOEVAL_REFERENCE_DATA, else ../shared beside the repository, else the workplace's copy
    (CI clones the repository elsewhere). Missing data fails the tests: they are acceptance tests."""
    here = Path(__file__).resolve().parents[1]
    tried = [Path(os.environ["CHRONOEVAL_REFERENCE_DATA"])] if os.environ.get("CHRONOEVAL_REFERENCE_DATA") else []
    tried += [here.parent / "shared" / "reference-data", Path("/work/shared/reference-data")]
    for d in tried:
        if (d / "agentfuel-public" / "cell_site_data.csv").is_file():
            return d / "agentfuel-public"
    pytest.fail("public reference tables not found in " + ", ".join(map(str, tried)) +
                "; set CHRONOEVAL_REFERENCE_DATA to the reference-data directory", pytrace=False)
