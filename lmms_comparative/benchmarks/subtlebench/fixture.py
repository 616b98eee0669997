"""A small generated VLM-SubtleBench copy in the release layout (tests, the offline demo)."""

from __future__ import annotations

import json
import random
from pathlib import Path

from lmms_comparative.benchmarks.subtlebench.table import CATEGORIES, HUB_REPO
from lmms_comparative.data import untrusted
from lmms_comparative.data.fixture_images import COLOURS, draw_pair
from lmms_comparative.record import FixturePart

# The records file under the root that the smoke task reads (tests/failures/test_data_problems.py damages it).
SMOKE_RECORDS = "data/test.jsonl"

SUBTLEBENCH_DOMAINS = ("natural", "industrial", "medical", "aerial", "synthetic")
_HUB_PREFIX = f"https://huggingface.co/datasets/{HUB_REPO}/resolve/main/"


def _image_choice(question: str, answer: str) -> tuple[str, str, list[str]]:
    """A question answered with one of the two images: the other one is its distractor."""
    return question, answer, ["first image" if answer == "second image" else "second image"]


# Question, answer and distractor pools per difference type; option counts range over 2..5.
_SUBTLEBENCH_TEMPLATES = {
    "attribute": (
        "What changed about the {c} shape?",
        "it became brighter",
        ["it became darker", "it became larger", "it became smaller", "it changed shape"],
    ),
    "state": _image_choice("In which image is the {c} box open?", "second image"),
    "emotion": _image_choice("In which image does the face look happier?", "first image"),
    "temporal": _image_choice("Which image was taken later?", "second image"),
    "spatial": ("How did the {c} shape move?", "to the right", ["to the left", "up", "down"]),
    "existence": (
        "What is different in the second image?",
        "a {c} circle was added",
        ["a {c} circle was removed", "nothing changed", "a square was added", "a triangle was removed"],
    ),
    "quantity": ("Are there more {c} shapes in the second image?", "yes", ["no"]),
    "quality": _image_choice("Which image is sharper?", "first image"),
    "viewpoint": ("How did the camera move?", "it panned left", ["it panned right", "it tilted up"]),
    "action": _image_choice("In which image is the {c} figure jumping?", "first image"),
}


def build(root: str | Path, per_category: int = 3, val_per_category: int = 1, seed: int = 0) -> Path:
    """Write a VLM-SubtleBench copy under ``root``: data/{test,val}.jsonl and images/.

    Every category gets ``per_category`` test items spread over several domains; image fields are
    hub URLs (``.../resolve/main/images/...``) as in the released jsonl.
    """
    root = Path(root)
    (root / "data").mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    for split, count in (("test", per_category), ("val", val_per_category)):
        records: list[dict] = []
        for category in CATEGORIES.values():
            question, answer, pool = _SUBTLEBENCH_TEMPLATES[category]
            for i in range(count):
                colour = rng.choice(COLOURS)
                n_distractors = min(len(pool), 1 + (i % 4))
                distractors = [d.format(c=colour) for d in pool[:n_distractors]]
                rel = f"images/{category}/{split}_{i:04d}"
                first, second = draw_pair(rng)
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                untrusted.write_image(root / f"{rel}_1.png", first)
                untrusted.write_image(root / f"{rel}_2.png", second)
                domain = SUBTLEBENCH_DOMAINS[(i + len(records)) % len(SUBTLEBENCH_DOMAINS)]
                records.append(
                    {
                        "image_1": f"{_HUB_PREFIX}{rel}_1.png",
                        "image_2": f"{_HUB_PREFIX}{rel}_2.png",
                        "question": question.format(c=colour) + f" (#{split}-{category}-{i})",
                        "answer": answer.format(c=colour),
                        "distractors": distractors,
                        "has_caption": i == 0,
                        "caption": f"The {colour} shape differs." if i == 0 else None,
                        "category": category,
                        "domain": domain,
                        "source": f"fixture_{domain}",
                        "source_id": str(i),
                        "raw_folder": f"fixture_{category}",
                        "generation_info": None,
                    }
                )
        untrusted.write_file(root / "data" / f"{split}.jsonl", "".join(json.dumps(record) + "\n" for record in records))
    # The hub repo's dataset card: its configs map the splits to the JSON-lines files.
    untrusted.write_file(root / "README.md", CARD)
    return root


CARD = """---
configs:
- config_name: default
  data_files:
  - split: test
    path: data/test.jsonl
  - split: val
    path: data/val.jsonl
---
# VLM-SubtleBench (generated fixture)
"""


PART = FixturePart(build, SMOKE_RECORDS)
