"""A submitted folder edited as a stranger would (docs/security.md): copies of a run that verifies
PASS with links, deep JSON, hostile names and media paths, and the image files those need."""

from __future__ import annotations

import json
import shutil
import struct
import zlib
from pathlib import Path


def copy(run: Path, to: Path) -> tuple[Path, dict, dict[str, Path]]:
    """A copy of ``run`` at ``to`` without its verdicts: the results file, its JSON, its samples logs by task."""
    shutil.copytree(run, to, ignore=shutil.ignore_patterns("*_verify.json"))
    results = next(to.glob("*_results.json"))
    samples = {p.stem.split("_samples_", 1)[1]: p for p in to.glob("*_samples_*.jsonl")}
    return results, json.loads(results.read_text()), samples


def save(path: Path, document: dict) -> None:
    path.write_text(json.dumps(document))


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def write_rows(path: Path, found: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in found))


def png(width: int, height: int, grey: int = 0) -> bytes:
    """A valid greyscale PNG of any declared size, small on disk (one zlib stream of equal rows):
    13000 x 13000 is 164 KB and would take gigabytes to decode."""
    row = b"\x00" + bytes([grey]) * width
    compressor = zlib.compressobj(9)
    data = b"".join(compressor.compress(row) for _ in range(height)) + compressor.flush()

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
        + chunk(b"IDAT", data)
        + chunk(b"IEND", b"")
    )


def deep_json(depth: int = 200_000) -> str:
    """An array nested ``depth`` deep: Python's parser raises RecursionError on it."""
    return "[" * depth + "]" * depth


def deep_results(folder: Path) -> Path:
    """A results file in ``folder`` (made here) whose JSON nests too deep to parse: its path."""
    folder.mkdir(parents=True)
    path = folder / "20260101_000000_results.json"
    path.write_text(deep_json())
    return path
