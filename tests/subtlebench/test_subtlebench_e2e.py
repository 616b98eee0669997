"""VLM-SubtleBench through the real lmms-eval CLI, against a local OpenAI-compatible server."""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from helpers import SUBTLEBENCH_TASKS, base_env, read_run, run_cli
from helpers.fake_openai import FakeOpenAI, message_images, message_text
from PIL import Image

CODES = dict(
    zip(
        [
            "attribute",
            "state",
            "emotion",
            "temporal",
            "spatial",
            "existence",
            "quantity",
            "quality",
            "viewpoint",
            "action",
        ],
        SUBTLEBENCH_TASKS,
    )
)
MODES = ("plain", "reasoning", "wrong", "garbage")


def fixture_records(root: Path) -> list[dict]:
    return [json.loads(line) for line in (root / "data" / "test.jsonl").read_text().splitlines()]


def mode_of(question: str) -> str:
    """How the fake model answers a question: fixed by the question text alone."""
    return MODES[int(hashlib.md5(question.encode()).hexdigest(), 16) % len(MODES)]


def make_responder(answers: dict[str, str]):
    """Answers from the prompt: finds the question and the lettered options, then replies in the
    style that ``mode_of`` picks: right letter, right letter after reasoning, wrong letter, garbage."""

    def respond(body: dict) -> str:
        text = message_text(body)
        question = re.search(r"^Question: (.*)$", text, re.M).group(1)
        options = dict((m.group(2), m.group(1)) for m in re.finditer(r"^([A-E])\. (.*)$", text, re.M))
        right = options[answers[question]]
        wrong = next(letter for letter in options.values() if letter != right)
        return {
            "plain": right,
            "reasoning": f"### Reasoning\nImage A and image B differ in one shape.\n\n### Answer\n{right}",
            "wrong": f"{wrong}.",
            "garbage": "I cannot tell the difference.",
        }[mode_of(question)]

    return respond


def _subtlebench_args(server, out) -> list[str]:
    """The openai model against the test server, one retry, the whole subtlebench group, samples logged."""
    return [
        "--model",
        "openai",
        "--model_args",
        f"model_version=fake-vlm,base_url={server.base_url},api_key=sk-x,max_retries=1",
        "--tasks",
        "subtlebench",
        "--output_path",
        str(out),
        "--log_samples",
    ]


@pytest.fixture(scope="module")
def openai_run(subtlebench_root, hf_home, tmp_path_factory):
    records = fixture_records(subtlebench_root)
    answers = {r["question"]: r["answer"] for r in records}
    out = tmp_path_factory.mktemp("run_openai")
    with FakeOpenAI(make_responder(answers)) as server:
        proc = run_cli(
            _subtlebench_args(server, out),  # fmt: skip
            env=base_env(hf_home, SUBTLEBENCH_ROOT=str(subtlebench_root)),
        )
        requests = list(server.requests)
    results, samples = read_run(out, proc)
    return records, requests, results, samples


@pytest.mark.e2e
def test_every_request_carries_both_images_in_order(openai_run, subtlebench_root):
    records, requests, _, _ = openai_run
    assert len(requests) == len(records)  # one request per item: no retries, nothing lost
    by_question = {r["question"]: r for r in records}
    # A token limit that truncates no reasoning reply (the official code sends none to OpenAI).
    assert {body["max_tokens"] for body in requests} == {16384}
    for body in requests:
        images = message_images(body)
        assert len(images) == 2
        question = re.search(r"^Question: (.*)$", message_text(body), re.M).group(1)
        record = by_question[question]
        # The first image sent is image_1 of the record, the second image_2 (compare pixels).
        for sent, field in zip(images, ("image_1", "image_2")):
            local = subtlebench_root / record[field].split("/resolve/main/", 1)[1]
            assert sent.convert("RGB").tobytes() == Image.open(local).convert("RGB").tobytes()
        assert body["messages"][0]["role"] == "system"
        assert "Respond **only** with the answer letter" in message_text({"messages": body["messages"][:1]})
        assert body["temperature"] == 0.5


