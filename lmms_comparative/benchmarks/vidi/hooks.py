"""lmms-eval hooks for ViDi (granular, global and few-shot difference description).

Caption metrics are corpus-level (CIDEr's document frequencies span all pairs), so every score is
computed in the aggregation over all pairs of the run, once per task and shared by its metrics.
With lmms-eval's ``--repeats K`` each pair has K responses: the metrics are computed per repeat
and reported as their mean, with the spread in ``repeats``.
"""

from __future__ import annotations

import json
import re
import statistics
from functools import partial
from typing import Any

import numpy as np

from lmms_comparative import failures
from lmms_comparative.benchmarks.vidi import BENCHMARK, data
from lmms_comparative.benchmarks.vidi.prompts import (
    FEWSHOT,
    GLOBAL,
    GRANULAR,
    JUDGE_PRECISION,
    JUDGE_RECALL,
)
from lmms_comparative.benchmarks.vidi.scoring import caption_item_stats, corpus_scores, require_java
from lmms_comparative.benchmarks.vidi.table import CAPTION_METRICS, JUDGE, JUDGE_METRICS
from lmms_comparative.judges import Engine, check_failures
from lmms_comparative.metrics import aggregate
from lmms_comparative.metrics.bootstrap import vector_bootstrap
from lmms_comparative.tasklib import (
    Unscored,
    docs_hook,
    guard_scoring,
    load_images,
    metric_of,
    once_per_run,
    response_text,
    skip_counts,
)

# The paper's scale: Tables 1, 2, 4, 7 and 8 print every metric x100, CIDEr included (CIDEr-D of
# pycocoevalcap is at most 10, the tables print 17.2 for InternVL2.5-78B). Results are on that scale.
PAPER_SCALE = 100.0
BOUNDS = {**{m: (0.0, PAPER_SCALE) for m in (*CAPTION_METRICS, *JUDGE_METRICS)}, "cider": (0.0, 10 * PAPER_SCALE)}


# ---- docs ---------------------------------------------------------------------------------------


def _scorable_pairs() -> list[dict]:
    try:
        require_java()  # fail before generation, not after it, when scoring cannot run
    except RuntimeError as exc:
        raise data.DataError(str(exc)) from None
    return data.load_pairs()


def _pair_docs(swap: bool) -> list[dict]:
    docs = []
    for pair in _scorable_pairs():
        first, second = (pair["image_2"], pair["image_1"]) if swap else (pair["image_1"], pair["image_2"])
        docs.append(
            {
                "item_id": pair["pair_id"],
                "image_1": first,
                "image_2": second,
                "differences": pair["differences"],
                "target": "",
                "examples": [],
            }
        )
    return docs


def _image_paths(doc: dict) -> tuple[str, str]:
    return doc["image_1"], doc["image_2"]


def _fewshot_docs() -> list[dict]:
    """Paper appendix E: every difference left out in turn, the others given as examples."""
    docs = []
    for pair in _scorable_pairs():
        diffs = pair["differences"]
        for k, missing in enumerate(diffs):
            docs.append(
                {
                    "item_id": f"{pair['pair_id']}#{k}",
                    "image_1": pair["image_1"],
                    "image_2": pair["image_2"],
                    "differences": diffs,
                    "target": missing,
                    "examples": [d for j, d in enumerate(diffs) if j != k],
                }
            )
    return docs


process_docs = docs_hook("vidi", partial(_pair_docs, False), record=BENCHMARK, image_paths=_image_paths, label="ViDi")
process_docs_swap = docs_hook(
    "vidi_swap", partial(_pair_docs, True), record=BENCHMARK, image_paths=_image_paths, label="ViDi (swapped)"
)
process_docs_fewshot = docs_hook(
    "vidi_fewshot", _fewshot_docs, record=BENCHMARK, image_paths=_image_paths, label="ViDi few-shot"
)


def doc_to_visual(doc: dict[str, Any]) -> list:
    return load_images(doc, ("image_1", "image_2"))


def doc_to_text(doc: dict[str, Any], lmms_eval_specific_kwargs: dict | None = None) -> str:
    setting = (lmms_eval_specific_kwargs or {}).get("setting", "granular")
    if setting == "global":
        return GLOBAL
    if setting == "fewshot":
        return FEWSHOT.format(examples="\n".join(doc["examples"]))
    return GRANULAR


def doc_to_target(doc: dict[str, Any]) -> str:
    return doc["target"] or "\n".join(doc["differences"])


