"""ViDiC-1K's scoring rules, as the authors' code applies them (NJU-LINK/ViDiC-1K @d00446f, MIT; the
file and function beside each rule). Pure functions: no lmms-eval, no engine.

A pair's description is judged once per checklist item: the judge reads the description and the
item's yes/no question and answers; the item is right when that answer equals the item's
``correct_answer`` (case aside). Avg pools every item of every pair; Diff and Sim pool the items of
one section; each class pools its items over both sections (utils/calculate.py
``calculate_global_scores``). An item whose judgement failed or could not be read has the answer
"error", which never equals a gold answer: it is wrong and stays in every denominator, as the
authors count it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from lmms_comparative.benchmarks.vidic.prompts import JUDGE_SYSTEM, JUDGE_TEMPLATE
from lmms_comparative.benchmarks.vidic.table import DIMENSIONS, SECTION_METRICS, SECTIONS

ERROR = "error"  # judge.py: the answer of an item that could not be judged
NO_DESCRIPTION = "No model description"  # judge.py process_object: a pair without a description
UNKNOWN_CLASS = "unknown"  # calculate.py: q.get("class", "unknown")


def description_text(response: Any) -> str:
    """The description the judge reads of a response file's ``response`` (judge.py
    ``judge_checklist_multithreaded``): an object as ``json.dumps(..., ensure_ascii=False)``,
    anything else as ``str``."""
    if isinstance(response, dict):
        return json.dumps(response, ensure_ascii=False)
    return str(response)


def judge_messages(section: str, description: str, question: str) -> list[dict[str, str]]:
    """The judge's two messages for one checklist item (judge.py ``process_question``): the system
    message naming the section, then the template filled by ``str.format`` (braces in the
    description or question are inserted as they are)."""
    return [
        {"role": "system", "content": JUDGE_SYSTEM.format(section=section)},
        {"role": "user", "content": JUDGE_TEMPLATE.format(description=description, question=question)},
    ]


_FENCED = re.compile(r"```json\s*(.*?)\s*```", re.DOTALL)
_ANSWER = re.compile(r"answer\s*[:：]\s*(yes|no|unsure)", re.IGNORECASE)
_REASON = re.compile(r"(explanation|because|reason)[:：]?\s*(.*)", re.IGNORECASE | re.DOTALL)


def _fields(parsed: Any) -> dict[str, Any]:
    # parsed.get(...) on a value that is not an object raises AttributeError, which judge.py's bare
    # ``except`` catches: the next rule is tried.
    if not isinstance(parsed, dict):
        raise TypeError("not a JSON object")
    return {"answer": parsed.get("answer", ERROR), "explanation": parsed.get("explanation", "")}


def parse_judge_response(raw: Any) -> dict[str, Any]:
    """The judge's answer and explanation (judge.py ``parse_judge_response``), tried in order: the
    first fenced ```` ```json ```` block parsed as a JSON object; the whole reply parsed as one; the
    regex ``answer: yes|no|unsure`` (lowercased; the explanation after "explanation", "because" or
    "reason", else the reply). None is ``error``; an object's ``answer`` is kept as it is (not
    lowercased: ``is_correct`` lowercases it); anything unreadable is ``error``."""
    if raw is None:
        return {"answer": ERROR, "explanation": "Empty response"}
    if isinstance(raw, dict):
        return {"answer": raw.get("answer", ERROR), "explanation": raw.get("explanation", "")}
    text = raw if isinstance(raw, str) else str(raw)
    fenced = _FENCED.search(text)
    if fenced:
        try:
            return _fields(json.loads(fenced.group(1)))
        except (ValueError, TypeError, RecursionError):
            pass
    try:
        return _fields(json.loads(text))
    except (ValueError, TypeError, RecursionError):
        pass
    answer = _ANSWER.search(text)
    reason = _REASON.search(text)
    return {
        "answer": answer.group(1).lower() if answer else ERROR,
        "explanation": reason.group(2).strip() if reason else text.strip(),
    }


def is_correct(answer: Any, gold: str) -> bool:
    """calculate.py: ``q.get("answer", "").lower() == q.get("correct_answer", "").lower()``. An
    answer that is not a string (a JSON ``true``, ``null`` or number) has no ``.lower()``: the
    authors' script stops there; here the item is wrong."""
    return isinstance(answer, str) and answer.lower() == gold.lower()


def dimension(cls: str) -> str | None:
    """The README column a checklist class belongs to (``table.DIMENSIONS``), read loosely (case,
    "_" or "-" for a space, "camera work", "playback technique"); None for any other class."""
    words = re.sub(r"[\s_\-]+", " ", str(cls)).strip().lower()
    if words in DIMENSIONS:
        return words
    aliases = {
        "camera work": "camera",
        "playback technique": "technique",
        "playback techniques": "technique",
        "playback": "technique",
        "pos": "position",
        "backgr": "background",
        "cam": "camera",
        "tech": "technique",
    }
    return aliases.get(words)


def _share(hits: int, n: int) -> float:
    # calculate.py gives 0 for an empty denominator; a share of nothing is NaN here, never a score.
    return hits / n if n else float("nan")


def aggregate(items: Iterable[Mapping]) -> dict[str, Any]:
    """Avg, Diff, Sim, the seven dimensions and every class as found (calculate.py
    ``calculate_global_scores``), as fractions, with their counts. Each item: its ``section``,
    ``class`` and ``correct``."""
    total = right = 0
    section_n = dict.fromkeys(SECTIONS, 0)
    section_right = dict.fromkeys(SECTIONS, 0)
    class_n: dict[str, int] = {}
    class_right: dict[str, int] = {}
    for item in items:
        cls, ok = str(item.get("class", UNKNOWN_CLASS)), bool(item["correct"])
        total += 1
        right += ok
        section_n[item["section"]] += 1
        section_right[item["section"]] += ok
        class_n[cls] = class_n.get(cls, 0) + 1
        class_right[cls] = class_right.get(cls, 0) + ok
    dim_n = dict.fromkeys(DIMENSIONS, 0)
    dim_right = dict.fromkeys(DIMENSIONS, 0)
    for cls, n in class_n.items():
        dim = dimension(cls)
        if dim is not None:
            dim_n[dim] += n
            dim_right[dim] += class_right[cls]
    shares: dict[str, Any] = {"avg": _share(right, total)}
    shares.update({SECTION_METRICS[s]: _share(section_right[s], section_n[s]) for s in SECTIONS})
    shares.update({d: _share(dim_right[d], dim_n[d]) for d in DIMENSIONS})
    return {
        **shares,
        "by_class": {
            c: {"accuracy": _share(class_right[c], n), "n": n, "right": class_right[c]} for c, n in class_n.items()
        },
        "n": {
            "items": total,
            "right": right,
            **{SECTION_METRICS[s]: section_n[s] for s in SECTIONS},
            **{d: dim_n[d] for d in DIMENSIONS},
        },
    }


def bootstrap_statistic(pairs: list[list[Mapping]]):
    """``statistic(idx)`` for ``metrics.bootstrap.vector_bootstrap``, pairs resampled (a pair's
    items share one description, so they are drawn together): each share of ``aggregate`` of the
    resampled pairs' items, as arrays."""
    import numpy as np

    def counts(keep) -> tuple[Any, Any]:
        right = np.asarray([sum(bool(it["correct"]) for it in p if keep(it)) for p in pairs], dtype=float)
        n = np.asarray([sum(1 for it in p if keep(it)) for p in pairs], dtype=float)
        return right, n

    columns = {"avg": counts(lambda it: True)}
    for section in SECTIONS:
        columns[SECTION_METRICS[section]] = counts(lambda it, s=section: it["section"] == s)
    for dim in DIMENSIONS:
        columns[dim] = counts(lambda it, d=dim: dimension(it.get("class", UNKNOWN_CLASS)) == d)

    def statistic(idx):
        with np.errstate(invalid="ignore", divide="ignore"):
            return {k: right[idx].sum(axis=1) / n[idx].sum(axis=1) for k, (right, n) in columns.items()}

    return statistic
