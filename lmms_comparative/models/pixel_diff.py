"""``pixel_diff``: a no-weights baseline that reads the pixel difference of a generated pair.

Built for generated primitives (white canvas, flat-coloured shapes, in the named colours a
benchmark's record lists: ``Benchmark.colours``, SubtleBench's synthetic pairs): it
finds what changed between the two images and picks the option that names it. Where its rules do
not apply (other types, real photographs, an option it cannot match) it falls back to the seeded
uniform guess of ``random_choice``, so it never scores below chance in expectation.
"""

from __future__ import annotations

import re
from typing import List, cast

import numpy as np
from lmms_eval.api.instance import Instance
from loguru import logger
from PIL import Image
from tqdm import tqdm  # type: ignore[import-untyped]  # tqdm ships no type information

from lmms_comparative.models.random_choice import RandomChoice
from lmms_comparative.registry import BENCHMARKS

_OPTION = re.compile(r"^\s*([A-Z])\.\s+(.*)$", re.MULTILINE)
# A word where a rule cannot name the colour or the shape (nothing left to look at): the option is
# then matched by the rest of its wording.
_ANY_WORD = r"\w+"


def _ink(image: np.ndarray) -> np.ndarray:
    # An (H, W) mask: numpy's stubs type ``any`` with an axis as possibly a scalar.
    return cast(np.ndarray, (image < 245).any(axis=2))


def _colours() -> dict[str, tuple[int, int, int]]:
    """Every registered benchmark's named colours (the records' ``colours``)."""
    return {name: rgb for benchmark in BENCHMARKS for name, rgb in benchmark.colours.items()}


def _colour_name(pixels: np.ndarray) -> str:
    colours = _colours()
    if not pixels.size or not colours:
        return _ANY_WORD
    mean = pixels.reshape(-1, 3).mean(axis=0)
    return min(colours, key=lambda name: float(np.sum((np.asarray(colours[name]) - mean) ** 2)))


def _shape_name(mask: np.ndarray) -> str:
    """An upright shape's type from how much of its bounding box it fills (square 1, circle pi/4,
    triangle about 1/2); any word where no pixel is left (a shape that shrank to nothing)."""
    if not mask.any():
        return _ANY_WORD
    ys, xs = np.nonzero(mask)
    fill = mask.sum() / ((ys.max() - ys.min() + 1) * (xs.max() - xs.min() + 1))
    return "square" if fill > 0.9 else "circle" if fill > 0.65 else "triangle"


def _rotation_sign(first: np.ndarray, second: np.ndarray) -> int:
    """+1 when the scene turned clockwise on screen, -1 counterclockwise (best of small rotations)."""
    a = Image.fromarray(_ink(first).astype(np.uint8) * 255).resize((200, 150))
    b = np.asarray(Image.fromarray(_ink(second).astype(np.uint8) * 255).resize((200, 150)), dtype=float)
    best = min(range(-24, 25, 2), key=lambda deg: float(np.abs(np.asarray(a.rotate(-deg), dtype=float) - b).sum()))
    return 1 if best > 0 else -1


