"""Every benchmark (SubtleBench's and CompBench's whole groups, one small task of the others, including
an LLM-scored one: CaptionQA's reader on the local test server), run through one process and through
``torchrun --nproc_per_node 2`` (CPU, gloo): both ranks must do work, every published number must be
equal to the last bit, and both runs verify PASS (verify compares exactly)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import base_env, build_roots, eval_args, read_run, run_cli, torchrun
from helpers.fake_openai import FakeOpenAI, any_scorer

from lmms_comparative.registry import BENCHMARKS

# Every registered benchmark's smoke task (CaptionQA's asks the reader), VLM2-Bench's T/F pairs, and
# the groups whose rows fold floats over many tasks' items (SubtleBench's chance, CompBench's Avg).
GROUPS = ["subtlebench", "compbench"]
TASKS = [b.smoke_task for b in BENCHMARKS if not any(b.owns_task(g) for g in GROUPS)] + ["vlm2bench_pc_cpr"] + GROUPS


@pytest.fixture(scope="module")
def runs(tmp_path_factory, hf_home) -> dict[str, tuple]:
    base = tmp_path_factory.mktemp("two_proc")
    roots = build_roots(
        base,
        subtlebench={"per_category": 5},
        vidi={"pairs": 5},
        captionqa={"per_domain": 4},
        compbench={"per_source": 5},
    )
    out = {}
    for name in ("one", "two"):
        launcher = torchrun() if name == "two" else None
        with FakeOpenAI(any_scorer) as server:
            env = base_env(hf_home, **roots, **server.every_llm_env(), LMMS_COMPARATIVE_LLM_CACHE="off")
            proc = run_cli(
                eval_args("random_choice", ",".join(TASKS), base / name, model_args="seed=3"),
                env=env,
                launcher=launcher,
            )
            reader_calls = len(server.requests)
        out[name] = (proc, read_run(base / name, proc), reader_calls, base / name)
    out["env"] = base_env(hf_home, **roots)  # no endpoint: verify needs none
    return out


@pytest.mark.e2e
def test_both_ranks_did_work(runs):
    proc, (_, samples), _, path = runs["two"]
    logs = proc.stdout + proc.stderr
    assert "Running on rank 1" in logs and "Running on rank 0" in logs
    assert len(list(Path(path).glob("**/*_results.json"))) == 1  # rank 0 writes the results
    # lmms-eval splits the docs rank by rank (doc i on rank i % 2): both halves came back.
    _, (_, single), _, _ = runs["one"]
    assert set(samples) == set(single) and len(samples) > len(TASKS)
    for task in samples:
        assert sorted(s["doc_id"] for s in samples[task]) == sorted(s["doc_id"] for s in single[task]), task
        assert {s["doc_id"] % 2 for s in samples[task]} == {0, 1}, task


@pytest.mark.e2e
def test_every_result_equal_to_the_last_bit(runs):
    _, (one, samples1), calls1, _ = runs["one"]
    _, (two, samples2), calls2, _ = runs["two"]
    assert calls1 == calls2 > 0  # the reader answered every question once, on rank 0 only
    assert set(one["results"]) == set(two["results"]) >= set(TASKS)
    assert one["groups"] == two["groups"] and set(one["groups"]) == set(GROUPS)
    for task in one["results"]:
        assert one["results"][task] == two["results"][task], task  # floats compared with ==, nested dicts included
    assert (
        one["results"]["vlm2bench_oc_cnt"]["counts,none"]["chance_acc_num"]
        == two["results"]["vlm2bench_oc_cnt"]["counts,none"]["chance_acc_num"]
    )
    for task in samples1:  # and the same answer to each doc
        assert {s["doc_id"]: s["filtered_resps"] for s in samples1[task]} == {
            s["doc_id"]: s["filtered_resps"] for s in samples2[task]
        }, task


@pytest.mark.e2e
def test_both_runs_verify(runs):
    """A results file written by two ranks re-scores (in one process) to the same bits."""
    from helpers.verifying import verdicts, verify

    for name in ("one", "two"):
        proc = verify(runs[name][3], runs["env"])
        found = verdicts(proc)
        assert proc.returncode == 0, name + "\n" + proc.stdout[-4000:] + proc.stderr[-2000:]
        assert (
            set(GROUPS) <= set(found)
            and "captionqa_simple_natural" in found
            and all(v.startswith("PASS") for v in found.values())
        ), found
