"""``lmms-comparative export`` through the real CLI: a run's scores as the hub's ``.eval_results``
files (checked against the documented format and read back by ``huggingface_hub``'s own parser),
and ``--push`` opening a pull request on a local hub that speaks the hub's commit protocol."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import yaml
from helpers import base_env, eval_args, read_run, run_cli
from helpers.fake_hub import COMMIT, FakeHub, ModelRepo, Repo, hub_env
from helpers.verifying import export as _export

from lmms_comparative.benchmarks.subtlebench.fixture import build as build_subtlebench

pytestmark = pytest.mark.e2e
SUBTLEBENCH = "KRAFTON/VLM-SubtleBench"
MODEL_REPO = "someone/tiny-vlm"


def check_eval_results_file(path: Path) -> list[dict]:
    """The hub's documented ``.eval_results/*.yaml`` format (docs/hub/eval-results; huggingface_hub's
    ``EvalResultEntry``): a list of entries, each with ``dataset.id`` (a hub repo id) and
    ``dataset.task_id``, a numeric ``value``, optionally ``dataset.revision`` (a commit), ``date``
    (ISO-8601), ``source`` (``url`` required, ``name``, ``user``, ``org``), ``verifyToken``, ``notes``;
    nothing else."""
    from huggingface_hub import parse_eval_result_entries

    data = yaml.safe_load(path.read_text())
    assert isinstance(data, list) and data, path
    for entry in data:
        assert set(entry) <= {"dataset", "value", "verifyToken", "date", "source", "notes"}, entry
        assert set(entry["dataset"]) <= {"id", "task_id", "revision"} and re.fullmatch(
            r"[\w.-]+/[\w.-]+", entry["dataset"]["id"]
        )
        assert isinstance(entry["dataset"]["task_id"], str) and entry["dataset"]["task_id"]
        assert isinstance(entry["value"], (int, float)) and not isinstance(entry["value"], bool)
        if "revision" in entry["dataset"]:
            assert re.fullmatch(r"[0-9a-f]{40}", entry["dataset"]["revision"])
        if "date" in entry:  # with its zone: UTC
            assert datetime.fromisoformat(entry["date"]).utcoffset() == timedelta(0), entry["date"]
        if "source" in entry:
            assert set(entry["source"]) <= {"url", "name", "user", "org"} and entry["source"]["url"].startswith("http")
        if "notes" in entry:
            assert isinstance(entry["notes"], str)
    assert len(parse_eval_result_entries(data)) == len(data)  # huggingface_hub reads every entry
    return data


def _hinted(stderr: str, pattern: str, dataset: str) -> list[str]:
    """The flags export's hint names (the first line matching ``pattern``'s group), with ``dataset`` for OWNER/REPO."""
    found = re.search(pattern, stderr, re.M)
    assert found, stderr[-3000:]
    return found.group(1).replace("OWNER/REPO", dataset).split()


@pytest.fixture(scope="module")
def hub_run(tmp_path_factory):
    """A SubtleBench run whose data came from a local hub (so it has a pinned commit)."""
    base = tmp_path_factory.mktemp("export")
    repo = build_subtlebench(base / "sb_repo", per_category=2)
    hub = FakeHub({SUBTLEBENCH: Repo(repo)}, models={MODEL_REPO: ModelRepo()})
    with hub:
        env = base_env(base / "home", **hub_env(hub, base / "home"))
        env.pop("SUBTLEBENCH_ROOT", None)
        proc = run_cli(
            eval_args("random_choice", "subtlebench", base / "run"),
            env=env,
        )
        results, _ = read_run(base / "run", proc)
        proc = run_cli(
            eval_args("random_choice", "subtlebench_at", base / "limited", "--limit", "1"),
            env=env,
        )
        read_run(base / "limited", proc)
        yield base, hub, env, results


def test_export_writes_the_hubs_format_with_the_pinned_revision_and_paper_scale_values(hub_run, tmp_path):
    base, _hub, env, results = hub_run
    # A fixture run: 2 items a type, not the release's 11,688. Not under the release's name...
    proc = _export(str(base / "run"), "-o", str(tmp_path / "refused"), env=env)
    assert proc.returncode == 1 and "nothing to export" in proc.stderr, proc.stderr[-3000:]
    assert (
        "subtlebench_at left out of KRAFTON/VLM-SubtleBench: subset: 2 of 1444 items of KRAFTON/VLM-SubtleBench"
        in proc.stderr
    )
    assert not (tmp_path / "refused" / ".eval_results").exists()
    # ... unless asked, and then it says so in every entry.
    proc = _export(
        str(base / "run"),
        "-o",
        str(tmp_path),
        "--allow-subset",
        "--source-url",
        "https://example.org/logs",
        "--source-name",
        "Eval logs",
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    files = sorted(p.name for p in (tmp_path / ".eval_results").iterdir())
    assert files == ["subtlebench.yaml"]  # the multiple-choice protocol; no captioning run here
    entries = {
        e["dataset"]["task_id"]: e for e in check_eval_results_file(tmp_path / ".eval_results" / "subtlebench.yaml")
    }
    assert set(entries) == {
        "subtlebench",
        *(f"subtlebench_{c}" for c in ("at", "st", "em", "tm", "sp", "ex", "qn", "ql", "vp", "ac")),
    }
    avg = entries["subtlebench"]
    assert avg["dataset"] == {"id": SUBTLEBENCH, "task_id": "subtlebench", "revision": COMMIT}
    assert avg["value"] == pytest.approx(100 * results["groups"]["subtlebench"]["accuracy,none"], abs=1e-4)
    assert avg["source"] == {"url": "https://example.org/logs", "name": "Eval logs"}
    assert avg["notes"].startswith("lmms-comparative ") and "VLM-SubtleBench protocol" in avg["notes"]
    assert "not the paper's decoding" not in avg["notes"]  # the tasks' own decoding: nothing to say
    # The package version and the date are the run's claims, and the notes say so.
    assert (
        "(as the run's record names it)" in avg["notes"] and "date as the run's results file gives it" in avg["notes"]
    )
    assert (
        "subset: 20 of 11688 items of KRAFTON/VLM-SubtleBench" in avg["notes"]
        and f"data from the hub, {SUBTLEBENCH}@{COMMIT[:12]}" in avg["notes"]
    )
    assert "subset: 2 of 1444 items" in entries["subtlebench_at"]["notes"]
    # lmms-eval's date is UTC+8 (lmms_eval.utils.get_datetime_str); the entry's is UTC, zone written.
    ran = datetime.strptime(results["date"], "%Y%m%d_%H%M%S").replace(tzinfo=timezone(timedelta(hours=8)))
    assert avg["date"].endswith("Z") and datetime.fromisoformat(avg["date"]) == ran


def test_a_limit_run_is_a_subset(hub_run, tmp_path):
    base, _hub, env, _results = hub_run
    proc = _export(str(base / "limited"), "-o", str(tmp_path / "a"), env=env)
    assert (
        proc.returncode == 1
        and "subtlebench_at left out of KRAFTON/VLM-SubtleBench: subset: 1 of 1444 items" in proc.stderr
        and "--limit 1" in proc.stderr
    ), proc.stderr[-2000:]
    proc = _export(str(base / "limited"), "-o", str(tmp_path / "b"), "--allow-subset", env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (entry,) = check_eval_results_file(tmp_path / "b" / ".eval_results" / "subtlebench.yaml")
    assert (
        entry["dataset"]["task_id"] == "subtlebench_at"
        and "--limit 1" in entry["notes"]
        and "1 of 1444 items" in entry["notes"]
    )


def test_push_opens_a_pull_request_on_the_model_repo(hub_run, tmp_path):
    base, hub, env, _results = hub_run
    refused = _export(
        str(base / "run"),
        "-o",
        str(tmp_path / "a"),
        "--allow-subset",
        "--push",
        MODEL_REPO,
        env={**env, "HF_TOKEN": ""},
    )
    assert refused.returncode == 2 and "--push needs a Hugging Face token: set HF_TOKEN" in refused.stderr, (
        refused.stderr[-2000:]
    )
    assert (
        hub.models[MODEL_REPO].pull_requests == [] and not (tmp_path / "a").exists()
    )  # checked first: nothing written
    wrong = _export(
        str(base / "run"),
        "-o",
        str(tmp_path / "w"),
        "--allow-subset",
        "--push",
        MODEL_REPO,
        env={**env, "HF_TOKEN": "hf_wrong"},
    )
    assert wrong.returncode == 1 and f"the pull request on {MODEL_REPO} failed" in wrong.stderr
    assert hub.models[MODEL_REPO].pull_requests == []
    proc = _export(
        str(base / "run"),
        "-o",
        str(tmp_path / "b"),
        "--allow-subset",
        "--push",
        MODEL_REPO,
        env={**env, "HF_TOKEN": hub.token},
    )
    assert proc.returncode == 0, proc.stderr
    (pr,) = hub.models[MODEL_REPO].pull_requests
    assert f"opened {hub.endpoint}/{MODEL_REPO}/discussions/{pr['num']}" in proc.stdout
    assert sorted(pr["files"]) == [".eval_results/subtlebench.yaml"]
    assert (
        pr["files"][".eval_results/subtlebench.yaml"]
        == (tmp_path / "b" / ".eval_results" / "subtlebench.yaml").read_bytes()
    )
    assert hub.models[MODEL_REPO].files == {}  # a pull request, nothing committed to main


def test_a_benchmark_without_a_hub_release_needs_a_dataset_id(hf_home, fixture_roots, tmp_path):
    env = base_env(hf_home, COMPBENCH_ROOT=str(fixture_roots["COMPBENCH_ROOT"]))
    proc = run_cli(
        eval_args("random_choice", "compbench", tmp_path / "run"),
        env=env,
    )
    read_run(tmp_path / "run", proc)
    proc = _export(str(tmp_path / "run"), "-o", str(tmp_path / "a"), "--allow-subset", env=env)
    assert (
        proc.returncode == 1 and "give one with --dataset-id compbench=OWNER/REPO: left out" in proc.stderr
    )  # --allow-subset given: not named again
    assert not (tmp_path / "a" / ".eval_results").exists()
    # No flag: the hint names both that this fixture run needs (a dataset id alone left it out again).
    proc = _export(str(tmp_path / "run"), "-o", str(tmp_path / "n"), env=env)
    assert proc.returncode == 1 and not (tmp_path / "n" / ".eval_results").exists(), proc.stderr[-3000:]
    proc = _export(
        str(tmp_path / "run"),
        "-o",
        str(tmp_path / "b"),
        *_hinted(proc.stderr, r"give one with (.*): left out", "someone/MLLM-CompBench"),
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    entries = check_eval_results_file(tmp_path / "b" / ".eval_results" / "compbench.yaml")
    assert {e["dataset"]["id"] for e in entries} == {"someone/MLLM-CompBench"}
    assert all("revision" not in e["dataset"] for e in entries)  # a local copy pins no hub commit
    assert all("fingerprint" in e["notes"] for e in entries)
    proc = _export(str(tmp_path / "run"), "-o", str(tmp_path / "c"), "--dataset-id", "compbench", env=env)
    assert proc.returncode == 2 and "expected NAME=OWNER/REPO" in proc.stderr


def test_generated_items_never_go_out_under_the_releases_id(hf_home, tmp_path):
    """A run on ``lmms-comparative fixture`` data: its items are made here, none of them the
    release's, so not a subset of it either; only a dataset id of the user's own may carry them."""
    from lmms_comparative.registry import BY_NAME

    env = base_env(
        hf_home, SUBTLEBENCH_ROOT=BY_NAME["subtlebench"].build_fixture(tmp_path / "data", per_category=2)
    )  # with the marker of generated data
    proc = run_cli(
        eval_args("random_choice", "subtlebench_at", tmp_path / "run"),
        env=env,
    )
    read_run(tmp_path / "run", proc)
    proc = _export(str(tmp_path / "run"), "-o", str(tmp_path / "a"), "--allow-subset", env=env)
    assert proc.returncode == 1 and "nothing to export" in proc.stderr, proc.stderr[-3000:]
    assert (
        f"subtlebench_at left out of {SUBTLEBENCH}: not the release: " in proc.stderr
        and "generated items are never exported under a release's id, with or without --allow-subset" in proc.stderr
    )
    assert (
        "(to export them under a dataset of your own: --dataset-id subtlebench=OWNER/REPO)" in proc.stderr
    )  # --allow-subset given
    assert not (tmp_path / "a" / ".eval_results").exists()
    proc = _export(
        str(tmp_path / "run"),
        "-o",
        str(tmp_path / "b"),
        "--allow-subset",
        "--dataset-id",
        f"subtlebench={SUBTLEBENCH}",
        env=env,
    )
    assert (
        proc.returncode == 1 and not (tmp_path / "b" / ".eval_results").exists()
    )  # the release's id given by hand: the same refusal
    # No flag (the case a team hit): the first hint names every flag needed, and following it exports.
    proc = _export(str(tmp_path / "run"), "-o", str(tmp_path / "n"), env=env)
    assert proc.returncode == 1 and not (tmp_path / "n" / ".eval_results").exists(), proc.stderr[-3000:]
    followed = _hinted(
        proc.stderr, r"to export them under a dataset of your own: (.*)\)$", "someone/subtlebench-fixture"
    )
    assert followed == ["--dataset-id", "subtlebench=someone/subtlebench-fixture", "--allow-subset"]
    proc = _export(str(tmp_path / "run"), "-o", str(tmp_path / "c"), *followed, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (entry,) = check_eval_results_file(tmp_path / "c" / ".eval_results" / "subtlebench.yaml")
    assert entry["dataset"]["id"] == "someone/subtlebench-fixture" and "not the release: " in entry["notes"]


def test_the_releases_own_item_set_needs_no_flag(hf_home, tmp_path):
    """The hints' honest twin: a run whose items are the release's (a local copy with
    subtlebench_em's release count, the release being known here by its count) goes out under the
    release's id with no flag, and no hint is printed."""
    import json

    from lmms_comparative.export import COUNT_ONLY
    from lmms_comparative.registry import BY_NAME

    count = BY_NAME["subtlebench"].release_items()["tasks"]["subtlebench_em"]["count"]
    root = build_subtlebench(tmp_path / "copy", per_category=1)  # the release's layout, no marker of generated data
    emotion = next(
        r
        for r in map(json.loads, (root / "data" / "test.jsonl").read_text().splitlines())
        if r["category"] == "emotion"
    )
    rows = [
        {**emotion, "source_id": str(i), "question": f"{emotion['question']} [{i}]"} for i in range(count)
    ]  # one image pair for every item
    (root / "data" / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    env = base_env(hf_home, SUBTLEBENCH_ROOT=str(root))
    proc = run_cli(
        eval_args("random_choice", "subtlebench_em", tmp_path / "run"),
        env=env,
    )
    results, _ = read_run(tmp_path / "run", proc)
    assert results["results"]["subtlebench_em"]["counts,none"]["n"] == count
    proc = _export(str(tmp_path / "run"), "-o", str(tmp_path / "out"), env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (
        "left out" not in proc.stderr and "--allow-subset" not in proc.stderr and "--dataset-id" not in proc.stderr
    ), proc.stderr[-3000:]
    (entry,) = check_eval_results_file(tmp_path / "out" / ".eval_results" / "subtlebench.yaml")
    assert (
        entry["dataset"]["id"] == SUBTLEBENCH
        and entry["dataset"]["task_id"] == "subtlebench_em"
        and COUNT_ONLY in entry["notes"]
    )
