"""lmms-eval hooks for VLM²-Bench's nine subtasks.

The headline ``score`` of a subtask is what the paper's Table 1 reports for it: pair accuracy for
T/F subtasks, Acc_num for counting, accuracy for grouping, the judge's final score for the video.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from loguru import logger

from lmms_comparative.benchmarks.vlm2bench import BENCHMARK, data, dot_matrix
from lmms_comparative.benchmarks.vlm2bench import scoring as rules
from lmms_comparative.benchmarks.vlm2bench.prompts import PROMPT_AB, PROMPT_ABA, STRATEGY_PROMPTS
from lmms_comparative.benchmarks.vlm2bench.table import JUDGE, KIND_METRICS, task_name
from lmms_comparative.data import items
from lmms_comparative.judges import Engine, check_failures
from lmms_comparative.metrics import aggregate
from lmms_comparative.metrics.bootstrap import unit_bootstrap
from lmms_comparative.tasklib import (
    check_model_failures,
    docs_hook,
    load_image_paths,
    metric_of,
    once_per_run,
    response_text,
    skip_counts,
)
from lmms_comparative.tasklib.capabilities import frames_sampled, require_video_input
from lmms_comparative.tasklib.host import run_model, run_model_args

METRICS = ("score", "positive", "negative", "exact", "counts", "ci95")

# What a run without a video-capable model can do instead (capabilities.require_video_input).
WITHOUT_VIDEO = (
    "run vlm2bench_image instead of vlm2bench: its eight image subtasks without vlm2bench_pc_vid (the paper's "
    "Overall is the mean of all nine, so vlm2bench_image's is not the paper's)"
)


def _video_docs() -> list[dict]:
    # Checked before any data is read: a model without a video path would otherwise fail deep in
    # its preprocessing, or answer without having seen the video.
    require_video_input(task_name("pc_vid"), run_model(), WITHOUT_VIDEO)
    docs = data.subtask_docs("pc_vid")
    wanted = frames_sampled(run_model(), run_model_args())
    return items.drop_short_videos(docs, lambda d: [d["video"]], lambda d: d["uid"], wanted)


def _subtask_docs(subtask: str):
    """The ``process_docs`` of one subtask's task (the video task loads its own way)."""
    load = _video_docs if subtask == "pc_vid" else partial(data.subtask_docs, subtask)
    return docs_hook(
        subtask,
        load,
        record=BENCHMARK,
        image_paths=lambda d: d["images"],
        item_id=lambda d: d["uid"],
        label=f"VLM2-Bench {subtask}",
    )


# Each subtask's docs (records.SUBTASKS), named by the task files (tasks.py).
process_docs_gc_mat = _subtask_docs("gc_mat")
process_docs_gc_trk = _subtask_docs("gc_trk")
process_docs_oc_cpr = _subtask_docs("oc_cpr")
process_docs_oc_cnt = _subtask_docs("oc_cnt")
process_docs_oc_grp = _subtask_docs("oc_grp")
process_docs_pc_cpr = _subtask_docs("pc_cpr")
process_docs_pc_cnt = _subtask_docs("pc_cnt")
process_docs_pc_grp = _subtask_docs("pc_grp")
process_docs_pc_vid = _subtask_docs("pc_vid")


def doc_to_visual(doc: dict[str, Any]) -> list:
    """The 2-4 images in order; for the video task the video's path (what lmms-eval's video
    models take)."""
    if doc["kind"] == "vid":
        return [doc["video"]]
    return load_image_paths(doc["images"], doc["uid"])


def doc_to_text(doc: dict[str, Any], lmms_eval_specific_kwargs: dict | None = None) -> str:
    # The official test scripts send f"{system_prompt}\n{question}" with an empty system prompt
    # (code/*/test/test_script_example): the question as released, after one newline.
    return f"\n{doc['question']}" if doc["kind"] != "vid" else doc["question"]


def doc_to_messages(doc: dict[str, Any], lmms_eval_specific_kwargs: dict | None = None) -> list[dict]:
    media = "video" if doc["kind"] == "vid" else "image"
    content = [{"type": media, "url": v} for v in doc_to_visual(doc)]
    content.append({"type": "text", "text": doc_to_text(doc)})
    return [{"role": "user", "content": content}]


def doc_to_target(doc: dict[str, Any]) -> str:
    return doc["gt"]


