"""Data fetched the way users fetch it: no ``*_ROOT`` set, the real ``huggingface_hub`` and
``datasets`` code against a local hub on 127.0.0.1 (``HF_ENDPOINT``) that serves repositories laid
out as the real ones. What was fetched, how many requests it took, a second run offline, and what a
user sees when the hub refuses."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import base_env, eval_args, free_port, read_run, run_cli
from helpers.fake_hub import FakeHub, Repo, hub_env

from lmms_comparative.benchmarks.captionqa.fixture import build as build_captionqa
from lmms_comparative.benchmarks.subtlebench.fixture import build as build_subtlebench
from lmms_comparative.benchmarks.vlm2bench.fixture import build as build_vlm2bench
from lmms_comparative.benchmarks.vlm2bench.fixture import write_zip

SUBTLEBENCH = "KRAFTON/VLM-SubtleBench"
CAPTIONQA = "Borise/CaptionQA"
VLM2BENCH = "Sterzhang/vlm2-bench"


def _env(hub: FakeHub, home: Path, **extra) -> dict:
    env = base_env(home, **hub_env(hub, home), **extra)
    for name in ("SUBTLEBENCH_ROOT", "CAPTIONQA_ROOT", "VLM2BENCH_ROOT", "HF_TOKEN"):
        env.pop(name, None)
    env.update(extra)
    return env


def _test_images(root: Path) -> set[str]:
    refs = set()
    for line in (root / "data" / "test.jsonl").read_text().splitlines():
        record = json.loads(line)
        refs |= {record[f].split("/resolve/main/", 1)[1] for f in ("image_1", "image_2")}
    return refs


@pytest.fixture(scope="module")
def subtlebench_repo(tmp_path_factory) -> Path:
    return build_subtlebench(tmp_path_factory.mktemp("sb_repo"), per_category=2)


@pytest.mark.e2e
def test_subtlebench_fetches_the_split_and_its_images_only_once_then_runs_offline(subtlebench_repo, tmp_path):
    tasks = "subtlebench_at,subtlebench_st,subtlebench_swap"
    with FakeHub({SUBTLEBENCH: Repo(subtlebench_repo)}) as hub:
        env = _env(hub, tmp_path / "home")
        first = run_cli(eval_args("random_choice", tasks, tmp_path / "a", log_samples=False), env=env)
        fetched = hub.resolved()
        requests_first = len(hub.requests)
        second = run_cli(eval_args("random_choice", tasks, tmp_path / "b", log_samples=False), env=env)
        requests_second = len(hub.requests) - requests_first
    one, _ = read_run(tmp_path / "a", first)
    # Exactly what the test split needs: its records and the images they name; no val image, no card.
    assert sorted(fetched) == sorted(["data/test.jsonl", *_test_images(subtlebench_repo)])
    assert not any("/val_" in f or f.startswith("data/val") for f in fetched)
    assert requests_first == 1 + 2 * len(fetched)  # the revision, then a HEAD and a GET per file
    assert requests_second == 1  # a later run asks for the revision and downloads nothing
    # With the hub gone, the cache is enough.
    offline = run_cli(
        eval_args("random_choice", tasks, tmp_path / "c", log_samples=False),
        env={**env, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"},
    )
    three, _ = read_run(tmp_path / "c", offline)
    assert first.returncode == second.returncode == offline.returncode == 0
    assert one["results"] == three["results"]
    # The results say which repository and commit they were scored on, online and offline alike.
    for run in (one, three):
        data = run["lmms_comparative"]["tasks"]["subtlebench_at"]["data"]
        assert data["source"] == "hub" and data["repo"] == SUBTLEBENCH and re.fullmatch(r"[0-9a-f]{40}", data["commit"])
        assert data == one["lmms_comparative"]["tasks"]["subtlebench_at"]["data"]


@pytest.mark.e2e
@pytest.mark.parametrize("card", ["domains", "all"])
def test_captionqa_loads_the_configs_data_files_not_the_other_uploads(tmp_path, card):
    """Both card shapes: the domain splits only ("all" is their union in card order), or an "all"
    split of its own as well."""
    repo = build_captionqa(tmp_path / "repo", per_domain=2, card=card)
    with FakeHub({CAPTIONQA: Repo(repo)}) as hub:
        env = _env(hub, tmp_path / "home", CAPTIONQA_FAITHFULNESS="0")
        proc = run_cli(
            eval_args("random_choice", "captionqa_image_natural", tmp_path / "a", log_samples=False),
            env=env,
        )
        fetched = sorted(hub.resolved())
        before = len(hub.requests)
        again = run_cli(
            eval_args("random_choice", "captionqa_image_natural", tmp_path / "b", log_samples=False),
            env=env,
        )
        later = len(hub.requests) - before
    results, _ = read_run(tmp_path / "a", proc)
    assert proc.returncode == again.returncode == 0, proc.stderr[-3000:]
    # datasets reads the dataset card (its configs); the data files are the configured splits' parquet.
    splits = ("natural", "document", "ecommerce", "embodiedai") + (("all",) if card == "all" else ())
    assert fetched == sorted(["README.md", *(f"data/{s}-00000-of-00001.parquet" for s in splits)])
    assert "annotations.jsonl" not in fetched and later == 1
    assert results["results"]["captionqa_image_natural"]["counts,none"]["n"] > 0


def _vlm2_zip(tmp_path: Path, nested: bool) -> Path:
    release = build_vlm2bench(tmp_path / "release")
    repo = tmp_path / "vlm2_repo"
    repo.mkdir()
    write_zip(release, repo / "vlm2-bench_dataset.zip", nested)
    (repo / "README.md").write_text("# VLM2-Bench (generated fixture)\n")
    return repo


_HUB_SOURCE = "from lmms_comparative.benchmarks.vlm2bench.fetch import hub_source; print(hub_source())"


@pytest.mark.e2e
@pytest.mark.parametrize("nested", [False, True])
def test_vlm2bench_zip_is_downloaded_and_unpacked_once(tmp_path, nested):
    repo = _vlm2_zip(tmp_path, nested)
    with FakeHub({VLM2BENCH: Repo(repo)}) as hub:
        env = _env(hub, tmp_path / "home")
        runs = [
            subprocess.run([sys.executable, "-c", _HUB_SOURCE], env=env, capture_output=True, text=True, timeout=300)
            for _ in range(2)
        ]
        fetched = hub.resolved()
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr[-2000:]
    root = Path(runs[0].stdout.strip().splitlines()[-1])
    assert root == Path(runs[1].stdout.strip().splitlines()[-1])
    assert (root / "jsonl").is_dir() and (root / "data").is_dir()
    assert fetched == ["vlm2-bench_dataset.zip"]  # once; the second run finds it unpacked
    leftovers = (
        [p.name for p in root.parent.iterdir() if p.name.startswith(".")]
        if not nested
        else [p.name for p in root.parents[1].iterdir() if p.name.startswith(".")]
    )
    assert leftovers == []  # no half-unpacked temporary folder stays behind


# ---- what a user sees when the hub refuses ---------------------------------------------------


@pytest.mark.e2e
def test_a_gated_repo_without_a_token_says_to_set_hf_token_and_works_with_it(subtlebench_repo, tmp_path):
    with FakeHub({SUBTLEBENCH: Repo(subtlebench_repo, gated=True)}) as hub:
        env = _env(hub, tmp_path / "home")
        refused = run_cli(eval_args("random_choice", "subtlebench_at", tmp_path / "a", log_samples=False), env=env)
        allowed = run_cli(
            eval_args("random_choice", "subtlebench_at", tmp_path / "b", log_samples=False),
            env={**env, "HF_TOKEN": hub.token},
        )
        tokens = {r.authorized for r in hub.requests if "/resolve/" in r.path}
    assert refused.returncode == 1 and not list((tmp_path / "a").glob("**/*_results.json"))
    assert "lmms-comparative: the hub refused access to KRAFTON/VLM-SubtleBench (HTTP 401)" in refused.stderr
    assert (
        "Set HF_TOKEN to such a token (or run `hf auth login`), or download the files once and set "
        "SUBTLEBENCH_ROOT to that folder." in refused.stderr
    )
    assert "Traceback" not in refused.stderr
    assert allowed.returncode == 0 and tokens == {True}  # every file request carried the token
    read_run(tmp_path / "b", allowed)


@pytest.mark.e2e
def test_rate_limited_requests_are_retried_after_the_hubs_wait(subtlebench_repo, tmp_path):
    with FakeHub({SUBTLEBENCH: Repo(subtlebench_repo)}, rate_limit=3) as hub:
        proc = run_cli(
            eval_args("random_choice", "subtlebench_at", tmp_path / "a", log_samples=False),
            env=_env(hub, tmp_path / "home"),
        )
        limited = sum(1 for r in hub.requests) - 1 - 2 * len(hub.resolved())
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert limited == 3
    read_run(tmp_path / "a", proc)


@pytest.mark.e2e
def test_no_network_and_no_cache_names_the_way_out(tmp_path):
    closed = f"http://127.0.0.1:{free_port()}"  # a port nothing listens on
    env = base_env(tmp_path / "home", HF_ENDPOINT=closed, HF_HUB_OFFLINE="0", HF_DATASETS_OFFLINE="0")
    env.pop("SUBTLEBENCH_ROOT", None)
    proc = run_cli(eval_args("random_choice", "subtlebench_at", tmp_path / "a", log_samples=False), env=env)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "lmms-comparative: the hub could not be reached for KRAFTON/VLM-SubtleBench" in proc.stderr
    assert (
        "Connect to the hub (or set HF_ENDPOINT to a mirror), or download the files once and set "
        "SUBTLEBENCH_ROOT to that folder." in proc.stderr
    )
    offline = run_cli(
        eval_args("random_choice", "subtlebench_at", tmp_path / "b", log_samples=False),
        env={**env, "HF_HUB_OFFLINE": "1"},
    )
    assert (
        offline.returncode == 1
        and "HF_HUB_OFFLINE is set and the Hugging Face cache holds no copy of KRAFTON/VLM-SubtleBench"
        in offline.stderr
    )


@pytest.mark.e2e
def test_an_image_missing_under_a_local_root_is_fetched_from_its_url(subtlebench_repo, tmp_path):
    """The official adapter's fallback (unified_adapter.py, _resolve_image_path)."""
    import shutil

    local = tmp_path / "local"
    shutil.copytree(subtlebench_repo, local)
    first = json.loads((local / "data" / "test.jsonl").read_text().splitlines()[0])
    gone = first["image_2"].split("/resolve/main/", 1)[1]
    (local / gone).unlink()
    with FakeHub({SUBTLEBENCH: Repo(subtlebench_repo)}) as hub:
        env = _env(hub, tmp_path / "home", SUBTLEBENCH_ROOT=str(local))
        proc = run_cli(eval_args("random_choice", "subtlebench_at", tmp_path / "a", log_samples=False), env=env)
        fetched = hub.resolved()
    results, _ = read_run(tmp_path / "a", proc)
    assert proc.returncode == 0 and fetched == [gone]
    assert results["results"]["subtlebench_at"]["counts,none"]["skipped"] == 0
    # Offline, the same image is an item-level skip, named.
    offline = run_cli(
        eval_args("random_choice", "subtlebench_at", tmp_path / "b", log_samples=False),
        env={**base_env(tmp_path / "home2"), "SUBTLEBENCH_ROOT": str(local), "LMMS_COMPARATIVE_MAX_FAILED": "0.5"},
    )
    results, _ = read_run(tmp_path / "b", offline)
    assert (
        results["results"]["subtlebench_at"]["counts,none"]["skipped"] == 1 and gone in offline.stdout + offline.stderr
    )


