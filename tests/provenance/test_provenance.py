"""What the results file's provenance is made of: the data fingerprint, item sets, prompt hashes,
settings and judge settings (the CLI tests check the record a run writes)."""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from types import SimpleNamespace

import pytest

from lmms_comparative import provenance
from lmms_comparative.provenance import data_fingerprint
from lmms_comparative.registry import BENCHMARKS, setting_prefixes

AN_HOUR_AGO = time.time_ns() - 3600 * 10**9


@pytest.fixture(autouse=True)
def hash_cache(tmp_path, monkeypatch):
    """Every test with its own file-hash cache (never the user's), and no fingerprint remembered from another test."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg_cache"))
    provenance.reset()
    yield tmp_path / "xdg_cache" / "lmms_comparative" / "file_hashes.sqlite"
    provenance.reset()


def _tree(root):
    (root / "data").mkdir(parents=True)
    (root / "images").mkdir()
    (root / "data" / "test.jsonl").write_text('{"item_id": "a"}\n{"item_id": "b"}\n')
    (root / "images" / "a.png").write_bytes(b"\x89PNG" + b"\x00" * 60)
    (root / "images" / "b.jpg").write_bytes(b"\xff\xd8" + bytes(range(256)) * 8)
    return _settle(root)


def _settle(root, when=AN_HOUR_AGO):
    """Give every file under ``root`` an mtime of ``when``: files changed in the last 2 s are not cached."""
    for path in root.rglob("*"):
        if path.is_file():
            os.utime(path, ns=(when, when))
    return root


def _expected(root) -> str:
    """The fingerprint computed here without the package: path, size and sha256 of every file."""
    lines = sorted(
        f"{p.relative_to(root).as_posix()}\t{p.stat().st_size}\t{hashlib.sha256(p.read_bytes()).hexdigest()}"
        for p in root.rglob("*")
        if p.is_file()
    )
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def _count_hashes(monkeypatch) -> list[str]:
    """The paths the fingerprint hashes from now on (``file_sha256`` wrapped)."""
    hashed, real = [], provenance.file_sha256
    monkeypatch.setattr(
        data_fingerprint, "file_sha256", lambda path: hashed.append(os.path.basename(path)) or real(path)
    )
    return hashed


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


def test_every_file_counts_by_its_content_an_image_of_the_same_size_included(tmp_path):
    first = _tree(tmp_path / "one")
    base = provenance.fingerprint(first)
    assert base == _expected(first)
    replaced = tmp_path / "replaced"
    shutil.copytree(first, replaced)
    (replaced / "images" / "a.png").write_bytes(b"\x89PNG" + b"\x01" * 60)  # same size, other pixels
    assert provenance.fingerprint(replaced) != base
    assert provenance.fingerprint(replaced) == _expected(replaced)


def test_a_second_fingerprint_of_an_unchanged_folder_reads_the_cache(tmp_path, monkeypatch, hash_cache):
    root = _tree(tmp_path / "data")
    hashed = _count_hashes(monkeypatch)
    base = provenance.fingerprint(root)
    assert sorted(hashed) == ["a.png", "b.jpg", "test.jsonl"] and hash_cache.is_file()
    provenance.reset()  # a new process: only the cache on disk is left
    hashed.clear()
    assert provenance.fingerprint(root) == base and hashed == []
    moved = tmp_path / "moved"
    shutil.copytree(root, moved)  # another path: hashed again, the same fingerprint
    assert provenance.fingerprint(moved) == base and len(hashed) == 3


def test_a_changed_mtime_or_a_file_replaced_behind_an_old_mtime_is_hashed_again(tmp_path, monkeypatch):
    root = _tree(tmp_path / "data")
    hashed = _count_hashes(monkeypatch)
    base = provenance.fingerprint(root)
    provenance.reset()
    hashed.clear()
    os.utime(root / "images" / "a.png", ns=(AN_HOUR_AGO + 10**9,) * 2)  # touched, not changed
    assert provenance.fingerprint(root) == base and hashed == ["a.png"]
    provenance.reset()
    hashed.clear()
    (root / "images" / "b.jpg").write_bytes(
        b"\xff\xd8" + bytes(range(255, -1, -1)) * 8
    )  # same size, and its old mtime put back
    os.utime(root / "images" / "b.jpg", ns=(AN_HOUR_AGO, AN_HOUR_AGO))  # (as rsync -a or cp -p do): the ctime tells
    assert provenance.fingerprint(root) == _expected(root) != base and hashed == ["b.jpg"]


def test_a_file_changed_just_now_is_not_cached(tmp_path, monkeypatch):
    root = _tree(tmp_path / "data")
    (root / "images" / "a.png").write_bytes(b"\x89PNG" + b"\x02" * 60)  # mtime: now
    hashed = _count_hashes(monkeypatch)
    provenance.fingerprint(root)
    provenance.reset()
    hashed.clear()
    assert provenance.fingerprint(root) == _expected(root) and hashed == ["a.png"]


@pytest.mark.parametrize("broken", ["cache_home_is_a_file", "cache_file_is_not_sqlite", "cache_file_is_a_folder"])
def test_a_cache_that_cannot_be_used_still_gives_the_fingerprint(tmp_path, monkeypatch, hash_cache, broken):
    root = _tree(tmp_path / "data")
    if broken == "cache_home_is_a_file":
        (tmp_path / "home_file").write_text("not a folder")
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home_file"))
    elif broken == "cache_file_is_not_sqlite":
        hash_cache.parent.mkdir(parents=True)
        hash_cache.write_bytes(b"not a database" * 100)
    else:
        hash_cache.mkdir(parents=True)
    hashed = _count_hashes(monkeypatch)
    for _ in range(2):
        provenance.reset()
        assert provenance.fingerprint(root) == _expected(root)
    assert len(hashed) == 6  # nothing cached: every file hashed both times


def test_the_fingerprint_hashes_in_parallel_and_serially_alike(tmp_path, monkeypatch):
    root = tmp_path / "many"
    root.mkdir()
    for k in range(40):
        (root / f"{k:02d}.jpg").write_bytes(os.urandom(1000 + k * 5000))
    (root / "big.mp4").write_bytes(os.urandom(3 * 2**20 + 17))  # read in several blocks
    _settle(root)
    monkeypatch.setattr(data_fingerprint, "HASH_WORKERS", 4)
    parallel = provenance.fingerprint(root)
    provenance.reset()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "another_cache"))
    monkeypatch.setattr(data_fingerprint, "HASH_WORKERS", 1)
    assert provenance.fingerprint(root) == parallel == _expected(root)


def test_item_set_is_order_free_and_counts_every_key():
    assert provenance.item_set(["b", "a"]) == provenance.item_set(["a", "b"])
    assert provenance.item_set(["a", "b"])["count"] == 2
    assert provenance.item_set(["a", "b"]) != provenance.item_set(["a", "b", "b"])
    assert provenance.item_set(["a", "b"]) != provenance.item_set(["a", "c"])


def test_settings_record_ours_and_leave_keys_tokens_and_others_out(monkeypatch):
    """Our settings, the data roots and the judges' models are recorded; the keys, and variables
    of no benchmark, are not."""
    recorded = {
        "LMMS_COMPARATIVE_MAX_FAILED": "0.1",
        "SUBTLEBENCH_ROOT": "/data/sb",
        "DIFFSPOT_ROOT": "/data/diffspot",
        "DIFFSPOT_JUDGE_MODEL": "m",
    }
    left_out = {
        "CAPTIONQA_READER_API_KEY": "sk-secret",
        "LMMS_COMPARATIVE_LLM_API_KEY": "sk-secret",
        "DIFFSPOT_JUDGE_API_KEY": "sk-secret",
        "UNRELATED_ROOT": "/elsewhere",
    }
    for name, value in {**recorded, **left_out}.items():
        monkeypatch.setenv(name, value)
    found = provenance.settings(setting_prefixes())
    assert {name: found.get(name) for name in recorded} == recorded
    assert not set(left_out) & set(found) and "sk-secret" not in str(found)


def test_llm_settings_name_the_host_only():
    provenance.reset()
    config = SimpleNamespace(
        backend="openai",
        model="judge",
        base_url="https://user:pw@judge.example:8443/v1",
        temperature=0.0,
        max_tokens=8,
        api_version=None,
        azure_deployment=None,
        gguf_file=None,
    )
    provenance.note_llm("SUBTLEBENCH_JUDGE", config)
    assert provenance.llm_settings() == {
        "SUBTLEBENCH_JUDGE": {
            "backend": "openai",
            "model": "judge",
            "endpoint_host": "judge.example:8443",
            "temperature": 0.0,
            "max_tokens": 8,
        }
    }
    provenance.reset()


def test_prompt_hash_changes_with_the_tasks_yaml(tmp_path):
    yaml = tmp_path / "t.yaml"
    yaml.write_text("task: t\n")
    before = provenance.prompts_sha256("lmms_comparative.benchmarks.subtlebench", str(yaml))
    yaml.write_text("task: t\ndoc_to_text: other\n")
    assert provenance.prompts_sha256("lmms_comparative.benchmarks.subtlebench", str(yaml)) != before


def test_every_registered_benchmarks_settings_are_recorded(monkeypatch):
    """The prefixes come from the records, not a list kept by hand (which had lost DiffSpot's):
    each benchmark's data root and judge settings are in the settings record."""
    for benchmark in BENCHMARKS:
        monkeypatch.setenv(benchmark.root_variable, "/data/x")
        assert benchmark.root_variable in provenance.settings(setting_prefixes()), benchmark.name
        for call in benchmark.scoring_calls:
            assert any(call.setting.startswith(prefix) for prefix in setting_prefixes()), call.setting
