"""Reading the releases' JSON-lines files with errors that name the file and line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

from lmms_comparative.data import gate
from lmms_comparative.data.untrusted import MAX_JSON_BYTES, MAX_LOG_BYTES, Unsafe, loads, read_text
from lmms_comparative.failures import DataError


def read_records(path: str | Path) -> Iterator[tuple[str, dict]]:
    """(``file:line``, record) for every non-blank line; a line that is not a JSON object raises
    DataError naming where."""
    with open(path, encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, 1):
            if not line.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(f"{where}: not valid JSON ({exc.msg}).") from exc
            if not isinstance(record, dict):
                raise DataError(f"{where}: expected a JSON object, got {type(record).__name__}.")
            yield where, record


def json_file(path: str | Path, error: type[Exception], what: str, limit: int = MAX_JSON_BYTES):
    """A whole JSON file; ``error`` (one line naming the file) if it cannot be read or parsed, or is
    a link, past ``limit`` bytes or nested past ``untrusted.MAX_DEPTH`` (``data/untrusted.py``)."""
    try:
        return loads(read_text(path, limit))
    except Unsafe as exc:
        raise error(f"{path}: {exc}") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise error(f"{path}: not a readable {what} ({exc.__class__.__name__}: {exc})") from None


def json_lines(path: str | Path, error: type[Exception], what: str, limit: int = MAX_LOG_BYTES) -> list[dict]:
    """Every non-blank line of a JSON-lines file, each a JSON object, read line by line through the
    gate (``gate.json_lines``); ``error`` naming the file and line otherwise (a link, a file past
    ``limit`` bytes, a line nested too deep included). ``what``: the kind of file (unused: the line says it)."""
    path = Path(path)
    entry = gate.Entry(path.parent, (path.name,))
    return [row for _, row in gate.rows(entry, error, limit=limit)]
