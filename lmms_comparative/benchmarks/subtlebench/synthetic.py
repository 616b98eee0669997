"""VLM-SubtleBench's synthetic primitive pairs (paper appendix A.1, A.6, A.7, A.9 and §4.4).

Scenes of circles, squares and triangles on an 800x600 white canvas; the second image differs by
one controlled change. Every difficulty factor is a field of the type's parameters (a range
(lo, hi) is sampled uniformly; lo == hi fixes it), so a sweep over two factors reproduces the
paper's controlled study (its Figure 5). Output is a dataset in the SubtleBench layout, so every
SubtleBench task runs on it through ``SUBTLEBENCH_ROOT``. Deterministic for a seed.

The scenes and the OKLAB colour helpers are in ``scene.py``, each type's parameters and pair maker in
``synthetic_pairs.py``; this module writes the dataset and reads the command line's parameters.
"""

from __future__ import annotations

import json
import random
from dataclasses import asdict, replace
from pathlib import Path

from lmms_comparative.benchmarks.subtlebench.scene import oklab_to_srgb, render, shift_lightness, srgb_to_oklab
from lmms_comparative.benchmarks.subtlebench.synthetic_pairs import MAKERS, PARAMS
from lmms_comparative.benchmarks.subtlebench.table import HUB_REPO
from lmms_comparative.data import untrusted
from lmms_comparative.data.generated import SYNTHETIC, mark

_HUB = f"https://huggingface.co/datasets/{HUB_REPO}/resolve/main/"


def generate(
    root: str | Path,
    per_type: int = 20,
    seed: int = 0,
    params: dict | None = None,
    types=tuple(MAKERS),
    split: str = "test",
) -> Path:
    """Write ``per_type`` pairs of each type under ``root`` in the SubtleBench layout."""
    root = Path(root)
    (root / "data").mkdir(parents=True, exist_ok=True)
    params = params or {}
    records = []
    for category in types:
        p = params.get(category) or PARAMS[category]()
        rng = random.Random(f"{seed}:{category}")  # each type its own stream: adding a type changes no other
        for i in range(per_type):
            first, second, item = MAKERS[category](rng, p)
            rel = f"images/synthetic/{category}/{split}_{i:05d}"
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            untrusted.write_image(root / f"{rel}_1.png", render(first))
            untrusted.write_image(root / f"{rel}_2.png", render(second))
            records.append(
                {
                    "image_1": f"{_HUB}{rel}_1.png", "image_2": f"{_HUB}{rel}_2.png", **item,
                    "has_caption": False, "caption": None, "category": category, "domain": "synthetic",
                    "source": f"synthetic_{category}", "source_id": str(i), "raw_folder": "synthetic",
                    "generation_info": {**item["generation_info"], "params": asdict(p)},
                }
            )  # fmt: skip
    untrusted.write_file(root / "data" / f"{split}.jsonl", "".join(json.dumps(record) + "\n" for record in records))
    mark(
        root, SYNTHETIC, "subtlebench", per_type=per_type, seed=seed, types=list(types)
    )  # generated pairs, not the release
    return root


def parse_param(spec: str) -> tuple[str, str, object]:
    """``type.field=value`` (value a number, ``lo,hi`` range, or a word) for the CLI."""
    key, _, value = spec.partition("=")
    category, _, name = key.partition(".")
    if category not in PARAMS or name not in PARAMS[category].__dataclass_fields__:
        raise ValueError(
            f"unknown parameter {key!r}; known: "
            + ", ".join(f"{c}.{f}" for c, cls in PARAMS.items() for f in cls.__dataclass_fields__)
        )
    parts = value.split(",")
    try:
        numbers = [float(v) for v in parts]
        parsed: object = (numbers[0], numbers[-1])
    except ValueError:
        parsed = value
    return category, name, parsed


def params_from_specs(specs: list[str]) -> dict:
    """Parameters per type from ``type.field=value`` specs (``parse_param``), each over the type's defaults; the
    value for ``generate``'s ``params``."""
    out: dict = {}
    for spec in specs:
        category, name, value = parse_param(spec)
        out[category] = replace(out.get(category) or PARAMS[category](), **{name: value})
    return out


# The colour helpers are imported from here too (``synthetic.srgb_to_oklab``).
__all__ = [
    "generate",
    "oklab_to_srgb",
    "params_from_specs",
    "parse_param",
    "shift_lightness",
    "srgb_to_oklab",
]
