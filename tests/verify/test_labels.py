"""``verify`` on the fields around the numbers that the report, ``compare`` and ``export`` read to say
what a number means (docs/provenance.md): a task's lmms-eval version, a group's members, the
record's prompt hash and ``data.generated``, VLM2-Bench's data source. Each is edited in a copy
of a run that verifies PASS; the untouched rows of the same file are the honest twins."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers.verifying import copy_run, roots_env, save, verdicts, verify
from PIL import Image

pytestmark = pytest.mark.e2e


def test_versions_group_members_prompts_and_generated_data_are_re_derived(
    four_benchmarks_run, hf_home, fixture_roots, tmp_path
):
    results_file, results, _ = copy_run(four_benchmarks_run, tmp_path / "labels")
    record = results["lmms_comparative"]["tasks"]
    # ViDi's version 2 reports its corpus metrics on the 0-100 scale: version 1 would make the report
    # multiply them by 100.
    results["versions"]["vidi_granular"] = 1
    # A generated copy passed off as the release's data.
    del record["subtlebench_at"]["data"]["generated"]
    # A group with a member left out: the report's "(n skipped)" note would vanish.
    results["group_subtasks"]["compbench"] = [
        t for t in results["group_subtasks"]["compbench"] if t != "compbench_attribute_vaw"
    ]
    # Another prompt than the installed package's (compare's same-protocol check reads it).
    record["vlm2bench_gc_mat"]["prompts"] = "0" * 64
    save(results_file, results)

    proc = verify(tmp_path / "labels", roots_env(hf_home, fixture_roots))
    found = verdicts(proc)
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert (
        found["vidi_granular"].startswith("FAIL")
        and "versions: the results JSON says 1, the installed package gives 2" in found["vidi_granular"]
    ), found["vidi_granular"]
    assert (
        found["subtlebench_at"].startswith("FAIL")
        and "data.generated: the record says the data was not generated, the data at hand (SUBTLEBENCH_ROOT) "
        "is generated (fixture, subtlebench)"
        in found["subtlebench_at"]
    )
    assert found["compbench"].startswith("FAIL") and "group_subtasks: the results JSON says" in found["compbench"], (
        found["compbench"]
    )
    assert (
        found["vlm2bench_gc_mat"].startswith("FAIL")
        and "prompts: the record's prompt hash 000000000000... is not the installed package's"
        in found["vlm2bench_gc_mat"]
    )
    for untouched in ("subtlebench_sp", "compbench_attribute_vaw", "vlm2bench_oc_cpr", "subtlebench"):
        assert found[untouched].startswith("PASS"), found[untouched]


def test_vlm2bench_records_its_local_copy_and_a_changed_copy_fails(
    four_benchmarks_run, hf_home, fixture_roots, tmp_path
):
    results = json.loads(next(four_benchmarks_run.glob("*_results.json")).read_text())
    data = results["lmms_comparative"]["tasks"]["vlm2bench_gc_mat"]["data"]
    assert data["source"] == "local" and data["variable"] == "VLM2BENCH_ROOT" and len(data["fingerprint"]) == 64, data
    # The same run against a copy of the data whose images were blackened.
    copy = tmp_path / "vlm2bench"
    shutil.copytree(fixture_roots["VLM2BENCH_ROOT"], copy)
    for image in sorted(Path(copy).rglob("*.jpg")) + sorted(Path(copy).rglob("*.png")):
        with Image.open(image) as opened:
            size, mode = opened.size, opened.mode
        Image.new(mode, size).save(image)
    run = tmp_path / "run"
    shutil.copytree(four_benchmarks_run, run, ignore=shutil.ignore_patterns("*_verify.json"))
    proc = verify(run, roots_env(hf_home, {**fixture_roots, "VLM2BENCH_ROOT": copy}))
    found = verdicts(proc)
    assert proc.returncode == 1, proc.stdout[-3000:]
    assert (
        found["vlm2bench_gc_mat"].startswith("FAIL")
        and "another copy or revision of the data" in found["vlm2bench_gc_mat"]
    ), found["vlm2bench_gc_mat"]
    assert found["subtlebench_at"].startswith("PASS"), found[
        "subtlebench_at"
    ]  # the honest twin: the other benchmarks' data is untouched


def test_a_samples_log_no_record_entry_backs_fails(subtlebench_pass_run, hf_home, subtlebench_root, tmp_path):
    from helpers import base_env
    from helpers.hostile import copy

    copy(subtlebench_pass_run, tmp_path / "added")
    sp = next((tmp_path / "added").glob("*_samples_subtlebench_sp.jsonl"))
    shutil.copy(sp, sp.with_name(sp.name.replace("subtlebench_sp", "subtlebench_st")))
    proc = verify(tmp_path / "added", base_env(hf_home, SUBTLEBENCH_ROOT=subtlebench_root))
    found = verdicts(proc)
    assert proc.returncode == 1, proc.stdout[-3000:]
    assert found["subtlebench_st"].startswith("FAIL") and "that no record entry backs" in found["subtlebench_st"], found
    assert found["subtlebench_at"].startswith("PASS") and found["subtlebench_sp"].startswith("PASS"), (
        found
    )  # the honest twins beside it