def describe_change(first: np.ndarray, second: np.ndarray, category: str) -> list[str]:
    """Phrases the change matches (in the synthetic generator's wording), most specific first; none
    where the pair defeats the rules (no change, images of different sizes, nothing drawn)."""
    if first.shape != second.shape or first.ndim != 3:
        return []
    changed = (first != second).any(axis=2)
    if not changed.any():
        return []
    ink1, ink2 = _ink(first), _ink(second)
    if category == "quantity":
        from scipy import ndimage

        return ["second image" if ndimage.label(ink2)[1] > ndimage.label(ink1)[1] else "first image"]
    if category == "viewpoint":
        if not ink1.any() or not ink2.any():
            return []
        (y1, x1), (y2, x2) = np.argwhere(ink1).mean(axis=0), np.argwhere(ink2).mean(axis=0)
        dx, dy = x2 - x1, y2 - y1
        if max(abs(dx), abs(dy)) > 8:  # the scene shifted: the camera moved the other way
            if abs(dx) > abs(dy):
                return ["The camera moved left" if dx > 0 else "The camera moved right"]
            return ["The camera moved up" if dy > 0 else "The camera moved down"]
        return [
            "The camera rotated counterclockwise"
            if _rotation_sign(first, second) > 0
            else "The camera rotated clockwise"
        ]
    region = changed & (ink1 | ink2)
    if category == "spatial":
        before, after = np.argwhere(region & ink1 & ~ink2), np.argwhere(region & ink2 & ~ink1)
        if not len(before) or not len(after):
            return []
        dy, dx = after.mean(axis=0) - before.mean(axis=0)
        direction = ("right" if dx > 0 else "left") if abs(dx) > abs(dy) else ("down" if dy > 0 else "up")
        return [f"It moved {direction}"]
    source = second if ink2[region].sum() >= ink1[region].sum() else first
    colour = _colour_name(source[region & (_ink(source))])
    if category == "existence":
        label = "appeared" if ink2[region].sum() > ink1[region].sum() else "disappeared"
        return [f"{colour} \\w+ {label}$"]
    if category == "attribute":
        area1, area2 = ink1[region].sum(), ink2[region].sum()
        if abs(int(area2) - int(area1)) > 0.05 * max(area1, area2):
            word = "larger" if area2 > area1 else "smaller"
            shape = _shape_name(region & (ink2 if area2 > area1 else ink1))
        else:
            both = region & ink1 & ink2
            if not both.any():
                return []
            word = "brighter" if first[both].mean() < second[both].mean() else "darker"
            shape = _shape_name(both)
        # upright shapes (the generator does not rotate attribute scenes): name the shape too
        return [f"The {colour} {shape} became {word}", f"{colour} \\w+ became {word}$"]
    return []


def pick(options: dict[str, str], phrases: list[str]) -> str | None:
    """The letter of the first option that a phrase matches (exactly, or as a regex)."""
    for phrase in phrases:
        for letter, text in options.items():
            if text == phrase or re.search(phrase, text):
                return letter
    return None


class PixelDiff(RandomChoice):
    """Answers the synthetic SubtleBench types from the images; a seeded guess otherwise."""

    supports_video = False  # it opens every visual as an image

    def _read(self, context: str, doc: dict, doc_to_visual) -> str | None:
        """The letter the pixels give, or None (the pair is not one the rules read)."""
        images = doc_to_visual(doc)
        if len(images) != 2:
            return None
        first, second = (np.asarray(im.convert("RGB"), dtype=int) for im in images)
        return pick(dict(_OPTION.findall(context)), describe_change(first, second, doc.get("category", "")))

    def generate_until(self, requests: List[Instance]) -> List[str]:
        answers, used, defeated = [], 0, 0
        for request in tqdm(requests, disable=self.rank != 0, desc="pixel_diff"):
            context, _gen_kwargs, doc_to_visual, doc_id, task, split = request.args
            doc = self.task_dict[task][split][doc_id]
            letter = None
            if doc_to_visual is not None and doc.get("domain") == "synthetic":
                try:
                    letter = self._read(context if isinstance(context, str) else "", doc, doc_to_visual)
                except (ValueError, IndexError, ArithmeticError) as exc:  # a pair its rules were not made for: guess
                    defeated += 1
                    logger.debug(f"pixel_diff: doc {doc_id} of {task}: {type(exc).__name__}: {exc}; guessing")
            used += letter is not None
            answers.append(
                letter
                or self._answer(
                    context if isinstance(context, str) else "", task, doc_id, doc, self._image_count(None, doc), split
                )
            )
        if requests:
            logger.info(
                f"pixel_diff answered {used} of {len(requests)} from the pixels; the rest are seeded guesses"
                + (f" ({defeated} pair(s) its rules could not read)" if defeated else "")
            )
        return answers
