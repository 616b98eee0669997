"""A small generated DiffSpot copy in the hub release's layout: ``data/test-00000-of-00001.parquet``
(the columns diffspot/data.py reads, the images embedded as ``{bytes, path}`` structs, as
``datasets`` writes an Image feature) and a dataset card naming it. Each pair is a drawn page (a
header, a button, lines of text) and the same page with one mutation (a has-diff pair) or none (a
no-diff pair); the last no-diff pair carries difficulty "unknown", as 28 of the release's do. The
keys of a mutation besides ``type`` are made up: the release's are not known here."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from lmms_comparative.data import untrusted
from lmms_comparative.record import FixturePart

SMOKE_RECORDS = "data/test-00000-of-00001.parquet"  # the records file every task reads (the contract damages it)
CARD = """---
license: mit
configs:
- config_name: default
  data_files:
  - split: test
    path: data/test-*.parquet
---
# DiffSpot (generated fixture)
"""
# (operator, what the mutation changes in the drawing, the ground-truth answer)
OPERATORS: list[tuple[str, dict[str, Any], str]] = [
    ("color", {"button": "#1d4ed8"}, "The 'Sign Up' button changed from blue to a darker blue."),
    ("font_size", {"title_size": 3}, "The page title became larger."),
    ("position", {"shift": 6}, "The 'Sign Up' button moved to the right."),
    ("opacity", {"text": "#b0b0b0"}, "The body text looks faded (lower opacity)."),
    ("text", {"title": "Wellcome"}, "The title text changed from 'Welcome' to 'Wellcome'."),
    ("rounded", {"radius": 8}, "The corners of the 'Sign Up' button became rounded — 角が丸くなった."),
]


def _page(
    width: int = 160,
    height: int = 100,
    button: str = "#2563eb",
    title_size: int = 1,
    shift: int = 0,
    text: str = "#333333",
    title: str = "Welcome",
    radius: int = 0,
    noise: int = 0,
) -> bytes:
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, width, 18), fill="#111827")
    for k in range(title_size):  # a bolder, larger title by overdrawing
        draw.text((6 + k, 4), title, fill="white")
    box = (100 + shift, 2, 150 + shift, 15)
    draw.rounded_rectangle(box, radius=radius, fill=button) if radius else draw.rectangle(box, fill=button)
    for line in range(5):
        draw.line((8, 30 + 12 * line, 140 - 10 * (line % 2), 30 + 12 * line), fill=text, width=3)
    if noise:  # browser-level rendering noise of a no-diff pair: one pixel
        image.putpixel((width - 1, height - 1), (254, 254, 254))
    data = io.BytesIO()
    image.save(data, "PNG")
    return data.getvalue()


def _row(number: int, split: str, rng: random.Random) -> dict:
    no_diff = split == "no_diff"
    row: dict[str, object] = {
        "id": f"ds_{number:05d}",
        "task_type": "no_diff" if no_diff else "visual_diff",
        "difficulty": split,
        "domain": rng.choice(["ecommerce", "news", "saas", "blog"]),
    }
    before = _page()
    if no_diff:
        after, mutations, answer, types = _page(noise=1), [], "", []
    else:
        operator, change, answer = OPERATORS[number % len(OPERATORS)]
        after = _page(**change)
        mutation = {
            "type": operator,
            "target": "header > a.btn-signup",
            "mechanism": rng.choice(["class_swap", "inline_important"]),
            "before": "default",
            "after": json.dumps(change),
        }
        mutations, types = [json.dumps(mutation, ensure_ascii=False)], [f"mutate_{operator}"]
    row.update(
        image_before={"bytes": before, "path": None},
        image_after={"bytes": after, "path": None},
        ground_truth_diff=answer,
        mutation_dicts_json=mutations,
        mutation_types=types,
        pixel_diff=0.0 if no_diff else rng.uniform(0.001, 0.05),
        target_diff=0.0 if no_diff else rng.uniform(0.1, 0.9),
        outside_diff=0.0,
        target_bbox_x=100,
        target_bbox_y=2,
        target_bbox_w=50,
        target_bbox_h=13,
    )
    return row


def build(directory: str | Path, per_split: int = 2, seed: int = 0) -> Path:
    """Write the copy under ``directory``: ``per_split`` pairs in each of easy, medium, hard and
    no-diff (the last no-diff pair with difficulty "unknown"), shuffled as the release mixes them."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    root = Path(directory)
    (root / "data").mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    splits = [s for s in ("easy", "medium", "hard", "no_diff") for _ in range(per_split)]
    rng.shuffle(splits)
    rows = [_row(number, split, rng) for number, split in enumerate(splits)]
    last_no_diff = max(i for i, r in enumerate(rows) if r["task_type"] == "no_diff")
    rows[last_no_diff]["difficulty"] = "unknown"
    image = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    schema = pa.schema(
        [
            ("id", pa.string()),
            ("image_before", image),
            ("image_after", image),
            ("task_type", pa.string()),
            ("difficulty", pa.string()),
            ("domain", pa.string()),
            ("ground_truth_diff", pa.string()),
        ]
        + [("mutation_dicts_json", pa.list_(pa.string())), ("mutation_types", pa.list_(pa.string()))]
        + [(c, pa.float64()) for c in ("pixel_diff", "target_diff", "outside_diff")]
        + [(c, pa.int64()) for c in ("target_bbox_x", "target_bbox_y", "target_bbox_w", "target_bbox_h")]
    )
    table = pa.Table.from_pylist(rows, schema=schema)
    records = io.BytesIO()
    pq.write_table(table, records, row_group_size=max(1, len(rows) // 3))  # several row groups, as push_to_hub writes
    untrusted.write_file(root / SMOKE_RECORDS, records.getvalue())
    untrusted.write_file(root / "README.md", CARD)
    return root


PART = FixturePart(build, SMOKE_RECORDS)
