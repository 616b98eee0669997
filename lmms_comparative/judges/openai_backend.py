"""Answers from any OpenAI-compatible chat endpoint, with retries that respect the server."""

from __future__ import annotations

import asyncio
import functools
import json
import os
import random
from email.utils import parsedate_to_datetime
from time import time

from lmms_comparative.failures import RunStopped
from lmms_comparative.judges.config import EngineConfig

# Status codes that a later attempt can cure; any other 4xx is the request's fault.
RETRYABLE_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}
BACKOFF_BASE, BACKOFF_CAP, RETRY_AFTER_CAP = 0.5, 30.0, 120.0


def backoff_delay(attempt: int, rng: random.Random) -> float:
    """Exponential backoff with jitter: base * 2^attempt, capped, scaled by a factor in [0.5, 1)."""
    return min(BACKOFF_CAP, BACKOFF_BASE * 2**attempt) * (0.5 + rng.random() / 2)


def retry_after_seconds(headers) -> float | None:
    """The server's Retry-After (seconds or an HTTP date), if it sent one."""
    if headers is None:
        return None
    value = headers.get("retry-after-ms")
    if value:
        try:
            return float(value) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time())
        except (TypeError, ValueError):
            return None


def environment_proxy(url: str) -> str | None:
    """The proxy that HTTP(S)_PROXY / NO_PROXY name for ``url``, as httpx and requests read them."""
    import urllib.request
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    # Undocumented in the standard library, so absent from its stubs.
    if urllib.request.proxy_bypass_environment(parts.hostname or ""):  # type: ignore[attr-defined]
        return None
    return urllib.request.getproxies_environment().get(parts.scheme)


# Status codes that mean the credentials were refused: retrying cannot help, and every other call of
# the run would be refused the same way, so the run stops at once.
AUTH_STATUS = {401, 403}


class EndpointRejected(RunStopped):
    """The endpoint refused the credentials (HTTP 401/403). The message names the setting the key
    came from, never the key."""


def classify_status(status: int, headers) -> tuple[bool, float | None, str]:
    """(retry?, server-requested wait, short description) for an HTTP error status."""
    return status in RETRYABLE_STATUS or status >= 500, retry_after_seconds(headers), f"HTTP {status}"


class Connection:
    """One connection pool to the endpoint, holding the URL and headers (auth, organisation,
    project, user agent) that an ``AsyncOpenAI`` client builds from the same settings and the
    environment. Each request is one POST of the JSON body over aiohttp (proxies from the
    environment, system certificates).

    Why not ``AsyncOpenAI.chat.completions.create`` (or the SDK's httpx client underneath): its
    request pipeline does more work per call, serialised on the event loop, so with many concurrent slots the
    client rather than the server would set the pace. bench/captionqa_qa_stage.py measures this path against a bare
    aiohttp client on the same server. Errors are classified as the SDK classifies them: HTTP status
    (with Retry-After), timeout, connection error, malformed body.
    """

    def __init__(self, url: str, headers: dict, timeout: float, ssl_context, proxy: str | None):
        import aiohttp
        from yarl import URL

        self.url, self.proxy = URL(url, encoded=True), proxy  # parsed once, not per request
        connector = aiohttp.TCPConnector(limit=0, ssl=ssl_context)  # the engine bounds concurrency
        # trust_env=False: aiohttp would look the proxy up (and read ~/.netrc) on every request;
        # the backend resolves the proxy from the environment once instead.
        self.session = aiohttp.ClientSession(
            connector=connector, headers=headers, timeout=aiohttp.ClientTimeout(total=timeout), trust_env=False
        )

    async def post(self, body: bytes) -> tuple[int, object, bytes]:
        """(status, headers, body) of one POST."""
        async with self.session.post(self.url, data=body, proxy=self.proxy) as response:
            return response.status, response.headers, await response.read()

    async def close(self) -> None:
        """Close the pool's session and its open connections."""
        await self.session.close()


# Connection pools by (event loop, URL, headers, timeout, proxy): engines of one process that call
# the same endpoint share one pool (and its open connections) on the engine's event loop thread.
_pools: dict[tuple, Connection] = {}


async def close_pools() -> None:
    """Close the pools of the running loop (at interpreter exit)."""
    loop = asyncio.get_running_loop()
    for key in [k for k in _pools if k[0] is loop]:
        await _pools.pop(key).close()


@functools.cache
def _ssl_context():
    import ssl

    return ssl.create_default_context()  # loaded once per process: it costs ~20-50 ms


