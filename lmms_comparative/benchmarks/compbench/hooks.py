"""lmms-eval hooks for MLLM-CompBench: one task per column of the paper's Table 2.

``compbench_<column>`` scores the authors' test split with the pair merged into one image, as
the LLaVA-1.6 and VILA-1.5 rows were produced; ``compbench_pair_<column>`` sends the two images
apart, as GPT-4V and Gemini1.0-Pro were run; ``compbench_full_<column>`` scores every record.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from PIL import Image

from lmms_comparative.benchmarks.compbench import BENCHMARK, data
from lmms_comparative.benchmarks.compbench import scoring as rules
from lmms_comparative.benchmarks.compbench.prompts import (
    CARS_QUESTION,
    EXISTENCE,
    FIRST_SECOND,
    LEFT_RIGHT,
    QBENCH,
    QUANTITY,
    SOCCER,
    TWO_STAGE_CELEBA_1,
    TWO_STAGE_DEPTH_1,
    TWO_STAGE_MAGICBRUSH_1,
    TWO_STAGE_MAGICBRUSH_2,
)
from lmms_comparative.benchmarks.compbench.table import task
from lmms_comparative.metrics import aggregate
from lmms_comparative.tasklib import (
    check_model_failures,
    docs_hook,
    load_image_paths,
    response_text,
    round_replies,
    skip_counts,
)
from lmms_comparative.tasklib.in_rounds import in_rounds
from lmms_comparative.tasklib.rounds import multi_round_docs

SIDES = {"binary", "cars", "soccer", "quantity"}  # kinds answered with Left/Right (Same)


def _image_paths(doc: dict[str, Any]) -> list[str]:
    return doc["images"]


def _uid(doc: dict[str, Any]) -> str:
    return doc["uid"]


def _column(name: str, split: str):
    """The ``process_docs`` of one column's task: its docs of ``split`` (``test``, or ``full``: test and val)."""
    label = f"MLLM-CompBench {name}" + (" (full)" if split == "full" else "")
    return docs_hook(
        name if split == "test" else f"full_{name}",
        partial(data.column_docs, name, split),
        record=BENCHMARK,
        image_paths=_image_paths,
        item_id=_uid,
        label=label,
    )


# Each column's test split (the merged-pair and the pair tasks), in the order of Table 2 (files.COLUMNS).
process_docs_attribute_mitstates = _column("attribute_mitstates", "test")
process_docs_attribute_fashionpedia = _column("attribute_fashionpedia", "test")
process_docs_attribute_vaw = _column("attribute_vaw", "test")
process_docs_attribute_cub = _column("attribute_cub", "test")
process_docs_attribute_wildfish = _column("attribute_wildfish", "test")
process_docs_existence_magicbrush = _column("existence_magicbrush", "test")
process_docs_existence_spotdiff = _column("existence_spotdiff", "test")
process_docs_state_mitstates = _column("state_mitstates", "test")
process_docs_state_vaw = _column("state_vaw", "test")
process_docs_emotion_celeba = _column("emotion_celeba", "test")
process_docs_emotion_fer2013 = _column("emotion_fer2013", "test")
process_docs_temporality_soccernet = _column("temporality_soccernet", "test")
process_docs_temporality_compcars = _column("temporality_compcars", "test")
process_docs_spatiality_nyudepth = _column("spatiality_nyudepth", "test")
process_docs_quantity_vqav2 = _column("quantity_vqav2", "test")
process_docs_quality_qbench2 = _column("quality_qbench2", "test")
# Each column's full set (test and val): the compbench_full tasks.
process_docs_full_attribute_mitstates = _column("attribute_mitstates", "full")
process_docs_full_attribute_fashionpedia = _column("attribute_fashionpedia", "full")
process_docs_full_attribute_vaw = _column("attribute_vaw", "full")
process_docs_full_attribute_cub = _column("attribute_cub", "full")
process_docs_full_attribute_wildfish = _column("attribute_wildfish", "full")
process_docs_full_existence_magicbrush = _column("existence_magicbrush", "full")
process_docs_full_existence_spotdiff = _column("existence_spotdiff", "full")
process_docs_full_state_mitstates = _column("state_mitstates", "full")
process_docs_full_state_vaw = _column("state_vaw", "full")
process_docs_full_emotion_celeba = _column("emotion_celeba", "full")
process_docs_full_emotion_fer2013 = _column("emotion_fer2013", "full")
process_docs_full_temporality_soccernet = _column("temporality_soccernet", "full")
process_docs_full_temporality_compcars = _column("temporality_compcars", "full")
process_docs_full_spatiality_nyudepth = _column("spatiality_nyudepth", "full")
process_docs_full_quantity_vqav2 = _column("quantity_vqav2", "full")
process_docs_full_quality_qbench2 = _column("quality_qbench2", "full")


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
    # Q-Bench2: the authors' questions carry their options and instruction already and were sent
    # as they are (CompBenchReview q-bench2_eval.py, LLaVA/llava/eval/model_qbench2.py).
    if "Options:" in doc["question"]:
        return doc["question"]
    return QBENCH.format(question=doc["question"], options=", ".join(doc["options"]))