@pytest.mark.e2e
def test_scores_match_the_fixture_truth_and_the_samples(openai_run):
    records, _, results, samples = openai_run
    by_id = {f"{r['category']}_{r['source']}_{r['source_id']}": r for r in records}
    assert {mode_of(r["question"]) for r in records} == set(MODES)  # every reply style is exercised
    expected = defaultdict(list)
    for record in records:
        expected[CODES[record["category"]]].append(mode_of(record["question"]) in ("plain", "reasoning"))
    for task in SUBTLEBENCH_TASKS:
        row = results["results"][task]
        want = sum(expected[task]) / len(expected[task])
        assert row["accuracy,none"] == pytest.approx(want)
        per_sample = [s["accuracy"]["correct"] for s in samples[task]]
        assert sum(per_sample) / len(per_sample) == pytest.approx(row["accuracy,none"])
        garbage = sum(1 for s in samples[task] if mode_of(by_id[s["accuracy"]["item_id"]]["question"]) == "garbage")
        assert row["counts,none"]["unparsed"] == garbage
        assert row["counts,none"]["failed"] == 0


@pytest.mark.e2e
def test_group_headline_is_the_micro_average(openai_run):
    records, _, results, samples = openai_run
    group = (
        results["groups"]["subtlebench"]
        if "subtlebench" in results.get("groups", {})
        else results["results"]["subtlebench"]
    )
    all_correct = [s["accuracy"]["correct"] for task in SUBTLEBENCH_TASKS for s in samples[task]]
    assert len(all_correct) == len(records)
    assert group["accuracy,none"] == pytest.approx(sum(all_correct) / len(all_correct))
    chance = sum(1 / (1 + len(r["distractors"])) for r in records) / len(records)
    assert group["chance,none"] == pytest.approx(chance)
    assert group["counts,none"]["n"] == len(records)
    # Per-domain breakdown of the group: recomputed from the fixture.
    by_domain = defaultdict(list)
    for record in records:
        by_domain[record["domain"]].append(mode_of(record["question"]) in ("plain", "reasoning"))
    assert set(group["by_domain,none"]) == set(by_domain)
    for domain, hits in by_domain.items():
        assert group["by_domain,none"][domain]["n"] == len(hits)
        assert group["by_domain,none"][domain]["accuracy"] == pytest.approx(sum(hits) / len(hits))


@pytest.mark.e2e
def test_failed_requests_are_counted_and_scored_wrong(subtlebench_root, hf_home, tmp_path):
    """The server answers HTTP 500 for some questions: lmms-eval's openai model gives up and
    returns its failure marker; those items count as wrong (the official evaluator's rule), are
    counted as failed, and past the allowed share they flag the run."""
    everything = fixture_records(subtlebench_root)
    records = [r for r in everything if r["category"] in ("spatial", "attribute")]
    answers = {r["question"]: r["answer"] for r in everything}
    failing = {r["question"] for r in records[::3]}
    normal = make_responder(answers)

    def respond(body):
        question = re.search(r"^Question: (.*)$", message_text(body), re.M).group(1)
        return 500 if question in failing else normal(body)

    with FakeOpenAI(respond) as server:
        proc = run_cli(
            _subtlebench_args(server, tmp_path),  # fmt: skip
            env=base_env(hf_home, SUBTLEBENCH_ROOT=str(subtlebench_root)),
        )
    results, samples = read_run(tmp_path, proc)
    for task, category in (("subtlebench_sp", "spatial"), ("subtlebench_at", "attribute")):
        mine = [r for r in records if r["category"] == category]
        scored = [r for r in mine if r["question"] not in failing]
        hits = [mode_of(r["question"]) in ("plain", "reasoning") for r in scored]
        row = results["results"][task]
        assert row["counts,none"]["failed"] == len(mine) - len(scored) > 0
        assert row["counts,none"]["scored"] == len(scored)
        # multiple_choice_evaluator.py records a failed call as is_correct False: correct / all.
        assert row["accuracy,none"] == pytest.approx(sum(hits) / len(mine))
        assert all(s["accuracy"]["correct"] is None for s in samples[task] if s["accuracy"]["status"] == "failed")
    # The group's micro average agrees with the counts beside it: correct / all evaluated items.
    parts = [row for task, row in results["results"].items() if task.startswith("subtlebench_")]
    assert len(parts) == 10
    group = (
        results["groups"]["subtlebench"]
        if "subtlebench" in results.get("groups", {})
        else results["results"]["subtlebench"]
    )
    correct, n = sum(p["counts,none"]["correct"] for p in parts), sum(p["counts,none"]["n"] for p in parts)
    assert group["counts,none"]["correct"] == correct and group["counts,none"]["failed"] == len(failing)
    assert group["accuracy,none"] == pytest.approx(correct / n)
    # A third of the requests failed, past the allowed 5%: the run is flagged, its results written.
    log = proc.stdout + proc.stderr
    assert "got no answer from the model (failed requests)" in log and "LMMS_COMPARATIVE_MAX_FAILED" in log
    assert proc.returncode == 1


