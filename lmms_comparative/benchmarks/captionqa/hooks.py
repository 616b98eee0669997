"""lmms-eval hooks for CaptionQA.

The model under test writes one caption per image set (the lmms-eval generation step). Scoring
happens in the aggregation, on rank 0, over the captions gathered from every rank: all questions
of all captions go to the reader LLM in one batch through the engine (concurrent, cached, failures
counted), then the official rules score the answers. The QA pass runs once per task; the other
metrics of the task reuse it.
"""

from __future__ import annotations

import json
import os
import threading
from functools import partial
from typing import Any, Iterable

from loguru import logger

from lmms_comparative import failures
from lmms_comparative.benchmarks.captionqa import data, tasks
from lmms_comparative.benchmarks.captionqa import scoring as rules
from lmms_comparative.benchmarks.captionqa.facts import READER
from lmms_comparative.benchmarks.captionqa.prompts import READER_SYSTEM_PROMPT, build_qa_prompt, caption_prompt
from lmms_comparative.data import items
from lmms_comparative.judges import Engine, check_failures
from lmms_comparative.metrics import aggregate
from lmms_comparative.metrics.bootstrap import cluster_mean_intervals
from lmms_comparative.tasklib import (
    check_model_failures,
    docs_hook,
    once_per_run,
    response_text,
    side_logs,
    skip_counts,
)
from lmms_comparative.tasklib.yamlgen import define_hooks

METRICS = ("score", "accuracy", "cannot_rate", "by_category", "counts", "ci95")

_split_lock = threading.Lock()


# ---- docs and prompts ---------------------------------------------------------------------------


def _domain_docs(domain: str):
    """One doc per image set of the domain: its id, its row in the split and its image count; the
    images are read when the model asks for them (``doc_to_visual``)."""
    rows = _split(domain)
    bad = _unusable(domain)
    for reason, what in bad.values():
        items.skip(reason, what)
    kept = [r for r in range(len(rows)) if r not in bad]
    return {
        "id": [rows.ids[r] for r in kept],
        "domain": [domain] * len(kept),
        "row": kept,
        "n_images": [rows.counts[r] for r in kept],
    }


def _unusable(domain: str) -> dict[int, tuple[str, str]]:
    """The split's rows with an unusable image; none are looked for in a run that opens no image
    (``lmms-comparative score``)."""
    return _split(domain).unusable() if items.images_needed() else {}


# Each domain's docs, under the names the task files give them (tasks.py).
define_hooks(
    globals(),
    {
        tasks.docs_name(domain): docs_hook(domain, partial(_domain_docs, domain), label=f"CaptionQA {domain}")
        for domain in rules.DOMAINS
    },
)


def doc_to_visual(doc: dict[str, Any]) -> list:
    return [image.convert("RGB") for image in _split(doc["domain"]).images(int(doc["row"]))]


def doc_to_text(doc: dict[str, Any], lmms_eval_specific_kwargs: dict | None = None) -> str:
    kwargs = lmms_eval_specific_kwargs or {}
    name = kwargs.get("prompt", "simple")
    taxonomy = data.taxonomy(doc["domain"]) if name == "taxonomy" else None
    n_images = int(doc["n_images"])
    return f"{kwargs.get('pre_prompt', '')}{caption_prompt(name, n_images, taxonomy)}{kwargs.get('post_prompt', '')}"


def doc_to_target(doc: dict[str, Any]) -> str:
    return str(doc["id"])


def _caption_sample(doc: dict[str, Any], results: list, prompt: str) -> dict[str, dict]:
    text = response_text(results)
    failed = aggregate.is_failed_request(text)
    # caption.py keeps generate_caption's .strip()ped text, and stores it only if non-empty.
    caption = text if failed else text.strip()
    sample = {
        "id": str(doc["id"]),
        "domain": doc["domain"],
        "prompt": prompt,
        "caption": caption,
        "caption_failed": failed,
        "caption_empty": not failed and not caption,
        "skipped": doc.get("skipped", ""),
    }
    return {name: sample for name in METRICS}


# One per caption prompt, named in the task YAMLs: the QA pass of a domain needs to know which
# captions of the run's other domains belong to the same caption set (see _walk_uncaptioned).
def process_results(doc: dict[str, Any], results: list) -> dict[str, dict]:
    return _caption_sample(doc, results, "")


def process_results_simple(doc: dict[str, Any], results: list) -> dict[str, dict]:
    return _caption_sample(doc, results, "simple")


def process_results_short(doc: dict[str, Any], results: list) -> dict[str, dict]:
    return _caption_sample(doc, results, "short")


def process_results_long(doc: dict[str, Any], results: list) -> dict[str, dict]:
    return _caption_sample(doc, results, "long")


def process_results_taxonomy(doc: dict[str, Any], results: list) -> dict[str, dict]:
    return _caption_sample(doc, results, "taxonomy")


