"""Memory plumbing with deterministic fake embedders: save/load, incremental adds, rebuild on an
embedder change, filters, near-duplicate merging, the IVF path, torn appends."""

from __future__ import annotations

import json

import numpy as np
import pytest

from knowledge import Doc, ExperienceNote, HashEmbedder, Memory
from knowledge.embed import normalize
from knowledge.store import read_meta


class CountingEmbedder(HashEmbedder):
    """HashEmbedder that counts the texts it embeds (to see what is re-embedded)."""

    def __init__(self, dim: int = 128, name: str | None = None):
        super().__init__(dim)
        self.name = name or self.name
        self.calls = 0

    def embed(self, texts):
        self.calls += len(texts)
        return super().embed(texts)


class TableEmbedder:
    """Maps known texts to given vectors (anything else: a fixed far-away vector)."""

    name, dim = "table-3", 3

    def __init__(self, table: dict[str, list[float]]):
        self.table = table

    def embed(self, texts):
        return normalize(np.array([self.table.get(t, [0.0, 0.0, 1.0]) for t in texts], dtype=np.float32))


def _doc(i: int, **kw) -> Doc:
    return Doc(id=f"doc:{i}", kind="doc", title=f"document {i}", text=kw.pop("text", f"alpha{i} beta{i} gamma{i}"),
               **kw)


def test_first_use_indexes_builtins_and_reload_does_not_re_embed(tmp_path):
    emb = CountingEmbedder()
    mem = Memory(tmp_path, emb)
    hits = mem.search("stuck sensor repeating the same value flatline", k=3)
    n_builtin = len(mem)
    assert emb.calls == n_builtin + 1 and n_builtin > 100
    assert mem.last_rebuild.reason == "no index yet"
    assert hits[0].doc.id == "pattern:flatline"
    meta = read_meta(tmp_path / "index")
    assert (meta.embedder, meta.dim, meta.count) == (emb.name, 128, n_builtin)

    again = CountingEmbedder()
    mem2 = Memory(tmp_path, again)
    assert [h.doc.id for h in mem2.search("stuck sensor repeating the same value flatline", k=3)] == \
        [h.doc.id for h in hits]
    assert again.calls == 1 and mem2.last_rebuild is None  # only the query: the index was loaded
    mem2.search("stuck sensor repeating the same value flatline", k=1, filters={"kind": "pattern"})
    assert again.calls == 1  # a repeated query reuses its vector


def test_incremental_add_persists_and_skips_known_ids(tmp_path):
    emb = CountingEmbedder()
    mem = Memory(tmp_path, emb, include_builtin=False)
    assert mem.add_documents([_doc(1), _doc(2)]) == 2
    before = emb.calls
    assert mem.add_documents([_doc(2), _doc(3), _doc(3)]) == 1
    assert emb.calls == before + 1
    assert (tmp_path / "documents.jsonl").read_text().count("\n") == 3
    mem2 = Memory(tmp_path, CountingEmbedder(), include_builtin=False)
    assert len(mem2) == 3
    assert mem2.search("alpha3 beta3 gamma3", k=1)[0].doc.id == "doc:3"


def test_embedder_change_rebuilds_and_keeps_added_documents_and_notes(tmp_path):
    mem = Memory(tmp_path, CountingEmbedder(128), include_builtin=False)
    mem.add_documents([_doc(1)])
    mem.remember(ExperienceNote(kind="user_preference", text="prefers a 5-minute cadence for telecom"))
    for other in (CountingEmbedder(64), CountingEmbedder(128, name="another-model")):  # dim, then name
        mem2 = Memory(tmp_path, other, include_builtin=False)
        hits = mem2.search("5-minute cadence", k=2)
        assert mem2.last_rebuild is not None and mem2.last_rebuild.reason.startswith("embedder changed")
        assert other.calls == 2 + 1  # both documents re-embedded, plus the query
        assert hits[0].doc.kind == "note" and {h.doc.id for h in hits} >= {"doc:1"}
        meta = read_meta(tmp_path / "index")
        assert (meta.embedder, meta.dim) == (other.name, other.dim)


def test_same_embedder_rebuild_reuses_vectors_of_unchanged_texts(tmp_path):
    emb = CountingEmbedder()
    mem = Memory(tmp_path, emb, include_builtin=False)
    mem.add_documents([_doc(i) for i in range(5)])
    emb.calls = 0
    summary = mem.rebuild()
    assert (summary.documents, summary.embedded, emb.calls) == (5, 0, 0)


def test_builtin_change_triggers_reindex(tmp_path, monkeypatch):
    mem = Memory(tmp_path, CountingEmbedder())
    len(mem)
    monkeypatch.setattr("knowledge.builtin.builtin_fingerprint", lambda: "changed")
    mem2 = Memory(tmp_path, CountingEmbedder())
    len(mem2)
    assert mem2.last_rebuild.reason == "built-in documents changed"
    assert mem2.last_rebuild.embedded == 0  # same embedder and texts: every vector reused


