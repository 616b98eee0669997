"""lmms-eval hooks for the VLM-SubtleBench multiple-choice tasks.

Thin by design: the data module builds docs (resolved image paths, fixed option order), the
metrics modules parse and score; this module only adapts them to lmms-eval's hook signatures.
"""

from __future__ import annotations

import json
import os
from functools import partial
from typing import Any

from lmms_comparative.benchmarks.subtlebench import BENCHMARK, data
from lmms_comparative.benchmarks.subtlebench import image_transforms as transforms
from lmms_comparative.benchmarks.subtlebench.prompts import (
    CAPTION_JUDGE,
    CAPTION_SYSTEM,
    CAPTION_USER,
    SYSTEM_PROMPTS,
    user_prompt,
)
from lmms_comparative.benchmarks.subtlebench.scoring import cosine_similarities, parse_subtlebench_letter, parse_yes_no
from lmms_comparative.benchmarks.subtlebench.table import DOMAIN_METRICS, JUDGE, SBERT, TYPE_METRICS
from lmms_comparative.judges import Engine, check_failures
from lmms_comparative.metrics import aggregate
from lmms_comparative.metrics.mcq import LETTERS, format_options
from lmms_comparative.tasklib import (
    Share,
    chat,
    check_model_failures,
    docs_hook,
    load_images,
    once_per_run,
    response_text,
    skip_counts,
)
from lmms_comparative.tasklib import group_share as _group_share  # bound here only as group_column

DEFAULT_PROMPT = "standard"


# ---- docs ---------------------------------------------------------------------------------------


def _docs(category: str):
    """A difference type's docs (data.category_docs), their images checked before generation."""
    return docs_hook(
        category,
        partial(data.category_docs, category),
        record=BENCHMARK,
        image_paths=data.image_paths,
        label=f"VLM-SubtleBench {category}",
    )


# One process_docs per difference type (table.CATEGORIES), named in the type tasks' files (tasks.py).
process_docs_attribute = _docs("attribute")
process_docs_state = _docs("state")
process_docs_emotion = _docs("emotion")
process_docs_temporal = _docs("temporal")
process_docs_spatial = _docs("spatial")
process_docs_existence = _docs("existence")
process_docs_quantity = _docs("quantity")
process_docs_quality = _docs("quality")
process_docs_viewpoint = _docs("viewpoint")
process_docs_action = _docs("action")
# The image-order check (subtlebench_swap): the "first image"/"second image" items, images swapped.
process_docs_swap = docs_hook(
    "swap",
    data.swapped_docs,
    record=BENCHMARK,
    image_paths=data.image_paths,
    label="VLM-SubtleBench image-order check",
)


# ---- prompts ------------------------------------------------------------------------------------


def _prompt_type(kwargs: dict | None) -> str:
    name = (kwargs or {}).get("prompt", DEFAULT_PROMPT)
    if name not in SYSTEM_PROMPTS:
        raise ValueError(f"unknown SubtleBench prompt {name!r}; choose one of {sorted(SYSTEM_PROMPTS)}")
    return name


def doc_to_visual(doc: dict[str, Any]) -> list:
    """Both images, first then second."""
    return load_images(doc, ("image_1", "image_2"))


# The prompting strategies' inputs (paper §4.1, appendix B.2). lmms-eval calls doc_to_visual with
# the doc alone, so each strategy has its own function, named in its YAML.
def doc_to_visual_grid(doc: dict[str, Any]) -> list:
    """The official grid images (create_grid_messages): 1-px (76, 76, 76) lines."""
    return [transforms.grid_overlay_official(image) for image in doc_to_visual(doc)]


def doc_to_visual_grid_paper(doc: dict[str, Any]) -> list:
    """The paper's grid images (appendix B.2): 3-px black lines at 30% opacity."""
    return [transforms.grid_overlay(image) for image in doc_to_visual(doc)]


