"""lmms-eval hooks for MLLM-CompBench: one task per column of the paper's Table 2."""

from __future__ import annotations

from functools import partial
from typing import Any

from PIL import Image

from lmms_comparative.data import compbench as data
from lmms_comparative.metrics import aggregate
from lmms_comparative.metrics import compbench as rules
from lmms_comparative.tasks.common import check_model_failures, docs_hook, load_image_paths, response_text, skip_counts

# ---- prompts: paper appendix B.2, Table 7 (verbatim) --------------------------------------------

LEFT_RIGHT = "If you choose the first image, return Left, and if you choose the second image, return Right. Please only return either Left or Right without any other words, spaces, or punctuation."
# Table 7's wording for Gemini1.0-pro, which answered "Left" to everything with the one above.
FIRST_SECOND = "If you choose the first image, return First, and if you choose the second image, return Second. Please only return either First or Second without any other words, spaces, or punctuation."
CARS_QUESTION = "Based on these images, which car is newer in terms of its model year or release year? Note that this question refers solely to the year each car was first introduced or manufactured, not its current condition or usage."
EXISTENCE = "What is the most obvious difference between the two images? Choose from the following options. If there is no obvious difference, choose None. Options: None, {options}. Please only return one of the options without any other words. "
SOCCER = "These are two frames related to {action} in a soccer match. Which frame happens first?"
QUANTITY = "If the second image has more, return Right. If the first image has more, return Left. If both images have the same number, return Same. Please only return either Left or Right or Same without any other words, spaces, or punctuation."
QBENCH = "{question} Options: {options}"
SIDES = {"binary", "cars", "soccer", "quantity"}  # kinds answered with Left/Right (Same)


for _name in data.COLUMN_BY_TASK:
    globals()[f"process_docs_{_name}"] = docs_hook(_name, partial(data.column_docs, _name), lambda d: d["images"], lambda d: d["uid"], f"MLLM-CompBench {_name}")  # named in the YAML files


def doc_to_text(doc: dict[str, Any], lmms_eval_specific_kwargs: dict | None = None) -> str:
    words = FIRST_SECOND if (lmms_eval_specific_kwargs or {}).get("answer_words") == "first_second" else LEFT_RIGHT
    kind = doc["kind"]
    if kind == "binary":
        return f"{doc['question']} {words}"
    if kind == "cars":
        return f"{CARS_QUESTION} {words}"
    if kind == "soccer":
        return SOCCER.format(action=doc["action"])
    if kind == "quantity":
        return f"{doc['question']} {QUANTITY}"
    if kind == "options":
        return EXISTENCE.format(options=", ".join(doc["options"]))
    return QBENCH.format(question=doc["question"], options=", ".join(doc["options"]))


def concat_horizontally(images: list[Image.Image]) -> Image.Image:
    """The pair as one image, first on the left (the paper's default input, §5.1): both scaled to
    the smaller height, side by side, no separator."""
    height = min(im.height for im in images)
    scaled = [im.resize((max(1, round(im.width * height / im.height)), height), Image.BICUBIC) if im.height != height else im for im in images]
    canvas = Image.new("RGB", (sum(im.width for im in scaled), height))
    x = 0
    for im in scaled:
        canvas.paste(im, (x, 0))
        x += im.width
    return canvas


def _images(doc: dict[str, Any]) -> list[Image.Image]:
    return load_image_paths(doc["images"], doc["uid"])


def doc_to_visual(doc: dict[str, Any]) -> list:
    """Default: one concatenated image (Q-Bench2 images are concatenated already)."""
    images = _images(doc)
    return [concat_horizontally(images)] if len(images) > 1 else images


def doc_to_visual_pair(doc: dict[str, Any]) -> list:
    """The two-image variant: first and second image, in annotation order."""
    return _images(doc)


def doc_to_target(doc: dict[str, Any]) -> str:
    return doc["answer"]


def chance_level(doc: dict[str, Any]) -> float:
    """Paper Table 2's chance row: 1/2 for Left/Right, 1/3 with Same, 1/(options + None) for
    existence, 1/options for Q-Bench2."""
    if doc["kind"] == "quantity":
        return 1 / 3
    if doc["kind"] == "options":
        return 1 / (len(doc["options"]) + 1)
    if doc["kind"] == "qbench":
        return 1 / len(doc["options"])
    return 1 / 2


def process_results(doc: dict[str, Any], results: list) -> dict[str, dict]:
    kind = doc["kind"]
    if kind in SIDES:
        parse = lambda text: rules.parse_side(text, allow_same=kind == "quantity")  # noqa: E731
        answer = rules.parse_side(doc["answer"], allow_same=True) or doc["answer"]
    else:
        parse = lambda text: rules.parse_option(text, doc["options"], with_none=kind == "options")  # noqa: E731
        answer = rules.parse_option(doc["answer"], doc["options"], with_none=kind == "options") or doc["answer"]
    sample = {"uid": doc["uid"], "kind": kind, "answer": answer, "n_options": round(1 / chance_level(doc)), "skipped": doc.get("skipped", "")}
    sample.update(aggregate.mcq_outcome(response_text(results), parse, answer))
    return {name: sample for name in ("accuracy", "chance", "left_bias", "counts")}


def aggregate_accuracy(items: list) -> float:
    return aggregate.accuracy(items)


def aggregate_chance(items: list) -> float:
    return aggregate.chance_accuracy(items)


def aggregate_left_bias(items: list) -> dict:
    """Share of "Left" among the parsed Left/Right answers against the share of "Left" in the
    ground truth of the same items: a model with no position bias has the two close."""
    sided = [it for it in aggregate.scored(items) if it["kind"] in SIDES and it["parsed"] in ("Left", "Right", "Same")]
    if not sided:
        return {}
    n = len(sided)
    predicted = sum(it["parsed"] == "Left" for it in sided) / n
    truth = sum(it["answer"] == "Left" for it in sided) / n
    return {"predicted_left": predicted, "true_left": truth, "gap": predicted - truth, "n": n}


def aggregate_counts(items: list) -> dict:
    check_model_failures(items, "MLLM-CompBench " + (", ".join(sorted({str(it.get("column") or it.get("kind")) for it in items})) or "(no items)"))
    return {**aggregate.counts(items), **skip_counts(items)}

