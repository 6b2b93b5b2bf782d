"""A bundle's change history: undo gives back the exact bytes before a change (manifest included),
redo the bytes after it, whether the change rewrote a file or replaced the whole directory; a change
that fails or changes nothing leaves no version; an interrupted undo is finished on the next read."""

from __future__ import annotations

import json

import pytest

from tools.bundle.atomic import atomic_output_dir, atomic_write_text
from tools.bundle.history import HistoryError, read_history, recorded, redo, undo
from tools.bundle.manifest import write_manifest


def _snapshot(b):
    return {p.relative_to(b).as_posix(): p.read_bytes() for p in sorted(b.rglob("*"))
            if p.is_file() and not p.relative_to(b).as_posix().startswith("history/")}


@pytest.fixture
def bundle(tmp_path):
    b = tmp_path / "towers"
    (b / "data").mkdir(parents=True)
    (b / "spec.yaml").write_text("name: towers\ncount: 20\n")
    (b / "data" / "metrics.parquet").write_bytes(b"PAR1-twenty-towers")
    (b / "qa.jsonl").write_text('{"id": "q1", "answer": 3}\n')
    write_manifest(b, {"spec": "towers"})
    return b


def _regenerate(b, count):
    """What a data change does: a new directory renamed over the bundle."""
    with atomic_output_dir(b, force=True) as tmp:
        (tmp / "data").mkdir()
        (tmp / "spec.yaml").write_text(f"name: towers\ncount: {count}\n")
        (tmp / "data" / "metrics.parquet").write_bytes(f"PAR1-{count}-towers".encode())
        (tmp / "figures").mkdir()
        (tmp / "figures" / "fig.png").write_bytes(b"png")
        write_manifest(tmp, {"spec": "towers"})


def test_undo_restores_the_exact_bytes_of_a_regenerated_bundle_and_redo_the_new_ones(bundle):
    original = _snapshot(bundle)
    with recorded(bundle, [{"op": "scale_entities", "entity": "tower", "count": 40}]) as rec:
        _regenerate(bundle, 40)
        rec.summary = "40 towers"
    applied = _snapshot(bundle)
    assert applied != original and rec.version.n == 1
    assert rec.version.added == ["figures/fig.png"] and "data/metrics.parquet" in rec.version.changed
    v = undo(bundle)
    assert v.summary == "40 towers" and _snapshot(bundle) == original
    assert not (bundle / "figures").exists()
    redo(bundle)
    assert _snapshot(bundle) == applied
    undo(bundle)
    assert _snapshot(bundle) == original


def test_versions_stack_and_a_new_change_clears_what_could_be_redone(bundle):
    snaps = [_snapshot(bundle)]
    for n in (1, 2):
        with recorded(bundle, [{"op": "add_questions", "count": n}]) as rec:
            atomic_write_text(bundle / "qa.jsonl", f'{{"id": "q{n + 1}"}}\n')
            rec.summary = f"change {n}"
        snaps.append(_snapshot(bundle))
    assert [v.summary for v in read_history(bundle).applied] == ["change 1", "change 2"]
    undo(bundle)
    undo(bundle)
    assert _snapshot(bundle) == snaps[0]
    with pytest.raises(HistoryError, match="nothing to undo"):
        undo(bundle)
    redo(bundle)
    assert _snapshot(bundle) == snaps[1]
    with recorded(bundle, [{"op": "make_harder"}]):
        atomic_write_text(bundle / "qa.jsonl", '{"id": "hard"}\n')
    assert read_history(bundle).undone == []
    with pytest.raises(HistoryError, match="nothing to redo"):
        redo(bundle)
    assert [v.n for v in read_history(bundle).applied] == [1, 2]


def test_a_failed_change_or_a_view_leaves_no_version_and_keeps_the_history(bundle):
    with recorded(bundle, [{"op": "set_horizon", "horizon": "3d"}]):
        atomic_write_text(bundle / "spec.yaml", "name: towers\nhorizon: 3d\n")
    before = _snapshot(bundle)
    with pytest.raises(RuntimeError), recorded(bundle, [{"op": "remove_incident", "incident": "x"}]):
        raise RuntimeError("the incident check failed")
    with recorded(bundle, [{"op": "show", "what": "questions"}]) as rec:
        pass
    assert rec.version is None and _snapshot(bundle) == before
    assert len(read_history(bundle).applied) == 1
    assert not list(bundle.parent.glob(".towers.history-*"))


def test_small_files_rewritten_in_place_are_restored_and_big_ones_refused(bundle, monkeypatch):
    original = _snapshot(bundle)
    with recorded(bundle, []), open(bundle / "qa.jsonl", "a") as f:  # matplotlib writes figures like this
        f.write('{"id": "q9"}\n')
    undo(bundle)
    assert _snapshot(bundle) == original
    import tools.bundle.history as history

    monkeypatch.setattr(history, "LINK_ABOVE", 10)  # big files are hard-linked: their old bytes would be lost
    with pytest.raises(HistoryError, match="data/metrics.parquet was modified in place"):
        with recorded(bundle, []), open(bundle / "data" / "metrics.parquet", "ab") as f:
            f.write(b"more")


def test_an_interrupted_undo_is_finished_on_the_next_read(bundle, monkeypatch):
    original = _snapshot(bundle)
    with recorded(bundle, []):
        _regenerate(bundle, 7)
    import tools.bundle.history as history

    real = history._run_moves
    monkeypatch.setattr(history, "_run_moves", lambda b, moves: real(b, moves[:2]) or 1 / 0)
    with pytest.raises(ZeroDivisionError):
        undo(bundle)
    monkeypatch.setattr(history, "_run_moves", real)
    assert json.loads((bundle / "history" / "journal.json").read_text())
    assert read_history(bundle).applied  # the log is written after the moves: the undo had not finished
    assert _snapshot(bundle) == original and not (bundle / "history" / "journal.json").exists()
