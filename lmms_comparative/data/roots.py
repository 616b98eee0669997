"""Where a benchmark's files are: a local copy named by an environment variable, or the hub."""

from __future__ import annotations

import os
from pathlib import Path

from lmms_comparative.failures import DataError


def dataset_root(env_var: str, hub_repo: str | None, expected: str) -> Path:
    """The directory that holds the benchmark in its official layout.

    With ``env_var`` set, that directory must exist (``expected`` says what it should hold).
    Without it, the dataset repo ``hub_repo`` is fetched into the Hugging Face cache (once; later
    runs reuse the cache, and ``HF_HUB_OFFLINE=1`` uses it without the network).
    """
    value = os.environ.get(env_var, "").strip()
    if value:
        root = Path(value).expanduser()
        if not root.is_dir():
            raise DataError(f"{env_var}={value!r} is not a directory. It should point at a local copy of {hub_repo or 'the release'} laid out as the official release: {expected}.")
        return root.resolve()
    if hub_repo is None:
        raise DataError(f"{env_var} is not set. Point it at a local copy of the release: {expected}.")
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(repo_id=hub_repo, repo_type="dataset"))
    except Exception as exc:  # network, auth or cache problems all end the same way for the user
        raise DataError(
            f"Could not fetch the dataset {hub_repo!r} from the Hugging Face hub ({type(exc).__name__}: {exc}). "
            f"Download it once (huggingface-cli download --repo-type dataset {hub_repo} --local-dir DIR) "
            f"and set {env_var}=DIR; expected layout: {expected}."
        ) from exc
