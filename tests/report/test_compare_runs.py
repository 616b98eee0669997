"""``lmms-comparative compare`` through the CLI on two baselines over fixture data of every benchmark
(the session's ``compared`` runs, tests/report/conftest.py): the JSON's rows, their flips equal to a
count from the two runs' samples logs, each group's A and B equal to the runs' own headline values,
the refusal of runs on other data and the reason of runs with no task in common. Their HTML report
is tested in test_pair_report.py."""

from __future__ import annotations

import json
import shutil

import pytest
from helpers import correct_by_key, read_run, run_tool
from helpers.hostile import copy, save

pytestmark = pytest.mark.e2e

REQUIRED = {"task", "metric", "a", "b", "delta", "ci95", "p_value", "p_adjusted", "n", "a_only", "b_only"}


def test_compare_writes_every_row_and_its_flips_match_the_samples(compared):
    base, _env, _roots, proc = compared
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = json.loads((base / "out" / "compare.json").read_text())
    assert isinstance(rows, list) and rows
    compared_rows = [r for r in rows if r.get("metric")]
    assert all(REQUIRED <= set(r) for r in compared_rows)
    by_task = {r["task"]: r for r in compared_rows if not r.get("category")}
    results_a, samples_a = read_run(base / "a")
    results_b, samples_b = read_run(base / "b")
    # Flips of a plain item task, counted from the samples logs directly.
    for task in ("subtlebench_sp", "compbench_attribute_cub"):
        key = "item_id" if task.startswith("subtlebench") else "uid"
        ca, cb = correct_by_key(samples_a[task], key), correct_by_key(samples_b[task], key)
        assert by_task[task]["a_only"] == sum(ca[k] > cb[k] for k in ca) and by_task[task]["b_only"] == sum(
            cb[k] > ca[k] for k in ca
        )
        assert by_task[task]["n"] == len(ca)
    # VLM2's T/F task compares pairs: a pair is right when both halves are; a pair with one half
    # in the run is dropped, as the task's own score drops it (OC), so A and B are the runs' scores.
    pairs_a, pairs_b = {}, {}
    for pairs, samples in ((pairs_a, samples_a), (pairs_b, samples_b)):
        halves = {}
        for row in samples["vlm2bench_oc_cpr"]:
            item = next(v for v in row.values() if isinstance(v, dict) and "pair_id" in v)
            halves.setdefault(item["pair_id"], {})[item["half"]] = bool(item["correct"])
        pairs.update({p: h["p"] and h["n"] for p, h in halves.items() if len(h) == 2})
    assert len(pairs_a) < len({r["score"]["pair_id"] for r in samples_a["vlm2bench_oc_cpr"]})  # the fixture cuts a pair
    assert by_task["vlm2bench_oc_cpr"]["n"] == len(pairs_a)
    assert by_task["vlm2bench_oc_cpr"]["b_only"] == sum(pairs_b[p] and not pairs_a[p] for p in pairs_a)
    for task, metric in (("vlm2bench_oc_cpr", "score,none"), ("vlm2bench_oc_cnt", "score,none")):
        assert by_task[task]["a"] == pytest.approx(100 * results_a["results"][task][metric]) and by_task[task][
            "b"
        ] == pytest.approx(100 * results_b["results"][task][metric])
    # A group's A and B are the runs' own headline values, at the paper's scale.
    for group in ("subtlebench", "compbench"):
        assert by_task[group]["a"] == pytest.approx(100 * results_a["groups"][group]["accuracy,none"])
        assert by_task[group]["b"] == pytest.approx(100 * results_b["groups"][group]["accuracy,none"])
        assert by_task[group]["ci95"][0] <= by_task[group]["delta"] <= by_task[group]["ci95"][1]
    assert by_task["captionqa_simple_natural"]["a"] == pytest.approx(
        100 * results_a["results"]["captionqa_simple_natural"]["score,none"]
    )
    assert (
        by_task["vlm2bench_oc_cnt"]["test"] == "paired permutation"
        and by_task["subtlebench_sp"]["test"] == "exact McNemar"
    )
    # Holm within the group: adjusted p-values are at least the raw ones.
    parts = [r for r in compared_rows if r.get("group") == "subtlebench"]
    assert len(parts) == 10 and all(r["p_adjusted"] >= r["p_value"] for r in parts)
    assert any(r["task"] == "vidi_granular" and "not compared" in r.get("note", "") for r in rows)
    assert "B-A" in proc.stdout and "subtlebench_sp" in proc.stdout
    # Two runs of one model are named by what differs, in full; the table heads their columns A and B.
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("A = random_choice (seed=1) (") and ", B = random_choice (seed=2) (" in lines[0], lines[
        0
    ]
    assert lines[1].split()[:5] == ["task", "category", "n", "A", "B"] and {r["run_a"] for r in rows} == {
        "random_choice (seed=1)"
    }


