"""Deterministic image pairs for the SubtleBench strategy transforms (pure numpy on the legacy
RandomState stream, which numpy keeps fixed across versions; no drawing library involved).

``tests/subtlebench/data/image_transforms_expected.json`` holds what the transforms returned for
these pairs before they were rewritten for speed (boxes, and a SHA-256 of every output image's
pixels): tests/subtlebench/test_image_transforms.py checks that the current code returns exactly the same.
"""

from __future__ import annotations

import hashlib

import numpy as np
from PIL import Image


def _photo(rng: np.random.RandomState, height: int, width: int) -> np.ndarray:
    """A photo-like RGB array: a smooth field (a coarse random grid scaled up) plus sensor noise."""
    coarse = rng.randint(0, 256, size=(height // 16 + 2, width // 16 + 2, 3)).astype(np.float64)
    smooth = np.repeat(np.repeat(coarse, 16, axis=0), 16, axis=1)[:height, :width]
    return np.clip(smooth + rng.normal(0, 6, size=(height, width, 3)), 0, 255).astype(np.uint8)


def _changed(
    rng: np.random.RandomState, base: np.ndarray, boxes: list[tuple[int, int, int, int]], noise: float = 2.0
) -> np.ndarray:
    """``base`` with each box (x0, y0, x1, y1) repainted, and faint noise everywhere (re-encoding)."""
    out = base.astype(np.float64) + rng.normal(0, noise, size=base.shape) if noise else base.astype(np.float64)
    for x0, y0, x1, y1 in boxes:
        out[y0:y1, x0:x1] = rng.randint(0, 256, size=3)
    return np.clip(out, 0, 255).astype(np.uint8)


def pairs() -> dict[str, tuple[Image.Image, Image.Image]]:
    """name -> (first, second): the shapes and edge cases the strategies meet."""
    rng = np.random.RandomState(20250101)
    out: dict[str, tuple[Image.Image, Image.Image]] = {}
    base = _photo(rng, 480, 640)
    out["vga_three_changes"] = (
        Image.fromarray(base),
        Image.fromarray(_changed(rng, base, [(40, 30, 140, 110), (300, 200, 380, 290), (500, 50, 560, 120)])),
    )
    out["vga_one_small_change"] = (Image.fromarray(base), Image.fromarray(_changed(rng, base, [(600, 440, 612, 452)])))
    out["vga_changes_at_the_borders"] = (
        Image.fromarray(base),
        Image.fromarray(_changed(rng, base, [(0, 0, 50, 40), (600, 430, 640, 480), (0, 300, 30, 330)])),
    )
    out["vga_noise_only"] = (Image.fromarray(base), Image.fromarray(_changed(rng, base, [], noise=8.0)))
    out["identical"] = (Image.fromarray(base), Image.fromarray(base.copy()))
    # Equal areas: the stable order among ties is the components' scan order.
    flat = np.full((120, 160, 3), 90, dtype=np.uint8)
    tied = flat.copy()
    for x0, y0 in ((100, 10), (10, 70), (60, 40), (120, 90)):
        tied[y0 : y0 + 20, x0 : x0 + 20] = 250
    out["tied_areas"] = (Image.fromarray(flat), Image.fromarray(tied))
    # Sizes differ: both are resized (LANCZOS) to the smaller width and height first.
    big = _photo(rng, 500, 700)
    out["different_sizes"] = (
        Image.fromarray(big),
        Image.fromarray(_changed(rng, big[:481, :641], [(100, 100, 180, 160)])),
    )
    # Modes other than RGB.
    grey = _photo(rng, 96, 128)[..., 0]
    grey2 = grey.copy()
    grey2[20:50, 30:70] = 255 - grey2[20:50, 30:70]
    out["greyscale_L"] = (Image.fromarray(grey, mode="L"), Image.fromarray(grey2, mode="L"))
    rgba = np.dstack([_photo(rng, 64, 80), np.full((64, 80), 200, dtype=np.uint8)])
    rgba2 = rgba.copy()
    rgba2[10:30, 10:40, :3] = 0
    out["rgba"] = (Image.fromarray(rgba, mode="RGBA"), Image.fromarray(rgba2, mode="RGBA"))
    # Smaller than the 5x5 structuring element; one row; maximal difference.
    out["tiny"] = (Image.fromarray(_photo(rng, 3, 4)), Image.fromarray(_photo(rng, 3, 4)))
    out["one_row"] = (Image.fromarray(_photo(rng, 1, 50)), Image.fromarray(_photo(rng, 1, 50)))
    black = np.zeros((40, 60, 3), dtype=np.uint8)
    white = black.copy()
    white[5:35, 5:55] = 255
    out["black_white"] = (Image.fromarray(black), Image.fromarray(white))
    # Many scattered components, a difference map with many ties at the percentile.
    speckle = _changed(
        rng,
        base,
        [(int(x), int(y), int(x) + 7, int(y) + 5) for x, y in zip(rng.randint(0, 630, 60), rng.randint(0, 470, 60))],
        noise=0,
    )
    out["vga_speckles"] = (Image.fromarray(base), Image.fromarray(speckle))
    out["random_noise"] = (
        Image.fromarray(rng.randint(0, 256, size=(240, 320, 3)).astype(np.uint8)),
        Image.fromarray(rng.randint(0, 256, size=(240, 320, 3)).astype(np.uint8)),
    )
    return out


def digest(image: Image.Image) -> str:
    """Mode, size and a SHA-256 of the pixels."""
    return f"{image.mode}:{image.width}x{image.height}:" + hashlib.sha256(image.tobytes()).hexdigest()


def outputs(transforms) -> dict[str, dict]:
    """What ``transforms`` (the image_transforms module) returns for every pair."""
    result = {}
    for name, (first, second) in pairs().items():
        h1, h2 = transforms.highlight(first, second)
        result[name] = {
            "boxes": [list(b) for b in transforms.change_boxes(transforms.difference_map(first, second))],
            "subtraction": digest(transforms.subtraction(first, second)),
            "highlight": [digest(h1), digest(h2)],
            "overlap": digest(transforms.overlap(first, second)),
            "difference_map": hashlib.sha256(
                np.ascontiguousarray(transforms.difference_map(first, second), dtype=np.float32).tobytes()
            ).hexdigest(),
        }
    return result