def process_results(doc: dict[str, Any], results: list) -> dict[str, dict]:
    # With the KeepAllResponses filter results[0] holds every repeat's response.
    responses = results[0] if results and isinstance(results[0], (list, tuple)) else results
    predictions = [response_text([r]) for r in responses] or [""]
    failed = sum(aggregate.is_failed_request(p) for p in predictions)
    # A failed request is no description: it is scored as an empty one (never as the error text)
    # and counted; past LMMS_COMPARATIVE_MAX_FAILED it flags the run.
    predictions = ["" if aggregate.is_failed_request(p) else p for p in predictions]
    sample = {
        "item_id": doc["item_id"],
        "differences": list(doc["differences"]),
        "target": doc["target"],
        "predictions": predictions,
        "failed": failed,
        "skipped": doc.get("skipped", ""),
    }
    return {name: sample for name in (*CAPTION_METRICS, "repeats", "counts", "ci95")}


def process_results_global(doc: dict[str, Any], results: list) -> dict[str, dict]:
    """The global setting's results: the caption metrics and the judge's (the other settings
    have no judge, so their tasks do not report precision, recall or F1)."""
    out = process_results(doc, results)
    sample = out["counts"]
    return {**out, **{name: sample for name in JUDGE_METRICS}}


# ---- scoring ------------------------------------------------------------------------------------


def references(sample: dict, setting: str) -> list[str]:
    """Granular: the pair's sentences as multiple references. Global: all of them joined into one
    paragraph (paper §4). Few-shot: the one left-out sentence."""
    if setting == "global":
        return [" ".join(sample["differences"])]
    if setting == "fewshot":
        return [sample["target"]]
    return list(sample["differences"])


_SCORE = re.compile(r"(Precision|Recall) Score:\s*\**\s*([0-9]*\.?[0-9]+)\s*(?:/\s*([0-9]*\.?[0-9]+))?", re.I)


def parse_judge_score(text: str | None) -> float | None:
    """The judge's "Precision Score: Y/X" (or a plain number) as a value in [0, 1]; None if absent."""
    if not text:
        return None
    match = _SCORE.search(text)
    if not match:
        return None
    value = float(match.group(2))
    if match.group(3) is not None:
        denominator = float(match.group(3))
        if denominator == 0:
            return None
        value /= denominator
    return min(1.0, max(0.0, value))


@guard_scoring
def _judge(items: list[dict]) -> dict:
    engine = Engine.from_env(JUDGE.setting, defaults=JUDGE.default)
    plan, requests = [], []
    for item, sample in enumerate(items):
        refs = json.dumps(sample["differences"], ensure_ascii=False)
        for prediction in sample["predictions"]:
            for measure, template in (("precision", JUDGE_PRECISION), ("recall", JUDGE_RECALL)):
                requests.append(template.format(references=refs, predictions=prediction))
                plan.append((item, measure))
    answers = engine.run(requests, desc="ViDi judge")
    # Per pair: the sum and number of judged precision and recall values (over its responses).
    per_item = np.zeros((len(items), 4))
    unjudged = 0
    for (item, measure), answer in zip(plan, answers):
        value = None if answer.failed else parse_judge_score(answer.text)
        if value is None:
            unjudged += 1
        else:
            column = 0 if measure == "precision" else 2
            per_item[item, column] += value
            per_item[item, column + 1] += 1
    check_failures(unjudged, len(requests), engine.config.max_failed, "ViDi judge")
    verdict = _on_paper_scale(_precision_recall_f1(per_item.sum(axis=0)))
    ci95 = vector_bootstrap(
        len(items), lambda idx: _on_paper_scale(_precision_recall_f1(per_item[idx].sum(axis=1))), verdict, bounds=BOUNDS
    )
    return {**verdict, "judge_requests": len(requests), "unjudged": unjudged, "ci95": ci95}


def _precision_recall_f1(totals):
    """Mean precision and recall over judged responses, and the F1 of those two means (the
    paper's Table 2 reports the three side by side). ``totals``: (..., 4) sums and counts."""
    with np.errstate(invalid="ignore", divide="ignore"):
        p = totals[..., 0] / totals[..., 1]
        r = totals[..., 2] / totals[..., 3]
        # Nothing judged: NaN (never 0.0); judged and both zero: 0.
        f1 = np.where(p + r > 0, 2 * p * r / (p + r), np.where(p + r == 0, 0.0, np.nan))
    if np.ndim(p) == 0:
        return {"precision": float(p), "recall": float(r), "f1": float(f1)}
    return {"precision": p, "recall": r, "f1": f1}


def _on_paper_scale(scores: dict) -> dict:
    """Scores in [0, 1] (CIDEr-D in [0, 10]) x100, as the paper prints them; arrays alike."""
    return {k: v * PAPER_SCALE for k, v in scores.items()}


