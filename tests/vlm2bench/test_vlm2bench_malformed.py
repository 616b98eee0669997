"""VLM2-Bench records that cannot be used: a missing video, image counts that are no count; each is
skipped, named and counted, and the other tasks of the run are scored."""

from __future__ import annotations

import json

import pytest
from helpers import base_env, eval_args, read_run, run_cli

from lmms_comparative.benchmarks.vlm2bench.fixture import build as build_vlm2bench


def test_missing_video_and_missing_image_count_are_skipped_and_named(tmp_path, monkeypatch):
    from lmms_comparative.benchmarks.vlm2bench import data
    from lmms_comparative.data import items

    root = build_vlm2bench(tmp_path / "v")
    monkeypatch.setenv("VLM2BENCH_ROOT", str(root))
    (root / "data/pc/video/UNI/vid_ABA_2.mp4").unlink()
    full = len(data.subtask_docs("oc_cnt"))
    with items.collecting(items.Skips()) as skips:
        assert "vid_ABA_2" not in {d["uid"] for d in data.subtask_docs("pc_vid")}
    assert len(skips) == 1 and "no video vid_ABA_2.* under" in skips.by_reason["malformed record"][0]
    path = root / "jsonl/oc/vanilla/oc_cnt.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[1].pop("image_seq_len")
    rows[2]["gt_answer"] = "three"  # a non-numeric count
    rows[3]["image_seq_len"], rows[4]["image_seq_len"] = "two", 0  # image counts that are no count
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with items.collecting(items.Skips()) as skips:
        assert len(data.subtask_docs("oc_cnt")) == full - 4
    reasons = skips.by_reason["malformed record"]
    assert "oc_cnt.jsonl:2: counting record has neither image_seq_len nor image_seq" in reasons[0]
    assert "oc_cnt.jsonl:3: counting gt_answer 'three' is not a number" in reasons[1]
    assert "oc_cnt.jsonl:4: counting record's image_seq_len 'two' is not a positive whole number" in reasons[2]
    assert "oc_cnt.jsonl:5: counting record's image_seq_len 0 is not a positive whole number" in reasons[3]


@pytest.mark.e2e
def test_a_non_numeric_image_count_leaves_the_other_tasks_of_the_run_scored(hf_home, tmp_path):
    root = build_vlm2bench(tmp_path / "v")
    path = root / "jsonl/oc/vanilla/oc_cnt.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[0]["image_seq_len"] = "two"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    env = base_env(hf_home, VLM2BENCH_ROOT=str(root), LMMS_COMPARATIVE_MAX_FAILED="0.5")
    proc = run_cli(
        eval_args("random_choice", "vlm2bench_oc_cnt,vlm2bench_gc_mat", tmp_path / "out", log_samples=False),
        env=env,
    )
    results, _ = read_run(tmp_path / "out", proc)
    assert proc.returncode == 0 and "RetryError" not in proc.stderr
    counts = results["results"]["vlm2bench_oc_cnt"]["counts,none"]
    assert counts["skipped"] == 1 and counts["n"] == len(rows) - 1
    assert results["results"]["vlm2bench_gc_mat"]["counts,none"]["skipped"] == 0
