"""VLM-SubtleBench's synthetic primitive pairs (paper appendix A.1, A.6, A.7, A.9 and §4.4).

Scenes of circles, squares and triangles on an 800x600 white canvas; the second image differs by
one controlled change. Every difficulty factor is a field of the type's parameters (a range
(lo, hi) is sampled uniformly; lo == hi fixes it), so a sweep over two factors reproduces the
paper's controlled study (its Figure 5). Output is a dataset in the SubtleBench layout, so every
SubtleBench task runs on it through ``SUBTLEBENCH_ROOT``. Deterministic for a seed.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from lmms_comparative.benchmarks.subtlebench.data import HUB_REPO
from lmms_comparative.benchmarks.subtlebench.facts import COLOURS
from lmms_comparative.data import untrusted
from lmms_comparative.data.generated import SYNTHETIC, mark

WIDTH, HEIGHT = 800, 600
SHAPES = ("circle", "square", "triangle")
Range = tuple[float, float]


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
        """Corners of a square or triangle in canvas pixels, rotated by ``angle`` about the centre (a circle is drawn as an ellipse, not from this)."""
        r = self.size / 2
        if self.kind == "square":
            corners = [(-r, -r), (r, -r), (r, r), (-r, r)]
        else:  # equilateral triangle with circumradius r
            corners = [(r * math.cos(math.radians(a)), r * math.sin(math.radians(a))) for a in (-90, 30, 150)]
        c, s = math.cos(math.radians(self.angle)), math.sin(math.radians(self.angle))
        return [(self.x + px * c - py * s, self.y + px * s + py * c) for px, py in corners]

    def bbox(self, margin: float = 2.0) -> tuple[int, int, int, int]:
        """Integer pixel box (left, top, right, bottom) that holds the shape at any rotation, widened by ``margin`` pixels."""
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


# ---- parameters: one dataclass per difference type, defaults from the paper ---------------------


@dataclass(frozen=True)
class AttributeParams:  # A.1: 2-10 shapes; brightness (OKLAB L) 5-10% or scale 15-20%
    """Difficulty factors of the attribute pairs (one shape brighter/darker or larger/smaller); shifts are fractions, sizes pixels."""

    n_shapes: Range = (2, 10)
    size: Range = (40, 110)
    mode: str = "any"  # "brightness", "scale" or "any"
    brightness_shift: Range = (0.05, 0.10)
    scale_change: Range = (0.15, 0.20)


@dataclass(frozen=True)
class ExistenceParams:  # A.6: 20-30 shapes of 35 px, one added or removed
    """Difficulty factors of the existence pairs (one shape appears or disappears); sizes in pixels."""

    n_shapes: Range = (20, 30)
    size: Range = (35, 35)


@dataclass(frozen=True)
class QuantityParams:  # A.7: 10-20 shapes of one type and colour (20-40 px), one added or removed
    """Difficulty factors of the quantity pairs (one image has one more shape of a single kind and colour); sizes in pixels."""

    n_shapes: Range = (10, 20)
    size: Range = (20, 40)


@dataclass(frozen=True)
class ViewpointParams:  # A.9: all shapes translated 20-80 px along one axis, or rotated 5-20 degrees
    """Difficulty factors of the viewpoint pairs (the whole scene shifted or rotated); translation in pixels, rotation in degrees."""

    n_shapes: Range = (5, 12)
    size: Range = (30, 70)
    mode: str = "any"  # "translation", "rotation" or "any"
    translation: Range = (20, 80)
    rotation: Range = (5, 20)


@dataclass(frozen=True)
class SpatialParams:  # §4.4: one object moved; factors object size and translation
    """Difficulty factors of the spatial pairs (one shape moved left, right, up or down); sizes and translation in pixels."""

    n_shapes: Range = (2, 10)
    size: Range = (30, 80)
    translation: Range = (20, 80)


PARAMS = {
    "attribute": AttributeParams,
    "existence": ExistenceParams,
    "quantity": QuantityParams,
    "viewpoint": ViewpointParams,
    "spatial": SpatialParams,
}


def _uniform(rng: random.Random, value: Range) -> float:
    lo, hi = value
    return lo if lo == hi else rng.uniform(lo, hi)


def _count(rng: random.Random, value: Range) -> int:
    return rng.randint(int(value[0]), int(value[1]))


def _place(
    rng: random.Random,
    n: int,
    size: Range,
    kinds=SHAPES,
    colours=tuple(COLOURS),
    margin: float = 90,
    rotate: bool = False,
) -> list[Shape]:
    """n shapes at non-overlapping positions (rejection sampling), away from the canvas border."""
    shapes: list[Shape] = []
    for _ in range(n):
        for _attempt in range(500):
            s = _uniform(rng, size)
            x, y = rng.uniform(margin, WIDTH - margin), rng.uniform(margin, HEIGHT - margin)
            if all(math.hypot(x - o.x, y - o.y) > (s + o.size) * 0.75 + 6 for o in shapes):
                shapes.append(
                    Shape(rng.choice(kinds), rng.choice(colours), x, y, s, rng.uniform(0, 360) if rotate else 0.0)
                )
                break
        else:
            raise ValueError(f"cannot place {n} shapes of size {size} without overlap on {WIDTH}x{HEIGHT}")
    return shapes


def _item(question: str, answer: str, distractors: list[str], factors: dict) -> dict:
    return {"question": question, "answer": answer, "distractors": distractors, "generation_info": factors}


def make_attribute(rng: random.Random, p: AttributeParams):
    """One attribute pair: (first scene, second scene, item), the item holding the question, answer, three distractors and
    the difficulty factors as ``generation_info``."""
    shapes = _place(rng, _count(rng, p.n_shapes), p.size, colours=tuple(COLOURS))
    target = rng.randrange(len(shapes))
    t = shapes[target]
    mode = p.mode if p.mode != "any" else rng.choice(["brightness", "scale"])
    up = rng.random() < 0.5
    if mode == "brightness":
        amount = _uniform(rng, p.brightness_shift)
        changed = replace(t, rgb=shift_lightness(COLOURS[t.colour], amount if up else -amount))
        words = ("brighter", "darker") if up else ("darker", "brighter")
    else:
        amount = _uniform(rng, p.scale_change)
        changed = replace(t, size=t.size * (1 + amount if up else 1 - amount))
        words = ("larger", "smaller") if up else ("smaller", "larger")
    second = [changed if i == target else s for i, s in enumerate(shapes)]
    other_shape = rng.choice([k for k in SHAPES if k != t.kind])
    other_colour = rng.choice([c for c in COLOURS if c != t.colour])
    answer = f"The {t.colour} {t.kind} became {words[0]}"
    distractors = [
        f"The {t.colour} {other_shape} became {words[0]}",
        f"The {other_colour} {t.kind} became {words[0]}",
        f"The {t.colour} {t.kind} became {words[1]}",
    ]
    factors = {
        "mode": mode,
        "amount": amount,
        "direction": words[0],
        "object_size": t.size,
        "n_shapes": len(shapes),
        "changed_bbox": t.bbox() if mode == "brightness" else changed.bbox() if up else t.bbox(),
    }
    return shapes, second, _item("What is the difference between the two images?", answer, distractors, factors)


def make_existence(rng: random.Random, p: ExistenceParams):
    """One existence pair: (first scene, second scene, item), as ``make_attribute``; up to three distractors, each naming
    another shape of the scene."""
    shapes = _place(rng, _count(rng, p.n_shapes) + 1, p.size, rotate=True, margin=40)
    extra = shapes[-1]
    added = rng.random() < 0.5
    first, second = (shapes[:-1], shapes) if added else (shapes, shapes[:-1])
    label = "appeared" if added else "disappeared"
    answer = f"A {extra.colour} {extra.kind} {label}"
    distractors = []
    for s in rng.sample(shapes[:-1], k=len(shapes) - 1):
        text = f"A {s.colour} {s.kind} {rng.choice(['appeared', 'disappeared'])}"
        if text != answer and text not in distractors:
            distractors.append(text)
        if len(distractors) == 3:
            break
    factors = {"operation": label, "object_size": extra.size, "n_shapes": len(first), "changed_bbox": extra.bbox()}
    return first, second, _item("What has changed between the two images?", answer, distractors, factors)


def make_quantity(rng: random.Random, p: QuantityParams):
    """One quantity pair: (first scene, second scene, item), as ``make_attribute``; the answer names the image with more
    shapes and the one distractor names the other."""
    kind, colour = rng.choice(SHAPES), rng.choice(tuple(COLOURS))
    shapes = _place(rng, _count(rng, p.n_shapes) + 1, p.size, kinds=(kind,), colours=(colour,), margin=40)
    added = rng.random() < 0.5
    first, second = (shapes[:-1], shapes) if added else (shapes, shapes[:-1])
    answer, other = ("second image", "first image") if added else ("first image", "second image")
    factors = {
        "operation": "added" if added else "removed",
        "object_size": shapes[-1].size,
        "n_shapes": len(first),
        "changed_bbox": shapes[-1].bbox(),
    }
    return first, second, _item(f"Which image contains more {colour} {kind}s?", answer, [other], factors)


VIEW_MOVES = (
    "The camera moved left",
    "The camera moved right",
    "The camera moved up",
    "The camera moved down",
    "The camera rotated clockwise",
    "The camera rotated counterclockwise",
)


def make_viewpoint(rng: random.Random, p: ViewpointParams):
    """One viewpoint pair: (first scene, second scene, item), as ``make_attribute``; the answer is one of ``VIEW_MOVES``
    and three of the others are the distractors."""
    shapes = _place(rng, _count(rng, p.n_shapes), p.size, margin=140, rotate=True)
    mode = p.mode if p.mode != "any" else rng.choice(["translation", "rotation"])
    if mode == "translation":
        amount = _uniform(rng, p.translation)
        dx, dy, move = rng.choice(
            [
                (amount, 0, VIEW_MOVES[0]),
                (-amount, 0, VIEW_MOVES[1]),
                (0, amount, VIEW_MOVES[2]),
                (0, -amount, VIEW_MOVES[3]),
            ]
        )
        second = [replace(s, x=s.x + dx, y=s.y + dy) for s in shapes]  # the scene moves opposite to the camera
    else:
        amount = _uniform(rng, p.rotation)
        clockwise = rng.random() < 0.5  # the scene turns clockwise on screen when the camera turns counterclockwise
        theta = math.radians(amount if clockwise else -amount)
        cx, cy = WIDTH / 2, HEIGHT / 2
        second = [
            replace(
                s,
                x=cx + (s.x - cx) * math.cos(theta) - (s.y - cy) * math.sin(theta),
                y=cy + (s.x - cx) * math.sin(theta) + (s.y - cy) * math.cos(theta),
                angle=s.angle + math.degrees(theta),
            )
            for s in shapes
        ]
        move = VIEW_MOVES[5] if clockwise else VIEW_MOVES[4]
    distractors = rng.sample([m for m in VIEW_MOVES if m != move], 3)  # four of the six motions (A.9)
    factors = {"mode": mode, "amount": amount, "n_shapes": len(shapes)}
    return shapes, second, _item("How did the camera move between the two images?", move, distractors, factors)


def make_spatial(rng: random.Random, p: SpatialParams):
    """One spatial pair: (first scene, second scene, item), as ``make_attribute``; the three directions the shape did not
    move are the distractors."""
    shapes = _place(rng, _count(rng, p.n_shapes), p.size, margin=140)
    target = rng.randrange(len(shapes))
    t = shapes[target]
    amount = _uniform(rng, p.translation)
    directions = {"left": (-amount, 0), "right": (amount, 0), "up": (0, -amount), "down": (0, amount)}
    direction = rng.choice(list(directions))
    moved = replace(t, x=t.x + directions[direction][0], y=t.y + directions[direction][1])
    second = [moved if i == target else s for i, s in enumerate(shapes)]
    distractors = [f"It moved {d}" for d in directions if d != direction]
    x0, y0, x1, y1 = t.bbox()
    mx0, my0, mx1, my1 = moved.bbox()
    factors = {
        "direction": direction,
        "amount": amount,
        "object_size": t.size,
        "n_shapes": len(shapes),
        "changed_bbox": (min(x0, mx0), min(y0, my0), max(x1, mx1), max(y1, my1)),
    }
    return (
        shapes,
        second,
        _item(f"How did the {t.colour} {t.kind} move?", f"It moved {direction}", distractors, factors),
    )


MAKERS = {
    "attribute": make_attribute,
    "existence": make_existence,
    "quantity": make_quantity,
    "viewpoint": make_viewpoint,
    "spatial": make_spatial,
}
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
