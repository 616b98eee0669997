"""One engine for every LLM call that scoring makes.

``Engine.run(requests)`` takes a list of chat requests (a list of messages, or a plain user
string) and returns one ``ChatResult`` per request, in order: the text, or a failure with its
reason. Identical requests are answered once; answers already in the cache are not requested
again; the rest go to the backend with bounded concurrency and retries, each answer committed to
the cache as it arrives, so a run killed half-way resumes with only the missing calls.

It is synchronous for its callers (lmms-eval hooks and aggregations) and safe to call from a
thread that already runs an event loop.
"""

from __future__ import annotations

import asyncio
import random
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Sequence, Union

from loguru import logger
from tqdm import tqdm

from lmms_comparative.judges.cache import AnswerCache, request_key
from lmms_comparative.judges.config import EngineConfig

Request = Union[str, list]


def normalize_reply(text: str | None) -> str | None:
    """Reply text as every benchmark reads it: surrounding white space stripped (the authors'
    pipelines strip model output before parsing, e.g. CaptionQA's qa.py). One place for every
    backend and for cached answers, so an identical reply scores identically whichever way it came."""
    return text.strip() if isinstance(text, str) else text


@dataclass(frozen=True)
class ChatResult:
    text: str | None
    error: str | None = None
    cached: bool = False

    @property
    def failed(self) -> bool:
        return self.text is None


@dataclass
class EngineStats:
    requested: int = 0  # requests handed to run()
    cached: int = 0  # answered from the cache
    calls: int = 0  # distinct requests sent to the backend
    failed: int = 0  # distinct requests that stayed unanswered
    errors: list[str] = field(default_factory=list)


class TooManyFailures(RuntimeError):
    """More items stayed unjudged than the configured share allows."""

    def __init__(self, message: str, failed: int = 0, total: int = 0):
        super().__init__(message)
        self.failed, self.total = failed, total


def check_failures(failed: int, total: int, max_failed: float, what: str) -> None:
    """Raise TooManyFailures when ``failed / total`` exceeds ``max_failed``; warn on any failure."""
    if not failed:
        return
    share = failed / total if total else 1.0
    message = f"{what}: {failed} of {total} item(s) could not be judged ({share:.1%}); they are excluded from the scores"
    if share > max_failed:
        raise TooManyFailures(f"{message}, which is more than the allowed {max_failed:.1%} (LMMS_COMPARATIVE_MAX_FAILED).", failed, total)
    logger.warning(message + ".")


def _as_messages(request: Request) -> list:
    return [{"role": "user", "content": request}] if isinstance(request, str) else list(request)


def _run_sync(coro):
    """Run a coroutine to completion from synchronous code, even inside a running event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


class Engine:
    def __init__(self, config: EngineConfig):
        self.config = config
        self.cache = AnswerCache(config.cache_path) if config.cache_path else None
        self.stats = EngineStats()
        self._lock = threading.Lock()
        self._backend = None

    @classmethod
    def from_env(cls, prefix: str | None = None, defaults: dict | None = None, **overrides) -> "Engine":
        return cls(EngineConfig.from_env(prefix, defaults, **overrides))

    @property
    def backend(self):
        if self._backend is None:
            if self.config.backend == "local":
                from lmms_comparative.judges.local_backend import LocalBackend

                self._backend = LocalBackend(self.config)
            else:
                from lmms_comparative.judges.openai_backend import OpenAIBackend

                self._backend = OpenAIBackend(self.config)
        return self._backend

    def params(self, **overrides) -> dict:
        """Sampling parameters sent with each request; a setting of None is not sent at all (the
        server's default applies), as a script that never passes it (VLM2-Bench's video judge)."""
        params = {"temperature": self.config.temperature, "max_tokens": self.config.max_tokens}
        params.update({k: v for k, v in overrides.items() if v is not None})
        return {k: v for k, v in params.items() if v is not None}

    def run(self, requests: Sequence[Request], desc: str = "LLM calls", progress: bool = True, **overrides) -> list[ChatResult]:
        messages = [_as_messages(r) for r in requests]
        params = self.params(**overrides)
        keys = [request_key(self.config.endpoint, self.config.model, m, params) for m in messages]
        hits = self.cache.get_many(keys) if self.cache is not None else {}
        todo = {k: m for k, m in zip(keys, messages) if k not in hits}  # distinct keys, first occurrence
        answers: dict[str, tuple[str | None, str | None]] = {}
        if todo:
            bar = tqdm(total=len(todo), desc=desc, disable=not progress, dynamic_ncols=True)
            try:
                if self.config.backend == "local":
                    self._run_local(todo, params, answers, bar)
                else:
                    _run_sync(self._run_openai(todo, params, answers, bar))
            finally:
                bar.close()
        results = []
        for key in keys:
            if key in hits:
                results.append(ChatResult(normalize_reply(hits[key]), cached=True))
            else:
                text, error = answers.get(key, (None, "not answered (interrupted)"))
                results.append(ChatResult(normalize_reply(text), error))
        failed = {k for k in todo if answers.get(k, (None,))[0] is None}
        with self._lock:
            self.stats.requested += len(keys)
            self.stats.cached += sum(1 for k in keys if k in hits)
            self.stats.calls += len(todo)
            self.stats.failed += len(failed)
            self.stats.errors.extend(answers[k][1] for k in failed if k in answers)
        if failed:
            first = next((answers[k][1] for k in failed if k in answers), "interrupted")
            logger.warning(f"{desc}: {len(failed)} of {len(todo)} request(s) failed after retries; first error: {first}")
        return results

    def _record(self, key: str, text: str | None, error: str | None, answers: dict, bar) -> None:
        text = normalize_reply(text)
        answers[key] = (text, error)
        if text is not None and self.cache is not None:
            self.cache.put(key, text)
        bar.update(1)

    async def _run_openai(self, todo: dict, params: dict, answers: dict, bar) -> None:
        backend = self.backend
        limit = asyncio.Semaphore(max(1, self.config.concurrency))
        rng = random.Random()

        client = backend.client()  # one keep-alive pool, bound to this event loop

        async def one(key: str, messages: list) -> None:
            async with limit:
                text, error = await backend.complete(client, messages, params, rng)
            self._record(key, text, error, answers, bar)

        tasks = [asyncio.ensure_future(one(k, m)) for k, m in todo.items()]
        try:
            # The first call whose credentials are refused (EndpointRejected) stops the whole run:
            # every other call would be refused too. Answers received so far stay cached.
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
            for task in done:
                if not task.cancelled() and task.exception() is not None:
                    raise task.exception()
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await client.close()

    def _run_local(self, todo: dict, params: dict, answers: dict, bar) -> None:
        backend = self.backend
        items = list(todo.items())
        size = max(1, self.config.batch_size)
        for start in range(0, len(items), size):
            chunk = items[start : start + size]
            try:
                texts = backend.generate([m for _, m in chunk], params)
                outcomes = [(t, None) for t in texts]
            except Exception as exc:  # noqa: BLE001 - a failed batch is reported per item, not raised
                outcomes = [(None, f"{type(exc).__name__}: {exc}")] * len(chunk)
            for (key, _), (text, error) in zip(chunk, outcomes):
                self._record(key, text, error, answers, bar)
