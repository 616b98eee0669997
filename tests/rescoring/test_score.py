"""``lmms-comparative score`` through the real CLI on the benchmarks' fixtures: a model's run, its
samples logs scored again, gives the same results (groups included); each benchmark's own formats
(SubtleBench evaluator files, VLM2-Bench official answer files and VLMEvalKit prediction files,
ViDi descriptions with repeats, plain {id: reply} files) are scored by the tasks' hooks, and bad
files get one message."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from helpers import base_env, eval_args, read_run, run_cli, run_python, run_score

from lmms_comparative.benchmarks.subtlebench.data import CATEGORIES
from lmms_comparative.benchmarks.subtlebench.scoring import parse_subtlebench_letter
from lmms_comparative.metrics.mcq import LETTERS

pytestmark = pytest.mark.e2e
BENCHMARKS = ("compbench", "subtlebench", "vidi", "vlm2bench")  # those of the shared run (conftest.four_benchmarks_run)


def _env(hf_home, fixture_roots, **extra):
    return base_env(hf_home, **{k: str(v) for k, v in fixture_roots.items()}, **extra)


@pytest.fixture(scope="module")
def model_run(four_benchmarks_run):
    out = four_benchmarks_run
    results, samples = read_run(out)
    return out, results, samples


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_a_runs_samples_scored_again_give_its_results(benchmark, model_run, hf_home, fixture_roots, tmp_path):
    out, results, samples = model_run
    proc = run_score(benchmark, str(out), "-o", str(tmp_path / "scored"), env=_env(hf_home, fixture_roots))
    scored, scored_samples = read_run(tmp_path / "scored", proc)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "read as samples" in proc.stderr
    ours = {t: row for t, row in results["results"].items() if t.startswith(benchmark)}
    assert ours and scored["results"] == ours
    assert scored.get("groups", {}) == {
        g: row for g, row in results.get("groups", {}).items() if g.startswith(benchmark)
    }
    assert scored["config"]["model"] == "replay"
    # The score run's provenance: the files it read, and the same data and item sets as the model's run.
    from lmms_comparative import provenance

    record, original = scored["lmms_comparative"], results["lmms_comparative"]
    assert record["predictions"]["benchmark"] == benchmark
    assert record["predictions"]["files"] == [
        {"path": str(out), "format": "samples", "sha256": provenance.fingerprint(out)}
    ]
    for task in ours:
        if task in original["tasks"]:
            assert record["tasks"][task]["items"] == original["tasks"][task]["items"], task
            assert record["tasks"][task]["data"] == original["tasks"][task]["data"], task
    for task, rows in scored_samples.items():
        strip = lambda r: {
            k: v for k, v in r.items() if k not in ("input_media", "doc_hash", "prompt_hash", "target_hash")
        }  # noqa: E731
        assert [strip(r) for r in sorted(rows, key=lambda r: r["doc_id"])] == [
            strip(r) for r in sorted(samples[task], key=lambda r: r["doc_id"])
        ]
    # A score run's results verify too (one more replay, of the score run's own samples).
    proc = run_python(["-m", "lmms_comparative", "verify", str(tmp_path / "scored")], env=_env(hf_home, fixture_roots))
    verdicts = [
        line.split() for line in proc.stdout.splitlines() if line.split()[:1] in (["PASS"], ["FAIL"], ["UNVERIFIED"])
    ]
    assert proc.returncode == 0 and verdicts and all(v[0] == "PASS" for v in verdicts), proc.stdout


def test_a_mapping_file_needs_its_tasks_and_its_items(hf_home, fixture_roots, tmp_path):
    env = _env(hf_home, fixture_roots)
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps({"no_such_item": "A"}))
    proc = run_score("subtlebench", str(replies), "-o", str(tmp_path / "a"), env=env)
    assert proc.returncode == 2 and "do not say which tasks they are for: name them with --tasks" in proc.stderr
    proc = run_score("subtlebench", str(replies), "--tasks", "subtlebench_at", "-o", str(tmp_path / "b"), env=env)
    assert (
        proc.returncode == 1
        and "1 prediction(s) for items that any task of this run does not have: 'no_such_item'"
        in proc.stdout + proc.stderr
    )
    proc = run_score("subtlebench", str(replies), "--tasks", "vidi_granular", "-o", str(tmp_path / "c"), env=env)
    assert proc.returncode == 2 and "--tasks vidi_granular: not VLM-SubtleBench tasks" in proc.stderr
    replies.write_text("[1, 2]")
    proc = run_score("subtlebench", str(replies), "--tasks", "subtlebench_at", "-o", str(tmp_path / "d"), env=env)
    assert (
        proc.returncode == 2
        and "expected a JSON object {item key: reply}" in proc.stderr
        and "Traceback" not in proc.stderr
    )


def _subtlebench_docs(root: Path) -> list[dict]:
    import os

    from lmms_comparative.benchmarks.subtlebench import data

    old = os.environ.get(data.ENV_VAR)
    os.environ[data.ENV_VAR] = str(root)
    try:
        return data.load_docs("test")
    finally:
        if old is None:
            os.environ.pop(data.ENV_VAR)
        else:
            os.environ[data.ENV_VAR] = old


def test_the_official_evaluators_file_scores_as_the_evaluator_scored_it(hf_home, fixture_roots, tmp_path):
    """An ``mc_evaluation_results.json`` whose runs showed the options in another order (the
    evaluator's shuffle is unseeded): every item is right here exactly when the evaluator found it
    right; a record with an error is a failed request, counted wrong as the evaluator counts it; an
    empty reply the evaluator read no letter from is answered and wrong, not failed; an item the
    evaluator skipped (its image missing) stays skipped: the accuracy is over the evaluated items."""
    docs = _subtlebench_docs(fixture_roots["SUBTLEBENCH_ROOT"])
    rng = random.Random(7)
    questions = []
    for n, doc in enumerate(docs):
        options = list(doc["options"])
        rng.shuffle(options)  # the evaluator's own order
        letter = rng.choice(LETTERS[: len(options)])
        reply = rng.choice([f"### Reasoning\nThe second one.\n### Answer\n{letter}", f"{letter}.", "I cannot tell."])
        parsed = parse_subtlebench_letter(reply)
        chosen = options[LETTERS.index(parsed)] if parsed and LETTERS.index(parsed) < len(options) else None
        record = {
            "question_id": doc["item_id"], "question_text": doc["question"], "options": options,
            "negatives": [o for o in options if o != doc["answer"]],
            "correct_answer": doc["answer"], "correct_letter": LETTERS[options.index(doc["answer"])],
            "predicted_answer": parsed, "predicted_answer_text": chosen,
            "is_correct": chosen == doc["answer"], "cost": 0.0, "response_content": reply,
        }  # fmt: skip
        if n == 0:
            record.update(predicted_answer=None, predicted_answer_text=None, is_correct=False, error="timeout")
        if n == 1:  # as the evaluator writes an empty reply
            record.update(
                predicted_answer=None, predicted_answer_text=None, is_correct=False, error=None, response_content=""
            )
        questions.append(record)
    skipped = [questions.pop(2)]  # the evaluator skipped this item: it is not in "questions"
    skipped_docs = {skipped[0]["question_id"]}
    folder = (
        tmp_path
        / "logs"
        / "multiple_choice_evaluator"
        / "gpt-4o"
        / "no_reasoning"
        / "VLM-SubtleBench"
        / "20260101_000000"
    )
    folder.mkdir(parents=True)
    (folder / "mc_evaluation_results.json").write_text(
        json.dumps(
            {
                "model": "gpt-4o",
                "questions": questions,
                "correct_count": sum(q["is_correct"] for q in questions),
                "skipped_items": [{"item_id": s["question_id"]} for s in skipped],
            }
        )
    )
    proc = run_score(
        "subtlebench",
        str(folder / "mc_evaluation_results.json"),
        "-o",
        str(tmp_path / "out"),
        env=_env(hf_home, fixture_roots, LMMS_COMPARATIVE_MAX_FAILED="0.5"),
    )
    results, samples = read_run(tmp_path / "out", proc)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "read as evaluator" in proc.stderr
    code_of = {category: code for code, category in CATEGORIES.items()}
    by_task: dict[str, list[dict]] = {}
    by_id = {q["question_id"]: q for q in questions}
    skipped_task = None
    for doc in docs:
        task = f"subtlebench_{code_of[doc['category']]}"
        if doc["item_id"] in skipped_docs:
            skipped_task = task
        else:
            by_task.setdefault(task, []).append(by_id[doc["item_id"]])
    # All ten types are here: the group runs too, so its AVG row is written as in a model's run.
    assert "subtlebench" in results["groups"] and "accuracy,none" in results["groups"]["subtlebench"], results.get(
        "groups"
    )
    assert (
        results["results"][skipped_task]["counts,none"]["skipped"] == 1
        and "1 item(s) the files record as skipped stay skipped" in proc.stderr
    )
    for task, records in by_task.items():
        counts = results["results"][task]["counts,none"]
        assert counts["n"] == len(records) and counts["correct"] == sum(r["is_correct"] for r in records), task
        assert counts["failed"] == sum(bool(r.get("error")) for r in records)
        assert results["results"][task]["accuracy,none"] == pytest.approx(
            sum(r["is_correct"] for r in records) / len(records)
        )


def test_vlm2bench_official_answer_files_and_vlmevalkits_predictions(hf_home, fixture_roots, tmp_path, model_run):
    """The official scripts' answer files (one per subtask, under test_res/test_<subtask>/) and
    VLMEvalKit's xlsx, made from a run's replies, give that run's scores."""
    import pandas as pd

    out, results, samples = model_run
    root = fixture_roots["VLM2BENCH_ROOT"]
    code = tmp_path / "code"
    rows_vlmevalkit = []
    files = []
    for subtask, family in (
        ("gc_mat", "gc"),
        ("gc_trk", "gc"),
        ("oc_cpr", "oc"),
        ("oc_cnt", "oc"),
        ("oc_grp", "oc"),
        ("pc_cpr", "pc/image"),
        ("pc_cnt", "pc/image"),
        ("pc_grp", "pc/image"),
    ):
        task = f"vlm2bench_{subtask}"
        questions = [
            json.loads(line) for line in next(root.rglob(f"{subtask}.jsonl")).read_text().splitlines() if line.strip()
        ]
        replies = {r["doc_id"]: r.get("resps", r["filtered_resps"]) for r in samples[task]}
        folder = code / family / "test" / "test_res" / f"test_{subtask.split('_')[1]}"
        folder.mkdir(parents=True, exist_ok=True)
        answers = [
            {"q_id": q["q_id"], "question": q["question"], "model_answer": replies[i], "gt_answer": q["gt_answer"]}
            for i, q in enumerate(questions)
        ]
        files.append(folder / "Model_20260101_000000_answers.jsonl")
        files[-1].write_text("".join(json.dumps(a) + "\n" for a in answers))
        category = subtask.replace("_", "-")
        for q, a in zip(questions, answers):
            index = f"{category}_{q['q_id']}" + (f"_{'p' if q['gt_answer'] == 'T' else 'n'}" if family == "gc" else "")
            rows_vlmevalkit.append(
                {
                    "index": index,
                    "question": q["question"],
                    "answer": q["gt_answer"],
                    "category": category,
                    "prediction": a["model_answer"],
                }
            )
    env = _env(hf_home, fixture_roots)
    proc = run_score("vlm2bench", *map(str, files), "-o", str(tmp_path / "official"), env=env)
    official, _ = read_run(tmp_path / "official", proc)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stderr.count("read as official") == 8
    xlsx = tmp_path / "Model_VLM2Bench.xlsx"
    pd.DataFrame(rows_vlmevalkit).to_excel(xlsx, index=False)
    proc = run_score("vlm2bench", str(xlsx), "-o", str(tmp_path / "vlmevalkit"), env=env)
    vlmevalkit, _ = read_run(tmp_path / "vlmevalkit", proc)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "read as vlmevalkit" in proc.stderr
    for task in (
        f"vlm2bench_{s}" for s in ("gc_mat", "gc_trk", "oc_cpr", "oc_cnt", "oc_grp", "pc_cpr", "pc_cnt", "pc_grp")
    ):
        plain = lambda row: {k: v for k, v in row.items() if k != "alias"}  # noqa: E731 - the run named them inside its group
        assert (
            plain(official["results"][task]) == plain(results["results"][task]) == plain(vlmevalkit["results"][task])
        ), task
    # A file whose ground truth disagrees with the data is refused.
    wrong = [json.loads(line) for line in files[2].read_text().splitlines()]
    wrong[0]["gt_answer"] = "F" if wrong[0]["gt_answer"] == "T" else "T"
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(a) + "\n" for a in wrong))
    proc = run_score("vlm2bench", str(bad), "--tasks", "vlm2bench_oc_cpr", "-o", str(tmp_path / "bad"), env=env)
    assert proc.returncode == 1 and "disagree with the data" in proc.stdout + proc.stderr


