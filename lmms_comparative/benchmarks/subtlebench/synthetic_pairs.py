"""The pairs of VLM-SubtleBench's synthetic difference types (paper appendix A.1, A.6, A.7, A.9 and
§4.4): each type's difficulty factors (a dataclass of parameters, defaults from the paper) and its
maker, which draws a first scene, the second with one controlled change, and the item's question,
answer and distractors. A range (lo, hi) is sampled uniformly; lo == hi fixes it."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from lmms_comparative.benchmarks.subtlebench.scene import HEIGHT, SHAPES, WIDTH, Shape, shift_lightness
from lmms_comparative.benchmarks.subtlebench.table import COLOURS

Range = tuple[float, float]
Pair = tuple[list[Shape], list[Shape], dict]  # (first scene, second scene, item)


# ---- parameters: one dataclass per difference type, defaults from the paper ---------------------


@dataclass(frozen=True)
class AttributeParams:  # A.1: 2-10 shapes; brightness (OKLAB L) 5-10% or scale 15-20%
    """Difficulty factors of the attribute pairs (one shape brighter/darker or larger/smaller); shifts
    are fractions, sizes pixels."""

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
    """Difficulty factors of the quantity pairs (one image has one more shape of a single kind and
    colour); sizes in pixels."""

    n_shapes: Range = (10, 20)
    size: Range = (20, 40)


@dataclass(frozen=True)
class ViewpointParams:  # A.9: all shapes translated 20-80 px along one axis, or rotated 5-20 degrees
    """Difficulty factors of the viewpoint pairs (the whole scene shifted or rotated); translation in
    pixels, rotation in degrees."""

    n_shapes: Range = (5, 12)
    size: Range = (30, 70)
    mode: str = "any"  # "translation", "rotation" or "any"
    translation: Range = (20, 80)
    rotation: Range = (5, 20)


@dataclass(frozen=True)
class SpatialParams:  # §4.4: one object moved; factors object size and translation
    """Difficulty factors of the spatial pairs (one shape moved left, right, up or down); sizes and
    translation in pixels."""

    n_shapes: Range = (2, 10)
    size: Range = (30, 80)
    translation: Range = (20, 80)


Params = AttributeParams | ExistenceParams | QuantityParams | ViewpointParams | SpatialParams

PARAMS: dict[str, type[Params]] = {
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


def make_attribute(rng: random.Random, p: AttributeParams) -> Pair:
    """One attribute pair: (first scene, second scene, item), the item holding the question, answer,
    three distractors and the difficulty factors as ``generation_info``."""
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


def make_existence(rng: random.Random, p: ExistenceParams) -> Pair:
    """One existence pair: (first scene, second scene, item), as ``make_attribute``; up to three
    distractors, each naming another shape of the scene."""
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


def make_quantity(rng: random.Random, p: QuantityParams) -> Pair:
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


def make_viewpoint(rng: random.Random, p: ViewpointParams) -> Pair:
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


def make_spatial(rng: random.Random, p: SpatialParams) -> Pair:
    """One spatial pair: (first scene, second scene, item), as ``make_attribute``; the three directions
    the shape did not move are the distractors."""
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


# Each maker takes its own type's parameters (PARAMS[type]).
MAKERS: dict[str, Callable[[random.Random, Any], Pair]] = {
    "attribute": make_attribute,
    "existence": make_existence,
    "quantity": make_quantity,
    "viewpoint": make_viewpoint,
    "spatial": make_spatial,
}