# ---- the QA stage -------------------------------------------------------------------------------


def reader_engine() -> Engine:
    """The engine of the CaptionQA reader (``CAPTIONQA_READER_*``; defaults: Qwen2.5-72B-Instruct at a local vLLM server)."""
    return Engine.from_env(READER.setting, defaults=READER.default)


def reader_messages(caption: str, question: str, options: list[str]) -> list[dict]:
    """The reader's chat request for one question: qa.py's system prompt and its caption-question-options user turn."""
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
            row.update(
                failed=False,
                **rules.score_answer(
                    letter, perm, options, len(q["choices"]), rules.gt_index(q["choices"], q["answer"])
                ),
            )
        rows.append(row)
    return rows, failed


# The uncaptioned image sets (empty caption, or failed request) of each domain whose QA pass ran in
# this process, per data copy and caption prompt; and, per domain, which earlier domains it knew.
_walk_lock = threading.Lock()
_known_uncaptioned: dict[tuple[str, str], dict[str, frozenset]] = {}
_known_when_drawn: dict[tuple[str, str], dict[str, frozenset]] = {}


def _walk_uncaptioned(items: list[dict]) -> frozenset:
    """The image sets that take no shuffle draw in this task's QA pass.

    qa.py walks the "all" split once, and an image set without a caption draws nothing, so an
    empty caption shifts the option order of every later question, in later domains too. A domain
    task sees only its own captions: to it we add the uncaptioned sets of the domains of the same
    caption prompt that the walk visits earlier and whose QA pass already ran in this process.
    lmms-eval aggregates a group's tasks in the group's order (natural, document, ecommerce,
    embodiedai: the order of the released "all" split), so a group run knows them all. A domain
    that the walk visits earlier but that is aggregated later (domain tasks listed one by one,
    whose order lmms-eval does not keep; a copy whose "all" split has another order) cannot be
    taken into account: we warn.
    """
    if not items:
        return frozenset()
    domain, prompt = items[0]["domain"], items[0].get("prompt", "")
    own = frozenset(it["id"] for it in items if it["caption_failed"] or it.get("caption_empty"))
    base = data.root()
    order = data.walk_domains(base)
    position = order.index(domain) if domain in order else len(order)
    with _walk_lock:
        known = _known_uncaptioned.setdefault((str(base), prompt), {})
        drawn = _known_when_drawn.setdefault((str(base), prompt), {})
        known[domain] = own
        earlier = [d for d in order[:position] if d in known]
        drawn[domain] = frozenset(earlier)
        late = [d for d in order[position + 1 :] if d in drawn and domain not in drawn[d]] if own else []
    if late:
        logger.warning(
            f"CaptionQA {domain}: {len(own)} image set(s) without a caption; qa.py would skip them before drawing the option "
            f"order of {', '.join(late)}, whose QA pass already ran. Run the whole group (e.g. captionqa_simple) for the official order."
        )
    return own.union(*(known[d] for d in earlier))


def _engine_identity(items: list[dict], uncaptioned: list[str]) -> tuple:
    """What the QA pass depends on besides the items: the image sets without a caption in the
    walk, and the reader's endpoint and model."""
    config = reader_engine().config
    return items, uncaptioned, config.endpoint, config.model


def _qa_for(items: list[dict]) -> dict:
    """The QA pass of one task's gathered samples, run once and shared by its metrics."""
    return _qa_pass(items, sorted(_walk_uncaptioned(items)))


@once_per_run(key=_engine_identity)
def _qa_pass(items: list[dict], uncaptioned: list[str]) -> dict:
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
        task = f"captionqa_{prompt}_{domain}" if prompt else f"captionqa_{domain}"
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


def aggregate_score(items: list) -> float:
    return _qa_for(items)["summary"]["score"]


def aggregate_accuracy(items: list) -> float:
    return _qa_for(items)["summary"]["accuracy"]


def aggregate_cannot_rate(items: list) -> float:
    return _qa_for(items)["summary"]["cannot_rate"]


def aggregate_by_category(items: list) -> dict:
    return _qa_for(items)["by_category"]


def aggregate_counts(items: list) -> dict:
    return _qa_for(items)["counts"]


def aggregate_ci95(items: list) -> dict:
    return _qa_for(items)["ci95"]


def export_captions(samples_files: list[str]) -> dict[str, str]:
    """``{id: caption}`` from lmms-eval samples logs of CaptionQA tasks: the format the authors
    accept for scoring on their private full set (README of the official repository)."""
    captions: dict[str, str] = {}
    for path in samples_files:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    sample = json.loads(line).get("score") or {}
                    if "id" in sample and not sample.get("caption_failed") and sample.get("caption", "").strip():
                        captions[sample["id"]] = sample["caption"]
    return captions


# ---- QA on the image (the paper's upper reference for the caption-vs-image utility gap) ---------

