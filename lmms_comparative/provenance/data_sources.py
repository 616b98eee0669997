"""Where each benchmark's data came from in this process (``note_local``, ``note_hub``, noted by the
loaders as they read), the data record of a task (``data_of``: its source and fingerprint) and its
item set (``item_set``)."""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

from lmms_comparative.provenance.data_fingerprint import file_sha256, fingerprint

_lock = threading.Lock()
_sources: dict[str, dict] = {}  # root variable -> where its data came from


def note_local(variable: str, root: Path, generated: dict | None = None) -> None:
    """A loader read its data from the local copy ``variable`` names; ``generated``: the marker of
    data this package made up, found at the root (``data.generated.read``), or None for a release's copy."""
    with _lock:
        _sources[variable] = {"source": "local", "variable": variable, "root": str(root)}
        if generated:
            _sources[variable]["generated"] = generated


def note_hub(variable: str, repo: str, commit: str, folder: Path) -> None:
    """A loader read its data from ``repo`` at ``commit``, fetched into ``folder``."""
    with _lock:
        _sources[variable] = {"source": "hub", "repo": repo, "commit": commit, "folder": str(folder)}


def source(variable: str) -> dict | None:
    """The data source recorded for a benchmark's root variable in this process (local folder or
    hub snapshot), or None."""
    with _lock:
        found = _sources.get(variable)
        return dict(found) if found else None


def item_set(keys) -> dict:
    """The count and a sha256 of the sorted item keys (each key a string)."""
    ordered = sorted(str(k) for k in keys)
    return {"count": len(ordered), "sha256": hashlib.sha256("\n".join(ordered).encode("utf-8")).hexdigest()}


def data_of(variable: str) -> dict:
    """The data record of a benchmark whose root variable is ``variable``: its source and the
    fingerprint of the folder the loader read."""
    found = source(variable)
    if not found:
        return {"source": None}
    folder = found.pop("folder", None) or found.get("root")
    # A folder's fingerprint; a local copy that is one file (VLM2-Bench's TSV): that file's sha256.
    found["fingerprint"] = (
        fingerprint(folder)
        if folder and os.path.isdir(folder)
        else file_sha256(folder)
        if folder and os.path.isfile(folder)
        else None
    )
    return found


def forget() -> None:
    """Forget the data sources noted in this process."""
    with _lock:
        _sources.clear()
