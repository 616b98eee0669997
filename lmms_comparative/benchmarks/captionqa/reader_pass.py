"""CaptionQA's reader pass: every question of every caption goes to the reader LLM in one batch
through the engine (concurrent, cached, failures counted), and the official rules (scoring.py)
score its answers. hooks.py runs the pass once per task, on rank 0, over the captions gathered from
every rank; the task's metrics all read that one pass.
"""

from __future__ import annotations

import os
from typing import Iterable

from loguru import logger

from lmms_comparative import failures
from lmms_comparative.benchmarks.captionqa import data
from lmms_comparative.benchmarks.captionqa import scoring as rules
from lmms_comparative.benchmarks.captionqa.prompts import READER_SYSTEM_PROMPT, build_qa_prompt
from lmms_comparative.benchmarks.captionqa.table import READER, task_name
from lmms_comparative.judges import Engine, check_failures
from lmms_comparative.metrics.bootstrap import cluster_mean_intervals
from lmms_comparative.tasklib import once_per_run, side_logs, skip_counts


def reader_engine() -> Engine:
    """The engine of the CaptionQA reader (``CAPTIONQA_READER_*``; defaults: Qwen2.5-72B-Instruct at a local
    vLLM server)."""
    return Engine.from_env(READER.setting, defaults=READER.default)


def reader_messages(caption: str, question: str, options: list[str]) -> list[dict]:
    """The reader's chat request for one question: qa.py's system prompt and its caption-question-options
    user turn."""
    return [
        {"role": "system", "content": READER_SYSTEM_PROMPT},
        {"role": "user", "content": build_qa_prompt(caption, question, options)},
    ]


def qa_rows(
    captions: dict[str, str], domain: str, engine: Engine | None = None, uncaptioned: Iterable[str] = ()
) -> tuple[list[dict], int]:
    """Ask the reader every scorable question of every captioned image set; score the answers.

    ``uncaptioned``: the run's image sets without a caption (empty, or the request failed); as in
    qa.py they take no shuffle draws, so the options of every later question keep the official
    order. Returns (rows, reader failures). Rows of failed reader calls carry ``failed=True`` and
    no score.
    """
    base = data.root()
    perms = data.permutations(base, frozenset(uncaptioned))
    questions = data.questions_by_id(base, domain)
    engine = engine or reader_engine()
    plan, requests = [], []
    for entry_id, caption in captions.items():
        for q_idx, q in enumerate(questions.get(entry_id, [])):
            perm = perms.get((entry_id, q_idx))
            if perm is None:  # not scorable (qa.py skips it)
                continue
            options = rules.choices_with_cannot(q["question"], q["choices"])
            requests.append(reader_messages(caption, q["question"], [options[i] for i in perm]))
            plan.append((entry_id, q_idx, q, perm, options))
    answers = engine.run(requests, desc=f"CaptionQA reader ({domain})")
    rows, failed = [], 0
    for (entry_id, q_idx, q, perm, options), answer in zip(plan, answers):
        row = {
            "id": entry_id,
            "q_idx": q_idx,
            "question": q["question"],
            "category": rules.first_category(q.get("category")),
            "response": answer.text,
        }
        if answer.failed:
            failed += 1
            row.update(failed=True, error=answer.error)
        else:
            letter = rules.extract_letter(answer.text, len(perm))
            gt = rules.gt_index(q["choices"], q["answer"])  # scorable: one of the choices (-1 would match none)
            row.update(
                failed=False,
                **rules.score_answer(letter, perm, options, len(q["choices"]), -1 if gt is None else gt),
            )
        rows.append(row)
    return rows, failed


def _engine_identity(items: list[dict], uncaptioned: list[str]) -> tuple:
    """What the QA pass depends on besides the items: the image sets without a caption in the
    walk, and the reader's endpoint and model."""
    config = reader_engine().config
    return items, uncaptioned, config.endpoint, config.model


@once_per_run(key=_engine_identity)
def _qa_pass(items: list[dict], uncaptioned: list[str]) -> dict:
    """One task's QA pass over its gathered samples: the reader's answers to the questions of every
    captioned image set (``uncaptioned``: the sets of the walk that take no shuffle draw), scored,
    summarised, and the counts of what was not asked."""
    domain = items[0]["domain"] if items else ""
    ordered = sorted(items, key=lambda it: it["id"])
    captions = {it["id"]: it["caption"] for it in ordered if not it["caption_failed"] and not it.get("caption_empty")}
    engine = reader_engine()
    rows, failed = qa_rows(captions, domain, engine, uncaptioned)
    scored = [r for r in rows if not r["failed"]]
    if items:
        # Every reader answer, beside the samples log (``<date>_reader_<task>.jsonl``): a caption
        # pool re-read by another reader, the reader-stability check and per-question difficulty.
        prompt = items[0].get("prompt", "")
        task = task_name(prompt, domain)
        side_logs.add(task, "reader", [{**r, "reader": engine.config.model} for r in rows])
    check_failures(failed, len(rows), engine.config.max_failed, f"CaptionQA {domain} reader")
    caption_failed = sum(1 for it in items if it["caption_failed"])
    failures.check_share(
        f"CaptionQA {domain} captions",
        caption_failed,
        len(items),
        "got no caption from the model (failed requests; their questions are not asked)",
    )
    caption_empty = sum(1 for it in items if it.get("caption_empty"))
    if caption_empty:
        logger.warning(
            f"CaptionQA {domain}: {caption_empty} caption(s) empty; as qa.py, their questions are not asked."
        )
    by_image: dict[str, list] = {}
    for row in scored:
        by_image.setdefault(row["id"], []).append(row)
    result = {
        "summary": rules.summarize(scored),
        # Questions of one image share its caption: resample images, not questions.
        "ci95": {
            **cluster_mean_intervals(
                list(by_image.values()), {"score": "score", "accuracy": "correct", "cannot_rate": "cannot"}
            ),
            "unit": "image",
        },
        "by_category": rules.by_category(scored),
        "counts": {
            "images": len(items),
            "caption_failed": caption_failed,
            "caption_empty": caption_empty,
            "questions": len(rows),
            "scored": len(scored),
            "reader_failed": failed,
            **skip_counts(items),
        },
    }
    if os.environ.get("CAPTIONQA_FAITHFULNESS", "").strip() not in ("", "0"):
        empty, _ = qa_rows({entry_id: "" for entry_id in captions}, domain, engine, uncaptioned)
        result["counts"]["empty_caption_cannot_rate"] = rules.summarize([r for r in empty if not r["failed"]])[
            "cannot_rate"
        ]
    return result


# The pass as hooks.py runs it (the function keeps its name: a pass that fails is flagged under it).
qa_pass = _qa_pass
