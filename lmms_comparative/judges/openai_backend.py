"""Answers from any OpenAI-compatible chat endpoint, with retries that respect the server."""

from __future__ import annotations

import asyncio
import json
import random
from email.utils import parsedate_to_datetime
from time import time

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
    if urllib.request.proxy_bypass_environment(parts.hostname or ""):
        return None
    return urllib.request.getproxies_environment().get(parts.scheme)


# Status codes that mean the credentials were refused: retrying cannot help, and every other call of
# the run would be refused the same way, so the run stops at once.
AUTH_STATUS = {401, 403}


class EndpointRejected(RuntimeError):
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

    Why not ``AsyncOpenAI.chat.completions.create`` (or the SDK's httpx client underneath): their
    request pipeline costs about a millisecond of CPU per call, serialised on the event loop, so
    with many concurrent slots the client rather than the server sets the pace: 16 concurrent
    requests to a 100 ms server take 115-120 ms through httpx and 104-105 ms through aiohttp, and
    the CaptionQA QA stage reaches 78% of the server's capacity through the SDK against 90%+ here
    (bench/captionqa_qa_stage.py). Errors are classified as the SDK classifies them: HTTP status
    (with Retry-After), timeout, connection error, malformed body.
    """

    def __init__(self, url: str, headers: dict, timeout: float, ssl_context, proxy: str | None):
        import aiohttp

        self.url, self.headers, self.proxy = url, headers, proxy
        connector = aiohttp.TCPConnector(limit=0, ssl=ssl_context)  # the engine bounds concurrency
        # trust_env=False: aiohttp would look the proxy up (and read ~/.netrc) on every request;
        # the backend resolves the proxy from the environment once instead.
        self.session = aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=timeout), trust_env=False)

    async def post(self, body: bytes) -> tuple[int, object, bytes]:
        """(status, headers, body) of one POST."""
        async with self.session.post(self.url, data=body, headers=self.headers, proxy=self.proxy) as response:
            return response.status, response.headers, await response.read()

    async def close(self) -> None:
        await self.session.close()


class OpenAIBackend:
    def __init__(self, config: EngineConfig):
        import ssl

        import openai

        self.config = config
        self.sleep = asyncio.sleep  # replaceable, so tests can record waits without waiting
        # The SDK requires a key; a placeholder stands in for none, and its header is dropped below.
        key = config.api_key or "unset"
        if config.backend == "azure":
            sdk = openai.AsyncAzureOpenAI(
                api_key=key,
                azure_endpoint=config.base_url,
                api_version=config.api_version,
                azure_deployment=config.azure_deployment or config.model,
                timeout=config.timeout,
                max_retries=0,
            )
        else:
            sdk = openai.AsyncOpenAI(api_key=key, base_url=config.base_url, timeout=config.timeout, max_retries=0)
        query = "&".join(f"{k}={v}" for k, v in (sdk.default_query or {}).items() if isinstance(v, str))
        self.url = str(sdk.base_url).rstrip("/") + "/chat/completions" + (f"?{query}" if query else "")
        # The headers the SDK sends: its defaults plus its auth headers (openai 3.x keeps the key in
        # ``auth_headers`` only; 1.x merged them into ``default_headers``). Only real values: unset
        # optional headers are sentinel objects.
        headers = {**sdk.default_headers, **sdk.auth_headers} if config.api_key else dict(sdk.default_headers)
        if not config.api_key:
            headers = {k: v for k, v in headers.items() if k.lower() not in ("authorization", "api-key")}
        self.headers = {k: v for k, v in headers.items() if isinstance(v, str)}
        self._ssl = ssl.create_default_context()  # loaded once: a context per pool costs ~50 ms
        self.proxy = environment_proxy(self.url)

    def client(self) -> Connection:
        """A connection pool; create it inside the event loop that will use it."""
        return Connection(self.url, self.headers, self.config.timeout, self._ssl, self.proxy)

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

    async def complete(self, client: Connection, messages: list, params: dict, rng: random.Random) -> tuple[str | None, str | None]:
        """(text, None) on success, (None, error) once the retries are spent."""
        body = json.dumps({"model": self.config.model, "messages": messages, **params}, ensure_ascii=False).encode("utf-8")
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
        config = self.config
        try:
            detail = json.loads(content)["error"]["message"]
        except Exception:  # noqa: BLE001 - any body: show a short piece of it
            detail = content[:200].decode("utf-8", "replace")
        if config.api_key:
            detail = str(detail).replace(config.api_key, "***")
        return (
            f"HTTP {status} from {self.url.split('?')[0]}: the endpoint refused {config.key_description()} "
            f"(model {config.model!r}; server said: {str(detail).strip()[:200]}). Requests are not retried on {status}; "
            "check the key and the endpoint, then rerun (answers already received are cached)."
        )
