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

import errno
import io
import json
import os
import struct
import threading
import warnings
import zlib
from collections import defaultdict
from typing import Callable, Iterable

from PIL import Image

from lmms_comparative.data.untrusted import IMAGE_FORMATS

# Reasons, as they appear in the results (``counts.skipped_by_reason``).
MISSING, EMPTY, UNREADABLE, TRUNCATED, BOMB, RECORD = (
    "missing image",
    "empty image file",
    "unreadable image",
    "truncated image",
    "decompression bomb",
    "malformed record",
)
SHORT_VIDEO = "video shorter than the model samples"

_PNG_END = b"IEND\xaeB`\x82"

# Set by ``lmms-comparative score``: the run scores replies read from files, no model opens an
# image, so the loaders neither check nor fetch image files (a record names its image as given).
NO_IMAGES_ENV = "LMMS_COMPARATIVE_NO_IMAGES"


def images_needed() -> bool:
    """False in a run that never opens an image (``NO_IMAGES_ENV`` set to a true value)."""
    return os.environ.get(NO_IMAGES_ENV, "").strip().lower() in ("", "0", "false", "no")


# path -> (modification time, size, verdict) of the version checked
_checked: dict[str, tuple[int, int, str | None]] = {}
_checked_lock = threading.Lock()


_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# JPEG markers without a length field (SOI, EOI, RSTn, TEM); SOF markers carry the image size.
_JPEG_STANDALONE = {0xD8, 0xD9, 0x01, *range(0xD0, 0xD8)}
_JPEG_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


# Big-endian fields, read in place (a few times faster than slicing and int.from_bytes).
_LENGTH_TYPE = struct.Struct(">I4s").unpack_from
_U32 = struct.Struct(">I").unpack_from
_U32_PAIR = struct.Struct(">II").unpack_from
_MARKER_LENGTH = struct.Struct(">BBH").unpack_from
_U16_PAIR = struct.Struct(">HH").unpack_from


def _size_ok(width: int, height: int) -> bool:
    return 0 < width * height <= (Image.MAX_IMAGE_PIXELS or float("inf"))


def _png_header_ok(data: bytes) -> bool:
    """The chunks before the image data well formed (length, type, CRC), as PIL reads them on
    open, and the size within PIL's limit."""
    pos, size, n = 8, None, len(data)
    while pos + 8 <= n:
        length, kind = _LENGTH_TYPE(data, pos)
        if kind == b"IDAT":
            return size is not None and _size_ok(*size)
        end = pos + 8 + length
        if end + 4 > n or not kind.isalpha() or zlib.crc32(data[pos + 4 : end]) != _U32(data, end)[0]:
            return False
        if kind == b"IHDR":
            if length != 13:
                return False
            size = _U32_PAIR(data, pos + 8)
        pos = end + 4
    return False


def _jpeg_header_ok(data: bytes) -> bool:
    """The marker segments up to the scan well formed, a frame header among them, and the size
    within PIL's limit."""
    pos, size, n = 2, None, len(data)
    while pos + 4 <= n:
        prefix, marker, length = _MARKER_LENGTH(data, pos)
        if prefix != 0xFF:
            return False
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker in _JPEG_STANDALONE:
            pos += 2
            continue
        if length < 2 or pos + 2 + length > n:
            return False
        if marker in _JPEG_SOF and length >= 8:
            height, width = _U16_PAIR(data, pos + 5)
            size = (width, height)
        if marker == 0xDA:  # start of scan: the header is over
            return size is not None and _size_ok(*size)
        pos += 2 + length
    return False


def _clean_header(data: bytes) -> str | None:
    """ "PNG" or "JPEG" when the file's header is one PIL opens without complaint, read without
    PIL (several times faster on small files); None sends the bytes to PIL."""
    if data.startswith(_PNG_SIGNATURE):
        return "PNG" if _png_header_ok(data) else None
    if data.startswith(b"\xff\xd8\xff"):
        return "JPEG" if _jpeg_header_ok(data) else None
    return None


