"""A small generated ViDi copy: pair folders with two images and a text file."""

from __future__ import annotations

import random
from pathlib import Path

from lmms_comparative.data import untrusted
from lmms_comparative.data.fixture_images import draw_pair
from lmms_comparative.record import FixturePart

_VIDI_DIFFERENCES = [
    "The car parked on the left side of the street is red or blue.",
    "The number of birds on the roof is 3 or 5.",
    "The sign above the door reads OPEN or CLOSED.",
    "The tree behind the fence has leaves or is bare.",
    "The window on the top floor is open or closed.",
    "The dog near the bench is sitting or standing.",
]


def build(root: str | Path, pairs: int = 4, seed: int = 0) -> Path:
    """Write a ViDi copy under ``root``: a folder per pair (two images and a text file: the source
    URL, then 3-5 difference sentences), and the last pair in the flat one-stem layout."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    for i in range(pairs):
        first, second = draw_pair(rng)
        differences = [f"{d[:-1]} in scene {i}." for d in _VIDI_DIFFERENCES[: 3 + i % 3]]
        text = "\n".join([f"https://example.org/pairs/{i}", *differences]) + "\n"
        if i == pairs - 1:
            stem = f"pair_{i:03d}"
            untrusted.write_image(root / f"{stem}_a.png", first)
            untrusted.write_image(root / f"{stem}_b.png", second)
            untrusted.write_file(root / f"{stem}.txt", text)
        else:
            folder = root / f"pair_{i:03d}"
            folder.mkdir(exist_ok=True)
            untrusted.write_image(folder / "1.png", first)
            untrusted.write_image(folder / "2.png", second)
            untrusted.write_file(folder / "differences.txt", text)
    return root


PART = FixturePart(build)
