"""Per-item rows a task's scoring pass computes beyond the samples (CaptionQA's reader answers),
handed over here by the hooks (``add``) and written beside the task's samples log as
``<date>_<name>_<task>.jsonl`` by the harness (``harness/save_side_logs.py`` patches lmms-eval's tracker
to call ``write``). A benchmark declares the names of its side logs in its record."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from lmms_comparative.data import untrusted

_pending: dict[str, dict[str, list[dict]]] = {}
_lock = threading.Lock()


def add(task: str, name: str, rows: list[dict]) -> None:
    """Rows to write beside ``task``'s samples log as ``<date>_<name>_<task>.jsonl``."""
    with _lock:
        _pending.setdefault(task, {})[name] = list(rows)


def pending(task: str) -> dict[str, list[dict]]:
    """The rows handed over for ``task`` and not yet written, by log name (a copy; empty when none)."""
    with _lock:
        return dict(_pending.get(task, {}))


def write(folder: Path, date_id: str, task: str) -> list[Path]:
    """Write (and forget) the rows handed over for ``task``; the paths written."""
    with _lock:
        logs = _pending.pop(task, {})
    written = []
    for name, rows in logs.items():
        path = folder / f"{date_id}_{name}_{task}.jsonl"
        untrusted.write_file(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
        written.append(path)
    return written