def merge_images(images: list[Image.Image]) -> Image.Image:
    """The pair as one image, as CompBenchReview ``LLaVA/llava/mm_utils.py`` ``merge_images`` makes it
    (the same function in ``VILA/llava/mm_utils.py``), which produced the LLaVA-1.6 and VILA-1.5 rows:
    every image scaled to the integer mean height (width ``int(w * mean / h)``, PIL's default
    resampling), side by side in order, separated by a 10-pixel column: 1 black, 8 white, 1 black."""
    images = [im.convert("RGB") for im in images]
    if len(images) == 1:
        return images[0]
    height = sum(im.height for im in images) // len(images)
    scaled = [im.resize((int(im.width * height / im.height), height)) for im in images]
    canvas = Image.new("RGB", (sum(im.width for im in scaled) + 10 * (len(scaled) - 1), height))
    x = 0
    for i, im in enumerate(scaled):
        if i:
            canvas.paste((0, 0, 0), (x, 0, x + 1, height))
            canvas.paste((255, 255, 255), (x + 1, 0, x + 9, height))
            canvas.paste((0, 0, 0), (x + 9, 0, x + 10, height))
            x += 10
        canvas.paste(im, (x, 0))
        x += im.width
    return canvas


def _images(doc: dict[str, Any]) -> list[Image.Image]:
    return load_image_paths(doc["images"], doc["uid"])


def doc_to_visual(doc: dict[str, Any]) -> list:
    """Default: one merged image (Q-Bench2 images are combined already)."""
    return [merge_images(_images(doc))]


def doc_to_visual_pair(doc: dict[str, Any]) -> list:
    """The two-image variant: first and second image, in annotation order."""
    return _images(doc)


def doc_to_messages_pair(doc: dict[str, Any], lmms_eval_specific_kwargs: dict | None = None) -> list[dict]:
    """Chat models, pair variant: the text, then the images, as CompBenchReview ``setup.py``
    ``GPT.inference_two`` / ``inference_one`` sent them to GPT-4V; with ``images_first`` (set for
    ``gemini_api``) the images, then the text, as ``GEMINI.inference_two`` sent them."""
    text = [{"type": "text", "text": doc_to_text(doc, lmms_eval_specific_kwargs)}]
    images = [{"type": "image", "url": image} for image in doc_to_visual_pair(doc)]
    content = images + text if (lmms_eval_specific_kwargs or {}).get("images_first") else text + images
    return [{"role": "user", "content": content}]


def doc_to_target(doc: dict[str, Any]) -> str:
    return doc["answer"]


def n_choices(doc: dict[str, Any]) -> int:
    """How many answers the prompt offers: 2 (Left/Right), 3 with Same, the options plus None for
    existence, the options for Q-Bench2 (the counts behind the paper's chance row)."""
    if doc["kind"] == "quantity":
        return 3
    if doc["kind"] == "options":
        return len(doc["options"]) + 1
    if doc["kind"] == "qbench":
        return len(doc["options"])
    return 2


def process_results(doc: dict[str, Any], results: list) -> dict[str, dict]:
    kind = doc["kind"]
    if kind in SIDES:
        parse = rules.parse_side  # get_acc
        answer = doc["answer"]  # compared as stored ("Left", "Right", "Same")
    else:
        parse = partial(rules.parse_option, options=doc["options"])  # get_acc_option
        answer = rules.normalize_option(doc["answer"])
    sample = {
        "uid": doc["uid"],
        "kind": kind,
        "answer": answer,
        "n_options": n_choices(doc),
        "skipped": doc.get("skipped", ""),
    }
    sample.update(aggregate.mcq_outcome(response_text(results), parse, answer))
    # The left-answer bias applies to the Left/Right columns only; option columns do not report it.
    return {name: sample for name in ("accuracy", "chance", "counts") + (("left_bias",) if kind in SIDES else ())}


