"""Images for the fixture builders (``benchmarks/<name>/fixture.py``): drawn here with PIL, never
downloaded; everything is a pure function of the random generator handed in."""

from __future__ import annotations

import random

from PIL import Image, ImageDraw

COLOURS = ["red", "green", "blue", "orange", "purple", "teal", "gold", "gray"]


def draw_pair(rng: random.Random, size: int = 64) -> tuple[Image.Image, Image.Image]:
    """Two images of a few shapes, the second with one shape shifted and recoloured."""
    first = Image.new("RGB", (size, size), "white")
    draw = ImageDraw.Draw(first)
    shapes = []
    for _ in range(rng.randint(2, 5)):
        x, y, r = rng.randint(4, size - 20), rng.randint(4, size - 20), rng.randint(4, 8)
        colour = rng.choice(COLOURS)
        draw.ellipse((x, y, x + 2 * r, y + 2 * r), fill=colour)
        shapes.append((x, y, r))
    second = first.copy()
    x, y, r = shapes[0]
    ImageDraw.Draw(second).rectangle((x, y, x + 2 * r, y + 2 * r), fill=rng.choice(COLOURS))
    return first, second
