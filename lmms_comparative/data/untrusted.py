"""A results folder as untrusted input (docs/security.md): ``verify``, ``report``, ``compare`` and
``export`` run on folders that strangers send, so what they read there and write there goes
through these functions, as a web server treats an upload.

- **No link is followed inside a submitted folder.** The listing (``gate.scan``) descends into
  no linked folder and takes no linked file, so a loop (``loop -> ..``) is walked once and a link
  out of the folder is never read; a file is opened with ``O_NOFOLLOW`` (a link in its place is
  refused) and must be a regular file (a FIFO would block the read forever).
- **Bounded reads.** A file past the size a real run writes is refused before it is read; JSON
  nested deeper than ``MAX_DEPTH`` is refused before it is parsed (Python's parser would raise
  ``RecursionError`` near depth 1,000, and every recursive function after it sooner).
- **No write through a link.** ``write_file`` writes a new file beside the target and renames it
  over the target: a link standing where the file goes is refused (``Unsafe``) and its target is
  never opened. ``write_image`` and ``write_figure`` encode a picture in memory for it.
- **Decoders by allow-list, text escaped.** An image is decoded only as one of ``IMAGE_FORMATS``,
  a video only in a container ``video_container`` knows by its leading bytes; a folder's string
  reaches a terminal only through ``printable``.

Every refusal is ``Unsafe`` with a one-line reason; callers put the file's name in front.
"""

from __future__ import annotations

import errno
import io
import os
import re
import stat
from pathlib import Path

# lmms-eval's results JSON nests about 8 levels (configs -> task -> metadata -> ...), a samples
# line about 6: 64 leaves room for any honest file and stops a forged one long before Python's limit.
MAX_DEPTH = 64
MIB = 1 << 20
# A results JSON of every task of ours with their configs is under 2 MiB; a verdict file smaller.
MAX_JSON_BYTES = 64 * MIB
# A samples log of the largest release (MLLM-CompBench's test split, about 40,000 items of a few
# KB each) is some 200 MiB; an answers or reader log is smaller.
MAX_LOG_BYTES = 1024 * MIB
# An image the report decodes for its thumbnails: 8192 x 8192 pixels (a 13000 x 13000 PNG of 37 KB
# takes 3 GB to decode; Pillow's own limit, 89.5 MP, only warns below twice that).
MAX_IMAGE_PIXELS = 8192 * 8192
# The image formats our benchmarks' data use, the only decoders Pillow may pick (``Image.open(...,
# formats=IMAGE_FORMATS)``): from the content alone it would pick among some forty, EPS among them,
# which runs Ghostscript on the file. JPEG: the releases of VLM-SubtleBench, MLLM-CompBench,
# VLM2-Bench and CaptionQA, ViDi's pairs; PNG: the same, DiffSpot, and every fixture and synthetic
# set; WEBP and BMP: ViDi's layouts and VLMEvalKit's VLM2-Bench TSV; GIF: that TSV. (Pillow opens a
# multi-picture JPEG, MPO, as JPEG.)
IMAGE_FORMATS = ("JPEG", "PNG", "WEBP", "BMP", "GIF")


class Unsafe(ValueError):
    """A file of a submitted folder that is not read or written as asked: the reason in one line."""


def _size(n: int) -> str:
    return f"{n / MIB:.1f} MiB" if n >= MIB else f"{n} bytes"