def doc_to_visual_concat(doc: dict[str, Any]) -> list:
    return [transforms.concatenate(*doc_to_visual(doc))]


def doc_to_visual_overlap(doc: dict[str, Any]) -> list:
    first, second = doc_to_visual(doc)
    return [first, second, transforms.overlap(first, second)]


def doc_to_visual_subtract(doc: dict[str, Any]) -> list:
    first, second = doc_to_visual(doc)
    return [first, second, transforms.subtraction(first, second)]


def doc_to_visual_highlight(doc: dict[str, Any]) -> list:
    first, second = doc_to_visual(doc)
    return [first, second, *transforms.highlight(first, second)]


VISUALS = {
    "grid": doc_to_visual_grid,
    "grid_paper": doc_to_visual_grid_paper,
    "concat": doc_to_visual_concat,
    "overlap": doc_to_visual_overlap,
    "subtract": doc_to_visual_subtract,
    "highlight": doc_to_visual_highlight,
}


def user_text(doc: dict[str, Any], strategy: str = "standard") -> str:
    """The user turn of a SubtleBench question under a prompt strategy: question and lettered options."""
    return user_prompt(doc["question"], format_options(doc["options"]), strategy)


def doc_to_text(doc: dict[str, Any], lmms_eval_specific_kwargs: dict | None = None) -> str:
    """Prompt for simple (non-chat) models: the system prompt, a blank line, then the user turn."""
    strategy = _prompt_type(lmms_eval_specific_kwargs)
    return f"{SYSTEM_PROMPTS[strategy]}\n\n{user_text(doc, strategy)}"


def doc_to_messages(doc: dict[str, Any], lmms_eval_specific_kwargs: dict | None = None) -> list[dict]:
    """Chat models: system turn, then a user turn with the images and the question
    (the official message layout, prompts/multiple_choice_evaluator.py ``_build_messages``)."""
    strategy = _prompt_type(lmms_eval_specific_kwargs)
    system = SYSTEM_PROMPTS[strategy]
    content = [{"type": "image", "url": image} for image in VISUALS.get(strategy, doc_to_visual)(doc)]
    content.append({"type": "text", "text": user_text(doc, strategy)})
    return chat(system, content)


def doc_to_target(doc: dict[str, Any]) -> str:
    return doc["answer_letter"]


# ---- scoring ------------------------------------------------------------------------------------

# The paper's columns, a metric each (table.TYPE_METRICS, table.DOMAIN_METRICS): a task reports a
# column only for the items it has (subtlebench_at has no accuracy_game).


def process_results(doc: dict[str, Any], results: list) -> dict[str, dict]:
    """Score one response. Pure and idempotent (lmms-eval may run it in threads and retry it)."""
    sample = _outcome(doc, results)
    out = _metric_values(sample, ("chance", "by_domain", "by_source", "counts"))
    # The item's own type and domain columns (a domain outside the paper's six is in by_domain only).
    cell = {k: sample[k] for k in ("item_id", "correct", "status")}
    if sample["correct"] is not None:
        cell["score"] = sample["correct"]  # lmms-eval's CLT standard error reads `score`
    for name in (TYPE_METRICS.get(sample["category"]), DOMAIN_METRICS.get(sample["domain"])):
        if name:
            out[name] = cell
    return out


def swap_process_results(doc: dict[str, Any], results: list) -> dict[str, dict]:
    """process_results of subtlebench_swap (the items with both images swapped)."""
    return _metric_values(_outcome(doc, results), ("by_category", "image_choice", "counts"))


def _metric_values(sample: dict[str, Any], names: tuple[str, ...]) -> dict[str, dict]:
    out = {name: sample for name in names}
    # lmms-eval computes a CLT standard error from a `score` key; only accuracy should have one.
    out["accuracy"] = {**sample, "score": sample["correct"]} if sample["correct"] is not None else sample
    return out