def test_filters_by_domain_kind_tag_and_note_kind(tmp_path):
    mem = Memory(tmp_path, CountingEmbedder())
    mem.remember(ExperienceNote(kind="agent_failure", text="agent counted rows instead of sessions",
                                domain="ecommerce", tags=["conversion_rate", "run-42"]))
    mem.remember(ExperienceNote(kind="user_preference", text="user prefers a 5-minute cadence", domain="telecom"))
    q = "outage of a cell"
    mem.remember(ExperienceNote(kind="generation_lesson", text="outage windows need whole hours"))  # no domain
    telecom = mem.search(q, k=200, filters={"domain": "telecom"})
    assert all(h.doc.domains in ([], ["telecom"]) or "telecom" in h.doc.domains for h in telecom)
    assert {h.doc.kind for h in telecom if not h.doc.domains} >= {"template", "note"}  # general documents
    strict = mem.search(q, k=200, filters={"domain": "telecom", "general": False})
    assert strict and all("telecom" in h.doc.domains for h in strict)
    assert {h.doc.id for h in strict} == {h.doc.id for h in telecom if h.doc.domains}
    assert {h.doc.kind for h in mem.search(q, k=50, filters={"kind": "pattern"})} == {"pattern"}
    assert {h.doc.kind for h in mem.search(q, k=50, filters={"kind": ["pattern", "template"]})} == \
        {"pattern", "template"}
    notes = mem.search(q, k=5, filters={"kind": "agent_failure"})
    assert [h.doc.note_kind for h in notes] == ["agent_failure"]
    assert sorted(h.doc.domains for h in mem.search(q, k=5, filters={"kind": "note", "domain": "telecom"})) == \
        [[], ["telecom"]]
    assert [h.doc.id for h in mem.search(q, k=5, filters={"tag": "run-42"})] == [notes[0].doc.id]
    assert mem.search(q, k=5, filters={"domain": "no-such-domain", "general": False}) == []
    assert all(not h.doc.domains for h in mem.search(q, k=5, filters={"domain": "no-such-domain"}))
    with pytest.raises(ValueError, match="unknown filter"):
        mem.search(q, filters={"colour": "red"})


def test_unfiltered_search_caps_chunks_per_pack(tmp_path):
    mem = Memory(tmp_path, CountingEmbedder())
    capped = mem.search("telecom pack cell_site transport_link core_node", k=8)
    per_pack = [h.doc.id.split(":")[1] for h in capped if h.doc.kind == "pack"]
    assert len(capped) == 8 and max(per_pack.count(p) for p in set(per_pack)) <= 2
    uncapped = mem.search("telecom pack cell_site transport_link core_node", k=8, per_pack=None)
    assert sum(h.doc.id.startswith("pack:telecom") for h in uncapped) > 2
    assert mem.search("telecom", k=0) == []
    assert len(Memory(tmp_path / "empty", CountingEmbedder(), include_builtin=False).search("x", k=3)) == 0
    scores = [h.score for h in capped]
    assert scores == sorted(scores, reverse=True)


def test_near_duplicates_merge_above_cosine_095_with_a_count(tmp_path):
    base, close, far = "disk full on db host", "disk nearly full on db host", "user likes dark plots"
    # cosines with base: close 0.96 (merge), far 0.94 (keep apart)
    table = {base: [1.0, 0.0, 0.0], close: [0.96, np.sqrt(1 - 0.96 ** 2), 0.0],
             far: [0.94, -np.sqrt(1 - 0.94 ** 2), 0.0]}
    mem = Memory(tmp_path, TableEmbedder(table), include_builtin=False)
    first = mem.remember(ExperienceNote(kind="generation_lesson", text=base, tags=["a"], source="runs/1"))
    merged = mem.remember(ExperienceNote(kind="generation_lesson", text=close, tags=["b"], source="runs/2"))
    assert merged.id == first.id and merged.count == 2 and merged.tags == ["a", "b"]
    apart = mem.remember(ExperienceNote(kind="generation_lesson", text=far))
    assert apart.id != first.id and apart.count == 1
    other_kind = mem.remember(ExperienceNote(kind="judge_rejection", text=base))
    assert other_kind.id != first.id  # only notes of the same kind (and domain) merge
    rows = [json.loads(x) for x in (tmp_path / "notes.jsonl").read_text().splitlines()]
    assert len(rows) == 4 and rows[1]["duplicate_of"] == first.id  # append-only: nothing rewritten
    assert {n.id: n.count for n in mem.notes()} == {first.id: 2, apart.id: 1, other_kind.id: 1}
    hit = Memory(tmp_path, TableEmbedder(table), include_builtin=False).search(
        base, k=1, filters={"kind": "generation_lesson"})[0]
    assert (hit.doc.id, hit.doc.count) == (f"note:{first.id}", 2)
    assert len(Memory(tmp_path, TableEmbedder(table), include_builtin=False)) == 3


