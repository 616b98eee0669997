"""SubtleBench's type tasks read and validate the release once per run, not once per task."""

from __future__ import annotations

from collections import Counter

from lmms_comparative.benchmarks.subtlebench import data
from lmms_comparative.benchmarks.subtlebench.fixture import build as build_subtlebench
from lmms_comparative.data import items


def test_ten_type_tasks_read_the_jsonl_once_and_check_each_image_file_once(tmp_path, monkeypatch):
    from lmms_comparative.benchmarks.subtlebench import hooks as task

    root = build_subtlebench(tmp_path / "sb", per_category=4, val_per_category=1)
    monkeypatch.setenv("SUBTLEBENCH_ROOT", str(root))
    reads: Counter = Counter()
    checks: Counter = Counter()
    read_records, bytes_problem = data.read_records, items.image_bytes_problem

    def counting_read(path):
        reads[str(path)] += 1
        return read_records(path)

    def counting_check(raw):
        checks["images"] += 1
        return bytes_problem(raw)

    monkeypatch.setattr(data, "read_records", counting_read)
    monkeypatch.setattr(items, "image_bytes_problem", counting_check)
    sizes = {}
    for category in data.CATEGORIES.values():
        sizes[category] = len(getattr(task, f"process_docs_{category}")(None))
    task.process_docs_swap(None)
    assert reads == Counter({str(root / "data" / "test.jsonl"): 1})  # one parse for eleven tasks
    image_files = {p for doc in data.load_docs("test") for p in data.image_paths(doc)}
    assert checks["images"] == len(image_files)  # each file decoded-checked once
    assert sizes == {category: 4 for category in data.CATEGORIES.values()}


def test_the_hub_snapshot_is_resolved_once_per_process(monkeypatch, tmp_path):
    calls = []
    monkeypatch.delenv("SUBTLEBENCH_ROOT", raising=False)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "test.jsonl").write_text("")
    monkeypatch.setattr(data.hub, "snapshot", lambda *a: calls.append(a) or "snap")
    monkeypatch.setattr(data.hub, "fetch", lambda snap, paths, *a, **k: tmp_path)
    data._hub_root.cache_clear()
    try:
        assert data.root() == data.root() == tmp_path
        assert len(calls) == 1
    finally:
        data._hub_root.cache_clear()
