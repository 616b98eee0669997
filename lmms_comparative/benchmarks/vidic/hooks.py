"""lmms-eval hooks for ViDiC-1K: every video pair of the release, the authors' prompt as the system
message and the two videos after "Video A:" and "Video B:", the model's description kept as it is,
and the judge asked once per checklist item, once per task, its answers scored and pooled as the
authors' utils/calculate.py pools them (scoring.py, with the authors' file and function beside
each rule)."""

from __future__ import annotations

import json
from typing import Any, Mapping

from loguru import logger

from lmms_comparative.benchmarks.vidic import BENCHMARK, data, scoring
from lmms_comparative.benchmarks.vidic.prompts import GENERATION_PROMPT
from lmms_comparative.benchmarks.vidic.table import JUDGE, METRICS, SHARES, TASK
from lmms_comparative.data import items as data_items
from lmms_comparative.judges import Engine, check_failures
from lmms_comparative.metrics import aggregate
from lmms_comparative.metrics.bootstrap import vector_bootstrap
from lmms_comparative.tasklib import check_model_failures, docs_hook, metric_of, once_per_run, side_logs, skip_counts
from lmms_comparative.tasklib.capabilities import frames_sampled, require_video_input
from lmms_comparative.tasklib.host import run_model, run_model_args
from lmms_comparative.tasklib.kept_reply import kept_reply_results

LABEL = "ViDiC-1K"
KEY = BENCHMARK.item_key.columns  # ("pair",)
# inference/get_response_qwen2_5.py (and the Qwen3, Keye and MiMo scripts): --fps 2.0, passed with
# each video; the paper's Table 5 lists 2.0 fps for them and 32 frames for InternVL, LLaVA and GLM.
AUTHORS_FPS = 2.0
FRAME_RATE_ARGS = ("fps", "video_fps")  # lmms-eval's qwen2_5_vl / qwen3_vl, and its openai model


def _docs() -> list[dict]:
    # Checked before any data is read: a model without a video path would otherwise fail deep in
    # its preprocessing, or answer without having seen the videos.
    require_video_input(TASK, run_model())
    model_args = run_model_args() or {}
    if not any(model_args.get(name) for name in FRAME_RATE_ARGS):
        logger.info(
            f"{LABEL}: the authors sample {AUTHORS_FPS:g} frames per second (inference/get_response_qwen2_5.py); this "
            "run uses its model's own default. Pass --model_args ...,fps=2 (qwen2_5_vl, qwen3_vl) or video_fps=2 "
            "(openai) for theirs."
        )
    docs = data.pair_docs()
    return data_items.drop_short_videos(
        docs, lambda d: [d["video1"], d["video2"]], lambda d: d["pair"], frames_sampled(run_model(), model_args)
    )


process_docs = docs_hook(TASK, _docs, record=BENCHMARK, item_id=lambda d: d["pair"], label=LABEL)


def doc_to_visual(doc: dict[str, Any]) -> list:
    """Video A, then video B: their paths, what lmms-eval's video models take."""
    return [doc["video1"], doc["video2"]]


def doc_to_text(doc: dict[str, Any], lmms_eval_specific_kwargs: dict | None = None) -> str:
    """The authors' prompt (prompt/prompt_get_response.txt), for the simple model classes, which
    take one text after the videos (video A first): they have no system message and no text between
    videos (``doc_to_messages`` gives the authors' order)."""
    return GENERATION_PROMPT


def doc_to_messages(doc: dict[str, Any], lmms_eval_specific_kwargs: dict | None = None) -> list[dict]:
    """The authors' messages (inference/get_response_qwen2_5.py ``process_video_pairs_batch``,
    get_response_gpt.py and get_response_gemini.py alike): the prompt as the system message; then
    one user message, "Video A:", video A, "Video B:", video B, and no text after them."""
    first, second = doc_to_visual(doc)
    return [
        {"role": "system", "content": [{"type": "text", "text": GENERATION_PROMPT}]},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Video A:"},
                {"type": "video", "url": first},
                {"type": "text", "text": "Video B:"},
                {"type": "video", "url": second},
            ],
        },
    ]


def doc_to_target(doc: dict[str, Any]) -> str:
    return doc["checklist"]


