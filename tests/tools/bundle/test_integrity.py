"""verify_bundle: a bundle whose files match manifest.json passes; any edit, truncation, missing or
unrecorded content file, or a damaged manifest stops with BundleIntegrityError naming the file."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from tools.bundle import BundleIntegrityError, verify_bundle
from tools.bundle.integrity import CACHE, sha256_file


@pytest.fixture
def bundle(tmp_path):
    b = tmp_path / "b"
    (b / "data").mkdir(parents=True)
    (b / "qa.jsonl").write_text('{"id": "q1", "answer": 3}\n')
    (b / "data" / "t.parquet").write_bytes(b"PAR1" + bytes(range(200)) + b"PAR1")
    (b / "spec.yaml").write_text("name: x\n")
    files = {str(p.relative_to(b)): sha256_file(p) for p in sorted(b.rglob("*")) if p.is_file()}
    (b / "manifest.json").write_text(json.dumps({"spec": "x", "files": files}))
    return b


def test_intact_bundle_passes_and_second_run_uses_the_cache(bundle):
    first = verify_bundle(bundle)
    assert sorted(first.hashed) == ["data/t.parquet", "qa.jsonl", "spec.yaml"] and not first.cached
    second = verify_bundle(bundle)
    assert not second.hashed and len(second.cached) == 3
    assert len(verify_bundle(bundle, full=True).hashed) == 3


def test_edited_answer_is_named(bundle):
    verify_bundle(bundle)  # warm the cache: a changed size/mtime must still be caught
    (bundle / "qa.jsonl").write_text('{"id": "q1", "answer": 4}\n')
    with pytest.raises(BundleIntegrityError, match=r"qa\.jsonl: changed"):
        verify_bundle(bundle)


def test_edit_keeping_size_and_mtime_is_caught_even_on_the_fast_path(bundle):
    verify_bundle(bundle)
    p = bundle / "qa.jsonl"
    st = p.stat()
    p.write_text(p.read_text().replace("3", "4"))
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))  # size and mtime as before; the ctime moved on
    assert p.stat().st_size == st.st_size and p.stat().st_mtime_ns == st.st_mtime_ns
    with pytest.raises(BundleIntegrityError, match=r"qa\.jsonl"):
        verify_bundle(bundle)
    with pytest.raises(BundleIntegrityError, match=r"qa\.jsonl"):
        verify_bundle(bundle, full=True)


def test_a_cache_stamp_matching_only_size_and_mtime_is_not_trusted(bundle):
    import json as _json

    verify_bundle(bundle)
    (bundle / "qa.jsonl").write_text('{"id": "q1", "answer": 9}\n')
    cache = _json.loads((bundle / CACHE).read_text())
    st = (bundle / "qa.jsonl").stat()
    cache["qa.jsonl"][:2] = [st.st_size, st.st_mtime_ns]  # a stamp that only knows size and mtime
    (bundle / CACHE).write_text(_json.dumps(cache))
    with pytest.raises(BundleIntegrityError, match=r"qa\.jsonl"):
        verify_bundle(bundle)


def test_truncated_data_file_is_named(bundle):
    p = bundle / "data" / "t.parquet"
    p.write_bytes(p.read_bytes()[:50])
    with pytest.raises(BundleIntegrityError, match=r"data/t\.parquet: changed"):
        verify_bundle(bundle)


def test_missing_and_unrecorded_files_are_named(bundle):
    (bundle / "spec.yaml").unlink()
    (bundle / "incidents.json").write_text("{}")
    with pytest.raises(BundleIntegrityError) as exc:
        verify_bundle(bundle)
    assert "spec.yaml: missing" in str(exc.value) and "incidents.json: present but not recorded" in str(exc.value)


@pytest.mark.parametrize("text", ["{garbage", "[]", '{"files": {"../../etc/passwd": "' + "0" * 64 + '"}}', "\xff"])
def test_damaged_manifest_is_named(bundle, text):
    (bundle / "manifest.json").write_text(text, encoding="latin-1")
    with pytest.raises(BundleIntegrityError, match=r"manifest\.json"):
        verify_bundle(bundle)


def test_missing_manifest_and_missing_dir(bundle, tmp_path):
    (bundle / "manifest.json").unlink()
    with pytest.raises(BundleIntegrityError, match=r"manifest\.json: missing"):
        verify_bundle(bundle)
    with pytest.raises(BundleIntegrityError, match="not a directory"):
        verify_bundle(tmp_path / "nope")


def test_allow_modified_rerecords_hashes(bundle):
    (bundle / "qa.jsonl").write_text('{"id": "q1", "answer": 5}\n')
    shutil.copy(bundle / "qa.jsonl", bundle / "incidents.json")
    report = verify_bundle(bundle, allow_modified=True)
    assert sorted(report.rerecorded) == ["incidents.json", "qa.jsonl"]
    files = json.loads((bundle / "manifest.json").read_text())["files"]
    assert files["qa.jsonl"] == sha256_file(bundle / "qa.jsonl") and "incidents.json" in files
    assert CACHE not in files
    verify_bundle(bundle, full=True)  # now intact