def test_ivf_index_above_threshold_finds_the_same_documents(tmp_path):
    docs = [_doc(i) for i in range(300)]
    mem = Memory(tmp_path, CountingEmbedder(), include_builtin=False, ivf_threshold=200)
    mem.add_documents(docs[:150])
    assert mem._index.kind == "flat"
    mem.add_documents(docs[150:])
    assert mem._index.kind == "ivf"
    for i in (3, 160, 299):
        assert mem.search(f"alpha{i} beta{i} gamma{i}", k=1)[0].doc.id == f"doc:{i}"
    assert (tmp_path / "index" / "ivf.faiss").is_file()
    mem2 = Memory(tmp_path, CountingEmbedder(), include_builtin=False, ivf_threshold=200)
    mem2.add_documents([_doc(300)])
    assert mem2.search("alpha300 beta300 gamma300", k=1)[0].doc.id == "doc:300"


def test_torn_append_is_ignored_and_repaired(tmp_path):
    mem = Memory(tmp_path, CountingEmbedder(), include_builtin=False)
    mem.add_documents([_doc(1)])
    with (tmp_path / "index" / "docs.jsonl").open("a") as f:  # a crash after writing part of an append
        f.write('{"id": "doc:9", "kind": "doc", "ti')
    with (tmp_path / "index" / "vectors.f32").open("ab") as f:
        f.write(b"\0" * 100)
    mem2 = Memory(tmp_path, CountingEmbedder(), include_builtin=False)
    assert len(mem2) == 1
    mem2.add_documents([_doc(2)])
    mem3 = Memory(tmp_path, CountingEmbedder(), include_builtin=False)
    assert [mem3.search(f"alpha{i} beta{i} gamma{i}", k=1)[0].doc.id for i in (1, 2)] == ["doc:1", "doc:2"]
    assert mem3.last_rebuild is None


def test_missing_index_files_trigger_rebuild(tmp_path):
    mem = Memory(tmp_path, CountingEmbedder(), include_builtin=False)
    mem.add_documents([_doc(1), _doc(2)])
    (tmp_path / "index" / "vectors.f32").write_bytes(b"")
    mem2 = Memory(tmp_path, CountingEmbedder(), include_builtin=False)
    assert len(mem2) == 2 and mem2.last_rebuild.reason == "index files are incomplete"


def test_hash_embedder_is_deterministic_and_normalized():
    a, b = HashEmbedder(64).embed(["cell outage on site 4"]), HashEmbedder(64).embed(["cell outage on site 4"])
    assert np.array_equal(a, b) and abs(float(np.linalg.norm(a)) - 1) < 1e-6
    assert HashEmbedder(64).embed([]).shape == (0, 64)


def test_note_validation():
    with pytest.raises(ValueError):
        ExperienceNote(kind="gossip", text="x")
    with pytest.raises(ValueError):
        ExperienceNote(kind="agent_failure", text="   ")


def test_two_writers_on_one_directory_see_each_others_appends(tmp_path):
    first = Memory(tmp_path, CountingEmbedder(), include_builtin=False)
    second = Memory(tmp_path, CountingEmbedder(), include_builtin=False)
    first.add_documents([_doc(1)])
    assert len(second) == 1  # opened after the first write
    first.remember(ExperienceNote(kind="generation_lesson", text="telecom cells need a 15m cadence"))
    second.remember(ExperienceNote(kind="generation_lesson", text="iot sensors drain their battery slowly"))
    second.add_documents([_doc(1), _doc(2)])  # doc:1 was added by the other writer: skipped
    fresh = Memory(tmp_path, CountingEmbedder(), include_builtin=False)
    assert len(fresh) == 4 and fresh.last_rebuild is None
    assert fresh.search("telecom cells need a 15m cadence", k=1)[0].doc.kind == "note"
    assert len(fresh.notes()) == 2


def test_bulk_embedding_threads_leave_busy_cores_alone(monkeypatch):
    import psutil

    from knowledge import embed

    monkeypatch.setattr(embed.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(psutil, "cpu_count", lambda: 2)
    for percent, want in ((5.0, 2), (60.0, 1), (100.0, 1)):  # the busy share sampled now, not the load average
        monkeypatch.setattr(psutil, "cpu_percent", lambda interval=None, percent=percent: percent)
        assert embed.free_threads(2) == want
    monkeypatch.setattr(psutil, "cpu_percent", lambda interval=None: 0.0)
    assert embed.free_threads(1) == 1


def test_listing_notes_only_skips_the_packaged_documents_but_a_builtin_kind_lists_them(tmp_path, monkeypatch):
    import knowledge.builtin as builtin

    mem = Memory(tmp_path / "m", embedder=HashEmbedder(16))
    mem.dir.mkdir(parents=True)
    mem.notes_path.write_text(json.dumps(ExperienceNote(kind="user_preference", text="weekly totals").model_dump(
        mode="json")) + "\n")
    calls = []
    real = builtin.builtin_docs
    monkeypatch.setattr(builtin, "builtin_docs", lambda: calls.append(1) or real())
    assert [d.kind for d in mem.documents({"kind": ["note"]})] == ["note"]
    assert [d.note_kind for d in mem.documents({"kind": "user_preference"})] == ["user_preference"]
    assert calls == []
    patterns = mem.documents({"kind": ["pattern", "note"]})
    assert calls == [1] and {d.kind for d in patterns} == {"pattern", "note"}
