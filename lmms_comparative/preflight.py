"""The preflight: before the model under test gets its first request, check that what scoring will
call can work, so that a wrong setting costs seconds, not the hours of generation before it.

For every task of the run, the benchmark's record lists what its scoring calls besides the model
(``Benchmark.scoring_calls``): an LLM reader or judge through the engine, an SBERT model. Each is
checked once, with one cheap request or a local lookup:

- an OpenAI-compatible endpoint: ``GET <base_url>/models`` with the configured key (vLLM, SGLang,
  OpenAI, Gemini's OpenAI endpoint and LiteLLM all serve it). It must answer, accept the key and
  list the model. A server without that route is asked one chat completion of one token instead;
  an Azure deployment is always asked that way (its model list is not per deployment);
- the ``local`` backend: the model folder, or the model in the Hugging Face cache;
- an SBERT model: its folder, or the model in the Hugging Face cache, or (online) on the hub.

The settings themselves are read as scoring reads them (``EngineConfig.from_env``), so an
incomplete one (Azure without an API version) fails here too. On a problem, the run stops with one
line naming the setting and its fix, exit status 1. ``LMMS_COMPARATIVE_NO_PREFLIGHT=1`` skips the
checks; so does a replay of logged answers (``LMMS_COMPARATIVE_LLM_ANSWERS``) for the LLMs, which
it answers without an endpoint.

It runs in the ``lmms-eval`` CLI (where ``--tasks`` names the tasks), once lmms-eval has loaded the
tasks and before it evaluates them (``harness/task_path.py``).
"""

from __future__ import annotations

import fnmatch
import json
import os
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from lmms_comparative.failures import ProtocolError
from lmms_comparative.registry import named_like

SKIP_ENV = "LMMS_COMPARATIVE_NO_PREFLIGHT"
TIMEOUT = 10.0  # seconds per check request: an endpoint that needs longer to say hello is not ready
AUTH_STATUS = {401, 403}
_done: set = set()  # what this process has checked (a process may load tasks more than once)


class PreflightError(ProtocolError):
    """A setting that scoring needs cannot work: the message names it and the fix."""


@dataclass(frozen=True)
class Need:
    """One thing scoring calls, with the run's tasks that call it."""

    kind: str  # "llm" or "sbert"
    label: str
    settings: tuple  # (prefix, defaults) or (variable, default model)
    tasks: tuple[str, ...]


def needs_of(tasks: list[str]) -> list[Need]:
    """What the scoring of ``tasks`` calls, one entry per reader, judge or model, in task order."""
    found: dict[tuple, Need] = {}
    for task in tasks:
        benchmark = named_like(task)
        if benchmark is None:
            continue
        for call in benchmark.scoring_calls:
            if not any(fnmatch.fnmatchcase(task, pattern) for pattern in call.tasks):
                continue
            key = (benchmark.name, call.kind, call.setting)
            if key in found:
                need = found[key]
                found[key] = Need(need.kind, need.label, need.settings, need.tasks + (task,))
            else:
                found[key] = Need(call.kind, call.label, (call.setting, call.default), (task,))
    return list(found.values())


def skipped() -> bool:
    """Whether ``SKIP_ENV`` turns the checks off: set to anything but empty, ``0``, ``false`` or ``no`` (any case)."""
    return os.environ.get(SKIP_ENV, "").strip().lower() not in ("", "0", "false", "no")


def run(tasks: list[str]) -> list[str]:
    """Check what the scoring of ``tasks`` calls (each once per process); raise ``PreflightError``
    naming the first problem. Returns one line per check made, for the log."""
    if skipped():
        return []
    lines = []
    for need in needs_of(tasks):
        key = (need.kind, need.label, json.dumps(need.settings, sort_keys=True, default=str))
        if key in _done:
            continue
        what = f"{need.label} (for {_task_list(need.tasks)})"
        if need.kind == "llm":
            if os.environ.get("LMMS_COMPARATIVE_LLM_ANSWERS", "").strip():
                lines.append(f"{what}: answers replayed from LMMS_COMPARATIVE_LLM_ANSWERS, no endpoint checked")
                _done.add(key)
                continue
            problem, line = check_llm(*need.settings)
        else:
            problem, line = check_sbert(*need.settings)
        if problem:
            raise PreflightError(
                f"preflight: {what}: {problem} (checked before generation; {SKIP_ENV}=1 skips the check)"
            )
        _done.add(key)
        lines.append(f"{what}: {line}")
    return lines


