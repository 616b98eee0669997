"""Toy MCQ's lmms-eval hooks: the docs from $TOYMCQ_ROOT/test.jsonl, a lettered prompt, the letter."""

from __future__ import annotations

import re

from lmms_comparative.benchmarks.toymcq import BENCHMARK

from lmms_comparative.data.jsonl import json_lines
from lmms_comparative.data.roots import dataset_root
from lmms_comparative.failures import DataError
from lmms_comparative.metrics.aggregate import mcq_outcome
from lmms_comparative.tasklib import accuracy_aggregation, counts_aggregation, docs_hook, item_results, response_text

LAYOUT = "test.jsonl: one JSON object per line with item_id, question, options (a list) and answer (a letter)"


def _load() -> list[dict]:
    path = dataset_root(BENCHMARK.root_variable, None, LAYOUT) / "test.jsonl"
    if not path.is_file():
        raise DataError(f"{BENCHMARK.root_variable}: no {path}. Expected {LAYOUT}.")
    rows = json_lines(path, DataError, "Toy MCQ record")  # a garbled line: one message naming the file and line
    if not rows:
        raise DataError(f"{path}: no records. Expected {LAYOUT}.")
    return rows


process_docs = docs_hook("toymcq", _load, record=BENCHMARK)


def doc_to_visual(doc: dict) -> list:
    return []


def doc_to_text(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> str:
    options = "\n".join(f"{chr(65 + i)}. {option}" for i, option in enumerate(doc["options"]))
    return f"{doc['question']}\n{options}\nAnswer with the option's letter."


def doc_to_target(doc: dict) -> str:
    return doc["answer"]


def _letter(reply: str) -> str | None:
    found = re.search(r"\b([A-D])\b", reply.upper())
    return found.group(1) if found else None


def process_results(doc: dict, results: list) -> dict[str, dict]:
    outcome = mcq_outcome(response_text(results), _letter, doc["answer"])
    return item_results(doc, outcome, ("accuracy", "counts"))


aggregate_accuracy = accuracy_aggregation("Toy MCQ")
aggregate_counts = counts_aggregation("Toy MCQ")
