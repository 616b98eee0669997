"""DiffSpot through the real lmms-eval CLI on the fixture: the judge served by the local fake
OpenAI server (it requires the configured key), its verdicts chosen per prompt so that every rule
is exercised (a correct mutation, a partial one, a hallucination, a reply that is JSON only at the
second attempt, one that never is); the results JSON checked against the expected counts, then
``verify``, ``score`` of the authors' predictions JSONL, and the report."""

from __future__ import annotations

import hashlib
import json
import threading

import pytest
from helpers import judged_task_run, read_run, run_report, run_score
from helpers.fake_openai import message_text
from helpers.verifying import verdicts, verify

from lmms_comparative.benchmarks.diffspot import hooks, scoring
from lmms_comparative.benchmarks.diffspot.fixture import build

pytestmark = pytest.mark.e2e

VERDICTS = {
    "found": '{"mutations": [{"gt": "g", "type": "t", "verdict": "correct", "vlm_match": "m"}], "hallucinations": '
    '[], "summary": {}}',
    "partial": '```json\n{"mutations": [{"verdict": "partial"}], "hallucinations": []}\n```',
    "invented": 'Verdict: {"mutations": [{"verdict": "correct"}], "hallucinations": ["a new banner"]} end',
    "retry": '{"mutations": [{"verdict": "correct"}], "hallucinations": []}',  # after one reply that is not JSON
    "never": '{"mutations": []}\nDone.',  # starts with "{" and has prose after it: never JSON
}
KINDS = list(VERDICTS)


class Judge:
    """A judge whose verdict on a prompt is one of ``KINDS``, chosen by the prompt's hash."""

    def __init__(self):
        self.calls: dict[str, int] = {}
        self.lock = threading.Lock()

    @staticmethod
    def kind(prompt: str) -> str:
        return KINDS[int(hashlib.sha256(prompt.encode()).hexdigest(), 16) % len(KINDS)]

    def __call__(self, body: dict) -> str:
        prompt = message_text(body)
        with self.lock:
            self.calls[prompt] = self.calls.get(prompt, 0) + 1
            first = self.calls[prompt] == 1
        kind = self.kind(prompt)
        return "I cannot say." if kind == "retry" and first else VERDICTS[kind]


def _expected(items: list[dict]) -> dict:
    """The leaderboard's shares of the items ({id, split, kind}), counted by hand."""
    judged = [it for it in items if it["kind"] != "never"]
    has_diff = [it for it in judged if it["split"] != "no_diff"]
    no_diff = [it for it in judged if it["split"] == "no_diff"]
    tp = [it for it in has_diff if it["kind"] in ("found", "invented", "retry")]
    tn = [it for it in no_diff if it["kind"] != "invented"]
    tier = {t: [it for it in has_diff if it["split"] == t] for t in scoring.TIERS}
    share = lambda hits, n: len(hits) / len(n)  # noqa: E731
    return {
        "overall": (len(tp) + len(tn)) / len(judged),
        "diff_recall": share(tp, has_diff),
        "nodiff_specificity": share(tn, no_diff),
        **{f"{t}_recall": share([it for it in tp if it["split"] == t], tier[t]) for t in scoring.TIERS},
        "judged": len(judged),
        "unjudged": len(items) - len(judged),
    }


@pytest.fixture(scope="module")
def scored_run(tmp_path_factory, hf_home):
    """One run of ``diffspot`` on the fixture (4 pairs per split), its judge and environment."""
    base = tmp_path_factory.mktemp("diffspot")
    root = build(base / "root", per_split=4)
    with judged_task_run(
        base, hf_home, "diffspot", Judge(), "DIFFSPOT_JUDGE", DIFFSPOT_ROOT=str(root), LMMS_COMPARATIVE_MAX_FAILED="0.5"
    ) as run:
        yield run


def _items(scored_run) -> tuple[list[dict], dict[str, str], list[dict]]:
    """The run's per-item results (in doc order), each pair's judge prompt, and its verdict kind."""
    rows = [
        next(v for v in s.values() if isinstance(v, dict) and "id" in v)
        for s in sorted(scored_run["samples"]["diffspot"], key=lambda s: s["doc_id"])
    ]
    prompts = {r["id"]: hooks.judge_prompt(r) for r in rows}
    return rows, prompts, [{"id": r["id"], "split": r["split"], "kind": Judge.kind(prompts[r["id"]])} for r in rows]


SHARES = ("overall", "easy_recall", "medium_recall", "hard_recall", "diff_recall", "nodiff_specificity")