@functools.lru_cache(maxsize=64)
def _sdk_target(
    backend: str,
    base_url: str,
    api_key: str | None,
    api_version,
    azure_deployment,
    model: str,
    timeout: float,
    sdk_env: tuple,
) -> tuple[str, tuple]:
    """(URL, headers) that the openai SDK's client builds for these settings (and the SDK's own
    environment variables, ``sdk_env``); constructing that client costs tens of milliseconds, so
    it is done once per setting."""
    import openai

    # The SDK requires a key; a placeholder stands in for none, and its header is dropped below.
    key = api_key or "unset"
    sdk: openai.AsyncOpenAI
    if backend == "azure":
        sdk = openai.AsyncAzureOpenAI(
            api_key=key,
            azure_endpoint=base_url,
            api_version=api_version,
            azure_deployment=azure_deployment or model,
            timeout=timeout,
            max_retries=0,
        )
    else:
        sdk = openai.AsyncOpenAI(api_key=key, base_url=base_url, timeout=timeout, max_retries=0)
    query = "&".join(f"{k}={v}" for k, v in (sdk.default_query or {}).items() if isinstance(v, str))
    url = str(sdk.base_url).rstrip("/") + "/chat/completions" + (f"?{query}" if query else "")
    # The headers the SDK sends: its defaults plus its auth headers (openai 3.x keeps the key in
    # ``auth_headers`` only; 1.x merged them into ``default_headers``). Only real values: unset
    # optional headers are sentinel objects.
    headers = {**sdk.default_headers, **sdk.auth_headers} if api_key else dict(sdk.default_headers)
    if not api_key:
        headers = {k: v for k, v in headers.items() if k.lower() not in ("authorization", "api-key")}
    return url, tuple((k, v) for k, v in headers.items() if isinstance(v, str))


class OpenAIBackend:
    """The ``openai`` and ``azure`` backends: chat completions over HTTP, retried with backoff (``Retry-After``
    honoured), a refused key stops the run."""

    def __init__(self, config: EngineConfig):
        self.config = config
        self.sleep = asyncio.sleep  # replaceable, so tests can record waits without waiting
        sdk_env = tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith(("OPENAI_", "AZURE_OPENAI_"))))
        self.url, headers = _sdk_target(
            config.backend,
            config.base_url,
            config.api_key,
            config.api_version,
            config.azure_deployment,
            config.model,
            config.timeout,
            sdk_env,
        )
        self.headers = dict(headers)
        self.proxy = environment_proxy(self.url)

    def client(self) -> Connection:
        """The connection pool for this endpoint on the running event loop (created on first use,
        then shared by every engine of the process that calls the same endpoint)."""
        key = (asyncio.get_running_loop(), self.url, tuple(self.headers.items()), self.config.timeout, self.proxy)
        pool = _pools.get(key)
        if pool is None or pool.session.closed:
            pool = _pools[key] = Connection(self.url, self.headers, self.config.timeout, _ssl_context(), self.proxy)
        return pool

    @staticmethod
    def classify(exc: BaseException) -> tuple[bool, float | None, str]:
        """(retry?, server-requested wait, short description) for an exception of a request."""
        import aiohttp

        if isinstance(exc, asyncio.TimeoutError):  # aiohttp's timeouts are TimeoutErrors too
            return True, None, "timeout"
        if isinstance(exc, aiohttp.ClientError):
            return True, None, f"connection error ({type(exc).__name__}: {exc})"
        # Malformed bodies (invalid JSON, missing fields) and anything else unexpected: a glitch
        # worth another attempt, reported by type.
        return True, None, f"{type(exc).__name__}: {exc}"

    async def complete(self, client: Connection, body: bytes, rng: random.Random) -> tuple[str | None, str | None]:
        """(text, None) on success, (None, error) once the retries are spent. ``body`` is the JSON
        request ({"model", "messages", **params}; the engine encodes it with the cache key)."""
        last_error = "no attempt made"
        for attempt in range(self.config.max_retries + 1):
            wait = None
            try:
                status, headers, content = await client.post(body)
                if status in AUTH_STATUS:
                    raise EndpointRejected(self.rejection_message(status, content))
                if status >= 400:
                    retry, wait, last_error = classify_status(status, headers)
                else:
                    text = json.loads(content)["choices"][0]["message"]["content"]
                    if not isinstance(text, str):
                        raise ValueError("response has no message content")
                    return text, None
            except (asyncio.CancelledError, EndpointRejected):
                raise
            except Exception as exc:  # noqa: BLE001 - every failure is classified below
                retry, wait, last_error = self.classify(exc)
            if not retry or attempt == self.config.max_retries:
                break
            delay = backoff_delay(attempt, rng)
            if wait is not None:
                delay = max(delay, min(wait, RETRY_AFTER_CAP))
            await self.sleep(delay)
        return None, f"{last_error} (after {attempt + 1} attempt(s))"

    def rejection_message(self, status: int, content: bytes) -> str:
        """The ``EndpointRejected`` message for an HTTP 401/403: endpoint, key setting, model and the server's reason,
        with the key masked if the server echoed it."""
        config = self.config
        try:
            detail = json.loads(content)["error"]["message"]
        except Exception:  # noqa: BLE001 - any body: show a short piece of it
            detail = content[:200].decode("utf-8", "replace")
        if config.api_key:
            detail = str(detail).replace(config.api_key, "***")
        return (
            f"HTTP {status} from {self.url.split('?')[0]}: the endpoint refused {config.key_description()} "
            f"(model {config.model!r}; server said: {str(detail).strip()[:200]}). Requests are not retried on "
            f"{status}; check the key and the endpoint, then rerun (answers already received are cached)."
        )