def _outcome(doc: dict[str, Any], results: list) -> dict[str, Any]:
    sample = {
        "item_id": doc["item_id"],
        "category": doc["category"],
        "domain": doc["domain"],
        "source": doc["source"],
        "n_options": len(doc["options"]),
        "answer": doc["answer_letter"],
        "answer_text": doc["answer"],
        "skipped": doc.get("skipped", ""),  # the task's skip counts (the same on every doc)
        **aggregate.mcq_outcome(response_text(results), parse_subtlebench_letter, doc["answer_letter"]),
    }
    letter = sample["parsed"]
    if letter and letter in LETTERS[: len(doc["options"])]:
        sample["picked"] = doc["options"][LETTERS.index(letter)]  # the option text, for order checks
    factors = json.loads(doc.get("factors") or "{}")
    if factors:
        sample["factors"] = factors  # difficulty factors of a generated pair, for the report's heatmaps
    return sample


# The official evaluator records a failed API call as ``is_correct: False``
# (krafton-ai/VLM-SubtleBench, src/vlm_subtlebench/multiple_choice_evaluator.py): every score is
# correct / all evaluated items, so a type's accuracy, its breakdowns and the group's micro average
# (lmms-eval weights each type by its item count) share one denominator. ``counts.failed`` shows them.
FAILED_AS_WRONG = True


def aggregate_accuracy(items: list) -> float:
    return aggregate.accuracy(items, FAILED_AS_WRONG)


def aggregate_column(items: list) -> Share:
    """One of the paper's columns (a type or a domain): accuracy over that column's items, with
    its counts, so that the group can take the micro average over its tasks."""
    done = aggregate.evaluated(items, FAILED_AS_WRONG)
    return Share(sum(int(it.get("correct") or 0) for it in done), len(done))


def aggregate_chance(items: list) -> float:
    return aggregate.chance_accuracy(items, FAILED_AS_WRONG)


def aggregate_by_domain(items: list) -> dict:
    return aggregate.breakdown(items, "domain", FAILED_AS_WRONG)


def aggregate_by_source(items: list) -> dict:
    return aggregate.breakdown(items, "source", FAILED_AS_WRONG)


def aggregate_counts(items: list) -> dict:
    check_model_failures(items, f"VLM-SubtleBench {_label(items)}")
    return {**aggregate.counts(items), **skip_counts(items)}


def _label(items: list) -> str:
    return ", ".join(sorted({str(it.get("category")) for it in items})) or "(no items)"


def aggregate_by_category(items: list) -> dict:
    return aggregate.breakdown(items, "category", FAILED_AS_WRONG)


def aggregate_image_choice(items: list) -> dict:
    """How often the model answers "first image" against how often that is right (a model with
    no position bias matches the truth in both image orders)."""
    answered = [it for it in aggregate.scored(items) if it.get("picked")]
    first = data.BINARY_IMAGE_OPTIONS[0]
    return {
        "answered_first": aggregate.share_answering(answered, "picked", first),
        "truly_first": aggregate.share_answering(answered, "answer_text", first),
        "n": len(answered),
    }


# Group-level combinations (lmms-eval calls them with the subtasks' values and sizes).
group_column = _group_share  # a type or domain column over all types: correct / items


def group_merge_breakdowns(values: list, sizes: list, weight_by_size: bool = False) -> dict:
    """Group aggregation of the tasks' breakdowns: their items merged (``metrics.aggregate.merge_breakdowns``)."""
    return aggregate.merge_breakdowns(values)


# ---- difference captions (paper §3.3, appendix B.3) ---------------------------------------------

CAPTION_METRICS = ("css", "judge_accuracy", "counts")


def _caption_docs() -> list[dict[str, Any]]:
    """The test items with a human-written difference caption: ``has_caption`` read as the official
    loader does (data_loader.py: ``item.get("has_caption") != True`` drops an item), and a caption."""
    docs = [d for d in data.load_docs("test") if d["has_caption"] and d["caption"]]
    if not docs:
        raise data.DataError(f"{data.ENV_VAR}: the test split has no records with has_caption and a caption.")
    return docs


