"""The whole-world checks of the description corpora (issue 29): 'foreign' names a field the world must not
borrow from, 'words_only' that every table and column is named from the text; both can fail."""

from __future__ import annotations

import pytest

from tests.graph.corpus_expectations import check_bundle, count_expectations, evaluate_bundle
from tests.graph.corpus_provenance import name_problem, text_stems


@pytest.fixture(scope="module")
def iot_bundle(tmp_path_factory):
    from knowledge.packs import load_pack
    from tools.generate import generate_bundle

    out = tmp_path_factory.mktemp("provenance") / "iot"
    generate_bundle(load_pack("iot"), out, scale=0.2, force=True)
    return out


IOT_TEXT = ("300 sensors reporting temperature, pressure, humidity, battery level and signal strength every 15 minutes; "
            "each sensor has a firmware version and a zone; sensors are operational, warning, critical, in "
            "maintenance or offline")


def test_a_name_is_from_the_text_or_a_fragment():
    stems = text_stems("Kilns log their chamber temperature in °F; firings are loaded, fired and unloaded.")
    assert name_problem("chamber_temperature", stems) is None
    assert name_problem("kiln_metrics", stems) is None  # the metric table's suffix is chronoeval's own
    assert "does not say (cpu, usage)" in name_problem("cpu_usage", stems)
    assert "fragment" in name_problem("and_the_firing", stems)
    assert "fragment" in name_problem("hits", text_stems("an outage hits 6 stores"))


def test_foreign_names_and_words_not_from_the_text_are_unmet(iot_bundle):
    clean = {"foreign": ["rsrp|sinr|handover"], "entities": [{"match": "sensor"}]}
    assert check_bundle(iot_bundle, clean, IOT_TEXT) == []
    borrowed = {"foreign": ["firmware|zone"], "words_only": True, "entities": [{"match": "sensor"}]}
    unmet = check_bundle(iot_bundle, borrowed, "sensors report temperature")  # the text says none of the rest
    assert len(unmet) == 2, unmet
    assert "Borrowed from another field" in unmet[0] and "firmware" in unmet[0]
    assert "Names not from the text" in unmet[1] and "humidity" in unmet[1]
    assert len(evaluate_bundle(iot_bundle, borrowed, "x")) == count_expectations(borrowed) == 3
