"""--num_fewshot on our tasks: a clear stop naming the benchmark's zero-shot protocol and, for ViDi,
the task that gives its few-shot variant (lmms-eval alone crashes: no few-shot sampler)."""

from __future__ import annotations

import pytest
from helpers import base_env, read_run, run_cli

from lmms_comparative.benchmarks.vidi.fixture import build as build_vidi
from lmms_comparative.harness.fewshot import benchmark_of, fewshot_message


def test_messages_per_benchmark():
    assert fewshot_message("vidi_granular", "vidi", 0) is None
    assert fewshot_message("vidi_granular", "vidi", 1) == (
        "vidi_granular: ViDi's protocol is zero-shot, so --num_fewshot 1 is not supported. Its few-shot "
        "variant is the task vidi_fewshot: run --tasks vidi_fewshot without --num_fewshot."
    )
    assert "builds ViDi's few-shot prompt itself" in fewshot_message("vidi_fewshot", "vidi", 2)
    assert fewshot_message("compbench_pair", "compbench", 3).endswith(
        "MLLM-CompBench's protocol is zero-shot, so --num_fewshot 3 is not supported. It defines no "
        "few-shot variant: run without --num_fewshot."
    )


def test_only_our_installed_tasks_are_ours():
    """A task is ours by its exact installed name, never by a prefix or by where a hook lives."""
    assert benchmark_of("subtlebench_at") == "subtlebench" and benchmark_of("vlm2bench_gc_mat") == "vlm2bench"
    assert benchmark_of("subtlebench_at,evil.yaml") is None and benchmark_of("subtlebench_nosuch") is None
    assert benchmark_of(pytest.approx) is None and benchmark_of(None) is None


@pytest.mark.e2e
def test_num_fewshot_stops_with_the_message_before_any_request(hf_home, tmp_path):
    """One line, exit status 1, no traceback: the stop is a SystemExit, which lmms-eval's CLI does
    not catch (a ProtocolError was caught, printed with a 17-line traceback and "..": the message's
    full stop and lmms-eval's own). Its twin: the same run without --num_fewshot works."""
    env = base_env(hf_home, VIDI_ROOT=str(build_vidi(tmp_path / "vidi")))
    run = ["--model", "random_choice", "--tasks", "vidi_granular", "--log_samples"]
    proc = run_cli([*run, "--num_fewshot", "2", "--output_path", str(tmp_path / "out")], env=env)
    logs = proc.stdout + proc.stderr
    said = [line for line in logs.splitlines() if "zero-shot" in line]
    assert said == [
        "lmms-comparative: vidi_granular: ViDi's protocol is zero-shot, so --num_fewshot 2 is not "
        "supported. Its few-shot variant is the task vidi_fewshot: run --tasks vidi_fewshot without "
        "--num_fewshot."
    ], logs[-3000:]
    assert (
        proc.returncode == 1
        and "Traceback" not in logs
        and "Error during evaluation" not in logs
        and ".." not in said[0]
    ), logs[-3000:]
    assert "has no attribute 'sampler'" not in logs
    assert not list((tmp_path / "out").glob("**/*_results.json"))
    proc = run_cli([*run, "--output_path", str(tmp_path / "zero_shot")], env=env)
    results, _ = read_run(tmp_path / "zero_shot", proc)
    assert proc.returncode == 0 and "vidi_granular" in results["results"], proc.stderr[-3000:]
