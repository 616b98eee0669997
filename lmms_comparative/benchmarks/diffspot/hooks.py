"""lmms-eval hooks for DiffSpot: the pairs of the release (all, a tier, the no-diff control), the
fixed prompt with image A (before) and image B (after), the model's list of differences kept as it
is, and the judge's verdicts, once per task, reduced to TP/TN and aggregated as the authors do
(scoring.py, with the authors' file and function beside each rule)."""

from __future__ import annotations

import json
import os
from functools import partial
from pathlib import Path
from typing import Any, Mapping, Sequence

from loguru import logger

from lmms_comparative.benchmarks.diffspot import BENCHMARK, data, scoring
from lmms_comparative.benchmarks.diffspot.prompts import VLM_PROMPT
from lmms_comparative.benchmarks.diffspot.table import (
    JUDGE,
    REASONING_EFFORT,
    REASONING_EFFORT_VARIABLE,
    TASKS,
    metrics,
    task_name,
)
from lmms_comparative.judges import Engine, check_failures
from lmms_comparative.metrics import aggregate
from lmms_comparative.metrics.bootstrap import vector_bootstrap
from lmms_comparative.tasklib import check_model_failures, docs_hook, metric_of, once_per_run, side_logs, skip_counts
from lmms_comparative.tasklib.kept_reply import kept_reply_results

LABEL = "DiffSpot"
KEY = BENCHMARK.item_key.columns  # ("id",)


# ---- docs ---------------------------------------------------------------------------------------


def _docs(suffix: str):
    """A task's docs: the pairs of its split, their images checked before generation
    (data.split_docs)."""
    split = TASKS[suffix][0]
    return docs_hook(task_name(suffix), partial(data.split_docs, split), record=BENCHMARK, label=f"{LABEL} {split}")


process_docs_all = _docs("")
process_docs_easy = _docs("easy")
process_docs_medium = _docs("medium")
process_docs_hard = _docs("hard")
process_docs_nodiff = _docs("nodiff")


def doc_to_visual(doc: dict[str, Any]) -> list:
    """Image A (``image_before``), then image B (``image_after``): baselines/_common.py and every
    runner send them in that order, after the prompt."""
    return data.load_release(Path(doc["root"])).images(int(doc["row"]))


def doc_to_text(doc: dict[str, Any], lmms_eval_specific_kwargs: dict | None = None) -> str:
    # baselines/_common.py load_vlm_prompt: vlm_nodiff.txt for a no-diff pair, vlm_diff.txt for the
    # others; their bodies are the same text (prompts.py), so every pair gets VLM_PROMPT.
    return VLM_PROMPT


def doc_to_messages(doc: dict[str, Any], lmms_eval_specific_kwargs: dict | None = None) -> list[dict]:
    """One user message, no system message: the prompt, image A, image B (baselines/api/run_openai.py
    and the other runners build their content in this order)."""
    first, second = doc_to_visual(doc)
    return [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": doc_to_text(doc)},
                {"type": "image", "url": first},
                {"type": "image", "url": second},
            ],
        }
    ]


def doc_to_target(doc: dict[str, Any]) -> str:
    return scoring.judge_inputs(doc["split"], None, doc["description"])[1]


def _process_results(suffix: str, doc: dict[str, Any], results: list) -> dict[str, dict]:
    """The reply kept as it is (the runners' ``prediction`` is the raw reply); a failed request is
    no prediction, left out of every share as the authors leave a failed generation out (its record
    is never written) and counted."""
    fields = {k: doc[k] for k in ("row", "split", "operator", "mutations", "description", "domain")}
    category = doc["operator"] or scoring.NO_DIFF
    return kept_reply_results(doc, results, metrics(suffix), key=KEY, category=category, **fields)


process_results_all = partial(_process_results, "")
process_results_easy = partial(_process_results, "easy")
process_results_medium = partial(_process_results, "medium")
process_results_hard = partial(_process_results, "hard")
process_results_nodiff = partial(_process_results, "nodiff")


# ---- the judge ----------------------------------------------------------------------------------


def reasoning_effort() -> str:
    """The judge's reasoning effort: ``DIFFSPOT_JUDGE_REASONING_EFFORT``, else "high"; empty: none sent."""
    value = os.environ.get(REASONING_EFFORT_VARIABLE)
    return REASONING_EFFORT if value is None else value.strip()


def judge_prompt(item: Mapping) -> str:
    """The judge's prompt for a scored item (diffspot/cli.py ``_judge_one``, diffspot/judge.py ``render_prompt``)."""
    mutations, description = scoring.judge_inputs(
        item["split"], scoring.mutations_of(json.loads(item["mutations"])), item["description"]
    )
    return scoring.render_judge_prompt(mutations, description, item["prediction"])


def _judge(done: Sequence[Mapping], task: str) -> tuple[list, list, float]:
    """(parsed verdict or None, error or None) per item, and the engine's allowed failure share.
    A reply that is not JSON is asked again, up to three attempts in all (diffspot/judge.py
    ``judge_item``: a JSONDecodeError is retried at once); a failed request has had the engine's
    retries already."""
    engine = Engine.from_env(JUDGE.setting, defaults=JUDGE.default)
    effort = reasoning_effort()
    extra: dict[str, Any] = {"reasoning_effort": effort} if effort else {}  # judge_item: extra_body={...}
    prompts = [judge_prompt(it) for it in done]
    verdicts: list = [None] * len(done)
    errors: list = [None] * len(done)
    pending = list(range(len(done)))
    for attempt in range(scoring.JUDGE_ATTEMPTS):
        if not pending:
            break
        if attempt:
            logger.info(
                f"{LABEL} judge ({task}): {len(pending)} repl(ies) not JSON; asking again "
                f"(attempt {attempt + 1} of {scoring.JUDGE_ATTEMPTS})"
            )
        answers = engine.run([prompts[i] for i in pending], desc=f"{LABEL} judge ({task})", fresh=attempt > 0, **extra)
        again = []
        for i, answer in zip(pending, answers):
            if answer.failed:
                errors[i] = f"judge request failed: {answer.error}"
                continue
            try:
                verdicts[i], errors[i] = scoring.parse_judge_reply(answer.text or ""), None
            except ValueError as exc:
                errors[i] = f"judge reply is not JSON after {attempt + 1} attempt(s): {exc}"
                again.append(i)
        pending = again
    return verdicts, errors, engine.config.max_failed