@pytest.mark.e2e
def test_vlm2bench_runs_from_the_hub_zip_and_from_a_hub_that_offers_only_the_tsv(tmp_path):
    """The same items from the zip and from VLMEvalKit's TSV (a hub whose zip was removed): the
    eight image subtasks give the same results; the video subtask says it needs the zip."""
    from lmms_comparative.benchmarks.vlm2bench.fixture import write_tsv

    zipped = _vlm2_zip(tmp_path, nested=False)
    tsv_repo = tmp_path / "tsv_repo"
    tsv_repo.mkdir()
    write_tsv(tmp_path / "release", tsv_repo / "VLM2Bench_img.tsv")
    results = {}
    for name, repo in (("zip", zipped), ("tsv", tsv_repo)):
        with FakeHub({VLM2BENCH: Repo(repo)}) as hub:
            env = _env(hub, tmp_path / f"home_{name}")
            proc = run_cli(
                eval_args("random_choice", "vlm2bench_image", tmp_path / name, log_samples=False),
                env=env,
            )
            fetched = hub.resolved()
            if name == "tsv":
                video = run_cli(
                    eval_args("random_choice", "vlm2bench_pc_vid", tmp_path / "vid", log_samples=False),
                    env=env,
                )
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert fetched == (["vlm2-bench_dataset.zip"] if name == "zip" else ["VLM2Bench_img.tsv"])
        results[name] = read_run(tmp_path / name, proc)[0]
    assert results["zip"]["results"] == results["tsv"]["results"]
    assert video.returncode == 1 and "vlm2-bench_dataset.zip" in video.stderr and "Traceback" not in video.stderr