def read_bytes(path: str | Path, limit: int) -> bytes:
    """The bytes of a regular file that is not a link and holds at most ``limit`` bytes; ``Unsafe``
    otherwise; ``OSError`` (missing, unreadable) as ``open`` raises it."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Unsafe("a link: links inside a submitted folder are not followed") from None
        raise
    try:
        return read_open(fd, limit)
    finally:
        os.close(fd)


def regular(fd: int, limit: int) -> None:
    """``Unsafe`` unless the open ``fd`` is a regular file of at most ``limit`` bytes (a pipe would
    block a read forever; a device never ends)."""
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise Unsafe("not a regular file (a pipe, a device or a socket): not read")
    if info.st_size > limit:
        raise Unsafe(f"{_size(info.st_size)}, past the {_size(limit)} a real run writes: not read")


def read_open(fd: int, limit: int) -> bytes:
    """Every byte of the open ``fd`` (``regular``), at most ``limit`` of them (``Unsafe`` for a file
    that grew past it while being read)."""
    regular(fd, limit)
    chunks, total = [], 0
    while total <= limit:
        chunk = os.read(fd, min(limit + 1 - total, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    if total > limit:  # grew while being read
        raise Unsafe(f"past the {_size(limit)} a real run writes: not read")
    return b"".join(chunks)


def read_text(path: str | Path, limit: int) -> str:
    """``read_bytes`` decoded as UTF-8 (``UnicodeDecodeError`` for a file that is not)."""
    return read_bytes(path, limit).decode("utf-8")


# JSON numbers a results file or a samples line holds: scores, counts, doc ids and seeds. An
# integer past 18 digits is no count a run makes, and formatting one of 4,000 digits costs seconds.
MAX_INT_DIGITS = 18
# One string of a submitted file (a reply, a judge's explanation, a question): 4 MiB.
MAX_STRING_CHARS = 4 * MIB


def _bounded(value, limit: int):
    """``value`` when it nests at most ``limit`` deep and holds no integer past ``MAX_INT_DIGITS``
    digits and no string past ``MAX_STRING_CHARS``; ``Unsafe`` otherwise. One pass, no recursion."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            if depth > limit:
                raise Unsafe(f"JSON nested deeper than {limit} levels (no lmms-eval file nests so deep): not parsed")
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            if depth > limit:
                raise Unsafe(f"JSON nested deeper than {limit} levels (no lmms-eval file nests so deep): not parsed")
            stack.extend((v, depth + 1) for v in item)
        elif isinstance(item, int) and not isinstance(item, bool):
            if abs(item) >= 10**MAX_INT_DIGITS:
                raise Unsafe(
                    f"an integer of {len(str(abs(item)))} digits (no count or score of a run has more than"
                    f" {MAX_INT_DIGITS}): not read"
                )
        elif isinstance(item, str) and len(item) > MAX_STRING_CHARS:
            raise Unsafe(f"a string of {len(item):,} characters, past the {MAX_STRING_CHARS:,} a run writes: not read")
    return value


def loads(text: str | bytes, limit: int = MAX_DEPTH):
    """The JSON value of ``text``: parsed in linear time by pydantic-core's parser (its own
    recursion limit stops a deep file before Python's stack is touched), then bounded in depth,
    integer digits and string length (``_bounded``); ``Unsafe`` past a bound, ``ValueError`` for
    text that is not JSON. NaN and Infinity are read as lmms-eval's ``json.dumps`` writes them."""
    from pydantic_core import from_json  # pydantic is installed with lmms-eval; imported on first use

    try:
        value = from_json(text, allow_inf_nan=True, cache_strings="keys")
    except ValueError as exc:
        message = str(exc)
        if "recursion limit" in message:
            raise Unsafe(
                f"JSON nested deeper than {limit} levels (no lmms-eval file nests so deep): not parsed"
            ) from None
        raise ValueError(f"not valid JSON ({message})") from None
    if _plainly_bounded(text, limit):
        return value
    return _bounded(value, limit)


# Digits as "0", everything else as " ": a refused integer is then a run of "0"s, found by a
# substring search (a tenth of a regex's time on a samples line).
_DIGITS = bytes(48 if 48 <= code <= 57 else 32 for code in range(256))
_LONG_INT = b"0" * (MAX_INT_DIGITS + 1)


def _plainly_bounded(text: str | bytes, limit: int) -> bool:
    """Whether ``text`` is within ``_bounded``'s bounds on its face, without walking its value: no
    longer than a string may be, fewer brackets than the depth allows, no run of digits as long as
    a refused integer. Sufficient, never necessary: a text that fails it is walked."""
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    return (
        len(raw) <= MAX_STRING_CHARS
        and raw.count(b"{") + raw.count(b"[") <= limit
        and _LONG_INT not in raw.translate(_DIGITS)
    )


# What a terminal acts on instead of showing: the C0 controls (ESC opens an escape sequence: OSC 0
# retitles the window, OSC 52 writes the clipboard), DEL, the C1 controls (U+009B is a CSI in one
# character), the bidi controls that reorder a line as it is shown (U+061C, U+200E, U+200F,
# U+202A-U+202E, U+2066-U+2069: "Trojan Source", CVE-2021-42574), the line and paragraph
# separators, and lone surrogates (a JSON "\ud800", which no terminal encoding can write).
_NOT_C0 = "\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff"
CONTROL = re.compile(f"[\x00-\x1f{_NOT_C0}]")
_CONTROL_BUT_LINES = re.compile(f"[\x00-\x08\x0b-\x1f{_NOT_C0}]")  # tab and line feed kept


