"""--num_fewshot on our tasks: a clear stop naming the benchmark's zero-shot protocol and, for ViDi,
the task that gives its few-shot variant (lmms-eval alone crashes: no few-shot sampler)."""

from __future__ import annotations

import pytest
from helpers import base_env, run_cli

from lmms_comparative.benchmarks.vidi.fixture import build as build_vidi
from lmms_comparative.harness.fewshot import benchmark_of, fewshot_message


def test_messages_per_benchmark():
    assert fewshot_message("vidi_granular", "vidi", 0) is None
    assert fewshot_message("vidi_granular", "vidi", 1) == ("vidi_granular: ViDi's protocol is zero-shot, so --num_fewshot 1 is not supported. Its few-shot variant is the task vidi_fewshot: run --tasks vidi_fewshot without --num_fewshot.")
    assert "builds ViDi's few-shot prompt itself" in fewshot_message("vidi_fewshot", "vidi", 2)
    assert fewshot_message("compbench_pair", "compbench", 3).endswith("MLLM-CompBench's protocol is zero-shot, so --num_fewshot 3 is not supported. It defines no few-shot variant: run without --num_fewshot.")


def test_only_our_hooks_are_ours():
    from lmms_comparative.benchmarks.subtlebench import hooks as subtlebench
    from lmms_comparative.benchmarks.vlm2bench import hooks as vlm2bench

    assert benchmark_of(subtlebench.doc_to_text) == "subtlebench" and benchmark_of(vlm2bench.process_results) == "vlm2bench"
    assert benchmark_of(pytest.approx) is None and benchmark_of(None) is None


@pytest.mark.e2e
def test_num_fewshot_stops_with_the_message_before_any_request(hf_home, tmp_path):
    root = build_vidi(tmp_path / "vidi")
    proc = run_cli(
        ["--model", "random_choice", "--tasks", "vidi_granular", "--num_fewshot", "1", "--output_path", str(tmp_path / "out"), "--log_samples"],
        env=base_env(hf_home, VIDI_ROOT=str(root)),
    )
    logs = proc.stdout + proc.stderr
    assert "ViDi's protocol is zero-shot" in logs and "run --tasks vidi_fewshot without --num_fewshot" in logs, logs[-3000:]
    assert "has no attribute 'sampler'" not in logs
    assert not list((tmp_path / "out").glob("**/*_results.json"))
