"""A generated Toy Judge release: three image pairs under images/ and test.jsonl."""

from __future__ import annotations

import json
from pathlib import Path

from PIL import Image, ImageDraw

from lmms_comparative.record import FixturePart

SMOKE_RECORDS = "test.jsonl"  # the records file the smoke task reads (the contract damages it)

# (item id, the first image's square and colour, the second's, the gold answer)
PAIRS = [
    (
        "p1",
        ((8, 8, 24, 24), "red"),
        ((36, 36, 52, 52), "red"),
        "The red square moved from the top left to the bottom right.",
    ),
    ("p2", ((20, 20, 44, 44), "red"), ((20, 20, 44, 44), "blue"), "The square changed colour from red to blue."),
    ("p3", ((20, 20, 44, 44), "green"), ((12, 12, 52, 52), "green"), "The green square got bigger."),
]


def _image(box, colour) -> Image.Image:
    image = Image.new("RGB", (64, 64), "white")
    ImageDraw.Draw(image).rectangle(box, fill=colour)
    return image


def build(directory: str | Path, **_) -> Path:
    root = Path(directory)
    (root / "images").mkdir(parents=True, exist_ok=True)
    rows = []
    for item_id, first, second, answer in PAIRS:
        _image(*first).save(root / "images" / f"{item_id}_a.png")
        _image(*second).save(root / "images" / f"{item_id}_b.png")
        rows.append(
            {
                "item_id": item_id,
                "image_1": f"images/{item_id}_a.png",
                "image_2": f"images/{item_id}_b.png",
                "question": "What differs between the two images?",
                "answer": answer,
            }
        )
    (root / SMOKE_RECORDS).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return root


PART = FixturePart(build, SMOKE_RECORDS)
