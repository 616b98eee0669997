"""The images of VLMEvalKit's VLM2Bench TSV as files: each row's base64 images (or, in a localized
TSV, its ``image_path`` list) decoded once and written atomically, named by the row's index."""

from __future__ import annotations

import ast
import base64
import binascii
import hashlib
import re
from pathlib import Path

from lmms_comparative.data import untrusted
from lmms_comparative.failures import DataError

MAGIC = (
    (b"\xff\xd8\xff", ".jpg"),
    (b"\x89PNG\r\n\x1a\n", ".png"),
    (b"GIF87a", ".gif"),
    (b"GIF89a", ".gif"),
    (b"BM", ".bmp"),
)
SAFE = re.compile(r"^[A-Za-z0-9._-]{1,80}$")


def image_list(value: str) -> list[str]:
    """toliststr (vlmeval/smp/misc.py): a Python list literal is a list, anything else one item."""
    if len(value) > 1 and value[0] == "[" and value[-1] == "]":
        try:
            parsed = ast.literal_eval(value)
        except (ValueError, SyntaxError) as exc:
            raise DataError(f"not a list of images ({type(exc).__name__})") from exc
        if not isinstance(parsed, (list, tuple)):
            raise DataError("not a list of images")
        return [str(x) for x in parsed]
    return [value]


def extension(blob: bytes) -> str:
    """File suffix for an image's bytes from their magic number; ``.img`` when the format is not recognised."""
    for magic, ext in MAGIC:
        if blob.startswith(magic):
            return ext
    if blob[:4] == b"RIFF" and blob[8:12] == b"WEBP":
        return ".webp"
    return ".img"  # PIL reads the content whatever the name; items.py names an unreadable one


def file_stem(index: str) -> str:
    """A file-name-safe stem for a row's index: the index itself when safe, else its first 60 characters
    with the unsafe ones replaced by ``_``, then ``-`` and 8 hex digits of its SHA-1."""
    if SAFE.match(index):
        return index
    return re.sub(r"[^A-Za-z0-9._-]", "_", index)[:60] + "-" + hashlib.sha1(index.encode()).hexdigest()[:8]


def write_images(value: str, index: str, cache: Path, where: str) -> list[str]:
    """Decode a row's base64 images into ``cache``; returns their names relative to it."""
    try:
        encoded = image_list(value)
    except DataError as exc:
        raise DataError(f"{where}: image field is {exc}.") from exc
    if not encoded:
        raise DataError(f"{where}: empty image list.")
    names = []
    for k, b64 in enumerate(encoded):
        try:
            blob = base64.b64decode(b64, validate=False)
        except (binascii.Error, ValueError) as exc:
            raise DataError(f"{where}: image {k + 1} is not base64 ({exc}).") from exc
        if not blob:
            raise DataError(f"{where}: image {k + 1} is empty.")
        name = f"{file_stem(index)}_{k}{extension(blob)}"
        write_atomic(cache / name, blob)
        names.append(name)
    return names


def image_paths(value: str, tsv: Path, where: str) -> list[str]:
    """A localized TSV's image_path entries as file paths (relative ones under the TSV's folder)."""
    try:
        paths = image_list(value)
    except DataError as exc:
        raise DataError(f"{where}: image_path is {exc}.") from exc
    return [str(p if Path(p).is_absolute() else tsv.parent / p) for p in paths]


def write_atomic(path: Path, blob: bytes) -> None:
    """Write ``blob`` to ``path`` through a temporary file renamed into place (``untrusted.write_file``);
    an identical file already there (a run cut short after writing it) is kept."""
    try:
        if path.stat().st_size == len(blob) and path.read_bytes() == blob:
            return
    except OSError:
        pass
    untrusted.write_file(path, blob)
