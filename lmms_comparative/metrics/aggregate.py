"""Aggregations over per-sample result dicts. Pure functions; no lmms-eval import.

Every per-sample dict carries ``status`` ("ok", "unparsed" or "failed"), ``correct`` (0/1, None
when the model request failed) and the fields used for breakdowns. Failed requests are counted
(``failed``); by default they are left out of the scores, and a benchmark whose official evaluator
counts them as wrong answers passes ``failed_as_wrong`` (VLM-SubtleBench). Unparseable answers are
scored as wrong and counted.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Callable, Iterable, Mapping, Sequence

# lmms-eval's API models answer with this prefix when a request exhausted its retries
# (lmms_eval/models/chat/openai.py: "[LMMS_EVAL_REQUEST_FAILED after N retries] ...").
FAILED_REQUEST_PREFIX = "[LMMS_EVAL_REQUEST_FAILED"
# ... and this text when the run's --max_budget is spent before the request was sent
# (lmms_eval/models/chat/openai.py: "[LMMS_EVAL_BUDGET_EXCEEDED]"): no answer either.
BUDGET_EXCEEDED_PREFIX = "[LMMS_EVAL_BUDGET_EXCEEDED"
STATUS_OK, STATUS_UNPARSED, STATUS_FAILED = "ok", "unparsed", "failed"


def is_failed_request(response: str | None) -> bool:
    """Whether a reply is lmms-eval's marker of a request that got no answer (failed, or over ``--max_budget``)."""
    return isinstance(response, str) and response.lstrip().startswith((FAILED_REQUEST_PREFIX, BUDGET_EXCEEDED_PREFIX))


def mcq_outcome(response: str, parse: Callable[[str], str | None], answer: str) -> dict:
    """``parsed``, ``correct`` and ``status`` of one multiple-choice response: a failed request is
    not scored, an unparseable answer is wrong and marked so."""
    if is_failed_request(response):
        return {"parsed": None, "correct": None, "status": STATUS_FAILED}
    letter = parse(response) or ""
    return {"parsed": letter, "correct": int(letter == answer), "status": STATUS_OK if letter else STATUS_UNPARSED}


def scored(items: Iterable[Mapping]) -> list[Mapping]:
    """The items that have a score: everything but failed requests."""
    return [it for it in items if it.get("status") != STATUS_FAILED]


def evaluated(items: Iterable[Mapping], failed_as_wrong: bool) -> list[Mapping]:
    """The items a score is taken over: the scored ones, or every item when a benchmark's official
    evaluator counts a failed request as a wrong answer (``failed_as_wrong``)."""
    return list(items) if failed_as_wrong else scored(items)


def accuracy(items: Sequence[Mapping], failed_as_wrong: bool = False) -> float:
    """Share of correct answers among scored items (micro average), or among all items with
    ``failed_as_wrong``. NaN when nothing was scored."""
    done = evaluated(items, failed_as_wrong)
    if not done:
        return float("nan")
    return sum(int(it.get("correct") or 0) for it in done) / len(done)


def chance_accuracy(items: Sequence[Mapping], failed_as_wrong: bool = False) -> float:
    """Expected accuracy of a uniform guess among each item's options, over the items that
    ``accuracy`` is taken over."""
    done = evaluated(items, failed_as_wrong)
    if not done:
        return float("nan")
    return sum(1.0 / it["n_options"] for it in done) / len(done)


def counts(items: Sequence[Mapping]) -> dict[str, int]:
    """How many items there were, were scored, were right, could not be parsed, or failed."""
    out = {"n": len(items), "scored": 0, "correct": 0, "unparsed": 0, "failed": 0}
    for it in items:
        status = it.get("status")
        if status == STATUS_FAILED:
            out["failed"] += 1
            continue
        out["scored"] += 1
        out["correct"] += int(it.get("correct") or 0)
        if status == STATUS_UNPARSED:
            out["unparsed"] += 1
    return out


def share_answering(items: Sequence[Mapping], field: str, text: str) -> float:
    """Share of the items carrying ``field`` whose value is ``text`` (case and surrounding space
    ignored); NaN when none carries it. The image-order check asks it of "first image"."""
    values = [str(it[field]).strip().lower() == text for it in items if it.get(field)]
    return sum(values) / len(values) if values else float("nan")


def breakdown(items: Sequence[Mapping], field: str, failed_as_wrong: bool = False) -> dict[str, dict[str, float]]:
    """Accuracy per value of ``field``: ``{value: {"accuracy", "correct", "n"}}`` over the items
    that ``accuracy`` is taken over."""
    groups: dict[str, list[Mapping]] = defaultdict(list)
    for it in evaluated(items, failed_as_wrong):
        groups[str(it.get(field))].append(it)
    return {k: _cell(sum(int(it.get("correct") or 0) for it in v), len(v)) for k, v in sorted(groups.items())}


def _cell(correct: float, n: float) -> dict[str, float]:
    return {"accuracy": correct / n, "correct": correct, "n": n}


def merge_breakdowns(parts: Sequence[Mapping[str, Mapping[str, float]]]) -> dict[str, dict[str, float]]:
    """Combine per-task breakdowns into the micro average over all their items."""
    # Whole counts, held in the cells typed as floats.
    correct: dict[str, float] = defaultdict(int)
    total: dict[str, float] = defaultdict(int)
    for part in parts:
        for key, cell in part.items():
            correct[key] += cell["correct"]
            total[key] += cell["n"]
    return {k: _cell(correct[k], total[k]) for k in sorted(total)}


def sum_counts(parts: Sequence[Mapping[str, int]]) -> dict[str, int]:
    """``counts`` dicts added field by field."""
    out: dict[str, int] = defaultdict(int)
    for part in parts:
        for key, value in part.items():
            out[key] += value
    return dict(out)
