"""The opening of a file that ``lmms-comparative score`` may read replies from, for a benchmark's
predictions part to recognise its format (``record.PredictionsPart.detect``)."""

from __future__ import annotations

import codecs
from pathlib import Path

from lmms_comparative.data.gate_entry import MAX_LINE_BYTES, Entry
from lmms_comparative.data.untrusted import Unsafe


def text_opening(path: Path, suffix: str, size: int | None = None) -> str | None:
    """The first line of the file ``path`` (with ``size``: its first ``size`` characters) where its
    name ends in ``suffix``; None for another ending, a folder, or a file that cannot be read as
    UTF-8 text. Read through the gate, as the file's reader reads it (``data/gate_entry.py``: no
    link followed, a regular file, a line at most ``MAX_LINE_BYTES``): a pipe named like a replies
    file would otherwise hold ``score`` forever."""
    if path.suffix != suffix or path.is_dir():
        return None
    entry = Entry(path.parent, (path.name,))
    try:
        raw = (
            entry.head(MAX_LINE_BYTES, b"\n") if size is None else entry.head(4 * size)
        )  # UTF-8: at most 4 a character
        text = codecs.getincrementaldecoder("utf-8")().decode(raw)  # a character cut at the end is left out
    except (Unsafe, OSError, UnicodeDecodeError):
        return None
    return text if size is None else text[:size]