def _escaped(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, lines: bool = True) -> str:
    """``text`` of a submitted folder for a terminal: every ``CONTROL`` character (an escape
    sequence in a file name could rewrite the maintainer's screen or clipboard) shown as ``\\xNN``
    or ``\\uNNNN``. ``lines``: tabs and line feeds kept (a whole output stream, ``verify``'s); else
    escaped too (one value on one line)."""
    return (_CONTROL_BUT_LINES if lines else CONTROL).sub(_escaped, text)


def video_container(head: bytes) -> str | None:
    """The container of a video file that starts with ``head`` (its first 12 bytes or more), where
    it is one our benchmarks use; None for anything else, which no decoder is handed. VLM2-Bench's
    videos are MP4; its loader also takes .mov, .mkv, .webm and .avi (``records.VIDEO_SUFFIXES``).
    FFmpeg picks its demuxer from the content: an HLS playlist or a concat list named ``.mp4`` would
    have it open other files or URLs."""
    if head[4:8] == b"ftyp":
        return "mp4"  # ISO base media: MP4, MOV
    if head[:4] == b"\x1a\x45\xdf\xa3":
        return "matroska"  # MKV, WebM
    if head[:4] == b"RIFF" and head[8:12] == b"AVI ":
        return "avi"
    return None


def file_head(path: str | os.PathLike, size: int = 16) -> bytes:
    """The first ``size`` bytes of the regular file ``path`` (its links resolved, as the data roots'
    check resolves them: a hub cache links each file to its blob), read without waiting; b"" for
    anything else (missing, unreadable, a pipe put there since)."""
    try:
        fd = os.open(os.path.realpath(path), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except (OSError, ValueError):
        return b""
    try:
        return os.read(fd, size) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
    except OSError:
        return b""
    finally:
        os.close(fd)


def is_link(path: str | Path) -> bool:
    """Whether ``path`` itself is a link (dangling or not)."""
    return os.path.islink(path)


def write_file(path: str | Path, data: str | bytes) -> None:
    """``data`` (text as UTF-8) as the file ``path``, never through a link: a new file beside it
    (created exclusively, no link followed) renamed over it. ``Unsafe`` when a link or anything
    but a regular file stands at ``path``; ``OSError`` when the folder cannot be written."""
    path = Path(path)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    if info is not None and stat.S_ISLNK(info.st_mode):
        raise Unsafe("a link stands where this file goes: not written through it (remove the link)")
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise Unsafe("something that is not a regular file stands where this file goes: not written")
    payload = data.encode("utf-8") if isinstance(data, str) else data
    temporary = (
        path.parent / f".{path.name}.{os.urandom(6).hex()}.tmp"
    )  # os, not secrets: the entry point imports this module
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(temporary, flags, 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def write_image(path: str | Path, image) -> None:
    """A PIL ``image`` as the file ``path`` through ``write_file``, in the format its suffix names:
    encoded in memory first (``save`` given a path opens it itself, through a link or into a pipe)."""
    from PIL import Image

    buffer = io.BytesIO()
    image.save(buffer, Image.registered_extensions()[Path(path).suffix.lower()])
    write_file(path, buffer.getvalue())


def write_figure(path: str | Path, figure, **options) -> None:
    """A matplotlib ``figure`` as the PNG file ``path`` through ``write_file`` (``options``: those of
    ``savefig``): rendered in memory first, as ``write_image``."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", **options)
    write_file(path, buffer.getvalue())


def make_folder(path: str | Path) -> Path:
    """The folder ``path`` (made with its parents where missing); ``Unsafe`` when a link or a file
    stands there (a report's ``thumbs/`` linked elsewhere would write there)."""
    path = Path(path)
    if os.path.islink(path):
        raise Unsafe("a link stands where this folder goes: not written through it (remove the link)")
    path.mkdir(parents=True, exist_ok=True)
    return path


def under(path: str | Path, roots: list[str | Path]) -> bool:
    """Whether ``path``, every link in it resolved, lies inside one of ``roots`` (resolved too)."""
    try:
        real = Path(os.path.realpath(path))
    except (OSError, ValueError):
        return False
    for root in roots:
        base = Path(os.path.realpath(root))
        if real == base or base in real.parents:
            return True
    return False


class PrintableStream:
    """A stream whose text has its control characters shown as escapes (``printable``, line breaks
    kept): what a command prints of a submitted folder reaches the maintainer's terminal so."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, text: str) -> int:
        return self.stream.write(printable(text))

    def flush(self) -> None:
        self.stream.flush()
