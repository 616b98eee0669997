"""The visual inputs of VLM-SubtleBench's prompting strategies (paper appendix B.2). Pure functions
of PIL images; no lmms-eval import."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageChops, ImageDraw

GREEN = (0, 255, 0)


def aligned(first: Image.Image, second: Image.Image) -> tuple[Image.Image, Image.Image]:
    """Both images at the smaller width and height (official prompts/multiple_choice_evaluator.py
    resizes with LANCZOS before blending or subtracting)."""
    size = (min(first.width, second.width), min(first.height, second.height))

    def fit(im: Image.Image) -> Image.Image:
        return _rgb(im) if im.size == size else _rgb(im).resize(size, Image.Resampling.LANCZOS)

    return fit(first), fit(second)


def _rgb(image: Image.Image) -> Image.Image:
    """The image in RGB (itself when it already is: the callers never modify it)."""
    return image if image.mode == "RGB" else image.convert("RGB")


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
    scaled = [
        im.convert("RGB").resize((int(im.width * height / im.height), height), Image.Resampling.LANCZOS)
        if im.height != height
        else im.convert("RGB")
        for im in (first, second)
    ]
    canvas = Image.new("RGB", (scaled[0].width + separator + scaled[1].width, height), (0, 0, 0))
    canvas.paste(scaled[0], (0, 0))
    canvas.paste(scaled[1], (scaled[0].width + separator, 0))
    return canvas


def overlap(first: Image.Image, second: Image.Image) -> Image.Image:
    """The 50/50 blend of the aligned pair (official create_overlapped_messages)."""
    a, b = aligned(first, second)
    return Image.blend(a, b, 0.5)


# G takes one of 766 values (a channel sum of |I1 - I2| is 0..765, G is that sum / 3 in float32,
# exactly as numpy's float32 mean of the three channels computes it). Every step below works on the
# integer sum and maps it through tables built with the same float32 arithmetic, so its results are
# bit-for-bit those of the float formulas (tests/subtlebench/test_image_transforms.py checks them against the
# outputs of the float implementation), in a fraction of the time.
_G_OF_SUM = np.arange(766, dtype=np.float32) / 3


def _channel_sum(a: Image.Image, b: Image.Image) -> np.ndarray:
    """The sum over channels of |a - b| of an aligned RGB pair, uint16 (0..765)."""
    import cv2

    red, green, blue = cv2.split(np.asarray(ImageChops.difference(a, b)))
    return cv2.add(cv2.add(red, green, dtype=cv2.CV_16U), blue, dtype=cv2.CV_16U)


def difference_map(first: Image.Image, second: Image.Image) -> np.ndarray:
    """G(x, y): the channel mean of |I1 - I2| of the aligned pair, float32 (paper B.2)."""
    return _G_OF_SUM[_channel_sum(*aligned(first, second))]


def _subtraction_of_sum(total: np.ndarray) -> Image.Image:
    peak_sum = int(total.max()) if total.size else 0
    if peak_sum == 0:
        return Image.new("RGB", (total.shape[1], total.shape[0]), (0, 0, 0))
    peak = float(_G_OF_SUM[peak_sum])
    table = (_G_OF_SUM / peak * 255).astype(np.uint8)  # S = 255 * G / max G, per value of G
    return Image.fromarray(_lookup(table, total), mode="L").convert("RGB")


def _lookup(table: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``table[values]`` for uint16 values: OpenCV's LUT (16-bit input from OpenCV 5), else numpy."""
    import cv2

    padded = np.zeros(1 << 16, dtype=np.uint8)
    padded[: len(table)] = table
    try:
        return cv2.LUT(values, padded)
    except cv2.error:
        return np.take(table, values)


def subtraction(first: Image.Image, second: Image.Image) -> Image.Image:
    """S = 255 * G / max G as a grayscale image (paper B.2). Identical images give black (the
    official code divides by zero there)."""
    return _subtraction_of_sum(_channel_sum(*aligned(first, second)))


def change_boxes(
    g: np.ndarray, percentile: float = 90, max_boxes: int = 3, keep_ratio: float = 0.5, structure: int = 5
) -> list[tuple[int, int, int, int]]:
    """Bounding boxes (x0, y0, x1, y1) of the largest regions of change (paper B.2): the mask
    G > p-th percentile, morphological closing then opening, connected components by area; the
    largest, and the second and third only if at least ``keep_ratio`` of the largest's area."""
    mask = g > np.percentile(g, percentile)
    return _boxes_of_mask(mask, max_boxes, keep_ratio, structure)