def process_results(doc: dict[str, Any], results: list) -> dict[str, dict]:
    response = response_text(results)
    kind = doc["kind"]
    sample: dict[str, Any] = {"uid": doc["uid"], "kind": kind, "skipped": doc.get("skipped", "")}
    if kind in ("tf", "tf_gc"):
        sample.update(pair_id=doc["pair_id"], half=doc["half"])  # a failed half takes its pair out
    if aggregate.is_failed_request(response):
        sample.update(status=aggregate.STATUS_FAILED, correct=None)
    elif kind == "vid":
        sample.update(status=aggregate.STATUS_OK, type=doc["vid_type"], description=response)
    elif kind == "cnt":
        sample.update(gt=int(doc["gt"]), n_images=int(doc["n_images"]))
        sample.update(rules.count_item(response, int(doc["gt"]), int(doc["n_images"])))
        sample["status"] = aggregate.STATUS_OK if sample["parsed"] is not None else aggregate.STATUS_UNPARSED
    else:
        parsed: str | None
        if kind == "tf_gc":
            correct, parsed = rules.gc_correct(response, doc["gt"]), response.strip()
        elif kind == "tf":
            parsed = rules.parse_tf(response)
            correct = parsed is not None and parsed == doc["gt"]
        else:
            correct, parsed = rules.grp_correct(response, doc["gt"]), response.split(")")[0].strip()
        sample.update(
            parsed=parsed, correct=int(correct), status=aggregate.STATUS_OK if parsed else aggregate.STATUS_UNPARSED
        )
    return {name: sample for name in KIND_METRICS[kind]}


def _judge_video(items: Sequence[Mapping]) -> dict:
    engine = Engine.from_env(JUDGE.setting, defaults=JUDGE.default)
    prompts = [(PROMPT_ABA if it["type"] == "ABA" else PROMPT_AB).format(description=it["description"]) for it in items]
    answers = engine.run(prompts, desc="VLM2-Bench video judge")
    scored, unjudged = [], 0
    for it, answer in zip(items, answers):
        value = None if answer.failed else rules.parse_video_score(answer.text)
        unjudged += value is None
        scored.append({"type": it["type"], "score": value})
    check_failures(unjudged, len(items), engine.config.max_failed, "VLM2-Bench video judge")
    return {**rules.video_scores(scored), "unjudged": unjudged, "judged": scored}


def _incomplete_pairs(items: Sequence[Mapping]) -> int:
    """How many T/F pairs have only one of their two halves among ``items``."""
    halves: dict[str, set] = {}
    for it in items:
        halves.setdefault(it["pair_id"], set()).add(it.get("half"))
    return sum(1 for found in halves.values() if len(found) < 2)


@once_per_run()
def summarize(items: list[dict]) -> dict:
    """Every metric of one subtask's samples (lmms-eval asks once per metric; this runs once)."""
    # Items arrive rank by rank; in question order the intervals do not depend on the process count.
    items = sorted(items, key=lambda it: it["uid"])
    done = aggregate.scored(items)
    kind = items[0]["kind"] if items else ""
    check_model_failures(items, f"VLM2-Bench {kind or '(no items)'}")
    out: dict[str, Any] = {"counts": {**aggregate.counts(items), **skip_counts(items)}}
    if kind in ("tf", "tf_gc"):
        drop = kind == "tf"
        done, failed_pairs = rules.without_failed_pairs(
            done, [it for it in items if it.get("status") == aggregate.STATUS_FAILED]
        )
        pairs = rules.pair_accuracy(done, drop_incomplete=drop)
        out.update(score=pairs["pair"], positive=pairs["positive"], negative=pairs["negative"])
        out["counts"].update(pairs=pairs["pairs"], failed_pairs=failed_pairs)
        incomplete = _incomplete_pairs(done)
        if incomplete:  # a --limit or --offset that cut a pair in two: said, and counted
            out["counts"]["incomplete_pairs"] = incomplete
            rule = (
                "dropped, as the official OC/PC script drops them"
                if drop
                else "counted as not right, as the official GC script counts them"
            )
            logger.warning(
                f"VLM2-Bench T/F pairs (questions {items[0]['uid']}, ...): {incomplete} pair(s) have only one of "
                "their two questions in this run (a --limit or --offset that splits pairs): "
                f"{rule}; run without --limit for the paper's score"
            )
        by_pair: dict[str, list] = {}
        for it in done:
            by_pair.setdefault(it["pair_id"], []).append(it)

        def statistic(units):  # a pair drawn twice counts twice: re-key by draw
            rekeyed = [{**it, "pair_id": n} for n, unit in enumerate(units) for it in unit]
            p = rules.pair_accuracy(rekeyed, drop_incomplete=drop)
            return {"score": p["pair"], "positive": p["positive"], "negative": p["negative"]}

        out["ci95"] = {**unit_bootstrap(list(by_pair.values()), statistic), "unit": "pair"}
    elif kind == "cnt":
        exact = lambda rows: sum(it["correct"] for it in rows) / len(rows) if rows else float("nan")  # noqa: E731
        out.update(score=rules.acc_num(done), exact=exact(done))
        out["counts"]["valid"] = sum(1 for it in done if it["valid"])
        out["counts"]["chance_acc_num"] = rules.chance_acc_num((it["gt"], it["n_images"]) for it in items if "gt" in it)
        out["ci95"] = {
            **unit_bootstrap(done, lambda rows: {"score": rules.acc_num(rows), "exact": exact(rows)}),
            "unit": "question",
        }
    elif kind == "grp":
        out["score"] = aggregate.accuracy(items)
        out["ci95"] = {**unit_bootstrap(done, lambda rows: {"score": aggregate.accuracy(rows)}), "unit": "question"}
    else:
        verdict = _judge_video(done)
        # No description judged at all: NaN, not the 0 that the script's empty-group rule gives.
        out["score"] = verdict["score"] / 100 if verdict["ab_n"] + verdict["aba_n"] else float("nan")
        out["counts"].update({k: verdict[k] for k in ("ab", "aba", "ab_n", "aba_n", "unjudged")})
        out["ci95"] = {
            **unit_bootstrap(verdict["judged"], lambda rows: {"score": rules.video_scores(rows)["score"] / 100}),
            "unit": "video",
        }
    return out


