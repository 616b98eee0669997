"""A generated Toy MCQ release: four questions in test.jsonl."""

from __future__ import annotations

import json
from pathlib import Path

from lmms_comparative.record import FixturePart

SMOKE_RECORDS = "test.jsonl"  # the records file the smoke task reads (the contract damages it)
QUESTIONS = [
    ("q1", "Which is a colour?", ["red", "seven"], "A"),
    ("q2", "Which is a number?", ["blue", "three"], "B"),
    ("q3", "Which is an animal?", ["cat", "chair"], "A"),
    ("q4", "Which is a fruit?", ["stone", "apple"], "B"),
]


def build(directory: str | Path, **_) -> Path:
    root = Path(directory)
    root.mkdir(parents=True, exist_ok=True)
    rows = [{"item_id": i, "question": q, "options": o, "answer": a} for i, q, o, a in QUESTIONS]
    (root / SMOKE_RECORDS).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return root


PART = FixturePart(build, SMOKE_RECORDS)