@once_per_run()
def score_run(items: list[dict], setting: str, judge: bool) -> dict:
    """All metrics of one task's samples, on the paper's x100 scale: per repeat, then mean and spread."""
    items = sorted(items, key=lambda s: s["item_id"])
    repeats = min(len(s["predictions"]) for s in items)
    refs = {s["item_id"]: references(s, setting) for s in items}
    stats = [caption_item_stats(refs, {s["item_id"]: s["predictions"][r] for s in items}) for r in range(repeats)]
    per_repeat = [_on_paper_scale(corpus_scores(st)) for st in stats]
    out: dict[str, Any] = {m: statistics.fmean(run[m] for run in per_repeat) for m in CAPTION_METRICS}
    out["repeats"] = {
        "k": repeats,
        **{
            f"{m}_std": (statistics.stdev(run[m] for run in per_repeat) if repeats > 1 else 0.0)
            for m in CAPTION_METRICS
        },
    }
    responses, failed = sum(len(s["predictions"]) for s in items), sum(s.get("failed", 0) for s in items)
    failures.check_share(f"ViDi ({setting})", failed, responses, "got no answer from the model (failed requests)")
    out["counts"] = {"pairs": len(items), "responses": responses, "failed": failed, **skip_counts(items)}

    def statistic(idx):  # pairs resampled; the corpus metrics recomputed, averaged over repeats
        resampled = [_on_paper_scale(corpus_scores(st, idx)) for st in stats]
        return {m: np.mean([run[m] for run in resampled], axis=0) for m in CAPTION_METRICS}

    # CIDEr's document frequencies stay those of the full corpus (the per-item CIDEr scores are
    # resampled); BLEU is recomputed from the resampled sufficient statistics.
    out["ci95"] = {
        **vector_bootstrap(len(items), statistic, {m: out[m] for m in CAPTION_METRICS}, bounds=BOUNDS),
        "unit": "pair",
        "scale": PAPER_SCALE,
    }
    if judge:
        verdict = _judge(items)
        out.update({m: verdict[m] for m in JUDGE_METRICS})
        if isinstance(verdict, Unscored):  # the judge failed: its metrics NaN, the caption metrics stand
            counts = verdict["counts"]  # Unscored: the failed and total calls, and the reason
            out["counts"].update(
                judge_failure=counts["failure"],
                judge_requests=counts["total"],
                unjudged=counts["failed"],
            )
        else:
            out["ci95"].update(verdict["ci95"])
            out["counts"].update(judge_requests=verdict["judge_requests"], unjudged=verdict["unjudged"])
    return out


# The aggregations the task files name (tasks.py), one per metric of each setting (table.metrics):
# each reads its metric from the task's one scoring pass (score_run); only the global setting asks
# the judge.
aggregate_granular_bleu1 = metric_of(score_run, "bleu1", "granular", False)
aggregate_granular_bleu2 = metric_of(score_run, "bleu2", "granular", False)
aggregate_granular_bleu3 = metric_of(score_run, "bleu3", "granular", False)
aggregate_granular_bleu4 = metric_of(score_run, "bleu4", "granular", False)
aggregate_granular_rougeL = metric_of(score_run, "rougeL", "granular", False)
aggregate_granular_cider = metric_of(score_run, "cider", "granular", False)
aggregate_granular_repeats = metric_of(score_run, "repeats", "granular", False)
aggregate_granular_counts = metric_of(score_run, "counts", "granular", False)
aggregate_granular_ci95 = metric_of(score_run, "ci95", "granular", False)
aggregate_global_bleu1 = metric_of(score_run, "bleu1", "global", True)
aggregate_global_bleu2 = metric_of(score_run, "bleu2", "global", True)
aggregate_global_bleu3 = metric_of(score_run, "bleu3", "global", True)
aggregate_global_bleu4 = metric_of(score_run, "bleu4", "global", True)
aggregate_global_rougeL = metric_of(score_run, "rougeL", "global", True)
aggregate_global_cider = metric_of(score_run, "cider", "global", True)
aggregate_global_precision = metric_of(score_run, "precision", "global", True)
aggregate_global_recall = metric_of(score_run, "recall", "global", True)
aggregate_global_f1 = metric_of(score_run, "f1", "global", True)
aggregate_global_repeats = metric_of(score_run, "repeats", "global", True)
aggregate_global_counts = metric_of(score_run, "counts", "global", True)
aggregate_global_ci95 = metric_of(score_run, "ci95", "global", True)
aggregate_fewshot_bleu1 = metric_of(score_run, "bleu1", "fewshot", False)
aggregate_fewshot_bleu2 = metric_of(score_run, "bleu2", "fewshot", False)
aggregate_fewshot_bleu3 = metric_of(score_run, "bleu3", "fewshot", False)
aggregate_fewshot_bleu4 = metric_of(score_run, "bleu4", "fewshot", False)
aggregate_fewshot_rougeL = metric_of(score_run, "rougeL", "fewshot", False)
aggregate_fewshot_cider = metric_of(score_run, "cider", "fewshot", False)
aggregate_fewshot_repeats = metric_of(score_run, "repeats", "fewshot", False)
aggregate_fewshot_counts = metric_of(score_run, "counts", "fewshot", False)
aggregate_fewshot_ci95 = metric_of(score_run, "ci95", "fewshot", False)
