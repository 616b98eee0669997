"""The settings a run had: this package's, lmms-eval's, Python's and the key libraries' versions
(``environment``), every variable of ours that is set (``settings``) and the settings of each judge or
reader that scored the run (``note_llm``, ``llm_settings``), never a key."""

from __future__ import annotations

import os
import platform
import subprocess
import threading
from pathlib import Path
from urllib.parse import urlparse

from lmms_comparative import __version__

LIBRARIES = (
    "torch",
    "transformers",
    "datasets",
    "huggingface_hub",
    "numpy",
    "pillow",
    "pyarrow",
    "openai",
    "aiohttp",
    "sentence-transformers",
    "filelock",
)

_lock = threading.Lock()
_llm: dict[str, dict] = {}  # engine prefix -> settings


def note_llm(prefix: str | None, config) -> None:
    """An engine (judge or reader) was built with ``config`` (an ``EngineConfig``)."""
    host = urlparse(config.base_url).hostname if config.backend != "local" else None
    port = urlparse(config.base_url).port if config.backend != "local" else None
    settings = {
        "backend": config.backend,
        "model": config.model,
        "endpoint_host": f"{host}:{port}" if host and port else host,
        "temperature": config.temperature,
        "max_tokens": config.max_tokens,
    }
    if config.backend == "azure":
        settings.update(api_version=config.api_version, azure_deployment=config.azure_deployment or config.model)
    if config.backend == "local":
        settings["gguf_file"] = config.gguf_file
    with _lock:
        _llm[prefix or "LMMS_COMPARATIVE_LLM"] = settings


def llm_settings() -> dict[str, dict]:
    """The settings of every engine this process built, by prefix: backend, model, endpoint host,
    sampling (no key, no path)."""
    with _lock:
        return {prefix: dict(settings) for prefix, settings in sorted(_llm.items())}


def settings(prefixes: tuple[str, ...]) -> dict[str, str]:
    """Every variable of ours that is set (its name starts with one of ``prefixes``: the registry's
    ``setting_prefixes``, read from every benchmark's record), keys and tokens left out."""
    return {
        name: value
        for name, value in sorted(os.environ.items())
        if name.startswith(prefixes) and not any(secret in name for secret in ("API_KEY", "TOKEN", "SECRET"))
    }


def _version(distribution: str) -> str | None:
    import importlib.metadata

    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def package() -> dict:
    """This package's version, and its checkout's commit when it runs from one."""
    found: dict[str, str | bool] = {"version": __version__}
    checkout = Path(__file__).resolve().parents[2]
    if (checkout / ".git").exists():
        try:
            commit = subprocess.run(
                ["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10
            ).stdout.strip()
            dirty = subprocess.run(
                ["git", "-C", str(checkout), "status", "--porcelain", "--untracked-files=no"],
                capture_output=True,
                text=True,
                timeout=10,
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            commit, dirty = "", ""
        if commit:
            found.update(commit=commit, modified=bool(dirty))
    return found


def environment() -> dict:
    """The package, lmms-eval, Python and the key libraries."""
    return {
        "package": package(),
        "lmms_eval": _version("lmms-eval"),
        "python": platform.python_version(),
        "libraries": {name: _version(name) for name in LIBRARIES},
    }


def forget() -> None:
    """Forget the judges' and readers' settings noted in this process."""
    with _lock:
        _llm.clear()
