"""Answers from any OpenAI-compatible chat endpoint, with retries that respect the server."""

from __future__ import annotations

import asyncio
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


def classify(exc: BaseException) -> tuple[bool, float | None, str]:
    """(retry?, server-requested wait, short description) for an exception from the client."""
    import openai

    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        return status in RETRYABLE_STATUS or status >= 500, retry_after_seconds(exc.response.headers), f"HTTP {status}"
    if isinstance(exc, (openai.APITimeoutError, asyncio.TimeoutError)):
        return True, None, "timeout"
    if isinstance(exc, openai.APIConnectionError):
        return True, None, f"connection error ({exc.__cause__ or exc})"
    # Malformed bodies (invalid JSON, missing fields) and anything else unexpected: a glitch
    # worth another attempt, reported by type.
    return True, None, f"{type(exc).__name__}: {exc}"


class OpenAIBackend:
    def __init__(self, config: EngineConfig):
        import openai  # noqa: F401 - imported once here (about a second), not inside the first batch

        self.config = config
        self.sleep = asyncio.sleep  # replaceable, so tests can record waits without waiting

    def client(self):
        from openai import AsyncOpenAI

        # Our loop does the retrying; the SDK's own retries would hide attempts from it.
        return AsyncOpenAI(
            api_key=self.config.api_key or "EMPTY",
            base_url=self.config.base_url,
            timeout=self.config.timeout,
            max_retries=0,
        )

    async def complete(self, client, messages: list, params: dict, rng: random.Random) -> tuple[str | None, str | None]:
        """(text, None) on success, (None, error) once the retries are spent."""
        last_error = "no attempt made"
        for attempt in range(self.config.max_retries + 1):
            try:
                # The client's low-level post: same endpoint, auth, timeout and error types as
                # chat.completions.create, without its per-call transformation of the request
                # against typed schemas, which costs more CPU than the rest of the call together.
                data = await client.post("/chat/completions", body={"model": self.config.model, "messages": messages, **params}, cast_to=object)
                text = data["choices"][0]["message"]["content"]
                if not isinstance(text, str):
                    raise ValueError("response has no message content")
                return text, None
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - every failure is classified below
                retry, wait, last_error = classify(exc)
                if not retry or attempt == self.config.max_retries:
                    break
                delay = backoff_delay(attempt, rng)
                if wait is not None:
                    delay = max(delay, min(wait, RETRY_AFTER_CAP))
                await self.sleep(delay)
        return None, f"{last_error} (after {attempt + 1} attempt(s))"
