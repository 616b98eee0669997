"""VLM-SubtleBench's multi-round tasks (lmms-eval's generate_until_multi_round): two-step reasoning
(describe the differences, then answer) and the language-only comparison (describe each image
alone, then answer from the two descriptions)."""

from __future__ import annotations

from functools import partial
from typing import Any

from lmms_comparative.benchmarks.subtlebench import hooks
from lmms_comparative.benchmarks.subtlebench.hooks import doc_to_visual, process_results, user_text
from lmms_comparative.benchmarks.subtlebench.prompts import (
    LANGUAGE_ONLY_PREAMBLE,
    LANGUAGE_ONLY_QUESTIONS,
    SYSTEM_PROMPTS,
    TWO_STEP_SYSTEM_1,
    TWO_STEP_SYSTEM_2,
    TWO_STEP_USER_1,
    TWO_STEP_USER_2,
)
from lmms_comparative.benchmarks.subtlebench.table import task
from lmms_comparative.metrics.mcq import format_options
from lmms_comparative.tasklib import chat, flatten, load_images, round_replies
from lmms_comparative.tasklib.in_rounds import in_rounds
from lmms_comparative.tasklib.rounds import multi_round_docs


def _in_rounds(process_docs, protocol: str, code: str):
    """The ``process_docs`` of a multi-round protocol's task (``table.ROUNDS``): the type's docs
    (hooks.py), checked first for a model that runs rounds."""
    return multi_round_docs(process_docs, task(protocol, code))


# ---- two-step reasoning (paper §4.3, Table 4; Figure 10) ------------------------------------------


def _two_step_images(doc: dict[str, Any]) -> list[dict]:
    return [{"type": "image", "url": image} for image in doc_to_visual(doc)]


def two_step_first(doc: dict[str, Any]) -> list[dict]:
    """Step 1: describe the differences that matter to the question (both images, the question and
    options without their labels; Figure 10)."""
    text = TWO_STEP_USER_1.format(question_text=doc["question"], options_text=format_options(doc["options"]))
    return chat(TWO_STEP_SYSTEM_1, _two_step_images(doc) + [{"type": "text", "text": text}])


def two_step_second(doc: dict[str, Any], description: str) -> list[dict]:
    """Step 2: answer given both images, the question and the step-1 reply, inserted whole."""
    text = TWO_STEP_USER_2.format(
        diff_description=description, question_text=doc["question"], options_text=format_options(doc["options"])
    )
    return chat(TWO_STEP_SYSTEM_2, _two_step_images(doc) + [{"type": "text", "text": text}])


@in_rounds(first=two_step_first)
def twostep_doc_to_messages(doc: dict[str, Any], round_idx: int, outputs: list) -> list[dict] | None:
    """The second round: step 2, on the step-1 reply, and no round after it (``in_rounds``: a failed
    first step has nothing to describe, the item ends there, counted as a failed request)."""
    return two_step_second(doc, (outputs or [""])[0]) if round_idx == 1 else None


def twostep_doc_to_text(doc: dict[str, Any], lmms_eval_specific_kwargs: dict | None = None) -> str:
    return flatten(two_step_first(doc))[0]


def twostep_process_results(doc: dict[str, Any], results: list) -> dict[str, dict]:
    """Scored on the last round's reply (the step-2 answer); every round's reply is kept."""
    rounds = round_replies(results)
    out = process_results(doc, [rounds[-1]])
    for value in out.values():
        value["rounds"] = rounds
    return out


# Named in the two-step task files: each type's docs, asked in two rounds.
process_docs_twostep_attribute = _in_rounds(hooks.process_docs_attribute, "twostep", "at")
process_docs_twostep_state = _in_rounds(hooks.process_docs_state, "twostep", "st")
process_docs_twostep_emotion = _in_rounds(hooks.process_docs_emotion, "twostep", "em")
process_docs_twostep_temporal = _in_rounds(hooks.process_docs_temporal, "twostep", "tm")
process_docs_twostep_spatial = _in_rounds(hooks.process_docs_spatial, "twostep", "sp")
process_docs_twostep_existence = _in_rounds(hooks.process_docs_existence, "twostep", "ex")
process_docs_twostep_quantity = _in_rounds(hooks.process_docs_quantity, "twostep", "qn")
process_docs_twostep_quality = _in_rounds(hooks.process_docs_quality, "twostep", "ql")
process_docs_twostep_viewpoint = _in_rounds(hooks.process_docs_viewpoint, "twostep", "vp")
process_docs_twostep_action = _in_rounds(hooks.process_docs_action, "twostep", "ac")


# ---- language-only comparison (appendix C.2, Table 9) -----------------------------------------------


def _one_image(doc: dict[str, Any], index: int) -> list[dict]:
    image = load_images(doc, (f"image_{index + 1}",))[0]
    text = LANGUAGE_ONLY_QUESTIONS[doc["category"]]
    return [{"role": "user", "content": [{"type": "image", "url": image}, {"type": "text", "text": text}]}]


@in_rounds(first=partial(_one_image, index=0))
def langonly_doc_to_messages(doc: dict[str, Any], round_idx: int, outputs: list) -> list[dict] | None:
    """The first two rounds: each image alone with its category's question (the first image in the
    first round); the third: the question and options answered from the two descriptions, no image
    (the Standard prompt, Figure 8)."""
    if round_idx == 1:
        return _one_image(doc, 1)
    if round_idx > 2:
        return None
    text = LANGUAGE_ONLY_PREAMBLE.format(first=outputs[0], second=outputs[1]) + "\n\n" + user_text(doc)
    return chat(SYSTEM_PROMPTS["standard"], [{"type": "text", "text": text}])


def langonly_doc_to_text(doc: dict[str, Any], lmms_eval_specific_kwargs: dict | None = None) -> str:
    return LANGUAGE_ONLY_QUESTIONS[doc["category"]]


# Named in the language-only task files (the three types of Table 9).
process_docs_langonly_emotion = _in_rounds(hooks.process_docs_emotion, "langonly", "em")
process_docs_langonly_existence = _in_rounds(hooks.process_docs_existence, "langonly", "ex")
process_docs_langonly_quality = _in_rounds(hooks.process_docs_quality, "langonly", "ql")