def _end_problem(kind: str, tail: bytes) -> str | None:
    """TRUNCATED when a PNG or JPEG lacks its end marker (some writers pad after it)."""
    tail = tail.rstrip(b"\x00\r\n ")
    return TRUNCATED if not tail.endswith(_PNG_END if kind == "PNG" else b"\xff\xd9") else None


def image_bytes_problem(data: bytes) -> str | None:
    """Why these image bytes are unusable (a reason above), or None. The two common formats are
    read by their headers (a clean header is what PIL needs to open them); anything else, or a
    header that is not clean, goes to PIL."""
    if not data:
        return EMPTY
    kind = _clean_header(data)
    if kind is not None:
        return _end_problem(kind, data[-64:])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data), formats=IMAGE_FORMATS) as image:  # our data's formats only
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


def file_lister() -> Callable[[str], bool]:
    """``present(path)``: whether ``path`` names a file, answered from one listing of each folder
    asked about. A loader that looks for tens of thousands of images (or tries several folders for
    each) makes one call per folder instead of one ``stat`` per path. The listings are taken when
    first asked and kept by the returned function only: make one per load."""
    listings: dict[str, set[str]] = {}

    def present(path: str) -> bool:
        folder, _, name = str(path).rpartition(os.sep)
        names = listings.get(folder)
        if names is None:
            try:
                with os.scandir(folder or os.curdir) as entries:
                    names = {e.name for e in entries if e.is_file()}
            except OSError:  # no such folder, or not one
                names = set()
            listings[folder] = names
        return name in names

    return present


# What an open failing with these means: nothing is there (``os.stat`` failing, as before).
_GONE = {errno.ENOENT, errno.ENOTDIR, errno.ENAMETOOLONG, errno.ELOOP}


def image_file_problem(path: str | os.PathLike) -> str | None:
    """Why the image file at ``path`` is unusable, or None; checked once per file version. A file
    seen before costs one ``stat`` (its version compared with the one checked); a new one is
    opened first and its version read from the open file (one path lookup, not two)."""
    key = str(path)
    with _checked_lock:
        seen = _checked.get(key)
    if seen is not None:
        try:
            stat = os.stat(key)
        except OSError:
            stat = None
        if stat is not None and (stat.st_mtime_ns, stat.st_size) == seen[:2]:
            return seen[2]
    # os-level calls: no file object per image (a third of the cost of each check on small files).
    try:
        fd = os.open(key, os.O_RDONLY)
    except OSError as exc:
        return MISSING if exc.errno in _GONE else UNREADABLE
    try:
        stat = os.fstat(fd)
        problem = EMPTY if stat.st_size == 0 else _fd_problem(fd, stat.st_size)
    except OSError:
        return UNREADABLE
    finally:
        os.close(fd)
    with _checked_lock:
        _checked[key] = (stat.st_mtime_ns, stat.st_size, problem)
    return problem


FIRST_BYTES = 1 << 12  # the header of most images (a photo's EXIF can be longer)
HEAD_BYTES = 1 << 16  # enough for the header of almost every PNG and JPEG


