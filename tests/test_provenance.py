"""What the results file's provenance is made of: the data fingerprint, item sets, prompt hashes,
settings and judge settings (the CLI tests check the record a run writes)."""

from __future__ import annotations

import shutil
from types import SimpleNamespace

from lmms_comparative import provenance


def _tree(root):
    (root / "data").mkdir(parents=True)
    (root / "images").mkdir()
    (root / "data" / "test.jsonl").write_text('{"item_id": "a"}\n{"item_id": "b"}\n')
    (root / "images" / "a.png").write_bytes(b"\x89PNG" + b"\x00" * 60)
    return root


def test_fingerprint_follows_the_records_content_and_the_files_not_the_folders_place(tmp_path):
    first = _tree(tmp_path / "one")
    base = provenance.fingerprint(first)
    moved = tmp_path / "elsewhere" / "copy"
    shutil.copytree(first, moved)
    assert provenance.fingerprint(moved) == base  # the same files elsewhere
    edited = tmp_path / "edited"
    shutil.copytree(first, edited)
    (edited / "data" / "test.jsonl").write_text('{"item_id": "a"}\n{"item_id": "c"}\n')  # same size, other content
    assert provenance.fingerprint(edited) != base
    extra = tmp_path / "extra"
    shutil.copytree(first, extra)
    (extra / "images" / "b.png").write_bytes(b"\x89PNG")
    assert provenance.fingerprint(extra) != base
    resized = tmp_path / "resized"
    shutil.copytree(first, resized)
    (resized / "images" / "a.png").write_bytes(b"\x89PNG" + b"\x00" * 61)
    assert provenance.fingerprint(resized) != base


def test_item_set_is_order_free_and_counts_every_key():
    assert provenance.item_set(["b", "a"]) == provenance.item_set(["a", "b"])
    assert provenance.item_set(["a", "b"])["count"] == 2
    assert provenance.item_set(["a", "b"]) != provenance.item_set(["a", "b", "b"])
    assert provenance.item_set(["a", "b"]) != provenance.item_set(["a", "c"])


def test_settings_leave_keys_and_tokens_out_and_llm_settings_name_the_host_only(monkeypatch):
    monkeypatch.setenv("LMMS_COMPARATIVE_MAX_FAILED", "0.1")
    monkeypatch.setenv("CAPTIONQA_READER_API_KEY", "sk-secret")
    monkeypatch.setenv("LMMS_COMPARATIVE_LLM_API_KEY", "sk-secret")
    monkeypatch.setenv("SUBTLEBENCH_ROOT", "/data/sb")
    found = provenance.settings()
    assert found["LMMS_COMPARATIVE_MAX_FAILED"] == "0.1" and found["SUBTLEBENCH_ROOT"] == "/data/sb"
    assert "sk-secret" not in str(found)
    provenance.reset()
    config = SimpleNamespace(backend="openai", model="judge", base_url="https://user:pw@judge.example:8443/v1", temperature=0.0, max_tokens=8, api_version=None, azure_deployment=None, gguf_file=None)
    provenance.note_llm("SUBTLEBENCH_JUDGE", config)
    assert provenance.llm_settings() == {"SUBTLEBENCH_JUDGE": {"backend": "openai", "model": "judge", "endpoint_host": "judge.example:8443", "temperature": 0.0, "max_tokens": 8}}
    provenance.reset()


def test_prompt_hash_changes_with_the_tasks_yaml(tmp_path):
    yaml = tmp_path / "t.yaml"
    yaml.write_text("task: t\n")
    before = provenance.prompts_sha256("lmms_comparative.benchmarks.subtlebench", str(yaml))
    yaml.write_text("task: t\ndoc_to_text: other\n")
    assert provenance.prompts_sha256("lmms_comparative.benchmarks.subtlebench", str(yaml)) != before