@pytest.mark.e2e
def test_prompting_strategies_send_their_images_and_prompts(subtlebench_root, hf_home, tmp_path):
    from lmms_comparative.benchmarks.subtlebench.prompts import SYSTEM_PROMPTS

    records = fixture_records(subtlebench_root)
    answers = {r["question"]: r["answer"] for r in records}
    expected_images = {"grid": 2, "grid_paper": 2, "concat": 1, "overlap": 3, "subtract": 3, "highlight": 4}
    tasks = {
        "grid": "subtlebench_grid_qn",
        "grid_paper": "subtlebench_grid_paper_qn",
        "concat": "subtlebench_concat_ex",
        "overlap": "subtlebench_overlap_at",
        "subtract": "subtlebench_subtract_vp",
        "highlight": "subtlebench_highlight_sp",
    }
    with FakeOpenAI(make_responder(answers)) as server:
        proc = run_cli(
            [*server.model_cli, "--tasks", ",".join(tasks.values()), "--output_path", str(tmp_path)],
            env=base_env(hf_home, SUBTLEBENCH_ROOT=str(subtlebench_root)),
        )
        requests = list(server.requests)
    results, _ = read_run(tmp_path, proc)
    by_system = {}
    for body in requests:
        by_system.setdefault(body["messages"][0]["content"][0]["text"], []).append(body)
    for strategy, task in tasks.items():
        bodies = by_system[SYSTEM_PROMPTS[strategy]]
        assert len(bodies) == 4 and all(len(message_images(b)) == expected_images[strategy] for b in bodies), strategy
        assert 0.0 <= results["results"][task]["accuracy,none"] <= 1.0
    # subtlebench_grid sends the official grid pixels (create_grid_messages: 1-px (76, 76, 76) lines),
    # subtlebench_grid_paper the paper's; both on the item's own images, in order.
    from lmms_comparative.benchmarks.subtlebench.image_transforms import grid_overlay, grid_overlay_official

    by_question = {r["question"]: r for r in records}
    for strategy, render in (("grid", grid_overlay_official), ("grid_paper", grid_overlay)):
        for body in by_system[SYSTEM_PROMPTS[strategy]]:
            record = by_question[re.search(r"^Question: (.*)$", message_text(body), re.M).group(1)]
            sources = [
                Image.open(subtlebench_root / record[f].split("/resolve/main/", 1)[1]).convert("RGB")
                for f in ("image_1", "image_2")
            ]
            sent = [np.asarray(im.convert("RGB")) for im in message_images(body)]
            for image, source in zip(sent, sources):
                assert (image == np.asarray(render(source))).all(), strategy
                assert (image != np.asarray(source)).any()
    grid = np.asarray(message_images(by_system[SYSTEM_PROMPTS["grid"]][0])[0].convert("RGB"))
    assert (grid[16] == 76).all() and (grid[:, 48] == 76).all()  # 64 px: lines at 16, 32, 48
    concat = message_images(by_system[SYSTEM_PROMPTS["concat"]][0])[0]
    assert concat.size == (64 + 1 + 64, 64)
    overlap_text = message_text({"messages": by_system[SYSTEM_PROMPTS["overlap"]][0]["messages"][1:]})
    assert overlap_text.startswith(
        "I am showing you three images:\n1. First image\n2. Second image\n3. Overlapped image (50/50 blend "
        "of first and second images)\nQuestion: "
    )
    assert "key visual difference of first and second images.\n\nOptions:\n" in overlap_text
