"""subtlebench_twostep (paper §4.3, Figure 10) through the real CLI: every model kind runs the two
rounds through ``--model multiround``; the second round's prompt holds the first round's reply
exactly; both replies are in the samples log; a model that cannot run rounds is stopped with a
message naming the wrapper."""

from __future__ import annotations

import os
import re

import pytest
from helpers import base_env, eval_args, read_run, run_cli, run_score
from helpers.fake_openai import FakeOpenAI
from helpers.tiny_models import tiny_multiround

from lmms_comparative.benchmarks.subtlebench import data
from lmms_comparative.benchmarks.subtlebench.prompts import (
    TWO_STEP_SYSTEM_1,
    TWO_STEP_SYSTEM_2,
    TWO_STEP_USER_1,
    TWO_STEP_USER_2,
)
from lmms_comparative.metrics.mcq import format_options

pytestmark = pytest.mark.e2e


def _docs(root) -> dict[str, dict]:
    old = os.environ.get(data.ENV_VAR)
    os.environ[data.ENV_VAR] = str(root)
    try:
        return {d["question"]: d for d in data.load_docs("test")}
    finally:
        os.environ.pop(data.ENV_VAR) if old is None else os.environ.__setitem__(data.ENV_VAR, old)


def _system(body: dict) -> str:
    first = body["messages"][0]
    content = first["content"]
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)


def _user(body: dict) -> str:
    content = body["messages"][-1]["content"]
    return (
        content if isinstance(content, str) else "".join(p.get("text", "") for p in content if p.get("type") == "text")
    )


def respond(body: dict) -> str:
    if _system(body) == TWO_STEP_SYSTEM_1:
        question = _user(body).split(":\n\n", 1)[1].split("\n\n", 1)[0]
        return f"In the second image of '{question}' something changed.\nIt is brighter."
    return "B"


@pytest.fixture(scope="module")
def api_run(subtlebench_root, hf_home, tmp_path_factory):
    out = tmp_path_factory.mktemp("twostep_api")
    with FakeOpenAI(respond) as server:
        args = f"inner=openai,model_version=vlm,base_url={server.base_url},api_key={server.api_key}"
        proc = run_cli(
            eval_args("multiround", "subtlebench_twostep", out, model_args=args),
            env=base_env(hf_home, SUBTLEBENCH_ROOT=str(subtlebench_root)),
        )
        requests, rejected = list(server.requests), server.rejected
    results, samples = read_run(out, proc)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return requests, rejected, results, samples, out


def test_the_second_round_holds_the_first_rounds_reply_and_figure_10s_prompts(api_run, subtlebench_root):
    requests, rejected, results, samples, _ = api_run
    docs = _docs(subtlebench_root)
    first = [b for b in requests if _system(b) == TWO_STEP_SYSTEM_1]
    second = [b for b in requests if _system(b) == TWO_STEP_SYSTEM_2]
    assert (
        rejected == 0
        and len(first) == len(second) == len(docs) == results["results"]["subtlebench_twostep"]["counts,none"]["n"]
    )
    replies = {}
    for body in first:
        question = _user(body).split(":\n\n", 1)[1].split("\n\n", 1)[0]
        doc = docs[question]
        assert _user(body) == TWO_STEP_USER_1.format(
            question_text=question, options_text=format_options(doc["options"])
        )
        assert sum(1 for p in body["messages"][-1]["content"] if p.get("type") == "image_url") == 2
        replies[question] = respond(body)
    for body in second:
        text = _user(body)
        question = re.search(r"\n\nQuestion: (.*)\n\nBased on", text).group(1)
        doc = docs[question]
        assert text == TWO_STEP_USER_2.format(
            diff_description=replies[question], question_text=question, options_text=format_options(doc["options"])
        )
        assert sum(1 for p in body["messages"][-1]["content"] if p.get("type") == "image_url") == 2
    # Both rounds in the samples log; the score is the second round's letter.
    for task, rows in samples.items():
        for row in rows:
            rounds = row.get("resps", row["filtered_resps"])
            assert (
                rounds[1] == "B"
                and rounds[0].startswith("In the second image of '")
                and row["accuracy"]["rounds"] == rounds
            )
            assert row["accuracy"]["parsed"] == "B"
    counts = results["results"]["subtlebench_twostep"]["counts,none"]
    assert counts["correct"] == sum(1 for d in docs.values() if d["answer_letter"] == "B") and counts["failed"] == 0