def _file_problem(path, size: int) -> str | None:
    """``image_bytes_problem`` of a file, reading its head and its last bytes only where the head
    holds a clean header (the whole file otherwise)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        return _fd_problem(fd, size)
    finally:
        os.close(fd)


def _pread(fd: int, count: int, offset: int) -> bytes:
    """Up to ``count`` bytes from ``offset`` (fewer only at the end of the file)."""
    parts, got = [], 0
    while got < count:
        part = os.pread(fd, count - got, offset + got)
        if not part:
            break
        parts.append(part)
        got += len(part)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _fd_problem(fd: int, size: int) -> str | None:
    return _head_and_end_problem(lambda count, offset: _pread(fd, count, offset), size)


def buffer_problem(data: memoryview) -> str | None:
    """``image_bytes_problem`` of image bytes held in a buffer (an image embedded in a parquet
    column), reading only its head and end where the head holds a clean header, as for files."""
    return _head_and_end_problem(lambda count, offset: bytes(data[offset : offset + count]), len(data))


def _head_and_end_problem(read: Callable[[int, int], bytes], size: int) -> str | None:
    """``image_bytes_problem`` of ``size`` bytes that ``read(count, offset)`` gives: the first
    ``FIRST_BYTES``, then up to ``HEAD_BYTES`` if the header is not over in them; with a clean
    header, the last 64 bytes (the end marker); else every byte, to PIL."""
    head = read(min(FIRST_BYTES, HEAD_BYTES, size), 0)
    kind = _clean_header(head) if size > len(head) else None
    if kind is None and size > len(head) and len(head) < HEAD_BYTES:
        head += read(min(HEAD_BYTES, size) - len(head), len(head))
        kind = _clean_header(head) if size > len(head) else None
    if size <= len(head):
        return image_bytes_problem(head)
    if kind is not None:
        return _end_problem(kind, read(64, size - 64))
    return image_bytes_problem(read(size, 0))


def open_image_bytes(data: bytes, where: str) -> Image.Image:
    """Decode embedded image bytes as RGB through the same checks as files; raises ValueError
    naming ``where`` and the reason."""
    problem = image_bytes_problem(data)
    if problem:
        raise ValueError(f"{where}: {problem}")
    with Image.open(io.BytesIO(data), formats=IMAGE_FORMATS) as image:
        return image.convert("RGB")


class Skips:
    """What one load skipped: reason -> [item id or path, ...]."""

    def __init__(self) -> None:
        self.by_reason: dict[str, list[str]] = defaultdict(list)

    def add(self, reason: str, what: str) -> None:
        """Record that ``what`` (an item) was skipped for ``reason``."""
        self.by_reason[reason].append(what)

    def __len__(self) -> int:
        return sum(len(v) for v in self.by_reason.values())

    def counts(self) -> dict[str, int]:
        """{reason: how many items} skipped."""
        return {reason: len(v) for reason, v in sorted(self.by_reason.items())}

    def as_json(self) -> str:
        """The counts as the JSON string every doc carries in its ``skipped`` field."""
        return json.dumps(self.counts(), sort_keys=True)


def drop_bad_images(
    docs: list[dict],
    paths: Callable[[dict], Iterable[str]],
    item_id: Callable[[dict], str],
    skips: Skips,
    dropped: list | None = None,
) -> list[dict]:
    """The docs whose every image is usable; the others are added to ``skips`` with the first
    problem found (``image path: reason``), and, with ``dropped``, to it as (doc, reason)."""
    kept = []
    for doc in docs:
        for path in paths(doc):
            problem = image_file_problem(path)
            if problem:
                skips.add(problem, f"{item_id(doc)} ({path})")
                if dropped is not None:
                    dropped.append((doc, problem))
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
    return None  # not reached: PyAV is untyped, so mypy takes its container for one that may swallow an error


def drop_short_videos(
    docs: list[dict], videos: Callable[[dict], list[str]], key: Callable[[dict], str], wanted: int | None
) -> list[dict]:
    """The docs whose every video has at least ``wanted`` frames (``capabilities.frames_sampled``:
    the fixed count the run's model samples; None keeps every doc). A model that samples a fixed
    count (lmms-eval's openai model: ``max_frames_num``, 10) cannot take a shorter video:
    qwen_vl_utils refuses it and the whole run would end; such a video is an item-level problem,
    skipped, named and counted."""
    if not wanted:
        return docs
    kept = []
    for doc in docs:
        short = [(v, n) for v in videos(doc) if (n := video_frames(v)) is not None and n < wanted]
        if short:
            shown = "; ".join(f"{v} has {n} frames" for v, n in short)
            skip(
                SHORT_VIDEO,
                f"{key(doc)}: {shown} and the model samples {wanted} "
                f"(--model_args max_frames_num={min(n for _, n in short)} or fewer, or video_fps, would take it)",
            )
        else:
            kept.append(doc)
    return kept


def skip(reason: str, what: str) -> None:
    """Record a skipped item in the load being collected (a loader called outside a task hook
    skips silently)."""
    skips = getattr(_active, "skips", None)
    if skips is not None:
        skips.add(reason, what)