def _histogram(values: np.ndarray, bins: int) -> np.ndarray:
    """How often each of 0..bins-1 occurs in a uint16 array (exact int64 counts)."""
    import cv2

    if values.size < 1 << 24:  # calcHist counts in float32, exact below 2^24
        return cv2.calcHist([values], [0], None, [bins], [0, bins]).ravel().astype(np.int64)
    return np.bincount(values.ravel(), minlength=bins)


def _change_boxes_of_sum(
    total: np.ndarray, percentile: float = 90, max_boxes: int = 3, keep_ratio: float = 0.5, structure: int = 5
) -> list[tuple[int, int, int, int]]:
    """``change_boxes(G)`` from the channel sum: the percentile is taken over the same multiset of
    G values (rebuilt in sorted order from a histogram, so numpy computes the same number), and
    G > p becomes sum > t for the largest t whose G is at most p."""
    threshold = np.percentile(np.repeat(_G_OF_SUM, _histogram(total, len(_G_OF_SUM))), percentile)
    t = int(np.count_nonzero(_G_OF_SUM <= threshold)) - 1  # _G_OF_SUM increases strictly
    return _boxes_of_mask(total > t, max_boxes, keep_ratio, structure)


def _boxes_of_mask(
    mask: np.ndarray, max_boxes: int, keep_ratio: float, structure: int
) -> list[tuple[int, int, int, int]]:
    import cv2

    if structure % 2 == 0 or mask.ndim != 2 or mask.size >= 1 << 24:  # no centre pixel, or too large for the fast path
        return _boxes_of_mask_scipy(mask, max_boxes, keep_ratio, structure)
    # scipy.ndimage binary_closing then binary_opening, border_value=0 (pixels outside the image
    # are 0 for the erosions and the dilations alike).
    kernel = np.ones((structure, structure), dtype=np.uint8)
    m: np.ndarray = mask.astype(np.uint8)
    m = cv2.dilate(m, kernel, borderType=cv2.BORDER_CONSTANT, borderValue=0)
    m = cv2.erode(m, kernel, borderType=cv2.BORDER_CONSTANT, borderValue=0)
    m = cv2.erode(m, kernel, borderType=cv2.BORDER_CONSTANT, borderValue=0)
    m = cv2.dilate(m, kernel, borderType=cv2.BORDER_CONSTANT, borderValue=0)
    # After the opening every component holds a full structure x structure square, so there are at
    # most size / structure^2 of them: 16-bit labels whenever that fits.
    small = m.size // (structure * structure) < 1 << 16
    count, labels = cv2.connectedComponents(
        m, connectivity=4, ltype=cv2.CV_16U if small else cv2.CV_32S
    )  # ndimage.label's default cross
    if count <= 1:
        return []
    # Areas by a histogram of the labels (cv2's per-component stats cost several times more).
    areas = _histogram(labels, count)[1:] if small else np.bincount(labels.ravel(), minlength=count)[1:]
    # ndimage.label numbers components in scan order of their first pixel and the ranking is a stable
    # sort by area, so equal areas rank in scan order: rank by (area, first pixel's scan index).
    floor = np.sort(areas)[-min(max_boxes, len(areas))]
    boxes = {}
    for index in np.flatnonzero(areas >= floor):
        x, y, w, h = cv2.boundingRect((labels == index + 1).view(np.uint8))
        boxes[index] = (y * m.shape[1] + int(np.argmax(labels[y] == index + 1)), (x, y, x + w, y + h))
    order = sorted(boxes, key=lambda i: (-areas[i], boxes[i][0]))[:max_boxes]
    largest = areas[order[0]]
    return [boxes[i][1] for rank, i in enumerate(order) if rank == 0 or areas[i] >= keep_ratio * largest]


def _boxes_of_mask_scipy(
    mask: np.ndarray, max_boxes: int, keep_ratio: float, structure: int
) -> list[tuple[int, int, int, int]]:
    from scipy import ndimage

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


def highlight(
    first: Image.Image, second: Image.Image, dim: float = 0.5, border: int = 3, **box_kwargs
) -> tuple[Image.Image, Image.Image]:
    """Both images with the background dimmed by ``dim`` outside the change boxes and a green
    border around each box (paper B.2, the highlight strategy's images three and four)."""
    a, b = aligned(first, second)
    boxes = _change_boxes_of_sum(_channel_sum(a, b), **box_kwargs)
    dimmed_value = (np.arange(256, dtype=np.float32) * dim).astype(np.uint8)  # the float formula, per value
    table = dimmed_value.tolist() * 3
    out = []
    for image in (a, b):
        result = image.point(table)
        for box in boxes:
            result.paste(image.crop(box), box[:2])
        draw = ImageDraw.Draw(result)
        for x0, y0, x1, y1 in boxes:
            draw.rectangle([x0, y0, x1 - 1, y1 - 1], outline=GREEN, width=border)
        out.append(result)
    return out[0], out[1]
