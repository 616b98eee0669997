"""Engine settings: defaults from the benchmark, then the environment, then explicit overrides.

Environment variables, most specific first (``PREFIX`` is the benchmark's, e.g. ``CAPTIONQA_READER``):

=====================================  ===========================================================
``{PREFIX}_MODEL``, ``LMMS_COMPARATIVE_LLM_MODEL``              model name sent to the endpoint
``{PREFIX}_BASE_URL``, ``LMMS_COMPARATIVE_LLM_BASE_URL``,
``OPENAI_BASE_URL``, ``OPENAI_API_URL``, ``OPENAI_API_BASE``     OpenAI-compatible endpoint
``{PREFIX}_API_KEY``, ``OPENAI_API_KEY``                        the key (never logged or cached)
``{PREFIX}_BACKEND``, ``LMMS_COMPARATIVE_LLM_BACKEND``          ``openai`` (default), ``azure`` or ``local``

With ``BACKEND=azure`` (Azure OpenAI, as ``openai.AzureOpenAI`` builds its requests): the endpoint
is ``{PREFIX}_BASE_URL``, ``LMMS_COMPARATIVE_LLM_BASE_URL``, ``AZURE_OPENAI_ENDPOINT`` (the SDK's
name) or ``AZURE_OPENAI_API_BASE`` (lmms-eval's); the key ``{PREFIX}_API_KEY``,
``AZURE_OPENAI_API_KEY`` or ``OPENAI_API_KEY``; the API version ``{PREFIX}_API_VERSION``,
``LMMS_COMPARATIVE_LLM_API_VERSION``, ``AZURE_OPENAI_API_VERSION`` or ``OPENAI_API_VERSION``; the
deployment ``{PREFIX}_AZURE_DEPLOYMENT`` / ``LMMS_COMPARATIVE_LLM_AZURE_DEPLOYMENT``, else the model.
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

from lmms_comparative.failures import DEFAULT_MAX_FAILED, MAX_FAILED_ENV, parse_share

GENERAL_PREFIX = "LMMS_COMPARATIVE_LLM"
DEFAULT_BASE_URL = "https://api.openai.com/v1"


def default_cache_path() -> Path:
    """``$XDG_CACHE_HOME/lmms_comparative/llm_cache.sqlite`` (``~/.cache`` when the variable is unset)."""
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
    """An engine's settings, read from ``{PREFIX}_*`` and ``LMMS_COMPARATIVE_LLM_*`` by ``from_env``
    (docs/settings.md); the API key is never printed."""

    model: str = "gpt-4o"
    backend: str = "openai"  # "openai" (any OpenAI-compatible server), "azure" or "local" (transformers)
    base_url: str = DEFAULT_BASE_URL
    api_key: str | None = field(default=None, repr=False, compare=False)
    # Where the key came from (an environment variable's name), for error messages: never the key.
    api_key_source: str | None = field(default=None, compare=False)
    api_version: str | None = None  # azure only
    azure_deployment: str | None = None  # azure only; the model name when unset
    temperature: float = 0.0
    max_tokens: int = 256
    concurrency: int = 32
    max_retries: int = 6
    timeout: float = 120.0  # seconds per request
    cache_path: Path | None = field(default_factory=default_cache_path)  # None: no cache
    max_failed: float = DEFAULT_MAX_FAILED  # share of items that may stay unjudged before the run fails
    # local backend only
    gguf_file: str | None = None
    batch_size: int = 16
    device: str = "cpu"

    @property
    def endpoint(self) -> str:
        """What identifies the answering service in cache keys (never the API key)."""
        if self.backend == "local":
            return f"local:{self.model}" + (f":{self.gguf_file}" if self.gguf_file else "")
        if self.backend == "azure":
            return f"azure:{normalize_base_url(self.base_url)}:{self.azure_deployment or self.model}:{self.api_version}"
        return f"openai:{normalize_base_url(self.base_url)}"

    def key_description(self) -> str:
        """Which setting the key came from, for messages (the key itself is never shown)."""
        if self.api_key:
            return f"the API key from {self.api_key_source}"
        return f"no API key (set {self.api_key_source})" if self.api_key_source else "no API key"

    @classmethod
    def from_env(cls, prefix: str | None = None, defaults: dict | None = None, **overrides) -> "EngineConfig":
        """The benchmark's ``defaults``, overridden by the environment, overridden by ``overrides``."""
        env = os.environ
        values: dict = dict(defaults or {})

        def pick_named(*names: str) -> tuple[str | None, str | None]:
            for name in names:
                value = env.get(name, "").strip()
                if value:
                    return name, value
            return None, None

        def pick(*names: str) -> str | None:
            return pick_named(*names)[1]

        def scoped(key: str) -> list[str]:
            return ([f"{prefix}_{key}"] if prefix else []) + [f"{GENERAL_PREFIX}_{key}"]

        for key, cast in (
            ("model", str),
            ("backend", str),
            ("temperature", float),
            ("max_tokens", int),
            ("concurrency", int),
            ("max_retries", int),
            ("timeout", float),
            ("gguf_file", str),
            ("batch_size", int),
            ("api_version", str),
            ("azure_deployment", str),
        ):
            raw = pick(*scoped(key.upper()))
            if raw is not None:
                values[key] = cast(raw)
        azure = (overrides.get("backend") or values.get("backend")) == "azure"
        if azure:
            raw = pick(*scoped("BASE_URL"), "AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_API_BASE")
            if "api_version" not in values:
                values["api_version"] = pick("AZURE_OPENAI_API_VERSION", "OPENAI_API_VERSION")
        else:
            raw = pick(*scoped("BASE_URL"), "OPENAI_BASE_URL", "OPENAI_API_URL", "OPENAI_API_BASE")
        if raw is not None:
            values["base_url"] = raw
        # A benchmark's own key wins over the general one (the README's per-benchmark overrides).
        key_names = (
            ([f"{prefix}_API_KEY"] if prefix else []) + (["AZURE_OPENAI_API_KEY"] if azure else []) + ["OPENAI_API_KEY"]
        )
        name, raw = pick_named(*key_names)
        if raw is not None:
            values["api_key"], values["api_key_source"] = raw, name
        elif "api_key" not in values:
            values["api_key_source"] = " or ".join(key_names)
        raw = pick(f"{GENERAL_PREFIX}_CACHE")
        if raw is not None:
            values["cache_path"] = None if raw.lower() in ("off", "none", "0", "false") else Path(raw).expanduser()
        raw = pick(MAX_FAILED_ENV)
        if raw is not None:
            values["max_failed"] = parse_share(raw)
        if overrides.get("api_key"):
            values["api_key_source"] = "the api_key argument"
        values.update({k: v for k, v in overrides.items() if v is not None})
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown engine setting(s) {unknown}; known: {sorted(known)}")
        config = cls(**values)
        if config.backend not in ("openai", "azure", "local"):
            raise ValueError(f"backend must be 'openai', 'azure' or 'local', got {config.backend!r}")
        if config.backend == "azure" and (config.base_url == DEFAULT_BASE_URL or not config.api_version):
            raise ValueError(
                "backend 'azure' needs an endpoint (AZURE_OPENAI_ENDPOINT or the benchmark's _BASE_URL) and an API "
                "version (AZURE_OPENAI_API_VERSION, OPENAI_API_VERSION or the benchmark's _API_VERSION)"
            )
        return replace(config, base_url=normalize_base_url(config.base_url))
