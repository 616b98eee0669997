"""ViDiC-1K through the real lmms-eval CLI on the fixture: the judge served by the local fake OpenAI
server (it requires the configured key), its reply chosen per request so that every parsing rule
is exercised (a fenced JSON block, a bare JSON object, "Answer: yes" prose, an uppercase "Yes", a
reply nothing can read, a failed request); the results checked against the items counted by hand
in the test, then ``verify``, and ``score`` of an authors' response file."""

from __future__ import annotations

import hashlib
import json

import pytest
from helpers import judged_task_run, read_run, run_score
from helpers.verifying import verdicts, verify

from lmms_comparative.benchmarks.vidic import hooks
from lmms_comparative.benchmarks.vidic.fixture import build
from lmms_comparative.benchmarks.vidic.prompts import GENERATION_PROMPT

pytestmark = pytest.mark.e2e

# reply kind -> (the judge's reply, the answer the authors' parser reads from it)
REPLIES = {
    "fenced_yes": ('Here:\n```json\n{"answer": "yes", "explanation": "B is faster"}\n```', "yes"),
    "json_no": ('{"answer": "no", "explanation": "same"}', "no"),
    "prose_yes": ("The answer: YES, because the camera pans.", "yes"),
    "upper_yes": ('{"answer": "Yes", "explanation": "x"}', "Yes"),
    "unreadable": ("I would rather not say.", "error"),
}
KINDS = list(REPLIES)


def kind_of(messages: list[dict]) -> str:
    """A request's reply kind, chosen by the hash of its two messages."""
    digest = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()
    return KINDS[int(digest, 16) % len(KINDS)]


class Judge:
    def __init__(self):
        self.bodies: list[dict] = []

    def __call__(self, body: dict) -> str:
        self.bodies.append(body)
        return REPLIES[kind_of(body["messages"])][0]


@pytest.fixture(scope="module")
def judged_run(tmp_path_factory, hf_home):
    """One run of ``vidic`` on the fixture (5 pairs), its judge and environment."""
    base = tmp_path_factory.mktemp("vidic")
    root = build(base / "root", pairs=5)
    with judged_task_run(base, hf_home, "vidic", Judge(), "VIDIC_JUDGE", VIDIC_ROOT=str(root)) as run:
        yield {**run, "root": root}


def _rows(run) -> list[dict]:
    return [
        next(v for v in s.values() if isinstance(v, dict) and "pair" in v)
        for s in sorted(run["samples"]["vidic"], key=lambda s: s["doc_id"])
    ]


def test_every_request_is_the_authors_and_the_run_counts_as_they_do(judged_run):
    rows = _rows(judged_run)
    assert len(rows) == 5
    expected = [m for row in rows for m in hooks.judge_requests(row)]
    bodies = judged_run["judge"].bodies
    # One request per checklist item, each exactly judge.py's payload: the model and two messages,
    # nothing else (no temperature, no token limit, no seed).
    assert sorted(json.dumps(b["messages"], sort_keys=True) for b in bodies) == sorted(
        json.dumps(m, sort_keys=True) for m in expected
    )
    for body in bodies:
        assert set(body) - {"stream"} == {"model", "messages"}, body.keys()
        assert body["model"] == "gpt-5-mini"
        assert body["messages"][0]["content"] in (
            "You are a rigorous video analysis assistant. This is a Similarities problem.",
            "You are a rigorous video analysis assistant. This is a Differences problem.",
        )
    # The score counted by hand: an item is right when the parsed answer, lowercased, is its gold.
    right = total = 0
    by_section = {"Similarities": [0, 0], "Differences": [0, 0]}
    for messages in expected:
        item = next(
            q
            for row in rows
            for q in json.loads(row["checklist"])
            if f"【Question】\n{q['question']}\n" in messages[1]["content"] and q["section"] in messages[0]["content"]
        )
        ok = REPLIES[kind_of(messages)][1].lower() == item["correct_answer"]
        right, total = right + ok, total + 1
        by_section[item["section"]][0] += ok
        by_section[item["section"]][1] += 1
    found = judged_run["results"]["results"]["vidic"]
    assert {kind_of(m) for m in expected} >= {"unreadable", "upper_yes"}, "the fixture should reach several kinds"
    assert found["avg,none"] == pytest.approx(right / total, abs=1e-12)
    assert found["sim,none"] == pytest.approx(by_section["Similarities"][0] / by_section["Similarities"][1])
    assert found["diff,none"] == pytest.approx(by_section["Differences"][0] / by_section["Differences"][1])
    counts = found["counts,none"]
    assert (counts["items"], counts["pairs"], counts["judge_requests"], counts["judge_failed"]) == (total, 5, total, 0)
    assert counts["error_answers"] == sum(kind_of(m) == "unreadable" for m in expected)
    assert set(found["ci95,none"]) >= {"avg", "unit"}
    assert sum(v["n"] for v in found["by_class,none"].values()) == total