def test_vidi_descriptions_with_repeats(hf_home, fixture_roots, tmp_path, model_run):
    out, results, samples = model_run
    pairs = sorted(r["counts"]["item_id"] for r in samples["vidi_granular"])
    descriptions = {pair: [f"The {pair} cup is red in the second image.", "Nothing changed."] for pair in pairs}
    path = tmp_path / "descriptions.json"
    path.write_text(json.dumps(descriptions))
    proc = run_score(
        "vidi", str(path), "--tasks", "vidi_granular", "-o", str(tmp_path / "out"), env=_env(hf_home, fixture_roots)
    )
    scored, scored_samples = read_run(tmp_path / "out", proc)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "--repeats 2" in proc.stderr
    assert scored["results"]["vidi_granular"]["repeats,none"]["k"] == 2
    assert scored["results"]["vidi_granular"]["repeats,none"]["bleu1_std"] > 0
    assert {r["counts"]["item_id"]: r["counts"]["predictions"] for r in scored_samples["vidi_granular"]} == descriptions
    path.write_text(json.dumps({pairs[0]: ["a", "b"], **{p: ["a"] for p in pairs[1:]}}))
    proc = run_score(
        "vidi", str(path), "--tasks", "vidi_granular", "-o", str(tmp_path / "out2"), env=_env(hf_home, fixture_roots)
    )
    assert proc.returncode == 2 and "different numbers of replies" in proc.stderr


