"""VLM-SubtleBench predictions made elsewhere (``lmms-comparative score subtlebench``).

Items are found by ``item_id``, the official adapter's id ``{category}_{source}_{source_id}``
(unified_adapter.py ``process_item``), e.g. ``state_changeit_0``.

Format ``evaluator``: the official multiple-choice evaluator's ``mc_evaluation_results.json``
(github krafton-ai/VLM-SubtleBench, ``multiple_choice_evaluator.py`` ``_finalize_mc_results``; written
under ``logs/multiple_choice_evaluator/<model>/<prompt type>/<data name>/<time>/``): one JSON object
whose ``questions`` list holds, per item, ``question_id``, ``question_text``, ``options`` (in the order
that run showed them), ``correct_answer``, ``predicted_answer`` (the letter its parser read, "" when
none, null on an error), ``predicted_answer_text``, ``is_correct`` and, in the default multithreaded
mode, ``response_content`` (the model's reply). E.g.::

    {"model": "gpt-4o", ..., "questions": [{"question_id": "state_changeit_0", "question_text": "In which
     image is the apple peeled more?", "options": ["first image", "second image"], "correct_answer":
     "second image", "predicted_answer": "B", "predicted_answer_text": "second image", "is_correct": true,
     "response_content": "### Answer\\nB"}, ...]}

The evaluator shuffles the options without a seed, so its letters need not be ours. Where the
record's option order is ours, the reply is scored as written (``response_content``, else the
letter it read); where it is not, the option the evaluator read (``predicted_answer_text``) is given
as our letter for that option, so the item is right exactly when the evaluator found it right. A
record with an ``error`` is a failed request, counted as wrong as the evaluator counts it; one
with neither an error nor a letter (``predicted_answer`` null, often ``response_content`` "") was
answered, and is wrong; an item in ``skipped_items`` has no reply (the evaluator left it out; here it
stays skipped, as the evaluator's accuracy leaves it out). The question text and answer are checked
against the data.

The prompt type (the path's ``no_reasoning``: the paper's Standard prompt, task family ``subtlebench``;
``standard``: the paper's Reasoning prompt, ``subtlebench_reasoning``; ``grid``: ``subtlebench_grid``)
names the task family; elsewhere ``--family`` does.
"""

from __future__ import annotations

from pathlib import Path

from lmms_comparative.data.replies import Options, PredictionsError, Replies, read_json
from lmms_comparative.metrics.aggregate import FAILED_REQUEST_PREFIX
from lmms_comparative.metrics.mcq import LETTERS
from lmms_comparative.record import PredictionsPart

# The evaluator's prompt types (its path segment) -> our task family (prompts.py names them).
FAMILY_OF_PROMPT_TYPE = {"no_reasoning": "subtlebench", "standard": "subtlebench_reasoning", "grid": "subtlebench_grid"}


def _family(path: Path, options: Options) -> str:
    if options.family:
        return options.family
    found = [FAMILY_OF_PROMPT_TYPE[part] for part in path.parts if part in FAMILY_OF_PROMPT_TYPE]
    if not found:
        raise PredictionsError(
            f"{path}: the path does not name the evaluator's prompt type ({', '.join(FAMILY_OF_PROMPT_TYPE)}): give "
            "the task family with --family (subtlebench for the paper's Standard prompt, subtlebench_reasoning for "
            "its Reasoning prompt, ...)"
        )
    return found[-1]


def _reply(record: dict, doc: dict, where: str) -> str:
    if record.get("error"):  # the evaluator's request failed: a failed request, counted wrong
        return f"{FAILED_REQUEST_PREFIX}: the evaluator's record has an error] {record['error']}"
    theirs = [str(o) for o in record.get("options") or []]
    if record.get("predicted_answer") is None:
        # No error and no letter: the model answered (often with an empty reply, response_content
        # "") and the evaluator read nothing from it: an answered item that is wrong, not a failure.
        reply = record.get("response_content")
        return reply if isinstance(reply, str) and theirs == list(doc["options"]) else ""
    if theirs == list(doc["options"]):
        reply = record.get("response_content")
        return reply if isinstance(reply, str) else str(record["predicted_answer"])
    chosen = record.get("predicted_answer_text")
    if not record["predicted_answer"] or chosen is None:
        return ""  # the evaluator read no letter: unparsed, wrong
    if chosen not in doc["options"]:
        raise PredictionsError(
            f"{where}: the option the evaluator read ({chosen!r}) is not one of the item's options {doc['options']}"
        )
    return LETTERS[list(doc["options"]).index(chosen)]


def read_evaluator(path: Path, options: Options) -> Replies:
    """Format ``evaluator`` (module docstring): the official evaluator's replies, keyed by ``item_id``,
    for the family its prompt type names."""
    from lmms_comparative.benchmarks.subtlebench.data import CATEGORIES, load_docs

    data = read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("questions"), list):
        raise PredictionsError(
            f"{path}: not the official evaluator's mc_evaluation_results.json (a JSON object with a 'questions' list)"
        )
    family = _family(path, options)
    code_of = {category: code for code, category in CATEGORIES.items()}
    docs = {doc["item_id"]: doc for doc in load_docs("test")}
    out = Replies(sources=[str(path)])
    for number, record in enumerate(data["questions"]):
        where = f"{path}, questions[{number}]"
        if not isinstance(record, dict) or not isinstance(record.get("question_id"), str):
            raise PredictionsError(f"{where}: a record needs 'question_id' (the item's id)")
        key = record["question_id"]
        doc = docs.get(key)
        if doc is None:
            raise PredictionsError(
                f"{where}: item {key!r} is not in the test split under SUBTLEBENCH_ROOT (wrong dataset or split?)"
            )
        task = f"{family}_{code_of[doc['category']]}"
        out.add(task, key, _reply(record, doc, where), where)
        out.expected.setdefault(task, {})[key] = {
            "question": str(record.get("question_text", doc["question"])),
            "answer": str(record.get("correct_answer", doc["answer"])),
        }
        if task not in out.tasks:
            out.tasks.append(task)
    # The evaluator leaves an item whose image is missing out of ``questions`` (its accuracy is over
    # the evaluated items): here it stays skipped, not a failed request.
    for record in data.get("skipped_items") or []:
        key = record.get("item_id") if isinstance(record, dict) else None
        doc = docs.get(key) if isinstance(key, str) else None
        if (
            isinstance(key, str)
            and doc is not None
            and key not in out.by_task.get(f"{family}_{code_of[doc['category']]}", {})
        ):
            task = f"{family}_{code_of[doc['category']]}"
            out.skipped.setdefault(task, {})[key] = str(
                record.get("reason") or "skipped by the evaluator (missing image)"
            )
            if task not in out.tasks:
                out.tasks.append(task)
    return out


def _looks_like_evaluator(path: Path) -> bool:
    return path.name.endswith("mc_evaluation_results.json")


FORMATS = {"evaluator": read_evaluator}
DETECT = {"evaluator": _looks_like_evaluator}
SIGNATURES = DETECT  # the file name is the evaluator's own: another benchmark's score names it


PART = PredictionsPart(formats=FORMATS, detect=DETECT, signatures=SIGNATURES)
