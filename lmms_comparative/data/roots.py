"""Where a benchmark's files are: a local copy named by an environment variable (else the hub,
through ``data/hub.py``, for the benchmarks with a hub release)."""

from __future__ import annotations

import os
from pathlib import Path

from lmms_comparative import provenance
from lmms_comparative.data.generated import read
from lmms_comparative.failures import DataError


def local_root(env_var: str, expected: str) -> Path | None:
    """The directory ``env_var`` names (it must exist; ``expected`` says what it should hold), or
    None when the variable is not set."""
    value = os.environ.get(env_var, "").strip()
    if not value:
        return None
    root = Path(value).expanduser()
    if not root.is_dir():
        raise DataError(
            f"{env_var}={value!r} is not a directory. It should point at a local copy of the release laid out as"
            f" the official release: {expected}."
        )

    # Data this package made up (a fixture, synthetic pairs) carries a marker: the record keeps it.
    provenance.note_local(env_var, root.resolve(), generated=read(root))
    return root.resolve()


def dataset_root(env_var: str, hub_repo: str | None, expected: str) -> Path:
    """The local copy ``env_var`` names; for a benchmark without a hub release it is required."""
    root = local_root(env_var, expected)
    if root is None:
        where = f" (or leave it unset to fetch {hub_repo} from the hub)" if hub_repo else ""
        raise DataError(f"{env_var} is not set. Point it at a local copy of the release{where}: {expected}.")
    return root
