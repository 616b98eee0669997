"""Images and videos for the fixture builders (``benchmarks/<name>/fixture.py``): drawn here with PIL, never
downloaded; everything is a pure function of the random generator handed in."""

from __future__ import annotations

import random
from pathlib import Path

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


def write_video(path: str | Path, scenes: list[Image.Image], frames_per_scene: int = 6, fps: int = 4) -> Path:
    """Write a small real video (H.264 in an .mp4 container, decodable by PyAV, decord and ffmpeg):
    each scene image held for ``frames_per_scene`` frames. PyAV (with its libx264) comes with lmms-eval.

    Every frame is a keyframe, at near-lossless quality (CRF 4). With inter-coded frames, a frame
    decoded several predicted frames after a cut could differ from its scene by more than two scenes
    differ (a sampled frame then looks like the wrong person); intra-only frames are decoded alone,
    and decord finds a sampled frame by seeking to it rather than by counting the frames it decodes
    after a keyframe. The codec was MPEG-4 part 2 until a CI run saw decord return a frame of the
    wrong scene once from such a file, as dmlc/decord#195 reports for MPEG-4 part 2 (XviD) files
    (``get_batch`` answering differently about once in a hundred calls); H.264 is the codec that
    decord and the readers built on it are used with most."""
    import av
    import numpy as np

    path = Path(path)
    width, height = scenes[0].size
    with av.open(str(path), "w") as container:
        stream = container.add_stream("libx264", rate=fps)
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        stream.codec_context.gop_size = 1
        # keyint=1: intra only; no B-frames (decode order = display order); no scene-cut logic.
        stream.options = {"crf": "4", "tune": "stillimage", "x264-params": "keyint=1:scenecut=0:bframes=0"}
        for scene in scenes:
            frame = av.VideoFrame.from_ndarray(np.asarray(scene.convert("RGB")), format="rgb24")
            for _ in range(frames_per_scene):
                for packet in stream.encode(frame):
                    container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return path