# Our wording: the official repository has no QA-on-image script. It mirrors the reader's system
# prompt with the image in place of the caption; the options are the question's own choices in the
# official shuffled order, without "Cannot answer from the caption".
IMAGE_SYSTEM_PROMPT = (
    "You are given an image and a question about the image. Answer with a SINGLE LETTER (A, B, C, ...), no explanation."
)
IMAGE_METRICS = ("accuracy", "by_category", "counts")
_split_cache: dict[tuple, data.SplitRows] = {}


def _split(domain: str) -> data.SplitRows:
    """The domain's split, read once per process and file version."""
    base = data.root()
    key = (str(base), domain, data.files_stamp(base, domain))
    with _split_lock:
        if key not in _split_cache:
            _split_cache[key] = data.load_split(base, domain)
        return _split_cache[key]


def _image_docs(domain: str):
    """One doc per scorable question of the domain, options in the official shuffled order."""
    from concurrent.futures import ThreadPoolExecutor

    base = data.root()
    # The image check reads the split's image bytes (in pyarrow, which lets go of the GIL) while
    # this thread reads the questions and draws the option orders.
    with ThreadPoolExecutor(1, thread_name_prefix="captionqa-image-check") as pool:
        checking = pool.submit(_unusable, domain)
        perms = data.permutations(base)
        table = data.question_table(base, domain)
        bad = checking.result()
    columns: dict[str, list] = {
        name: [] for name in ("id", "row", "q_idx", "domain", "question", "options", "answer_letter", "category")
    }
    for row, (entry_id, questions) in enumerate(table):
        if row in bad:  # its questions cannot be asked on the image
            for _ in questions:
                items.skip(*bad[row])
            continue
        for q_idx, q in enumerate(questions):
            perm = perms.get((entry_id, q_idx))
            if perm is None:
                continue
            choices = q["choices"]
            n = len(choices)
            shown = [i for i in perm if i < n]  # the official order, cannot option left out
            columns["id"].append(entry_id)
            columns["row"].append(row)
            columns["q_idx"].append(q_idx)
            columns["question"].append(q["question"])
            columns["options"].append([str(choices[i]) for i in shown])
            columns["answer_letter"].append(rules.LETTERS[shown.index(rules.gt_index(choices, q["answer"]))])
            columns["category"].append(rules.first_category(q.get("category")))
    if not columns["id"]:
        raise data.DataError(f"{data.ENV_VAR}: no scorable questions in split {domain!r}.")
    columns["domain"] = [domain] * len(columns["id"])
    return columns


# Each domain's questions, one doc each, under the names the task files give them (tasks.py).
define_hooks(
    globals(),
    {
        tasks.docs_name(domain, tasks.IMAGE): docs_hook(
            f"image_{domain}", partial(_image_docs, domain), label=f"CaptionQA on images ({domain})"
        )
        for domain in rules.DOMAINS
    },
)


def image_doc_to_visual(doc: dict[str, Any]) -> list:
    return doc_to_visual(doc)


def image_doc_to_text(doc: dict[str, Any], lmms_eval_specific_kwargs: dict | None = None) -> str:
    lines = "\n".join(f"{rules.LETTERS[i]}. {opt}" for i, opt in enumerate(doc["options"]))
    return f"Question:\n{doc['question']}\n\nOptions:\n{lines}\n\nAnswer:"


def image_doc_to_messages(doc: dict[str, Any], lmms_eval_specific_kwargs: dict | None = None) -> list[dict]:
    content = [{"type": "image", "url": image} for image in image_doc_to_visual(doc)]
    content.append({"type": "text", "text": image_doc_to_text(doc)})
    return [
        {"role": "system", "content": [{"type": "text", "text": IMAGE_SYSTEM_PROMPT}]},
        {"role": "user", "content": content},
    ]


def image_doc_to_target(doc: dict[str, Any]) -> str:
    return doc["answer_letter"]


def image_process_results(doc: dict[str, Any], results: list) -> dict[str, dict]:
    letters = lambda text: rules.extract_letter(text, len(doc["options"]))  # noqa: E731 - qa.py's letter rules
    sample = {
        "id": doc["id"],
        "q_idx": doc["q_idx"],
        "category": doc["category"],
        "answer": doc["answer_letter"],
        "skipped": doc.get("skipped", ""),
    }
    sample.update(aggregate.mcq_outcome(response_text(results), letters, doc["answer_letter"]))
    return {name: sample for name in IMAGE_METRICS}


def image_aggregate_accuracy(items: list) -> float:
    return aggregate.accuracy(items)


def image_aggregate_by_category(items: list) -> dict:
    return aggregate.breakdown(items, "category")


def image_aggregate_counts(items: list) -> dict:
    check_model_failures(items, "CaptionQA on images")
    return {**aggregate.counts(items), **skip_counts(items)}
