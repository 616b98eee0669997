"""Item-level problems: an item whose image or record is unusable is skipped and counted.

The official pipelines skip an item they cannot read and go on with the rest; so do we. A loader
collects what it skips in a ``Skips`` (reason -> the item ids or paths), the task's docs carry
the counts (so every rank's results and the samples show them), each skip is named in a warning,
and a task that skips more than ``LMMS_COMPARATIVE_MAX_FAILED`` of its items flags the run.

Images are checked before the model sees them, because lmms-eval decodes truncated files with
black fill (``lmms_eval/api/task.py`` sets ``ImageFile.LOAD_TRUNCATED_IMAGES = True`` for the whole
process): a file cut short is found by its missing end marker (JPEG ``FFD9``, PNG ``IEND``), a
decompression bomb by PIL's own limit, anything else by a header parse.
"""

from __future__ import annotations

import io
import json
import os
import threading
import warnings
from collections import defaultdict
from pathlib import Path
from typing import Callable, Iterable

from PIL import Image

# Reasons, as they appear in the results (``counts.skipped_by_reason``).
MISSING, EMPTY, UNREADABLE, TRUNCATED, BOMB, RECORD = "missing image", "empty image file", "unreadable image", "truncated image", "decompression bomb", "malformed record"
SHORT_VIDEO = "video shorter than the model samples"

_PNG_END = b"IEND\xaeB`\x82"

# Set by ``lmms-comparative score``: the run scores replies read from files, no model opens an
# image, so the loaders neither check nor fetch image files (a record names its image as given).
NO_IMAGES_ENV = "LMMS_COMPARATIVE_NO_IMAGES"


def images_needed() -> bool:
    """False in a run that never opens an image (``NO_IMAGES_ENV`` set to a true value)."""
    return os.environ.get(NO_IMAGES_ENV, "").strip().lower() in ("", "0", "false", "no")


_checked: dict[tuple, str | None] = {}
_checked_lock = threading.Lock()


def image_bytes_problem(data: bytes) -> str | None:
    """Why these image bytes are unusable (a reason above), or None."""
    if not data:
        return EMPTY
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                kind = image.format
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        return BOMB
    except Exception:  # noqa: BLE001 - PIL raises many types for a file it cannot parse
        return UNREADABLE
    tail = data[-64:].rstrip(b"\x00\r\n ")  # some writers pad after the end marker
    if kind == "JPEG" and not tail.endswith(b"\xff\xd9"):
        return TRUNCATED
    if kind == "PNG" and not tail.endswith(_PNG_END):
        return TRUNCATED
    return None


def image_file_problem(path: str | os.PathLike) -> str | None:
    """Why the image file at ``path`` is unusable, or None; checked once per file version."""
    try:
        stat = os.stat(path)
    except OSError:
        return MISSING
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    with _checked_lock:
        if key in _checked:
            return _checked[key]
    if stat.st_size == 0:
        problem = EMPTY
    else:
        try:
            problem = image_bytes_problem(Path(path).read_bytes())
        except OSError:
            problem = UNREADABLE
    with _checked_lock:
        _checked[key] = problem
    return problem


def open_image_bytes(data: bytes, where: str) -> Image.Image:
    """Decode embedded image bytes as RGB through the same checks as files; raises ValueError
    naming ``where`` and the reason."""
    problem = image_bytes_problem(data)
    if problem:
        raise ValueError(f"{where}: {problem}")
    with Image.open(io.BytesIO(data)) as image:
        return image.convert("RGB")


class Skips:
    """What one load skipped: reason -> [item id or path, ...]."""

    def __init__(self) -> None:
        self.by_reason: dict[str, list[str]] = defaultdict(list)

    def add(self, reason: str, what: str) -> None:
        self.by_reason[reason].append(what)

    def __len__(self) -> int:
        return sum(len(v) for v in self.by_reason.values())

    def counts(self) -> dict[str, int]:
        return {reason: len(v) for reason, v in sorted(self.by_reason.items())}

    def as_json(self) -> str:
        return json.dumps(self.counts(), sort_keys=True)


def drop_bad_images(docs: list[dict], paths: Callable[[dict], Iterable[str]], item_id: Callable[[dict], str], skips: Skips) -> list[dict]:
    """The docs whose every image is usable; the others are added to ``skips`` with the first
    problem found (``image path: reason``)."""
    kept = []
    for doc in docs:
        for path in paths(doc):
            problem = image_file_problem(path)
            if problem:
                skips.add(problem, f"{item_id(doc)} ({path})")
                break
        else:
            kept.append(doc)
    return kept


def skipped_counts(items: list[dict]) -> dict[str, int]:
    """The skip counts a task's docs carried (every sample of a task carries the same)."""
    for it in items:
        raw = it.get("skipped")
        if raw:
            return json.loads(raw)
    return {}


_active = threading.local()


class collecting:
    """``with collecting(skips):`` routes ``skip(...)`` calls of the loaders run inside to ``skips``."""

    def __init__(self, skips: Skips) -> None:
        self.skips = skips

    def __enter__(self) -> Skips:
        self.previous = getattr(_active, "skips", None)
        _active.skips = self.skips
        return self.skips

    def __exit__(self, *exc) -> None:
        _active.skips = self.previous


def video_frames(path: str | os.PathLike) -> int | None:
    """The number of frames in a video file (decoded with PyAV, which lmms-eval brings); None if
    it cannot be read."""
    try:
        import av

        with av.open(str(path)) as container:
            stream = container.streams.video[0]
            if stream.frames:
                return int(stream.frames)
            return sum(1 for _ in container.decode(stream))
    except Exception:  # noqa: BLE001 - an unreadable video is reported by whoever reads it
        return None


def skip(reason: str, what: str) -> None:
    """Record a skipped item in the load being collected (a loader called outside a task hook
    skips silently)."""
    skips = getattr(_active, "skips", None)
    if skips is not None:
        skips.add(reason, what)