def process_results(doc: dict[str, Any], results: list) -> dict[str, dict]:
    """The description kept as it is (the inference scripts write the raw output); a failed
    request is no description, whose checklist items the judge never sees and which count as wrong
    (judge.py: "No model description" gives every item the answer "error")."""
    fields = {k: doc[k] for k in ("index", "video1_path", "video2_path", "checklist")}
    return kept_reply_results(doc, results, METRICS, key=KEY, **fields)


# ---- the judge ----------------------------------------------------------------------------------


def judge_requests(item: Mapping) -> list[list[dict[str, str]]]:
    """The judge's messages for each checklist item of a described pair, in judge.py's order."""
    return [
        scoring.judge_messages(q["section"], item["prediction"], q["question"]) for q in json.loads(item["checklist"])
    ]


def _judged(items: list[dict]) -> tuple[list[dict], int, int, float]:
    """Each pair's checklist with the judge's answers; the requests, the failed ones, the allowed share."""
    engine = Engine.from_env(JUDGE.setting, defaults=JUDGE.default)  # VIDIC_JUDGE_BASE_URL, _API_KEY, _MODEL, ...
    described = [it for it in items if it["status"] != aggregate.STATUS_FAILED]
    requests = [r for it in described for r in judge_requests(it)]
    answers = iter(engine.run(requests, desc=f"{LABEL} judge"))
    failed = 0
    rows = []
    for item in items:
        checklist = json.loads(item["checklist"])
        for q in checklist:
            if item["status"] == aggregate.STATUS_FAILED:
                q.update(answer=scoring.ERROR, explanation=scoring.NO_DESCRIPTION)
            else:
                answer = next(answers)
                if answer.failed:  # judge.py process_question: a request that failed after its retries
                    failed += 1
                    q.update(answer=scoring.ERROR, explanation=f"Processing failed: {answer.error}", failed=True)
                else:
                    q.update(scoring.parse_judge_response(answer.text))
            q["correct"] = scoring.is_correct(q["answer"], q["correct_answer"])
        rows.append({"pair": item["pair"], "index": item["index"], "items": checklist})
    return rows, len(requests), failed, engine.config.max_failed


@once_per_run()
def score_run(items: list[dict]) -> dict:
    """Every metric of the task: the judge asked once per checklist item of each described pair,
    its answers compared with the gold, Avg, Diff, Sim and each class pooled over the items; an
    item the judge could not answer is wrong and stays in N (the authors' count). Past the allowed
    share of failed judge requests the task is Unscored. The answers go beside the samples log
    (``<date>_judge_vidic.jsonl``)."""
    check_model_failures(items, LABEL)
    items = sorted(items, key=lambda it: int(it["index"]))
    rows, asked, failed, max_failed = _judged(items)
    side_logs.add(TASK, "judge", rows)  # before the failure check: an Unscored task keeps its answers
    check_failures(failed, asked, max_failed, f"{LABEL} judge")
    checklist = [q for row in rows for q in row["items"]]
    report = scoring.aggregate(checklist)
    out: dict = {m: report[m] for m in SHARES}
    out["by_class"] = report["by_class"]
    out["counts"] = {
        **report["n"],
        "pairs": len(items),
        "failed": sum(1 for it in items if it["status"] == aggregate.STATUS_FAILED),  # no description: items wrong
        "judge_requests": asked,
        "judge_failed": failed,  # answered "error": wrong, in N
        "error_answers": sum(1 for q in checklist if q["answer"] == scoring.ERROR),
        **skip_counts(items),
    }
    out["ci95"] = {
        **vector_bootstrap(
            len(rows), scoring.bootstrap_statistic([row["items"] for row in rows]), {m: report[m] for m in SHARES}
        ),
        "unit": "pair",
    }
    return out


# The aggregations the task file names (tasks.py), one per metric (table.METRICS): each reads its
# metric from the task's one scoring pass (score_run).
aggregate_avg = metric_of(score_run, "avg")
aggregate_diff = metric_of(score_run, "diff")
aggregate_sim = metric_of(score_run, "sim")
aggregate_subject = metric_of(score_run, "subject")
aggregate_motion = metric_of(score_run, "motion")
aggregate_position = metric_of(score_run, "position")
aggregate_background = metric_of(score_run, "background")
aggregate_camera = metric_of(score_run, "camera")
aggregate_style = metric_of(score_run, "style")
aggregate_technique = metric_of(score_run, "technique")
aggregate_by_class = metric_of(score_run, "by_class")
aggregate_counts = metric_of(score_run, "counts")
aggregate_ci95 = metric_of(score_run, "ci95")
