"""A file the gate found (``Entry``), and how its bytes are read: opened by descriptor, component by
component, with no link followed, checked to be a regular file, and read at most to its bound
(``read_bytes``), or line by line, each line bounded (``lines``). The gate (``data/gate.py``) hands
out entries; nothing else opens a file of a submitted folder."""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from lmms_comparative.data.untrusted import MAX_LOG_BYTES, Unsafe, printable, read_open, regular

# One line of a log: a samples line holds a doc's fields, the prompt and the replies (well under 1 MiB).
MAX_LINE_BYTES = 16 << 20
# Lines of one log: the largest release (MLLM-CompBench's test split) has about 40,000 items.
MAX_LINES = 2_000_000

NOT_FOLLOWED = "a link: not followed (links inside a submitted folder are never followed)"

_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)


def _size(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB" if n >= 1 << 20 else f"{n} bytes"


@dataclass(frozen=True)
class Entry:
    """A regular file the gate found: the folder the caller gave (``base``, the caller's own and
    possibly a link) and the names below it. Its bytes are read only through ``read_bytes``."""

    base: Path
    parts: tuple[str, ...]

    @property
    def path(self) -> Path:
        """Where it is, for messages and for the caller's own output paths (never opened as is)."""
        return self.base.joinpath(*self.parts)

    @property
    def name(self) -> str:
        return self.parts[-1]

    def shown(self) -> str:
        """The path for a terminal or a page: control and bidi characters escaped."""
        return printable(str(self.path), lines=False)

    def read_bytes(self, limit: int) -> bytes:
        """The file's bytes, opened with no link followed anywhere below ``base``; ``Unsafe`` for a
        link, a file that is no longer regular, or one past ``limit`` bytes."""
        fd = _open(self.base, self.parts)
        try:
            return read_open(fd, limit)
        finally:
            os.close(fd)

    def head(self, size: int, stop: bytes | None = None) -> bytes:
        """The file's first ``size`` bytes (all of a shorter file), or with ``stop`` those up to and
        including its first occurrence among them: what a format's check reads, opened as
        ``read_bytes`` opens (no link followed, a regular file: a pipe would never answer)."""
        fd = _open(self.base, self.parts)
        try:
            regular(fd, MAX_LOG_BYTES)
            chunks: list[bytes] = []
            total = 0
            while total < size:
                chunk = os.read(fd, min(size - total, 1 << 16))
                if not chunk:
                    break
                chunks.append(chunk)
                total += len(chunk)
                if stop is not None and stop in chunk:
                    break
        finally:
            os.close(fd)
        found = b"".join(chunks)
        end = found.find(stop) if stop is not None else -1
        return found[: end + len(stop)] if stop is not None and end >= 0 else found

    def lines(self, limit: int = MAX_LOG_BYTES) -> Iterator[tuple[int, bytes]]:
        """(line number, bytes) of every non-blank line, read in blocks, each block searched once
        for line ends (a line split over many blocks is joined once: linear in the file); a line
        past ``MAX_LINE_BYTES`` or a file past ``MAX_LINES`` lines is ``Unsafe``, as ``read_bytes``."""
        fd = _open(self.base, self.parts)
        try:
            regular(fd, limit)
            total, number, held = 0, 0, 0
            pending: list[bytes] = []  # the pieces of a line that runs past the block read
            while chunk := os.read(fd, 1 << 20):
                total += len(chunk)
                if total > limit:
                    raise Unsafe(f"past the {_size(limit)} a real run writes: not read")
                start = 0
                while (end := chunk.find(b"\n", start)) >= 0:
                    line = b"".join([*pending, chunk[start:end]]) if pending else chunk[start:end]
                    pending, held, start, number = [], 0, end + 1, number + 1
                    if number > MAX_LINES:
                        raise Unsafe(
                            f"more than {MAX_LINES:,} lines (no run of these benchmarks writes so many): not read"
                        )
                    if len(line) > MAX_LINE_BYTES:
                        raise Unsafe(
                            f"line {number}: {_size(len(line))}, past the {_size(MAX_LINE_BYTES)}"
                            " a line of a run holds: not read"
                        )
                    if line.strip():
                        yield number, line
                pending.append(chunk[start:])
                held += len(chunk) - start
                if held > MAX_LINE_BYTES:
                    raise Unsafe(f"line {number + 1}: past the {_size(MAX_LINE_BYTES)} a line of a run holds: not read")
            line = b"".join(pending)
            if line.strip():
                yield number + 1, line
        finally:
            os.close(fd)


def _open(base: Path, parts: tuple[str, ...]) -> int:
    """A descriptor of ``base/parts...``: each folder below ``base`` opened with ``O_NOFOLLOW``
    relative to the one above it (``open_folder``), the file too (``base`` itself is the caller's)."""
    try:
        folder = open_folder(base, parts[:-1])
    except OSError as exc:
        raise Unsafe(
            NOT_FOLLOWED
            if exc.errno in (errno.ELOOP, errno.ENOTDIR)
            else f"its folder cannot be opened ({exc.strerror})"
        ) from None
    try:
        return os.open(parts[-1], _READ_FLAGS, dir_fd=folder)
    except OSError as exc:
        raise Unsafe(
            NOT_FOLLOWED if exc.errno in (errno.ELOOP, errno.ENOTDIR) else f"cannot be read ({exc.strerror})"
        ) from None
    finally:
        os.close(folder)


def open_folder(base: Path, parts: tuple[str, ...]) -> int:
    """A descriptor of the folder ``base/parts...``, each folder below ``base`` opened with
    ``O_NOFOLLOW`` relative to the one above it (``base`` itself is the caller's)."""
    folder = os.open(base, _DIR_FLAGS & ~getattr(os, "O_NOFOLLOW", 0))
    try:
        for name in parts:
            inner = os.open(name, _DIR_FLAGS, dir_fd=folder)
            os.close(folder)
            folder = inner
        return folder
    except BaseException:
        os.close(folder)
        raise
