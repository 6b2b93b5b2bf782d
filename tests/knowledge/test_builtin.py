"""The built-in documents: every pattern kind and query template once, packs chunked per entity
type / state machine / measurement group, the persona library read when present."""

from __future__ import annotations

from collections import Counter

import pytest

from knowledge import builtin
from knowledge.builtin import (
    builtin_docs,
    builtin_fingerprint,
    header_sections,
    library_persona_docs,
    pack_docs,
    pattern_docs,
    template_docs,
)
from knowledge.packs import list_packs, load_pack
from tools.patterns.model import KINDS
from tools.queries.registry import load_templates


def test_one_document_per_pattern_kind():
    docs = pattern_docs()
    assert sorted(d.id for d in docs) == sorted(f"pattern:{k}" for k in KINDS) and len(KINDS) == 14
    for d in docs:
        assert d.domains and "Parameters:" in d.text and "Typical magnitudes:" in d.text


def test_one_document_per_query_template_with_its_family():
    templates = load_templates()
    docs = {d.id.removeprefix("template:"): d for d in template_docs()}
    assert sorted(docs) == sorted(templates) and len(docs) == 53
    for name, t in templates.items():
        assert t.family in docs[name].tags and "Exposes:" in docs[name].text


@pytest.mark.parametrize("name", ["ecommerce", "iot", "observability", "security", "telecom"])
def test_packs_are_chunked_per_entity_state_machine_and_measurement_group(name):
    spec = load_pack(name)
    ids = {d.id for d in pack_docs(name)}
    for e in spec.entities:
        assert f"pack:{name}:entity:{e.name}" in ids
        if e.states is not None:
            assert f"pack:{name}:states:{e.name}" in ids
        if any(not m.hidden for m in e.measurements):
            assert f"pack:{name}:measurements:{e.name}:0" in ids
    assert f"pack:{name}:section:typical_incidents" in ids
    assert {f"persona:{name}:{p.name}" for p in spec.personas} <= ids
    assert all(d.domains == [name] for d in pack_docs(name))


def test_measurement_groups_name_every_visible_measurement():
    spec = load_pack("telecom")
    text = " ".join(d.text for d in pack_docs("telecom") if ":measurements:" in d.id)
    assert all(m.name in text for e in spec.entities for m in e.measurements if not m.hidden)


def test_header_sections_parse_the_pack_comment():
    text = "# ====\n# DOMAIN\n#   A shop.\n#   Sessions.\n#\n# TABLES (like the reference)\n#   users\nname: x\n# LATE\n"
    assert header_sections(text) == {"domain": "A shop. Sessions.", "tables": "like the reference users"}


def test_builtin_ids_are_unique_and_cover_every_kind():
    docs = builtin_docs()
    assert len({d.id for d in docs}) == len(docs)
    kinds = Counter(d.kind for d in docs)
    assert kinds["pattern"] == 14 and kinds["template"] == 53 and kinds["persona"] >= 5
    assert {d.domains[0] for d in docs if d.kind == "pack"} == set(list_packs())


def test_persona_library_is_optional_and_read_in_either_shape(tmp_path):
    assert library_persona_docs(tmp_path / "absent.yaml") == []
    as_list = tmp_path / "list.yaml"
    as_list.write_text("- name: sre_on_call\n  description: Wakes up at 3am.\n  domains: [observability]\n"
                       "  vocabulary: {p95_latency_ms: p95}\n- {description: no name, skipped}\n")
    [doc] = library_persona_docs(as_list)
    assert (doc.id, doc.kind, doc.domains) == ("persona:sre_on_call", "persona", ["observability"])
    assert "p95_latency_ms = p95" in doc.text
    as_map = tmp_path / "map.yaml"
    as_map.write_text("personas:\n  - {name: auditor, domain: security, style: formal}\n")
    [doc] = library_persona_docs(as_map)
    assert doc.domains == ["security"] and "formal" in doc.text


def test_persona_library_is_indexed_and_changes_the_fingerprint(tmp_path, monkeypatch):
    before = builtin_fingerprint()
    lib = tmp_path / "personas.yaml"
    lib.write_text("- {name: growth_analyst, description: Reads funnels., domains: [ecommerce]}\n")
    monkeypatch.setattr(builtin, "PERSONAS_FILE", lib)
    monkeypatch.setattr(builtin.library_persona_docs, "__defaults__", (lib,))
    assert builtin_fingerprint() != before
    assert "persona:growth_analyst" in {d.id for d in builtin_docs()}