def _on_operators(report: dict) -> dict:
    return {op: {"recall": v["recall"], "n": v["n_pairs"], "tp": v["n_tp"]} for op, v in report["by_operator"].items()}


@once_per_run()
def score_run(items: list[dict], suffix: str) -> dict:
    """Every metric of one task: the judge asked once per pair, its verdict reduced to TP/TN, the
    judged pairs aggregated; a pair whose judgement failed or could not be read is left out of N
    and counted (``unjudged``), as scripts/evaluate.py drops it; past the allowed share the task is
    Unscored. The verdicts go beside the samples log (``<date>_judge_<task>.jsonl``)."""
    task = task_name(suffix)
    check_model_failures(items, f"{LABEL} ({task})")
    items = sorted(items, key=lambda it: int(it["row"]))
    done = aggregate.scored(items)
    verdicts, errors, max_failed = _judge(done, task)
    judged: list[Mapping] = []
    rows: list[dict] = []
    for item, verdict, error in zip(done, verdicts, errors):
        outcome = None
        if error is None:
            try:
                outcome = scoring.reduce_verdict(verdict, item["split"] == scoring.NO_DIFF)
            except scoring.UnreadableVerdict as exc:
                error = f"judge verdict unreadable: {exc}"
        row = {
            "id": item["id"],
            "split": item["split"],
            "operator": item["operator"] or None,
            "verdict": verdict,
            "error": error,
        }
        if outcome is not None:
            judged.append({"split": item["split"], "operator": item["operator"] or None, **outcome})
            row.update(tp=outcome["is_true_positive"], tn=outcome["is_true_negative"])
        rows.append(row)
    side_logs.add(task, "judge", rows)  # before the failure check: an Unscored task keeps its verdicts
    unjudged = len(done) - len(judged)
    check_failures(unjudged, len(done), max_failed, f"{LABEL} judge ({task})")
    report = scoring.aggregate(judged)
    head = scoring.headline(report)
    shares = TASKS[suffix][1]
    out: dict = {m: head[m] for m in shares}
    out["by_operator"] = _on_operators(report)
    out["counts"] = {
        "judged": len(judged),
        "unjudged": unjudged,  # left out of N, as the authors' evaluate.py drops a failed judgement
        "failed": len(items) - len(done),  # no reply from the model: left out of N too
        "pairs": len(items),
        "tp": report["n_tp"],
        "tn": report["n_tn"],
        "has_diff": report["n_has_diff"],
        "no_diff": report["n_no_diff"],
        "reasoning_effort": reasoning_effort() or "none",
        **skip_counts(items),
    }
    out["ci95"] = {
        **vector_bootstrap(len(judged), scoring.bootstrap_statistic(judged), {m: head[m] for m in shares}),
        "unit": "pair",
    }
    return out


# The aggregations the task files name (tasks.py), one per metric of each task (table.metrics):
# each reads its metric from the task's one scoring pass (score_run).
aggregate_all_overall = metric_of(score_run, "overall", "")
aggregate_all_easy_recall = metric_of(score_run, "easy_recall", "")
aggregate_all_medium_recall = metric_of(score_run, "medium_recall", "")
aggregate_all_hard_recall = metric_of(score_run, "hard_recall", "")
aggregate_all_diff_recall = metric_of(score_run, "diff_recall", "")
aggregate_all_nodiff_specificity = metric_of(score_run, "nodiff_specificity", "")
aggregate_all_by_operator = metric_of(score_run, "by_operator", "")
aggregate_all_counts = metric_of(score_run, "counts", "")
aggregate_all_ci95 = metric_of(score_run, "ci95", "")
aggregate_easy_easy_recall = metric_of(score_run, "easy_recall", "easy")
aggregate_easy_by_operator = metric_of(score_run, "by_operator", "easy")
aggregate_easy_counts = metric_of(score_run, "counts", "easy")
aggregate_easy_ci95 = metric_of(score_run, "ci95", "easy")
aggregate_medium_medium_recall = metric_of(score_run, "medium_recall", "medium")
aggregate_medium_by_operator = metric_of(score_run, "by_operator", "medium")
aggregate_medium_counts = metric_of(score_run, "counts", "medium")
aggregate_medium_ci95 = metric_of(score_run, "ci95", "medium")
aggregate_hard_hard_recall = metric_of(score_run, "hard_recall", "hard")
aggregate_hard_by_operator = metric_of(score_run, "by_operator", "hard")
aggregate_hard_counts = metric_of(score_run, "counts", "hard")
aggregate_hard_ci95 = metric_of(score_run, "ci95", "hard")
aggregate_nodiff_nodiff_specificity = metric_of(score_run, "nodiff_specificity", "nodiff")
aggregate_nodiff_counts = metric_of(score_run, "counts", "nodiff")
aggregate_nodiff_ci95 = metric_of(score_run, "ci95", "nodiff")
