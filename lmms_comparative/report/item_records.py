"""The item browser's records: one per (task, item key) that any run scored, joined across runs,
with the item's question, gold answer (with its option's text) and media, and per run its reply,
parsed answer, outcome, score and per-item fields. ``report/item_browser.py`` writes them out."""

from __future__ import annotations

import re

from lmms_comparative.data.replies import sample_key
from lmms_comparative.registry import of_task

_FIELDS_SKIPPED = {"item_id", "uid", "id", "skipped", "answer_text"}  # shown elsewhere, or noise


def _item_of(row: dict, key) -> tuple[str | None, dict]:
    """A samples line's item key and its per-item dict (what our process_results logs per metric)."""
    unit = sample_key(row, key)
    item = next((v for v in row.values() if isinstance(v, dict) and key.columns[0] in v), {})
    return unit, item


def _reply(row: dict) -> str:
    value = row.get("resps") if "resps" in row else row.get("filtered_resps")
    while isinstance(value, list) and value:
        value = value[0] if len(value) == 1 else value
        if isinstance(value, list):
            value = "\n---\n".join(str(v) for v in value)
    return "" if value is None else str(value)


def _outcome(item: dict) -> tuple[str, float | None]:
    """(right / wrong / partial / failed / unscored, score) of a per-item dict."""
    if item.get("status") == "failed" or item.get("caption_failed"):
        return "failed", 0.0
    for name in ("correct", "score"):
        value = item.get(name)
        if isinstance(value, bool):
            value = float(value)
        if isinstance(value, (int, float)):
            return ("right" if value >= 1 else "wrong" if value <= 0 else "partial"), float(value)
    return "unscored", None


def _scalars(item: dict) -> dict:
    return {
        k: v for k, v in item.items() if k not in _FIELDS_SKIPPED and isinstance(v, (str, int, float, bool)) and v != ""
    }


def collect(runs: list, benchmarks) -> list[dict]:
    """One record per (task, item key) that any run scored: the task, benchmark, category,
    domain, question, gold answer, media paths, and per run its reply, parsed answer, outcome,
    score and fields (and, where the benchmark's report part gives them, the item's questions:
    CaptionQA's image is scored by its questions)."""
    found: dict[tuple[str, str], dict] = {}
    for index, run in enumerate(runs):
        for task, rows in sorted(run.samples.items()):
            benchmark = of_task(task)
            if benchmark is None or benchmark not in benchmarks:
                continue
            key = benchmark.item_key
            of_item = benchmark.report_part().item_questions
            questions = of_item(run, task) if of_item else None
            for row in sorted(rows, key=lambda r: r.get("doc_id", 0)):
                unit, item = _item_of(row, key)
                if unit is None:
                    continue
                record = found.setdefault(
                    (task, unit),
                    {
                        "task": task,
                        "benchmark": benchmark.name,
                        "key": unit,
                        "category": str(item.get("category") or item.get("kind") or task),
                        "domain": str(item.get("domain") or item.get("source") or ""),
                        "question": str(row.get("input") or ""),
                        "target": str(row.get("target") if row.get("target") is not None else ""),
                        "gold": gold_text(
                            str(row.get("target") if row.get("target") is not None else ""),
                            str(row.get("input") or ""),
                            item,
                        ),
                        "media": [str(m) for m in row.get("input_media") or []],
                        "runs": {},
                    },
                )
                media = [str(m) for m in row.get("input_media") or []]
                # Another run's media: chosen in ``write``, where the roots are known.
                if media not in record.setdefault("media_options", [record["media"]]):
                    record["media_options"].append(media)
                outcome, score = _outcome(item)
                entry = {
                    "reply": _reply(row),
                    "parsed": item.get("parsed", item.get("letter")),
                    "outcome": outcome,
                    "score": score,
                    "fields": _scalars(item),
                }
                if questions is not None:  # the item's score is its questions' mean
                    entry["questions"] = asked = questions.get(unit, [])
                    if asked and outcome != "failed":
                        mean = sum(float(q.get("score") or 0) for q in asked) / len(asked)
                        entry["score"] = mean
                        entry["outcome"] = "right" if mean >= 1 else "wrong" if mean <= 0 else "partial"
                record["runs"][index] = entry
    return [found[k] for k in sorted(found, key=lambda k: (natural_key(k[0]), natural_key(k[1])))]


def natural_key(text: str) -> tuple:
    """Text with its digit runs compared as numbers: ``item_2`` before ``item_10``."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", text) if part)


# An option line of a multiple-choice prompt: "B. it became brighter", "(B) ...", "B) ...".
_OPTION = re.compile(r"^\s*\(?([A-Z])[.):]\s+(\S.*?)\s*$", re.M)


def gold_text(target: str, question: str, item: dict) -> str:
    """The gold answer with its option's text where it is a letter (``B. it became brighter``): the
    item's own ``answer_text``, else the option line of that letter in the prompt; else as it is."""
    letter = target.strip().strip("()")
    if not re.fullmatch(r"[A-Z]", letter):
        return target
    text = item.get("answer_text")
    if not isinstance(text, str) or not text.strip():
        text = next((m.group(2) for m in _OPTION.finditer(question) if m.group(1) == letter), "")
    return f"{letter}. {text}" if text else target