def test_the_model_is_asked_as_the_authors_ask(judged_run):
    """What a chat model class is handed for a pair, read through lmms-eval's own message protocol:
    the prompt file's text as the system message, then "Video A:", video A, "Video B:", video B
    (inference/get_response_qwen2_5.py); the simple classes get the prompt and the two videos in order."""
    from lmms_eval.protocol import ChatMessages

    doc = {k: v for k, v in _rows(judged_run)[0].items()}
    doc.update(video1=str(judged_run["root"] / doc["video1_path"]), video2=str(judged_run["root"] / doc["video2_path"]))
    messages = ChatMessages(messages=hooks.doc_to_messages(doc)).to_hf_messages()
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[0]["content"] == [{"type": "text", "text": GENERATION_PROMPT}]
    assert messages[1]["content"] == [
        {"type": "text", "text": "Video A:"},
        {"type": "video", "video": doc["video1"]},
        {"type": "text", "text": "Video B:"},
        {"type": "video", "video": doc["video2"]},
    ]
    assert hooks.doc_to_visual(doc) == [doc["video1"], doc["video2"]]
    assert hooks.doc_to_text(doc) == GENERATION_PROMPT
    assert GENERATION_PROMPT.startswith("ROLE & TASK\n") and GENERATION_PROMPT.endswith("In Video B, [Description].")


def test_verify_passes_on_the_run_and_fails_on_a_changed_answer(judged_run, tmp_path):
    out = judged_run["base"] / "out"
    proc = verify(out, env=judged_run["env"])
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert verdicts(proc)["vidic"].startswith("PASS"), proc.stdout


def test_score_reads_an_authors_response_file(judged_run, tmp_path):
    rows = _rows(judged_run)
    # The authors' file: index, the two paths, the response; one pair left out (its items wrong),
    # one given twice (the later record wins, as judge.py's dict keeps it).
    records = [
        {
            "index": r["index"],
            "video1_path": r["video1_path"],
            "video2_path": r["video2_path"],
            "response": r["prediction"],
        }
        for r in rows[1:]
    ]
    records.append({**records[0], "response": {"Subject": "different"}})
    path = tmp_path / "model_results.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    env = {**judged_run["env"], "LMMS_COMPARATIVE_MAX_FAILED": "0.5"}
    proc = run_score("vidic", str(path), "-o", str(tmp_path / "scored"), env=env)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    results, samples = read_run(tmp_path / "scored", proc)
    found = results["results"]["vidic"]
    counts = found["counts,none"]
    assert counts["failed"] == 1 and counts["pairs"] == 5
    scored = {r["pair"]: r for r in _rows({"samples": samples})}
    assert scored[rows[1]["pair"]]["prediction"] == json.dumps({"Subject": "different"}, ensure_ascii=False)
    assert scored[rows[0]["pair"]]["status"] == "failed"
