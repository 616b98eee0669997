"""The drawn scenes of VLM-SubtleBench's synthetic pairs: filled circles, squares and triangles on
an 800x600 white canvas, and the OKLAB lightness shift (Ottosson 2020) of the attribute pairs."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw

from lmms_comparative.benchmarks.subtlebench.table import COLOURS

WIDTH, HEIGHT = 800, 600
SHAPES = ("circle", "square", "triangle")


@dataclass(frozen=True)
class Shape:
    """One filled shape of a scene: its kind, colour name, centre and size in pixels, and rotation in degrees."""

    kind: str
    colour: str
    x: float  # centre
    y: float
    size: float  # side / diameter in pixels
    angle: float = 0.0  # degrees
    rgb: tuple[int, int, int] | None = None  # overrides the colour's RGB (lightness shifts)

    def polygon(self) -> list[tuple[float, float]]:
        """Corners of a square or triangle in canvas pixels, rotated by ``angle`` about the centre (a
        circle is drawn as an ellipse, not from this)."""
        r = self.size / 2
        if self.kind == "square":
            corners = [(-r, -r), (r, -r), (r, r), (-r, r)]
        else:  # equilateral triangle with circumradius r
            corners = [(r * math.cos(math.radians(a)), r * math.sin(math.radians(a))) for a in (-90, 30, 150)]
        c, s = math.cos(math.radians(self.angle)), math.sin(math.radians(self.angle))
        return [(self.x + px * c - py * s, self.y + px * s + py * c) for px, py in corners]

    def bbox(self, margin: float = 2.0) -> tuple[int, int, int, int]:
        """Integer pixel box (left, top, right, bottom) that holds the shape at any rotation, widened by
        ``margin`` pixels."""
        r = self.size / 2 * (1.0 if self.kind == "circle" else math.sqrt(2))
        return (
            int(self.x - r - margin),
            int(self.y - r - margin),
            int(math.ceil(self.x + r + margin)),
            int(math.ceil(self.y + r + margin)),
        )


def render(shapes: list[Shape]) -> Image.Image:
    """The shapes drawn in order, later ones on top, on a white ``WIDTH`` x ``HEIGHT`` canvas."""
    image = Image.new("RGB", (WIDTH, HEIGHT), "white")
    draw = ImageDraw.Draw(image)
    for shape in shapes:
        fill = shape.rgb or COLOURS[shape.colour]
        if shape.kind == "circle":
            r = shape.size / 2
            draw.ellipse((shape.x - r, shape.y - r, shape.x + r, shape.y + r), fill=fill)
        else:
            draw.polygon(shape.polygon(), fill=fill)
    return image


# ---- OKLAB (Ottosson 2020) ----------------------------------------------------------------------


def _to_linear(c: np.ndarray) -> np.ndarray:
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _to_srgb(c: np.ndarray) -> np.ndarray:
    return np.where(c <= 0.0031308, 12.92 * c, 1.055 * np.power(np.clip(c, 0, None), 1 / 2.4) - 0.055)


def srgb_to_oklab(rgb: tuple[int, int, int]) -> np.ndarray:
    """OKLAB (L, a, b) of an 8-bit sRGB colour."""
    lin = _to_linear(np.asarray(rgb, dtype=float) / 255)
    lms = (
        np.array(
            [
                [0.4122214708, 0.5363325363, 0.0514459929],
                [0.2119034982, 0.6806995451, 0.1073969566],
                [0.0883024619, 0.2817188376, 0.6299787005],
            ]
        )
        @ lin
    )
    return np.array(
        [
            [0.2104542553, 0.7936177850, -0.0040720468],
            [1.9779984951, -2.4285922050, 0.4505937099],
            [0.0259040371, 0.7827717662, -0.8086757660],
        ]
    ) @ np.cbrt(lms)


def oklab_to_srgb(lab: np.ndarray) -> tuple[int, int, int]:
    """8-bit sRGB colour of an OKLAB (L, a, b), each channel clipped to the sRGB range."""
    lms = (
        np.array(
            [
                [1.0, 0.3963377774, 0.2158037573],
                [1.0, -0.1055613458, -0.0638541728],
                [1.0, -0.0894841775, -1.2914855480],
            ]
        )
        @ lab
    )
    lin = (
        np.array(
            [
                [4.0767416621, -3.3077115913, 0.2309699292],
                [-1.2684380046, 2.6097574011, -0.3413193965],
                [-0.0041960863, -0.7034186147, 1.7076147010],
            ]
        )
        @ lms**3
    )
    return tuple(int(round(v)) for v in np.clip(_to_srgb(lin), 0, 1) * 255)  # type: ignore[return-value]


def shift_lightness(rgb: tuple[int, int, int], relative: float) -> tuple[int, int, int]:
    """The colour with its OKLAB lightness L multiplied by (1 + relative), hue kept."""
    lab = srgb_to_oklab(rgb)
    lab[0] = min(1.0, max(0.0, lab[0] * (1 + relative)))
    return oklab_to_srgb(lab)
