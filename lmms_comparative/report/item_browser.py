"""The item browser's data: every item of every run's samples logs, joined across runs by task and
item key, written as small script files beside ``index.html`` (a page opened from disk cannot fetch
JSON, but it can load a script): ``items/index.js`` with what the filters need for every item, and
``items/chunk_<n>.js`` with each item's question, gold answer and every run's reply, parsed answer,
score and per-item fields, loaded when a page shows them. Thumbnails and full-size views of each
image are made once (named by the file's path, size and mtime, so a second report reuses them),
in parallel, under ``thumbs/`` and ``full/``: the page requests nothing outside its folder.

The media paths come from the samples logs, which a stranger may have written (docs/security.md):
a file is read only when it resolves (links and ``..`` followed) inside a data root set here (a
benchmark's ``*_ROOT`` variable, the hub cache of a release) or inside the run's own folder, is a
regular file, and declares at most ``untrusted.MAX_IMAGE_PIXELS`` pixels; anything else is
"outside the data roots, not shown" in the browser and counted in the report's notes. The records
themselves (what each run made of each item) are ``report/item_records.py``'s."""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import stat
import threading
import warnings
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from lmms_comparative.data import untrusted
from lmms_comparative.registry import BENCHMARKS, of_task
from lmms_comparative.report.run_folders import folder, write_file

CHUNK = 200  # items per detail file
THUMB = 160  # thumbnail's longest side, pixels
FULL = 1024  # the view on click: longest side, pixels
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".webp", ".bmp", ".gif", ".tif", ".tiff"}
VIDEO_SUFFIXES = {".mp4", ".avi", ".mov", ".mkv", ".webm"}
FRAMES = 8  # a video item's frames shown: sampled uniformly, as lmms-eval's video models sample theirs


def media_roots(runs: Sequence = ()) -> list[Path]:
    """The folders media may be read from: each benchmark's local copy set here (its ``*_ROOT``
    variable; where it names a file, the media folders the benchmark's report part names for it),
    the hub cache folder of each release, and
    the runs' own folders (``runs``)."""
    found: list[Path] = []
    for benchmark in BENCHMARKS:
        value = os.environ.get(benchmark.root_variable or "", "")
        if value and os.path.isdir(value):
            found.append(Path(value))
        elif value and (folders := benchmark.report_part().media_folders) is not None:
            # A copy given as a file: its own media folders, never the file's folder (a home folder).
            found += folders(Path(value))
    repos = [b.hub_repo for b in BENCHMARKS if b.hub_repo]
    if repos:
        from huggingface_hub import constants

        found += [Path(constants.HF_HUB_CACHE) / f"datasets--{repo.replace('/', '--')}" for repo in repos]
    return found + [run.path.parent for run in runs if getattr(run, "path", None) is not None]


def roots_phrase() -> str:
    """The data roots in words, for the report's note."""
    set_here = [b.root_variable for b in BENCHMARKS if b.root_variable and os.environ.get(b.root_variable)]
    return ", ".join(set_here + ["the hub cache of each release", "the run's own folder"])


def _media_name(path: str) -> str | None:
    """The cached file name of an image (its device, inode, size and mtime), None for a file not
    at hand or not a regular file (a pipe would block the read)."""
    try:
        real = os.path.realpath(path)
        info = os.stat(real)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    # By the file itself (device and inode), not its path: a folder of hard links to one image is one image.
    return (
        hashlib.sha256(f"{info.st_dev}\0{info.st_ino}\0{info.st_size}\0{info.st_mtime_ns}".encode()).hexdigest()[:24]
        + ".jpg"
    )


def _save_views(image, name: str, out: Path) -> None:
    """An RGB image's full view (``FULL``) and thumbnail (``THUMB``), as ``full/NAME`` and ``thumbs/NAME``."""
    for sub, side in (("full", FULL), ("thumbs", THUMB)):
        view = image.copy()
        view.thumbnail((side, side))
        data = io.BytesIO()
        view.save(data, "JPEG", quality=85)
        write_file(out / sub / name, data.getvalue())


class _Budget:
    """The pixels one report decodes in all (``MAX_REPORT_PIXELS``), spent image by image from the
    threads that decode: a folder of small files that each declare the most pixels one image may
    (a 2.6 KB WEBP of 8192 x 8192) stops costing time once the budget is spent."""

    def __init__(self, pixels: int):
        self.left, self.spent_out = pixels, 0
        self.lock = threading.Lock()

    def take(self, pixels: int) -> bool:
        with self.lock:
            if pixels > self.left:
                self.spent_out += 1
                return False
            self.left -= pixels
            return True


# A report decodes at most this many pixels (a fixture report, a few million; a full MLLM-CompBench
# release, some 40,000 images of about half a million pixels: 20 billion).
MAX_REPORT_PIXELS = 24_000_000_000


