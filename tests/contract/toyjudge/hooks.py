"""Toy Judge's lmms-eval hooks: the docs from $TOYJUDGE_ROOT/test.jsonl, the image pair and the
question, the reply judged Yes or No against the gold answer by an LLM through the engine."""

from __future__ import annotations

import re

from lmms_comparative.benchmarks.toyjudge import BENCHMARK, JUDGE

from lmms_comparative.data.jsonl import json_lines
from lmms_comparative.data.roots import dataset_root
from lmms_comparative.failures import DataError
from lmms_comparative.judges import Engine, check_failures
from lmms_comparative.metrics import aggregate
from lmms_comparative.tasklib import (
    check_model_failures,
    docs_hook,
    load_images,
    metric_of,
    once_per_run,
    skip_counts,
)
from lmms_comparative.tasklib.kept_reply import kept_reply_results

LAYOUT = (
    "test.jsonl: one JSON object per line with item_id, image_1, image_2 (paths under the root), question and answer"
)
JUDGE_PROMPT = (
    "Question: {question}\nGold answer: {gold}\nModel reply: {reply}\n"
    "Does the model reply match the gold answer? Answer Yes or No."
)
_YES_NO = re.compile(r"\b(yes|no)\b", re.I)


def _load() -> list[dict]:
    root = dataset_root(BENCHMARK.root_variable, None, LAYOUT)
    path = root / "test.jsonl"
    if not path.is_file():
        raise DataError(f"{BENCHMARK.root_variable}: no {path}. Expected {LAYOUT}.")
    rows = json_lines(path, DataError, "Toy Judge record")  # a garbled line: one message naming the file and line
    if not rows:
        raise DataError(f"{path}: no records. Expected {LAYOUT}.")
    for row in rows:
        row["image_1"], row["image_2"] = str(root / row["image_1"]), str(root / row["image_2"])
    return rows


def _image_paths(doc: dict) -> tuple[str, str]:
    return doc["image_1"], doc["image_2"]


# The image paths let the docs hook check every image before generation: an unreadable one skips
# its item, recorded and counted, instead of failing the run.
process_docs = docs_hook("toyjudge", _load, record=BENCHMARK, image_paths=_image_paths, label="Toy Judge")


def doc_to_visual(doc: dict) -> list:
    return load_images(doc, ("image_1", "image_2"))


def doc_to_text(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> str:
    return doc["question"]


def doc_to_target(doc: dict) -> str:
    return doc["answer"]


def process_results(doc: dict, results: list) -> dict[str, dict]:
    # The reply kept as it is for the judge; a failed request is no prediction (the kit's rule).
    return kept_reply_results(doc, results, ("accuracy", "counts"), question=doc["question"], gold=doc["answer"])


def parse_yes_no(text: str | None) -> bool | None:
    match = _YES_NO.search(text or "")
    return None if match is None else match.group(1).lower() == "yes"


@once_per_run()
def score_run(items: list) -> dict:
    """The judge's verdicts on the run's replies: once per task, shared by its two metrics. A
    failed judge call past the allowed share makes the task Unscored (its metrics NaN, the run
    flagged), the run's replies kept for ``lmms-comparative score``."""
    check_model_failures(items, "Toy Judge")
    done = sorted(aggregate.scored(items), key=lambda it: it["item_id"])
    engine = Engine.from_env(
        JUDGE.setting, defaults=JUDGE.default
    )  # TOYJUDGE_JUDGE_BASE_URL, _API_KEY, _MODEL, ... (docs/engine.md)
    answers = engine.run(
        [JUDGE_PROMPT.format(question=it["question"], gold=it["gold"], reply=it["prediction"]) for it in done],
        desc="Toy Judge judge",
    )
    verdicts = [None if a.failed else parse_yes_no(a.text) for a in answers]
    unjudged = sum(v is None for v in verdicts)
    check_failures(unjudged, len(answers), engine.config.max_failed, "Toy Judge judge")
    judged = [v for v in verdicts if v is not None]
    return {
        "accuracy": sum(judged) / len(judged) if judged else float("nan"),
        "counts": {
            "n": len(items),
            "scored": len(done),
            "failed": len(items) - len(done),
            "judged": len(judged),
            "yes": sum(judged),
            "unjudged": unjudged,
            **skip_counts(items),
        },
    }


aggregate_accuracy = metric_of(score_run, "accuracy")
aggregate_counts = metric_of(score_run, "counts")