def aggregate_accuracy(items: list) -> float:
    return aggregate.accuracy(items)


def aggregate_chance(items: list) -> float:
    """The paper's chance row: 1 / mean number of choices over the column's items."""
    return rules.chance_level([it["n_options"] for it in items])


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
    check_model_failures(
        items,
        "MLLM-CompBench "
        + (", ".join(sorted({str(it.get("column") or it.get("kind")) for it in items})) or "(no items)"),
    )
    return {**aggregate.counts(items), **skip_counts(items)}


# ---- two-stage reasoning (paper §5.3, Table 3 left) -------------------------------------------------


def _one_image(doc: dict[str, Any], index: int, text: str) -> list[dict]:
    """One image and its question, as the authors' ``GPT.inference_one`` sent it: the text first,
    then the image, in one user turn, no system prompt."""
    image = load_image_paths([doc["images"][index]], doc["uid"])[0]
    return [{"role": "user", "content": [{"type": "text", "text": text}, {"type": "image", "url": image}]}]


def _stage_one_question(doc: dict[str, Any]) -> str:
    column = doc["task"]
    if column == "existence_magicbrush":
        return TWO_STAGE_MAGICBRUSH_1.format(options=", ".join(doc["options"]))
    if column == "emotion_celeba":
        return TWO_STAGE_CELEBA_1
    return TWO_STAGE_DEPTH_1.format(noun=rules.depth_noun(doc["question"]))


def _first_stage(doc: dict[str, Any]) -> list[dict]:
    """The first round: the first image and its question."""
    return _one_image(doc, 0, _stage_one_question(doc))


@in_rounds(first=_first_stage)
def twostage_doc_to_messages(doc: dict[str, Any], round_idx: int, outputs: list) -> list[dict] | None:
    """The second round: the second image (the same question); the third, MagicBrush only: the two
    descriptions, text only (``in_rounds``: a failed request ends the item, a failed request)."""
    if round_idx == 1:
        return _one_image(doc, 1, _stage_one_question(doc))
    if round_idx == 2 and doc["task"] == "existence_magicbrush":
        text = TWO_STAGE_MAGICBRUSH_2.format(first=outputs[0], second=outputs[1], options=", ".join(doc["options"]))
        return [{"role": "user", "content": [{"type": "text", "text": text}]}]
    return None


def twostage_doc_to_text(doc: dict[str, Any], lmms_eval_specific_kwargs: dict | None = None) -> str:
    return _stage_one_question(doc)


def twostage_process_results(doc: dict[str, Any], results: list) -> dict[str, dict]:
    """The final answer (MagicBrush: the third round's reply; CelebA and NYU-Depth: the authors'
    comparison of the two numbers) scored as a one-stage reply is; every round's reply is kept."""
    rounds = round_replies(results)
    failed = next((r for r in rounds if aggregate.is_failed_request(r)), None)
    if failed is not None:
        final = failed
    elif len(rounds) == 1:
        final = rounds[0]  # a final answer given without its first stage (the authors' stored replies, via replay)
    elif doc["task"] == "existence_magicbrush":
        final = rounds[-1] if len(rounds) == 3 else ""
    else:
        final = rules.two_stage_side(rounds[0], rounds[1])
    out = process_results(doc, [final])
    for value in out.values():
        value.update(rounds=rounds, final=final)
    return out


# The two-stage tasks' docs (table.TWO_STAGE_COLUMNS): each column's test split, once the run's model
# is known to run rounds.
process_docs_twostage_existence_magicbrush = multi_round_docs(
    process_docs_existence_magicbrush, task("twostage", "existence_magicbrush")
)
process_docs_twostage_emotion_celeba = multi_round_docs(process_docs_emotion_celeba, task("twostage", "emotion_celeba"))
process_docs_twostage_spatiality_nyudepth = multi_round_docs(
    process_docs_spatiality_nyudepth, task("twostage", "spatiality_nyudepth")
)
