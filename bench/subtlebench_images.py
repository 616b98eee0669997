"""SubtleBench image strategies against plain loading, on the same pairs in one run.

    python bench/subtlebench_images.py [--pairs 40] [--size 640x480] [--format jpg] [--rounds 10]

Writes ``--pairs`` photo-like image pairs (a smooth random field with sensor noise; the second
image differs in three repainted boxes and by faint noise) to a temporary folder, then times the
task hooks the model's loop calls for each doc, round-robin over the same docs:

- plain loading: ``doc_to_visual`` (open both files, convert to RGB);
- ``doc_to_visual_subtract``: loading plus the subtraction image;
- ``doc_to_visual_highlight``: loading plus the two highlighted images;

and prints milliseconds per pair (the best round of ``--rounds``, each round over every pair) and
each strategy's ratio to plain loading, beside the targets (subtract <= 1.5x, highlight <= 3x).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

TARGETS = {"subtract": 1.5, "highlight": 3.0}


def photo_pair(rng: np.random.RandomState, width: int, height: int) -> tuple[Image.Image, Image.Image]:
    coarse = rng.randint(0, 256, size=(height // 16 + 2, width // 16 + 2, 3)).astype(np.float32)
    base = np.repeat(np.repeat(coarse, 16, axis=0), 16, axis=1)[:height, :width] + rng.normal(
        0, 6, size=(height, width, 3)
    )
    second = base + rng.normal(0, 2, size=base.shape)
    for _ in range(3):
        w, h = rng.randint(width // 20, width // 6), rng.randint(height // 20, height // 6)
        x, y = rng.randint(0, width - w), rng.randint(0, height - h)
        second[y : y + h, x : x + w] = rng.randint(0, 256, size=3)
    return tuple(Image.fromarray(np.clip(a, 0, 255).astype(np.uint8)) for a in (base, second))  # type: ignore[return-value]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=40)
    parser.add_argument("--size", default="640x480")
    parser.add_argument("--format", default="jpg", choices=["jpg", "png"])
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.lower().split("x"))

    from lmms_comparative.benchmarks.subtlebench import hooks as task

    hooks = {
        "plain": task.doc_to_visual,
        "subtract": task.doc_to_visual_subtract,
        "highlight": task.doc_to_visual_highlight,
    }
    rng = np.random.RandomState(0)
    with tempfile.TemporaryDirectory() as tmp:
        docs = []
        for i in range(args.pairs):
            paths = []
            for j, image in enumerate(photo_pair(rng, width, height)):
                path = Path(tmp) / f"pair{i}_{j}.{args.format}"
                image.save(path, quality=90) if args.format == "jpg" else image.save(path)
                paths.append(str(path))
            docs.append({"item_id": f"pair{i}", "image_1": paths[0], "image_2": paths[1]})
        for hook in hooks.values():  # imports and first-call setup outside the timing
            hook(docs[0])
        best = {name: float("inf") for name in hooks}
        for _ in range(args.rounds):
            for name, hook in hooks.items():  # interleaved, so a busy moment hits every variant alike
                start = time.perf_counter()
                for doc in docs:
                    hook(doc)
                best[name] = min(best[name], (time.perf_counter() - start) / len(docs))

    plain = best["plain"]
    report = {
        "pairs": args.pairs,
        "size": f"{width}x{height}",
        "format": args.format,
        "ms_per_pair": {name: round(seconds * 1000, 2) for name, seconds in best.items()},
        "x_plain_loading": {name: round(best[name] / plain, 2) for name in TARGETS},
        "target_x_plain_loading": TARGETS,
    }
    print(json.dumps(report, indent=2))
    for name, target in TARGETS.items():
        ratio = best[name] / plain
        print(
            f"{name}: {best[name] * 1000:.1f} ms per pair, {ratio:.2f}x plain loading ({plain * 1000:.1f} "
            f"ms); target <= {target}x: {'met' if ratio <= target else 'NOT met'}"
        )


if __name__ == "__main__":
    sys.exit(main())
