"""VP-grid's input (VLM²-Bench appendix F.2, Figure 11): each image overlaid with a labelled dot matrix.

The paper "follow[s] (Lei et al., 2024) to print a set of dot matrix onto the input image" and
publishes no drawing code of its own; the parameters are those of that method's code (github
THUNLP-MT/Scaffold, ``image_processor.py``, ``dot_matrix_three_dimensional_single``; read, not
copied): a w x h matrix (6 x 6 by default; VLM²-Bench never states its size) at the interior points
x = i * W / (w + 1), y = j * H / (h + 1); each dot a filled circle of radius W // 240, black where the
pixel under it is light (R + G + B >= 382.5) and white elsewhere; beside it, at (x + 3, y), its label
"(t,row,column)" (1-based, no spaces) in the same colour, t the image's place (1, 2, ...). Scaffold
draws the labels in Arial at size W // 40; Arial is not ours to ship, so PIL's own scalable font is
used at that size.
"""

from __future__ import annotations

from typing import cast

from PIL import Image, ImageDraw, ImageFont

SIZE = (6, 6)  # (w, h): Scaffold's default matrix, the size the prompt names


def overlay(image: Image.Image, t: int, size: tuple[int, int] = SIZE) -> Image.Image:
    """A copy of ``image`` with the dot matrix of image number ``t`` drawn on it."""
    out = image.convert("RGB")
    draw = ImageDraw.Draw(out)
    width, height = out.size
    columns, rows = size
    radius = max(1, width // 240)
    font = ImageFont.load_default(size=max(1, width // 40))
    for row in range(1, rows + 1):
        for column in range(1, columns + 1):
            x, y = column * width / (columns + 1), row * height / (rows + 1)
            pixel = cast(tuple[int, int, int], out.getpixel((min(int(x), width - 1), min(int(y), height - 1))))
            r, g, b = pixel[:3]  # an RGB image's pixel is its (r, g, b)
            colour = (0, 0, 0) if r + g + b >= 255 * 3 / 2 else (255, 255, 255)
            draw.ellipse([(x - radius, y - radius), (x + radius, y + radius)], fill=colour)
            draw.text((x + 3, y), f"({t},{row},{column})", fill=colour, font=font)
    return out


def overlay_all(images: list[Image.Image], size: tuple[int, int] = SIZE) -> list[Image.Image]:
    """Every image of an item with its matrix, numbered 1, 2, ... in order."""
    return [overlay(image, t, size) for t, image in enumerate(images, 1)]