def _task_list(tasks: tuple[str, ...]) -> str:
    return ", ".join(tasks[:3]) + (f" and {len(tasks) - 3} more" if len(tasks) > 3 else "")


# ---- LLM endpoints --------------------------------------------------------------------------------


def check_llm(prefix: str, defaults: dict) -> tuple[str | None, str]:
    """(problem or None, what was found) for the engine that ``prefix`` and ``defaults`` configure."""
    from lmms_comparative.judges.config import EngineConfig

    try:
        config = EngineConfig.from_env(prefix, defaults)
    except ValueError as exc:
        return f"{exc}", ""
    if config.backend == "local":
        return _check_local_llm(config, prefix)
    return _check_endpoint(config, prefix)


def _request(url: str, headers: dict, body: dict | None = None) -> tuple[int | None, str]:
    """(HTTP status, body text) of one request; (None, reason) when nothing answered."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        url,
        data=data,
        headers={**headers, **({"Content-Type": "application/json"} if data else {})},
        method="POST" if data else "GET",
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            return response.status, response.read(1 << 20).decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(4096).decode("utf-8", "replace")
    except urllib.error.URLError as exc:
        return None, str(exc.reason)
    except (OSError, ValueError) as exc:  # timeouts, resets, a malformed URL
        return None, f"{type(exc).__name__}: {exc}"


def _server_said(text: str) -> str:
    try:
        message = json.loads(text)["error"]["message"]
    except Exception:  # noqa: BLE001 - any body: a short piece of it
        message = text
    return " ".join(str(message).split())[:200]


def _check_endpoint(config, prefix: str) -> tuple[str | None, str]:
    from lmms_comparative.judges.openai_backend import OpenAIBackend

    backend = OpenAIBackend(config)
    headers = dict(backend.headers)
    completions_url = backend.url
    base = config.base_url if config.backend != "azure" else completions_url.split("/chat/completions")[0]
    url_setting = f"{prefix}_BASE_URL (or LMMS_COMPARATIVE_LLM_BASE_URL)"
    model_setting = f"{prefix}_MODEL" + (f" or {prefix}_AZURE_DEPLOYMENT" if config.backend == "azure" else "")
    key_hint = (
        f"set {prefix}_API_KEY (or {'AZURE_OPENAI_API_KEY / ' if config.backend == 'azure' else ''}OPENAI_API_KEY) to "
        "a key this endpoint accepts"
    )
    if config.api_key:
        key_hint = f"the key comes from {config.api_key_source}; {key_hint}"

    def unreachable(reason: str) -> str:
        return (
            f"no answer from {base} ({reason}); set {url_setting} to the OpenAI-compatible server that serves "
            f"{config.model!r} (for an open model, a vLLM or SGLang server of yours: its .../v1 URL)"
        )

    def refused(status: int, text: str) -> str:
        return f"{base} refused {config.key_description()} (HTTP {status}: {_server_said(text)}); {key_hint}"

    if config.backend != "azure":
        status, text = _request(base + "/models", headers)
        if status is None:
            return unreachable(text), ""
        if status in AUTH_STATUS:
            return refused(status, text), ""
        if status == 200:
            try:
                served = [str(m.get("id")) for m in json.loads(text).get("data", []) if isinstance(m, dict)]
            except (ValueError, AttributeError):
                served = []
            if served:
                names = {s.removeprefix("models/") for s in served}
                if config.model.removeprefix("models/") in names:
                    return None, f"{config.model!r} listed by {base}"
                shown = ", ".join(sorted(names)[:8]) + (" ..." if len(names) > 8 else "")
                return (
                    f"{base} does not serve {config.model!r} (it lists {shown}); set {model_setting} to one it serves",
                    "",
                )
        # No model list here (the route is missing, or the list is empty): ask for one token.
    body = {"model": config.model, "messages": [{"role": "user", "content": "Reply with OK."}], "max_tokens": 1}
    status, text = _request(completions_url, headers, body)
    if status is None:
        return unreachable(text), ""
    if status in AUTH_STATUS:
        return refused(status, text), ""
    if status in (200, 429):  # 429: the key and the model are fine, the server is busy
        return None, f"{config.model!r} answered at {base}"
    if status in (400, 404, 422):
        return (
            f"{base} did not accept a request for {config.model!r} (HTTP {status}: {_server_said(text)}); check "
            f"{model_setting}" + (", the deployment and the API version" if config.backend == "azure" else ""),
            "",
        )
    return f"{base} answered HTTP {status} ({_server_said(text)}); check that the server is up and {url_setting}", ""


# ---- models on this machine -----------------------------------------------------------------------


def _looks_like_path(name: str) -> bool:
    return name.startswith(("/", "./", "../", "~")) or os.sep + os.sep in name or name.count("/") > 1


def _hub_cached(repo: str, filenames: tuple[str, ...], cache_dir: str | None = None) -> bool:
    from huggingface_hub import try_to_load_from_cache

    for filename in filenames:
        try:
            found = try_to_load_from_cache(repo, filename, cache_dir=cache_dir)
        except Exception:  # noqa: BLE001 - an invalid repo id is simply not cached
            return False
        if isinstance(found, str):
            return True
    return False


def _hub_offline() -> bool:
    from huggingface_hub import constants

    return bool(constants.HF_HUB_OFFLINE)


def _on_hub(repo: str) -> str | None:
    """None when the hub knows ``repo``, else why not (one request)."""
    from huggingface_hub import HfApi

    try:
        HfApi().model_info(repo, timeout=TIMEOUT)
        return None
    except Exception as exc:  # noqa: BLE001 - not found, no network, a gated repo: all say why
        return f"{type(exc).__name__}: {' '.join(str(exc).split())[:160]}"


def _check_local_llm(config, prefix: str) -> tuple[str | None, str]:
    name = config.model
    path = Path(name).expanduser()
    if path.is_dir():
        if config.gguf_file and not (path / config.gguf_file).is_file():
            return f"the folder {path} has no {config.gguf_file} (set {prefix}_GGUF_FILE)", ""
        return None, f"the local model folder {path}"
    if _looks_like_path(name):
        return f"the model folder {name} does not exist; set {prefix}_MODEL to a model folder or a hub model id", ""
    if _hub_cached(name, (config.gguf_file,) if config.gguf_file else ("config.json",)):
        return None, f"{name!r} in the Hugging Face cache"
    if _hub_offline():
        return (
            f"{name!r} is not in the Hugging Face cache and the hub is offline (HF_HUB_OFFLINE); download it first "
            f"(hf download {name}) or set {prefix}_MODEL to a model folder",
            "",
        )
    missing = _on_hub(name)
    if missing:
        return (
            f"{name!r} is neither in the Hugging Face cache nor reachable on the hub ({missing}); set {prefix}_MODEL "
            "to a model folder or a hub model id",
            "",
        )
    return None, f"{name!r} on the hub (it will be downloaded)"


def check_sbert(variable: str, default: str) -> tuple[str | None, str]:
    """(problem or None, what was found) for the SBERT model that ``variable`` (or ``default``)
    names, looked up as sentence-transformers finds it: a folder, or a hub id in the cache
    (``SENTENCE_TRANSFORMERS_HOME`` or the Hugging Face cache), a bare name also under
    ``sentence-transformers/``."""
    name = os.environ.get(variable, "").strip() or default
    setting = (
        f"{variable} (now {name!r})"
        if os.environ.get(variable, "").strip()
        else f"{variable} (unset: the default {default!r})"
    )
    path = Path(name).expanduser()
    if path.is_dir():
        if not any((path / f).is_file() for f in ("modules.json", "config.json")):
            return (
                f"the folder {path} holds no sentence-transformers model (no modules.json or config.json); check "
                f"{setting}",
                "",
            )
        return None, f"the SBERT folder {path}"
    if _looks_like_path(name):
        return (
            f"the SBERT model folder {name} does not exist; set {variable} to a sentence-transformers model folder or "
            "hub id",
            "",
        )
    repos = [name] + ([f"sentence-transformers/{name}"] if "/" not in name else [])
    cache = os.environ.get("SENTENCE_TRANSFORMERS_HOME") or None
    if any(
        _hub_cached(repo, ("modules.json", "config.json"), cache)
        or (cache and _hub_cached(repo, ("modules.json", "config.json")))
        for repo in repos
    ):
        return None, f"{name!r} in the local cache"
    if _hub_offline():
        return (
            f"the SBERT model {name!r} is not in the local cache and the hub is offline (HF_HUB_OFFLINE); download it "
            f"(hf download {repos[-1]}) or set {variable} to a model folder",
            "",
        )
    missing = _on_hub(repos[-1])
    if missing:
        return (
            f"the SBERT model {name!r} is neither in the local cache nor reachable on the hub ({missing}); download "
            f"it where the hub is reachable, or set {setting.split(' (')[0]} to a model folder",
            "",
        )
    return None, f"{name!r} on the hub (it will be downloaded)"