def _make_views(path: str, name: str, out: Path, budget: _Budget | None = None) -> bool | None:
    """The thumbnail and the full view of one image, unless both exist from an earlier report;
    False for an image that does not decode or that the report's pixel budget no longer covers,
    None for one that declares more than ``MAX_IMAGE_PIXELS`` pixels (read from its header,
    before any pixel is decoded)."""
    thumb, full = out / "thumbs" / name, out / "full" / name
    if thumb.is_file() and full.is_file():
        return True
    from PIL import Image

    try:
        # No other decoder: EPS would run Ghostscript.
        with Image.open(os.path.realpath(path), formats=untrusted.IMAGE_FORMATS) as image:
            width, height = image.size
            if width * height > untrusted.MAX_IMAGE_PIXELS:
                return None
            if budget is not None and not budget.take(width * height):
                return False
            _save_views(image.convert("RGB"), name, out)
    except Image.DecompressionBombError:
        return None
    except (OSError, ValueError):
        return False
    return True


def _video_frames(path: str, out: Path) -> list[str]:
    """``FRAMES`` frames of a video, sampled uniformly over its length (lmms-eval's video models
    sample ``max_frames_num`` frames the same way; the model's own count may differ), saved as
    thumbnails and full views once (named by the file's path, size, mtime and frame index). Only a
    file in a container our benchmarks use (``untrusted.video_container``, by its leading bytes) is
    handed to OpenCV's FFmpeg, which would otherwise pick its demuxer from the content."""
    base = _media_name(path)
    if base is None or untrusted.video_container(untrusted.file_head(path)) is None:
        return []
    names = [f"{base[:-4]}_f{i}.jpg" for i in range(FRAMES)]
    if all((out / "thumbs" / n).is_file() for n in names):
        return names
    import cv2
    from PIL import Image

    # FFmpeg alone: no pipeline, no image-sequence pattern.
    capture = cv2.VideoCapture(os.path.realpath(path), cv2.CAP_FFMPEG)
    try:
        count = int(capture.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        if (
            count <= 0
            or capture.get(cv2.CAP_PROP_FRAME_WIDTH) * capture.get(cv2.CAP_PROP_FRAME_HEIGHT)
            > untrusted.MAX_IMAGE_PIXELS
        ):
            return []
        found = []
        for name, index in zip(names, sorted({round(i * (count - 1) / max(1, FRAMES - 1)) for i in range(FRAMES)})):
            capture.set(cv2.CAP_PROP_POS_FRAMES, index)
            ok, frame = capture.read()
            if not ok:
                continue
            image = Image.fromarray(cv2.cvtColor(frame, cv2.COLOR_BGR2RGB))
            _save_views(image, name, out)
            found.append(name)
        return found
    finally:
        capture.release()


def _embedded(records: list[dict], out: Path, made: dict[str, bool]) -> None:
    """Items whose samples name no image file (CaptionQA embeds its images in parquet): the
    benchmark's ``report.item_images(task, keys)`` reads them from the data at hand; each is
    saved once under the sha256 of its pixels, and stands in the record as a pseudo-path."""
    wanted: dict[str, list[dict]] = {}
    for record in records:
        if not record["media"]:
            wanted.setdefault(record["task"], []).append(record)
    for task, found in wanted.items():
        benchmark = of_task(task)
        assert benchmark is not None  # a record is of a task of ours (``item_records.collect``)
        reader = benchmark.report_part().item_images
        if reader is None:
            continue
        images = reader(task, [r["key"] for r in found])
        for record in found:
            for image in images.get(record["key"], []):
                name = hashlib.sha256(image.tobytes()).hexdigest()[:24] + ".jpg"
                pseudo = f"embedded:{name}"
                if not (out / "thumbs" / name).is_file():
                    _save_views(image, name, out)
                record["media"].append(pseudo)
                made[pseudo] = True


# The names this module gives the files it makes (``_media_name``, a video's frames, an embedded
# image's sha256): an ``embedded:`` entry of a samples log is shown only when it is one of them
# and this report made it.
_OWN_NAME = re.compile(r"[0-9a-f]{24}(_f\d+)?\.jpg")


def _shown(path: str, images: dict[str, str], made: dict[str, bool]) -> str | None:
    """The file name under ``thumbs/`` and ``full/`` that shows a media entry, None where none does:
    an ``embedded:`` entry only when this report made it (a samples log's own ``embedded:../..``
    would point the page outside its folder)."""
    if path.startswith("embedded:"):
        name = path.split(":", 1)[1]
        return name if made.get(path) and _OWN_NAME.fullmatch(name) else None
    return images[path] if made.get(path) and path in images else None


def write(
    records: list[dict], runs: list, out: Path, workers: int | None = None, roots: list[Path] | None = None
) -> dict:
    """The browser's files under ``out``; returns counts (items, images made or reused, media
    withheld: named outside the data roots ``roots``, by default ``media_roots(runs)``)."""
    for sub in ("items", "thumbs", "full"):
        folder(out / sub)
    allowed: list[str | Path] = list(media_roots(runs) if roots is None else roots)
    images: dict[str, str] = {}
    withheld: set[str] = set()
    # The first run's media with any under the roots: a run naming none there cannot blank an item out.
    for record in records:
        options = record.pop("media_options", None) or [record["media"]]
        outside = [{p for p in m if not p.startswith("embedded:") and not untrusted.under(p, allowed)} for m in options]
        chosen = next((k for k, m in enumerate(options) if m and len(outside[k]) < len(m)), 0)
        record["media"] = options[chosen]
        # The other runs' media outside the roots: counted in the notes, never opened.
        withheld |= {p for k, paths in enumerate(outside) if k != chosen for p in paths}
    for record in records:
        for path in record["media"]:
            suffix = Path(path).suffix.lower()
            if path.startswith("embedded:") or suffix not in IMAGE_SUFFIXES | VIDEO_SUFFIXES or path in images:
                continue
            if not untrusted.under(path, allowed):
                withheld.add(path)
                continue
            if suffix in IMAGE_SUFFIXES:
                name = _media_name(path)
                if name:
                    images[path] = name
    from PIL import Image

    made: dict[str, bool] = {}
    too_large = 0
    # Pillow warns of a "decompression bomb" between its own limit and twice it; ours is checked
    # first (``_make_views``), so its warning would only repeat that on the console.
    budget = _Budget(MAX_REPORT_PIXELS)
    # One decode per file, however many paths name it.
    to_decode = {name: path for path, name in reversed(list(images.items()))}
    with warnings.catch_warnings(), ThreadPoolExecutor(max_workers=workers or min(4, os.cpu_count() or 1)) as pool:
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        done = dict(zip(to_decode, pool.map(lambda n: _make_views(to_decode[n], n, out, budget), to_decode)))
    for path, name in images.items():
        made[path] = bool(done[name])
        too_large += done[name] is None
    _embedded(records, out, made)
    for record in records:  # a video item: the frames, in the record's media, after the video's own entry
        for path in [m for m in record["media"] if Path(m).suffix.lower() in VIDEO_SUFFIXES and m not in withheld]:
            for name in _video_frames(path, out):
                record["media"].append(f"embedded:{name}")
                made[f"embedded:{name}"] = True
    tasks = sorted({r["task"] for r in records})
    categories = sorted({r["category"] for r in records})
    domains = sorted({r["domain"] for r in records})
    outcomes = ["right", "wrong", "partial", "failed", "unscored", "absent"]
    rows = []
    for number, record in enumerate(records):
        record["images"] = [_shown(p, images, made) for p in record["media"]]
        record["withheld"] = [k for k, p in enumerate(record["media"]) if p in withheld]
        state = [
            outcomes.index(record["runs"][i]["outcome"]) if i in record["runs"] else outcomes.index("absent")
            for i in range(len(runs))
        ]
        scores = [record["runs"][i]["score"] if i in record["runs"] else None for i in range(len(runs))]
        first = next((name for name in record["images"] if name), None)
        rows.append(
            [
                tasks.index(record["task"]),
                categories.index(record["category"]),
                domains.index(record["domain"]),
                record["benchmark"],
                state,
                scores,
                first,
            ]
        )
    index = {
        "runs": [r.name for r in runs],
        "tasks": tasks,
        "categories": categories,
        "domains": domains,
        "outcomes": outcomes,
        "chunk": CHUNK,
        "rows": rows,
    }
    write_file(
        out / "items" / "index.js",
        "window.LC_INDEX = " + json.dumps(index, separators=(",", ":")).replace("</", "<\\/") + ";\n",
    )
    for start in range(0, len(records), CHUNK):
        part = [
            {k: v for k, v in r.items() if k != "media"} | {"media": [os.path.basename(m) for m in r["media"]]}
            for r in records[start : start + CHUNK]
        ]
        text = (
            f"window.LC_CHUNK({start // CHUNK}, "
            + json.dumps(part, separators=(",", ":"), ensure_ascii=False).replace("</", "<\\/")
            + ");\n"
        )
        write_file(out / "items" / f"chunk_{start // CHUNK:05d}.js", text)
    return {
        "items": len(records),
        "images": len(images),
        "images_unreadable": sum(1 for ok in made.values() if not ok),
        "media_withheld": len(withheld),
        "images_too_large": too_large,
        "images_past_budget": budget.spent_out,
    }