process_docs_caption = docs_hook(
    "caption", _caption_docs, record=BENCHMARK, image_paths=data.image_paths, label="VLM-SubtleBench captions"
)


def caption_doc_to_text(doc: dict[str, Any], lmms_eval_specific_kwargs: dict | None = None) -> str:
    return f"{CAPTION_SYSTEM}\n\n{CAPTION_USER}"


def caption_doc_to_messages(doc: dict[str, Any], lmms_eval_specific_kwargs: dict | None = None) -> list[dict]:
    # free_form_evaluator.py create_comparison_messages: the user turn is the text, then image 1,
    # then image 2 (the MCQ messages put the images first).
    content = [{"type": "text", "text": CAPTION_USER}]
    content += [{"type": "image", "url": image} for image in doc_to_visual(doc)]
    return chat(CAPTION_SYSTEM, content)


def caption_doc_to_target(doc: dict[str, Any]) -> str:
    return doc["caption"]


def caption_process_results(doc: dict[str, Any], results: list) -> dict[str, dict]:
    prediction = response_text(results)
    failed = aggregate.is_failed_request(prediction)
    sample = {
        "item_id": doc["item_id"],
        "reference": doc["caption"],
        "prediction": prediction,
        "status": aggregate.STATUS_FAILED if failed else aggregate.STATUS_OK,
        "skipped": doc.get("skipped", ""),
    }
    return {name: sample for name in CAPTION_METRICS}


def judge_accuracy(verdicts: list[str | None]) -> dict:
    """Paper appendix B.3: ``judge_accuracy`` is the share of the judge's outputs labelled Yes. A
    reply that says neither Yes nor No is an output that is not Yes (it stays in the denominator);
    a call that failed outright (``None``) has no output and is counted apart."""
    labels = [parse_yes_no(text) for text in verdicts if text is not None]
    yes = sum(1 for label in labels if label is True)
    return {
        "judge_accuracy": yes / len(labels) if labels else float("nan"),
        "judged": len(labels),
        "yes": yes,
        "neither": sum(1 for label in labels if label is None),
        "unjudged": sum(1 for text in verdicts if text is None),
    }


@once_per_run()
def caption_scores(items: list) -> dict:
    """CSS and judge accuracy over the run's captions (once per task, shared by its metrics)."""
    check_model_failures(items, "VLM-SubtleBench captions")
    done = sorted(aggregate.scored(items), key=lambda it: it["item_id"])
    model = os.environ.get(SBERT.setting, "").strip() or SBERT.default
    css = cosine_similarities([it["reference"] for it in done], [it["prediction"] for it in done], model)
    engine = Engine.from_env(JUDGE.setting, defaults=JUDGE.default)
    answers = engine.run(
        [CAPTION_JUDGE.format(reference=it["reference"], candidate=it["prediction"]) for it in done],
        desc="SubtleBench caption judge",
    )
    verdict = judge_accuracy([None if a.failed else (a.text or "") for a in answers])
    check_failures(verdict["unjudged"], len(answers), engine.config.max_failed, "SubtleBench caption judge")
    return {
        "css": sum(css) / len(css) if css else float("nan"),
        "judge_accuracy": verdict["judge_accuracy"],
        "counts": {
            "n": len(items),
            "scored": len(done),
            "failed": len(items) - len(done),
            **{k: verdict[k] for k in ("judged", "yes", "neither", "unjudged")},
            "sbert_model": model,
            **skip_counts(items),
        },
    }


def aggregate_css(items: list) -> float:
    return caption_scores(items)["css"]


def aggregate_judge_accuracy(items: list) -> float:
    return caption_scores(items)["judge_accuracy"]


def aggregate_caption_counts(items: list) -> dict:
    return caption_scores(items)["counts"]