def test_a_model_without_rounds_is_stopped_with_the_way_on(subtlebench_root, hf_home, tmp_path):
    with FakeOpenAI(respond) as server:
        proc = run_cli(
            [*server.model_cli, "--tasks", "subtlebench_twostep_at", "--output_path", str(tmp_path)],
            env=base_env(hf_home, SUBTLEBENCH_ROOT=str(subtlebench_root)),
        )
        assert not server.requests
    assert proc.returncode == 1
    assert (
        "does not implement. Run it through lmms-comparative's wrapper, which sends each round to your "
        "model: --model multiround --model_args inner=openai," in proc.stderr
    )


def test_a_failed_first_step_ends_the_item_as_a_failed_request(subtlebench_root, hf_home, tmp_path):
    def flaky(body: dict) -> str | int:
        return 500 if _system(body) == TWO_STEP_SYSTEM_1 and "brighter" in _user(body) else respond(body)

    with FakeOpenAI(flaky) as server:
        args = f"inner=openai,model_version=vlm,base_url={server.base_url},api_key={server.api_key},max_retries=1"
        proc = run_cli(
            eval_args("multiround", "subtlebench_twostep_at", tmp_path, model_args=args),
            env=base_env(hf_home, SUBTLEBENCH_ROOT=str(subtlebench_root), LMMS_COMPARATIVE_MAX_FAILED="1"),
        )
        second = [b for b in server.requests if _system(b) == TWO_STEP_SYSTEM_2]
    results, samples = read_run(tmp_path, proc)
    failed = [r for r in samples["subtlebench_twostep_at"] if r["accuracy"]["status"] == "failed"]
    assert failed and all(len(r["accuracy"]["rounds"]) == 1 for r in failed)
    assert len(second) == len(samples["subtlebench_twostep_at"]) - len(failed)
    assert results["results"]["subtlebench_twostep_at"]["counts,none"]["failed"] == len(failed)


@pytest.mark.parametrize("model", ["qwen2_5_vl", "qwen2_vl"])
def test_tiny_real_checkpoints_chat_and_simple(model, subtlebench_root, hf_home, tmp_path):
    """lmms-eval's Qwen2.5-VL (a chat class) and Qwen2-VL (a simple class) on tiny random weights:
    the text the processor gets in round two holds the reply of round one."""
    env = base_env(hf_home, SUBTLEBENCH_ROOT=subtlebench_root)
    _, samples, records = tiny_multiround(model, "subtlebench_twostep_at", tmp_path, env)
    texts = [r["text"][0] for r in records]
    rows = samples["subtlebench_twostep_at"]
    assert len(rows) == 2 and len(records) == 4
    for row in rows:
        first, second = row.get("resps", row["filtered_resps"])
        assert any(f"Description of the differences: {first}\n\nQuestion:" in t for t in texts), (first, texts)
        assert row["accuracy"]["rounds"] == [first, second]
    assert all(len(r["images"]) == 2 for r in records)


