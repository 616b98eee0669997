"""The opening of a file that ``lmms-comparative score`` may read replies from, for a benchmark's
predictions part to recognise its format (``record.PredictionsPart.detect``)."""

from __future__ import annotations

from pathlib import Path


def text_opening(path: Path, suffix: str, size: int | None = None) -> str | None:
    """The first line of the file ``path`` (with ``size``: its first ``size`` characters) where its
    name ends in ``suffix``; None for another ending, a folder, or a file that cannot be read as
    UTF-8 text."""
    if path.suffix != suffix or path.is_dir():
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.readline() if size is None else handle.read(size)
    except (OSError, UnicodeDecodeError):
        return None
