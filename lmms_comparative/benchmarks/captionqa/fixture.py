"""A small generated CaptionQA copy in the hub layout (parquet per domain and "all")."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

from lmms_comparative.data import untrusted
from lmms_comparative.data.fixture_images import COLOURS, draw_pair
from lmms_comparative.record import FixturePart

# The records file under the root that the smoke task reads (tests/failures/test_data_problems.py damages it).
SMOKE_RECORDS = "data/natural-00000-of-00001.parquet"

_CAPTIONQA_PREFIX = {"natural": "nat", "document": "doc", "ecommerce": "eco", "embodiedai": "emb"}


def _captionqa_questions(rng: random.Random, domain: str, entry: int, taxonomy_tops: list[str]) -> list[dict]:
    """A mix that exercises qa.py's rules: plain MCQs (cannot option added), yes/no by choices and
    by opening word (no cannot option), the "eyes" substring quirk, and unscorable questions
    (a single choice; an answer that is not a choice) that must consume no shuffle draw."""
    colour = rng.choice(COLOURS)
    top = taxonomy_tops[entry % len(taxonomy_tops)]
    other = taxonomy_tops[(entry + 1) % len(taxonomy_tops)]
    return [
        {
            "question": f"What colour is the main shape in {domain} item {entry}?",
            "choices": [colour, "black", "white"],
            "answer": colour,
            "category": [top],
        },
        {
            "question": f"Does {domain} item {entry} show a circle?",
            "choices": ["Yes", "No"],
            "answer": "Yes",
            "category": [other],
        },
        {
            "question": f"Is the background of {domain} item {entry} white?",
            "choices": ["white", "grey", "blue", "cream"],
            "answer": "white",
            "category": [top],
        },
        {
            "question": f"Which body part is visible in {domain} item {entry}?",
            "choices": ["eyes", "nose", "hands"],
            "answer": "hands",
            "category": [other],
        },
        {
            "question": f"How many shapes does {domain} item {entry} have?",
            "choices": ["1", "2", "3", "4", "5"],
            "answer": str(1 + entry % 5),
            "category": [top],
        },
        {
            "question": f"Broken {domain} question {entry} with one choice?",
            "choices": ["only"],
            "answer": "only",
            "category": [top],
        },
        {
            "question": f"Broken {domain} question {entry} whose answer is missing?",
            "choices": ["a", "b"],
            "answer": "c",
            "category": [other],
        },
    ]


def build(
    root: str | Path,
    per_domain: int = 3,
    seed: int = 0,
    all_order: tuple[str, ...] | None = None,
    card: str = "domains",
) -> Path:
    """Write a CaptionQA copy under ``root`` as the hub repo lays it out: a dataset card (README.md)
    whose configs name the data files of each split, data/<domain>-00000-of-00001.parquet, and an
    upload that no task reads. Every third image set has two images.

    The "all" split that the official qa.py walks (``load_dataset(..., split="all")``) is, with
    ``card="domains"`` (the default), the union of the four domain splits in the order the card
    lists them: the only card shape that qa.py can load with ``datasets`` 5 (a card naming an "all"
    split is refused: "`all` is a special split keyword"). With ``card="all"`` the card also names
    an "all" split, data/all-00000-of-00001.parquet (an earlier layout; our loader reads both).
    ``all_order`` sets the domains' order in "all" (card order, or the all file's rows); by default
    it deliberately differs from the domains' order (natural, document, ecommerce, embodiedai)."""
    if card not in ("domains", "all"):
        raise ValueError(f"card must be 'domains' or 'all', got {card!r}")
    from datasets import Dataset, Features, List, Value
    from datasets import Image as ImageFeature

    from lmms_comparative.benchmarks.captionqa.data import taxonomy

    root = Path(root)
    (root / "data").mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    features = Features(
        {
            "id": Value("string"),
            "images": List(ImageFeature()),
            "questions": List(
                {
                    "question": Value("string"),
                    "choices": List(Value("string")),
                    "answer": Value("string"),
                    "category": List(Value("string")),
                    "source": Value("string"),
                }
            ),
            # As the hub release: a row's domain and its images' original paths (no task reads them).
            "domain": Value("string"),
            "image_paths": List(Value("string")),
        }
    )
    rows_by_domain = {}
    for domain, prefix in _CAPTIONQA_PREFIX.items():
        tops = list(taxonomy(domain))
        rows = []
        for i in range(per_domain):
            images = [draw_pair(rng)[0] for _ in range(2 if i % 3 == 2 else 1)]
            questions = [{**q, "source": "fixture"} for q in _captionqa_questions(rng, domain, i, tops)]
            rows.append(
                {
                    "id": f"{prefix}_{i + 1:03d}",
                    "images": images,
                    "questions": questions,
                    "domain": domain,
                    "image_paths": [f"{domain}/{prefix}_{i + 1:03d}_{k}.png" for k in range(len(images))],
                }
            )
        rows_by_domain[domain] = rows
        _parquet(Dataset.from_list(rows, features=features), root / "data" / f"{domain}-00000-of-00001.parquet")
    order = tuple(all_order or reversed(list(rows_by_domain)))
    everything = [row for domain in order for row in rows_by_domain[domain]]
    if card == "all":
        _parquet(Dataset.from_list(everything, features=features), root / "data" / "all-00000-of-00001.parquet")
    splits = list(order) + (["all"] if card == "all" else [])
    card = (
        "---\nconfigs:\n- config_name: default\n  data_files:\n"
        + "".join(f"  - split: {s}\n    path: data/{s}-*\n" for s in splits)
        + "---\n# CaptionQA (generated fixture)\n"
    )
    untrusted.write_file(root / "README.md", card)
    untrusted.write_file(
        root / "annotations.jsonl", "".join(json.dumps({"id": row["id"]}) + "\n" for row in everything)
    )
    return root


def _parquet(dataset, path: Path) -> None:
    """``dataset`` as the parquet file ``path``, written through ``untrusted.write_file``."""
    buffer = io.BytesIO()
    dataset.to_parquet(buffer)
    untrusted.write_file(path, buffer.getvalue())


PART = FixturePart(build, SMOKE_RECORDS)