def test_language_only_comparison_answers_from_the_two_descriptions(subtlebench_root, hf_home, tmp_path):
    """Appendix C.2 / Table 9: each image asked alone with its category's question (verbatim), then
    the question answered from both descriptions with no image."""
    from lmms_comparative.benchmarks.subtlebench.prompts import LANGUAGE_ONLY_PREAMBLE, LANGUAGE_ONLY_QUESTIONS

    counter = {"n": 0}

    def reply(body: dict) -> str:
        counter["n"] += 1
        return "B" if "here is a description of each" in _user(body) else f"description number {counter['n']}"

    with FakeOpenAI(reply) as server:
        args = f"inner=openai,model_version=vlm,base_url={server.base_url},api_key={server.api_key},num_concurrent=1"
        proc = run_cli(
            eval_args("multiround", "subtlebench_langonly", tmp_path, model_args=args),
            env=base_env(hf_home, SUBTLEBENCH_ROOT=str(subtlebench_root)),
        )
        requests = list(server.requests)
    results, samples = read_run(tmp_path, proc)
    assert proc.returncode == 0, proc.stderr[-3000:]
    per_image = [b for b in requests if _user(b) in LANGUAGE_ONLY_QUESTIONS.values()]
    answers = [b for b in requests if "here is a description of each" in _user(b)]
    n = sum(len(rows) for rows in samples.values())
    assert len(per_image) == 2 * n and len(answers) == n
    assert all(sum(1 for p in b["messages"][-1]["content"] if p.get("type") == "image_url") == 1 for b in per_image)
    assert all(
        isinstance(b["messages"][-1]["content"], str)
        or not any(p.get("type") == "image_url" for p in b["messages"][-1]["content"])
        for b in answers
    )
    texts = {_user(b) for b in answers}
    for rows in samples.values():
        for row in rows:
            first, second, final = row.get("resps", row["filtered_resps"])
            assert any(
                t.startswith(LANGUAGE_ONLY_PREAMBLE.format(first=first, second=second) + "\n\nQuestion: ")
                for t in texts
            )
            assert final == "B" and row["accuracy"]["rounds"] == [first, second, final]
    assert set(samples) == {"subtlebench_langonly_em", "subtlebench_langonly_ex", "subtlebench_langonly_ql"}


def test_a_two_step_runs_samples_scored_again_give_its_results(api_run, subtlebench_root, hf_home, tmp_path):
    """lmms-comparative score on the run's samples: each item's two rounds are replayed as rounds
    (not as two repeats), and the results are the run's."""
    _, _, results, samples, out = api_run
    proc = run_score(
        "subtlebench",
        str(out),
        "-o",
        str(tmp_path / "again"),
        env=base_env(hf_home, SUBTLEBENCH_ROOT=str(subtlebench_root)),
    )
    again, again_samples = read_run(tmp_path / "again", proc)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "--repeats" not in proc.stderr
    assert again["results"] == results["results"] and again["groups"] == results["groups"]
    for task, rows in again_samples.items():
        assert {r["doc_id"]: r["accuracy"]["rounds"] for r in rows} == {
            r["doc_id"]: r["accuracy"]["rounds"] for r in samples[task]
        }


def test_a_run_of_single_and_multi_step_tasks_scored_again(subtlebench_root, hf_home, tmp_path):
    """Single-round and multi-round requests reach the replay model in separate calls; the replies
    of both kinds are checked against the whole run, and the results come back the same."""
    env = base_env(hf_home, SUBTLEBENCH_ROOT=str(subtlebench_root))
    proc = run_cli(
        eval_args(
            "multiround", "subtlebench_at,subtlebench_twostep_at", tmp_path / "run", model_args="inner=random_choice"
        ),
        env=env,
    )
    results, _ = read_run(tmp_path / "run", proc)
    assert proc.returncode == 0, proc.stderr[-3000:]
    again = run_score("subtlebench", str(tmp_path / "run"), "-o", str(tmp_path / "again"), env=env)
    scored, _ = read_run(tmp_path / "again", again)
    assert again.returncode == 0, again.stderr[-3000:]
    assert scored["results"] == results["results"] and set(results["results"]) == {
        "subtlebench_at",
        "subtlebench_twostep_at",
    }