# The aggregations the YAML files name, one per metric (METRICS).
aggregate_score = metric_of(summarize, "score")
aggregate_positive = metric_of(summarize, "positive")
aggregate_negative = metric_of(summarize, "negative")
aggregate_exact = metric_of(summarize, "exact")
aggregate_counts = metric_of(summarize, "counts")
aggregate_ci95 = metric_of(summarize, "ci95")


# ---- prompting strategies (paper §4, Fig. 5; appendix F.2): CoT-normal, CoT-special, VP-grid ------


def _strategy(kwargs: dict | None) -> str:
    name = (kwargs or {}).get("strategy", "")
    if name not in STRATEGY_PROMPTS:
        raise ValueError(f"unknown VLM2-Bench prompting strategy {name!r}; one of {sorted(STRATEGY_PROMPTS)}")
    return name


def strategy_doc_to_text(doc: dict[str, Any], lmms_eval_specific_kwargs: dict | None = None) -> str:
    """The official text (a newline, then the question), a blank line, then the strategy's instruction."""
    name = _strategy(lmms_eval_specific_kwargs)
    width, height = dot_matrix.SIZE
    return f"{doc_to_text(doc)}\n\n{STRATEGY_PROMPTS[name].format(h=height, w=width)}"


def strategy_doc_to_visual(doc: dict[str, Any], lmms_eval_specific_kwargs: dict | None = None) -> list:
    images = doc_to_visual(doc)
    return dot_matrix.overlay_all(images) if (lmms_eval_specific_kwargs or {}).get("strategy") == "vp_grid" else images


def vp_grid_doc_to_visual(doc: dict[str, Any]) -> list:
    """VP-grid's images (lmms-eval calls doc_to_visual with the doc alone)."""
    return dot_matrix.overlay_all(doc_to_visual(doc))


def strategy_doc_to_messages(doc: dict[str, Any], lmms_eval_specific_kwargs: dict | None = None) -> list[dict]:
    content = [{"type": "image", "url": v} for v in strategy_doc_to_visual(doc, lmms_eval_specific_kwargs)]
    content.append({"type": "text", "text": strategy_doc_to_text(doc, lmms_eval_specific_kwargs)})
    return [{"role": "user", "content": content}]


def strategy_process_results(doc: dict[str, Any], results: list) -> dict[str, dict]:
    """A reasoning reply scored by the subtask's official rule on its answer segment
    (``scoring.answer_segment``: after the last ``MY_ANSWER:``, else the last line). GC's official
    rule is an exact "T"/"F": the segment is read with the OC/PC T/F parser first."""
    reply = response_text(results)
    if aggregate.is_failed_request(reply):
        return process_results(doc, [reply])
    segment = rules.answer_segment(reply)
    if doc["kind"] == "tf_gc":
        segment = rules.parse_tf(segment) or segment
    out = process_results(doc, [segment])
    for value in out.values():
        value.update(reply=reply, answer_segment=segment)
    return out
