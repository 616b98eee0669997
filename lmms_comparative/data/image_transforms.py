"""The visual inputs of VLM-SubtleBench's prompting strategies (paper appendix B.2). Pure functions
of PIL images; no lmms-eval import."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

GREEN = (0, 255, 0)


def aligned(first: Image.Image, second: Image.Image) -> tuple[Image.Image, Image.Image]:
    """Both images at the smaller width and height (official prompts/multiple_choice_evaluator.py
    resizes with LANCZOS before blending or subtracting)."""
    size = (min(first.width, second.width), min(first.height, second.height))
    return tuple(im.convert("RGB") if im.size == size else im.convert("RGB").resize(size, Image.LANCZOS) for im in (first, second))  # type: ignore[return-value]


OFFICIAL_GRID_COLOUR = (76, 76, 76)


def grid_overlay_official(image: Image.Image, cells: int = 4) -> Image.Image:
    """The official grid (github krafton-ai/VLM-SubtleBench, prompts/multiple_choice_evaluator.py
    ``create_grid_messages``): on a copy of the RGB image, 1-px lines of colour (76, 76, 76)
    (its comment calls them "30% opacity gray"; they are opaque), horizontal at y = h*i//4, then
    vertical at x = w*i//4, for i = 1..3. The official code then sends the image as JPEG
    (quality 95); here lmms-eval's model encodes it."""
    out = image.convert("RGB")  # convert() returns a copy, as the official image.copy()
    draw = ImageDraw.Draw(out)
    width, height = out.size
    for i in range(1, cells):
        y = height * i // cells
        draw.line([(0, y), (width, y)], fill=OFFICIAL_GRID_COLOUR, width=1)
    for i in range(1, cells):
        x = width * i // cells
        draw.line([(x, 0), (x, height)], fill=OFFICIAL_GRID_COLOUR, width=1)
    return out


def grid_overlay(image: Image.Image, cells: int = 4, opacity: float = 0.3, width: int = 3) -> Image.Image:
    """The paper's grid (appendix B.2; task subtlebench_grid_paper): a cells x cells grid of black
    lines at ``opacity``, ``width`` px wide. The official code draws ``grid_overlay_official``."""
    base = image.convert("RGBA")
    layer = Image.new("RGBA", base.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    alpha = round(255 * opacity)
    for i in range(1, cells):
        x, y = base.width * i // cells, base.height * i // cells
        draw.line([(x, 0), (x, base.height)], fill=(0, 0, 0, alpha), width=width)
        draw.line([(0, y), (base.width, y)], fill=(0, 0, 0, alpha), width=width)
    return Image.alpha_composite(base, layer).convert("RGB")


def concatenate(first: Image.Image, second: Image.Image, separator: int = 1) -> Image.Image:
    """Side by side at the smaller height, a ``separator``-px black line between (official
    create_concatenated_messages; paper B.2)."""
    height = min(first.height, second.height)
    scaled = [im.convert("RGB").resize((int(im.width * height / im.height), height), Image.LANCZOS) if im.height != height else im.convert("RGB") for im in (first, second)]
    canvas = Image.new("RGB", (scaled[0].width + separator + scaled[1].width, height), (0, 0, 0))
    canvas.paste(scaled[0], (0, 0))
    canvas.paste(scaled[1], (scaled[0].width + separator, 0))
    return canvas


def overlap(first: Image.Image, second: Image.Image) -> Image.Image:
    """The 50/50 blend of the aligned pair (official create_overlapped_messages)."""
    a, b = aligned(first, second)
    return Image.blend(a, b, 0.5)


def difference_map(first: Image.Image, second: Image.Image) -> np.ndarray:
    """G(x, y): the channel mean of |I1 - I2| of the aligned pair, float32 (paper B.2)."""
    a, b = aligned(first, second)
    return np.abs(np.asarray(a, dtype=np.float32) - np.asarray(b, dtype=np.float32)).mean(axis=2)


def subtraction(first: Image.Image, second: Image.Image) -> Image.Image:
    """S = 255 * G / max G as a grayscale image (paper B.2). Identical images give black (the
    official code divides by zero there)."""
    g = difference_map(first, second)
    peak = float(g.max())
    s = (g / peak * 255).astype(np.uint8) if peak > 0 else np.zeros(g.shape, dtype=np.uint8)
    return Image.fromarray(s, mode="L").convert("RGB")


def change_boxes(g: np.ndarray, percentile: float = 90, max_boxes: int = 3, keep_ratio: float = 0.5, structure: int = 5) -> list[tuple[int, int, int, int]]:
    """Bounding boxes (x0, y0, x1, y1) of the largest regions of change (paper B.2): the mask
    G > p-th percentile, morphological closing then opening, connected components by area; the
    largest, and the second and third only if at least ``keep_ratio`` of the largest's area."""
    from scipy import ndimage

    mask = g > np.percentile(g, percentile)
    kernel = np.ones((structure, structure), dtype=bool)
    mask = ndimage.binary_opening(ndimage.binary_closing(mask, structure=kernel), structure=kernel)
    labels, count = ndimage.label(mask)
    if count == 0:
        return []
    areas = ndimage.sum(mask, labels, index=range(1, count + 1))
    order = np.argsort(-areas, kind="stable")[:max_boxes]
    largest = areas[order[0]]
    boxes = []
    for rank, index in enumerate(order):
        if rank > 0 and areas[index] < keep_ratio * largest:
            continue
        ys, xs = np.nonzero(labels == index + 1)
        boxes.append((int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1))
    return boxes


def highlight(first: Image.Image, second: Image.Image, dim: float = 0.5, border: int = 3, **box_kwargs) -> tuple[Image.Image, Image.Image]:
    """Both images with the background dimmed by ``dim`` outside the change boxes and a green
    border around each box (paper B.2, the highlight strategy's images three and four)."""
    a, b = aligned(first, second)
    boxes = change_boxes(difference_map(a, b), **box_kwargs)
    out = []
    for image in (a, b):
        array = np.asarray(image, dtype=np.float32)
        keep = np.zeros(array.shape[:2], dtype=bool)
        for x0, y0, x1, y1 in boxes:
            keep[y0:y1, x0:x1] = True
        dimmed = np.where(keep[..., None], array, array * dim).astype(np.uint8)
        result = Image.fromarray(dimmed)
        draw = ImageDraw.Draw(result)
        for x0, y0, x1, y1 in boxes:
            draw.rectangle([x0, y0, x1 - 1, y1 - 1], outline=GREEN, width=border)
        out.append(result)
    return out[0], out[1]