def test_a_runs_skipped_item_stays_skipped_when_its_samples_are_scored_again(hf_home, tmp_path):
    """A run that skipped an item (its image missing) records which one; scoring its samples again
    (no image is opened) keeps it skipped, so the results are the run's, not one more failure."""
    from lmms_comparative.benchmarks.subtlebench import data
    from lmms_comparative.benchmarks.subtlebench.fixture import build

    root = build(tmp_path / "sb", per_category=3)
    doc = next(d for d in _subtlebench_docs(root) if d["category"] == "emotion")
    Path(data.image_paths(doc)[0]).unlink()
    env = base_env(hf_home, SUBTLEBENCH_ROOT=str(root), LMMS_COMPARATIVE_MAX_FAILED="0.5")
    proc = run_cli(
        eval_args("random_choice", "subtlebench_em,subtlebench_at", tmp_path / "run"),
        env=env,
    )
    results, _ = read_run(tmp_path / "run", proc)
    recorded = results["lmms_comparative"]["tasks"]["subtlebench_em"]["skipped"]
    assert list(recorded) == [doc["item_id"]] and "missing" in recorded[doc["item_id"]], recorded
    assert results["results"]["subtlebench_em"]["counts,none"]["skipped"] == 1
    scored = run_score("subtlebench", str(tmp_path / "run"), "-o", str(tmp_path / "scored"), env=env)
    again, _ = read_run(tmp_path / "scored", scored)
    assert scored.returncode == proc.returncode, scored.stderr[-3000:]
    for task in ("subtlebench_em", "subtlebench_at"):
        ours, theirs = results["results"][task], again["results"][task]
        assert (
            theirs["accuracy,none"] == ours["accuracy,none"] and theirs["counts,none"]["n"] == ours["counts,none"]["n"]
        ), task
        assert (
            theirs["counts,none"]["failed"] == 0 and theirs["counts,none"]["skipped"] == ours["counts,none"]["skipped"]
        ), task


def test_another_benchmarks_file_is_named_as_such(model_run, hf_home, fixture_roots, tmp_path):
    out, _, _ = model_run
    env = _env(hf_home, fixture_roots)
    log = sorted(out.rglob("*_samples_subtlebench_at.jsonl"))[0]
    only = tmp_path / "only_subtlebench"
    only.mkdir()
    (only / log.name).write_bytes(log.read_bytes())
    evaluator = tmp_path / "mc_evaluation_results.json"
    evaluator.write_text(json.dumps({"model": "m", "questions": []}))
    for benchmark, given, scored, named in (
        (
            "vlm2bench",
            log,
            "a",
            "this is a samples log of task(s) subtlebench_at, not of a VLM2-Bench task: score it with "
            "lmms-comparative score subtlebench",
        ),
        ("compbench", only, "b", "this is a samples log of task(s) subtlebench_at, not of a MLLM-CompBench task"),
        (
            "vidi",
            evaluator,
            "c",
            "this looks like a VLM-SubtleBench evaluator file, not a ViDi one: score it with lmms-comparative "
            "score subtlebench",
        ),
    ):
        proc = run_score(benchmark, str(given), "-o", str(tmp_path / scored), env=env)
        assert proc.returncode == 2 and named in proc.stderr, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
