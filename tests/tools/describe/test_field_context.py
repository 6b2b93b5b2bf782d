"""Context-aware matching (issue 29): a word shared by several fields does not pull another field's archetype
into a description, the description's own field still matches, and the matcher's precision and recall on the
labelled phrase→entry set stay above what it had before."""

from __future__ import annotations

import pytest

from knowledge.catalog import load_catalog
from tests.tools.describe.matcher_pairs import half, load_pairs, score
from tools.describe.field_context import accept, read_field_context
from tools.describe.match_context import match_in_context
from tools.describe.understand import understand

CATALOG = load_catalog()
PRISON = ("A prison with 300 cells on 6 wings; each cell door reports open or closed and the cell temperature "
          "every minute for a month.")
TOWERS = "120 cell towers reporting dropped call rate, throughput and connected users every 15 minutes over 3 days"


def test_a_description_names_its_field_by_more_than_one_shared_word():
    assert read_field_context(TOWERS, CATALOG).own == {"network"}
    assert read_field_context(PRISON, CATALOG).own == frozenset()
    assert "energy" in read_field_context("40 turbines reporting power output and rotor speed", CATALOG).own


def test_a_shared_word_does_not_bring_another_fields_archetype():
    prison = understand(PRISON, CATALOG)
    assert prison.entity.catalog_id is None  # a prison cell is no radio cell
    assert all(m.catalog_id != "battery_cell_temperature" for m in prison.entity.measurements)
    assert "no catalog field" in prison.evidence["field"]
    towers = understand(TOWERS, CATALOG)
    assert towers.entity.catalog_id == "cell_site"
    assert {m.catalog_id for m in towers.entity.measurements} >= {"call_drop_rate", "connected_users"}


@pytest.mark.parametrize(("phrase", "sentence", "want"), [
    ("run", "Each bakery oven run bakes 40 loaves.", None),
    ("power", "Each kiln logs its power draw.", None),
    ("session", "Each tattoo session is booked for 1 to 6 hours.", None),
    ("credit score", "Each loan application has a credit score.", "credit_score"),  # said word for word
])
def test_matches_in_context(phrase, sentence, want):
    found = match_in_context(CATALOG, "measurements" if " " in phrase else "entities", phrase, sentence, sentence)
    assert (found.id if found else None) == want


def test_accept_says_why_it_refuses():
    ok, why = accept(CATALOG, "entities", "cell", ("cell",), read_field_context(PRISON, CATALOG))
    assert not ok and "network" in why and "shared word" in why


def test_matcher_on_the_labelled_pairs_beats_its_first_sight_score():
    """First sight (before issue 29): precision 0.638, recall 0.784 on all 608; 0.621 / 0.758 on the held-out
    half. The thresholds were calibrated on the other half."""
    held_out = score([c for c in load_pairs() if half(c) == "held_out"])
    assert held_out["precision"] >= 0.88 and held_out["recall"] >= 0.80, held_out