def test_runs_on_other_data_are_refused_in_one_line(compared, tmp_path):
    base, _env, _roots, _proc = compared
    other = tmp_path / "b"
    shutil.copytree(base / "b", other)
    results_file = next(other.glob("**/*_results.json"))
    results = json.loads(results_file.read_text())
    results["lmms_comparative"]["tasks"]["subtlebench_sp"]["data"]["fingerprint"] = "0" * 64
    results_file.write_text(json.dumps(results))
    proc = run_tool("compare", str(base / "a"), str(other), env=_env)
    assert proc.returncode == 2 and proc.stderr.strip().splitlines() == [proc.stderr.strip().splitlines()[-1]]
    assert "subtlebench_sp: the runs read different data" in proc.stderr


def test_runs_without_a_task_in_common_are_told_so_and_a_score_run_is_named_by_its_files(compared, tmp_path):
    base, env, _roots, _proc = compared
    # B without SubtleBench, A (c) with SubtleBench alone: both have samples, no task in common.
    results_file, results, samples = copy(base / "b", tmp_path / "b")
    for task in [t for t in samples if t.startswith("subtlebench")]:
        samples[task].unlink()
    for table in ("results", "groups", "group_subtasks"):
        results[table] = {k: v for k, v in results.get(table, {}).items() if not k.startswith("subtlebench")}
    save(results_file, results)
    proc = run_tool("compare", str(base / "c"), str(tmp_path / "b"), env=env)
    assert proc.returncode == 2 and "--log_samples" not in proc.stderr, proc.stderr
    assert (
        "the runs share no task: A (random_choice (seed=3)) ran subtlebench_at, subtlebench_sp; B "
        "(random_choice (seed=2)) ran captionqa_simple_natural, " in proc.stderr
    ), proc.stderr
    # A run without samples logs is told to log them.
    for path in (tmp_path / "b").glob("*_samples_*.jsonl"):
        path.unlink()
    proc = run_tool("compare", str(base / "c"), str(tmp_path / "b"), env=env)
    assert (
        proc.returncode == 2
        and "B (random_choice (seed=2)) has no samples log of our tasks beside its results: run it with --log_samples"
        in proc.stderr
    ), proc.stderr
    # A score run given no --model-name (lmms-eval's model: replay) is named by the file it scored.
    results_file, results, _samples = copy(base / "a", tmp_path / "scored")
    results["config"].update(
        model="replay", model_args=f"predictions={tmp_path / 'scored' / 'replay' / 'subtlebench_predictions.json'}"
    )
    results["lmms_comparative"]["predictions"] = {
        "benchmark": "subtlebench",
        "files": [{"path": "/elsewhere/replies.json", "format": "samples"}],
    }
    save(results_file, results)
    proc = run_tool("compare", str(tmp_path / "scored"), str(base / "b"), env=env)
    assert proc.returncode == 0 and proc.stdout.startswith("A = scored: replies.json ("), (
        proc.stdout[:300] + proc.stderr[-2000:]
    )
    assert "replay" not in proc.stdout.splitlines()[0].split("(", 1)[0]
