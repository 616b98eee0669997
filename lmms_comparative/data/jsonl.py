"""Reading the releases' JSON-lines files with errors that name the file and line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

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