def test_the_run_scores_as_the_authors_count(scored_run):
    server, judge = scored_run["server"], scored_run["judge"]
    rows, prompts, items = _items(scored_run)
    assert len(rows) == 16 and {r["split"] for r in rows} == {"easy", "medium", "hard", "no_diff"}
    assert {it["kind"] for it in items} >= {"found", "never"}, (
        "the fixture's prompts should reach several verdict kinds"
    )
    # Every request: one user message (the prompt as render_prompt fills it), temperature 0,
    # 16,384 tokens, reasoning_effort "high" in the body, the default judge model.
    assert {message_text(b) for b in server.requests} == set(prompts.values())
    for body in server.requests:
        assert (
            body["model"],
            body["temperature"],
            body["max_tokens"],
            body["reasoning_effort"],
            len(body["messages"]),
        ) == ("gpt-oss-120b", 0.0, 16384, "high", 1)
    # A reply that is not JSON is asked again, up to three attempts (judge_item).
    for it in items:
        assert judge.calls[prompts[it["id"]]] == {"retry": 2, "never": 3}.get(it["kind"], 1)
    expected = _expected(items)
    found = scored_run["results"]["results"]["diffspot"]
    for metric in SHARES:
        assert found[f"{metric},none"] == pytest.approx(expected[metric], abs=1e-12), metric
    counts = found["counts,none"]
    assert (counts["judged"], counts["unjudged"], counts["failed"], counts["pairs"]) == (
        expected["judged"],
        expected["unjudged"],
        0,
        16,
    )
    assert set(found["ci95,none"]) >= {"overall", "unit"}
    operators = found["by_operator,none"]
    assert sum(v["n"] for v in operators.values()) == sum(
        1 for it in items if it["split"] != "no_diff" and it["kind"] != "never"
    )
    side = [
        json.loads(line)
        for line in next((scored_run["base"] / "out").glob("**/*_judge_diffspot.jsonl")).read_text().splitlines()
    ]
    assert (
        sorted(r["id"] for r in side) == sorted(prompts)
        and sum(r["error"] is not None for r in side) == expected["unjudged"]
    )


def test_verify_passes(scored_run):
    proc = verify(scored_run["base"] / "out", scored_run["env"])
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert verdicts(proc)["diffspot"].startswith("PASS")


def test_the_authors_predictions_file_scores_the_same(scored_run):
    base, server = scored_run["base"], scored_run["server"]
    rows, _, items = _items(scored_run)
    records = [
        {
            "id": r["id"],
            "split": r["split"],
            "model": "random_choice",
            "prompt_version": "v1.0",
            "raw_response": r["prediction"],
            "prediction": r["prediction"],
        }
        for r in rows
    ]
    path = base / "predictions.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records[:-1]), encoding="utf-8")  # one pair without a record
    before = len(server.requests)
    proc = run_score("diffspot", str(path), "-o", str(base / "scored"), env=scored_run["env"])
    assert proc.returncode == 0, proc.stderr[-3000:]
    # The same prompts: every verdict from the cache, but a reply that is not JSON, asked again.
    assert len(server.requests) - before == 2 * sum(it["kind"] == "never" for it in items[:-1])
    results, _ = read_run(base / "scored")
    found, expected = results["results"]["diffspot"], _expected(items[:-1])
    assert (found["counts,none"]["failed"], found["counts,none"]["pairs"]) == (
        1,
        16,
    )  # the missing pair: left out of N, counted
    assert (found["counts,none"]["judged"], found["counts,none"]["unjudged"]) == (
        expected["judged"],
        expected["unjudged"],
    )
    for metric in SHARES:
        assert found[f"{metric},none"] == pytest.approx(expected[metric], abs=1e-12), metric
    # A record whose split disagrees with the release stops the run, naming it.
    wrong = dict(records[0], split="no_diff" if records[0]["split"] != "no_diff" else "easy")
    path.write_text(json.dumps(wrong) + "\n", encoding="utf-8")
    proc = run_score("diffspot", str(path), "-o", str(base / "wrong"), env=scored_run["env"])
    assert proc.returncode != 0 and "split" in proc.stderr


def test_the_report_shows_the_leaderboard_beside_the_run(scored_run):
    base = scored_run["base"]
    proc = run_report(str(base / "out"), "-o", str(base / "report"), "--no-html")
    assert proc.returncode == 0, proc.stderr[-3000:]
    text = (base / "report" / "report.md").read_text(encoding="utf-8")
    section = text[text.index("## DiffSpot") :]
    assert "| Model | Easy | Med | Hard | Diff | No-Diff | Overall | judged | unjudged | no reply |" in section
    assert "| Gemini 3.1 Pro (paper) | 60.5 | 38.9 | 22.7 | 40.7 | 98.4 | 47.2 |" in section
    assert section.count("(paper) |") >= 14  # the 13 published rows and the trivial baseline
