"""lmms-eval hooks for CaptionQA.

The model under test writes one caption per image set (the lmms-eval generation step). Scoring
happens in the aggregation, on rank 0, over the captions gathered from every rank: all questions
of all captions go to the reader LLM in one batch through the engine (concurrent, cached, failures
counted), then the official rules score the answers (reader_pass.py). The QA pass runs once per
task; the other metrics of the task reuse it.
"""

from __future__ import annotations

import threading
from functools import partial
from typing import Any

from loguru import logger

from lmms_comparative.benchmarks.captionqa import BENCHMARK, data, reader_pass
from lmms_comparative.benchmarks.captionqa import scoring as rules
from lmms_comparative.benchmarks.captionqa.prompts import caption_prompt

# The reader's pass is reader_pass.py's; its entry points stay importable from here for the
# scripts and tests that call them through the hooks.
from lmms_comparative.benchmarks.captionqa.reader_pass import qa_rows as qa_rows
from lmms_comparative.benchmarks.captionqa.reader_pass import reader_engine as reader_engine
from lmms_comparative.benchmarks.captionqa.reader_pass import reader_messages as reader_messages
from lmms_comparative.data import items
from lmms_comparative.metrics import aggregate
from lmms_comparative.tasklib import chat, check_model_failures, docs_hook, response_text, skip_counts

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


def _docs(domain: str):
    """A domain's docs for the caption tasks (tasks.py names them for each domain of scoring.DOMAINS)."""
    return docs_hook(domain, partial(_domain_docs, domain), record=BENCHMARK, label=f"CaptionQA {domain}")


process_docs_natural = _docs("natural")
process_docs_document = _docs("document")
process_docs_ecommerce = _docs("ecommerce")
process_docs_embodiedai = _docs("embodiedai")


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
            f"CaptionQA {domain}: {len(own)} image set(s) without a caption; qa.py would skip them before drawing "
            f"the option order of {', '.join(late)}, whose QA pass already ran. Run the whole group "
            "(e.g. captionqa_simple) for the official order."
        )
    return own.union(*(known[d] for d in earlier))


def _qa_for(items: list[dict]) -> dict:
    """The QA pass of one task's gathered samples, run once and shared by its metrics."""
    return reader_pass.qa_pass(items, sorted(_walk_uncaptioned(items)))


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
            gt = rules.gt_index(choices, q["answer"])  # scorable: one of the choices (-1 stands for none)
            columns["answer_letter"].append(rules.LETTERS[shown.index(-1 if gt is None else gt)])
            columns["category"].append(rules.first_category(q.get("category")))
    if not columns["id"]:
        raise data.DataError(f"{data.ENV_VAR}: no scorable questions in split {domain!r}.")
    columns["domain"] = [domain] * len(columns["id"])
    return columns


def _image_docs_of(domain: str):
    """A domain's questions, one doc each, for the QA-on-image tasks (tasks.py names them per domain)."""
    return docs_hook(
        f"image_{domain}", partial(_image_docs, domain), record=BENCHMARK, label=f"CaptionQA on images ({domain})"
    )


process_image_docs_natural = _image_docs_of("natural")
process_image_docs_document = _image_docs_of("document")
process_image_docs_ecommerce = _image_docs_of("ecommerce")
process_image_docs_embodiedai = _image_docs_of("embodiedai")


def image_doc_to_visual(doc: dict[str, Any]) -> list:
    return doc_to_visual(doc)


def image_doc_to_text(doc: dict[str, Any], lmms_eval_specific_kwargs: dict | None = None) -> str:
    lines = "\n".join(f"{rules.LETTERS[i]}. {opt}" for i, opt in enumerate(doc["options"]))
    return f"Question:\n{doc['question']}\n\nOptions:\n{lines}\n\nAnswer:"


def image_doc_to_messages(doc: dict[str, Any], lmms_eval_specific_kwargs: dict | None = None) -> list[dict]:
    content = [{"type": "image", "url": image} for image in image_doc_to_visual(doc)]
    content.append({"type": "text", "text": image_doc_to_text(doc)})
    return chat(IMAGE_SYSTEM_PROMPT, content)


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
