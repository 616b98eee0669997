"""Engine settings: defaults from the benchmark, then the environment, then explicit overrides.

Environment variables, most specific first (``PREFIX`` is the benchmark's, e.g. ``CAPTIONQA_READER``):

=====================================  ===========================================================
``{PREFIX}_MODEL``, ``LMMS_COMPARATIVE_LLM_MODEL``              model name sent to the endpoint
``{PREFIX}_BASE_URL``, ``LMMS_COMPARATIVE_LLM_BASE_URL``,
``OPENAI_BASE_URL``, ``OPENAI_API_URL``, ``OPENAI_API_BASE``     OpenAI-compatible endpoint
``{PREFIX}_API_KEY``, ``OPENAI_API_KEY``                        the key (never logged or cached)
``{PREFIX}_BACKEND``, ``LMMS_COMPARATIVE_LLM_BACKEND``          ``openai`` (default) or ``local``
``{PREFIX}_TEMPERATURE`` / ``_MAX_TOKENS`` / ``_CONCURRENCY`` /
``_MAX_RETRIES`` / ``_TIMEOUT`` (same names with
``LMMS_COMPARATIVE_LLM_`` as the general fallback)
``LMMS_COMPARATIVE_LLM_CACHE``                                  cache file path, or ``off``
``LMMS_COMPARATIVE_MAX_FAILED``                                 share of items allowed to stay
                                                                unjudged before the run fails
=====================================  ===========================================================
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

GENERAL_PREFIX = "LMMS_COMPARATIVE_LLM"
DEFAULT_BASE_URL = "https://api.openai.com/v1"


def default_cache_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "lmms_comparative" / "llm_cache.sqlite"


def normalize_base_url(url: str) -> str:
    """``.../v1`` form: lmms-eval's OPENAI_API_URL is sometimes the full ``/chat/completions`` URL."""
    url = url.strip().rstrip("/")
    for suffix in ("/chat/completions", "/completions"):
        if url.endswith(suffix):
            url = url[: -len(suffix)]
    return url


@dataclass(frozen=True)
class EngineConfig:
    model: str = "gpt-4o"
    backend: str = "openai"  # "openai" (any OpenAI-compatible server) or "local" (transformers)
    base_url: str = DEFAULT_BASE_URL
    api_key: str | None = field(default=None, repr=False, compare=False)
    temperature: float = 0.0
    max_tokens: int = 256
    concurrency: int = 32
    max_retries: int = 6
    timeout: float = 120.0  # seconds per request
    cache_path: Path | None = field(default_factory=default_cache_path)  # None: no cache
    max_failed: float = 0.05  # share of items that may stay unjudged before the run fails
    # local backend only
    gguf_file: str | None = None
    batch_size: int = 16
    device: str = "cpu"

    @property
    def endpoint(self) -> str:
        """What identifies the answering service in cache keys (never the API key)."""
        if self.backend == "local":
            return f"local:{self.model}" + (f":{self.gguf_file}" if self.gguf_file else "")
        return f"openai:{normalize_base_url(self.base_url)}"

    @classmethod
    def from_env(cls, prefix: str | None = None, defaults: dict | None = None, **overrides) -> "EngineConfig":
        """The benchmark's ``defaults``, overridden by the environment, overridden by ``overrides``."""
        env = os.environ
        values: dict = dict(defaults or {})

        def pick(*names: str) -> str | None:
            for name in names:
                value = env.get(name, "").strip()
                if value:
                    return value
            return None

        def scoped(key: str) -> list[str]:
            return ([f"{prefix}_{key}"] if prefix else []) + [f"{GENERAL_PREFIX}_{key}"]

        for key, cast in (("model", str), ("backend", str), ("temperature", float), ("max_tokens", int), ("concurrency", int), ("max_retries", int), ("timeout", float), ("gguf_file", str), ("batch_size", int)):
            raw = pick(*scoped(key.upper()))
            if raw is not None:
                values[key] = cast(raw)
        raw = pick(*scoped("BASE_URL"), "OPENAI_BASE_URL", "OPENAI_API_URL", "OPENAI_API_BASE")
        if raw is not None:
            values["base_url"] = raw
        raw = pick(*([f"{prefix}_API_KEY"] if prefix else []), "OPENAI_API_KEY")
        if raw is not None:
            values["api_key"] = raw
        raw = pick(f"{GENERAL_PREFIX}_CACHE")
        if raw is not None:
            values["cache_path"] = None if raw.lower() in ("off", "none", "0", "false") else Path(raw).expanduser()
        raw = pick("LMMS_COMPARATIVE_MAX_FAILED")
        if raw is not None:
            values["max_failed"] = float(raw)
        values.update({k: v for k, v in overrides.items() if v is not None})
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown engine setting(s) {unknown}; known: {sorted(known)}")
        config = cls(**values)
        if config.backend not in ("openai", "local"):
            raise ValueError(f"backend must be 'openai' or 'local', got {config.backend!r}")
        return replace(config, base_url=normalize_base_url(config.base_url))
