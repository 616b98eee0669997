"""One engine for every LLM call that scoring makes.

``Engine.run(requests)`` takes a list of chat requests (a list of messages, or a plain user
string) and returns one ``ChatResult`` per request, in order: the text, or a failure with its
reason. Identical requests are answered once; answers already in the cache are not requested
again; the rest go to the backend with bounded concurrency and retries.

Answers reach the cache in batches written by a thread of their own, off the event loop: a batch
is committed every ``COMMIT_EVERY`` answers or ``COMMIT_INTERVAL`` seconds, whichever comes first,
and the engine never holds more than ``commit_window(concurrency)`` received answers uncommitted
(256 at the default concurrency of 32; twice the concurrency above 128): a request waits for the
writer before it is sent when that many are outstanding. So a run killed at any moment (SIGKILL
included) loses at most that many answers: a rerun asks those again, with the calls that were in
flight, and nothing else. A run that ends, fails or is interrupted (Ctrl-C) commits everything it received.

It is synchronous for its callers (lmms-eval hooks and aggregations) and safe to call from any
thread, including one that already runs an event loop: HTTP calls run on one event loop thread per
process, which keeps its connection pools across runs (the four CaptionQA domain passes, judges).
"""

from __future__ import annotations

import asyncio
import os
import random
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Sequence, Union

from loguru import logger
from tqdm import tqdm  # type: ignore[import-untyped]  # tqdm ships no type information

from lmms_comparative import provenance
from lmms_comparative.failures import MAX_FAILED_ENV, TooManyFailures, exceeds, share_of
from lmms_comparative.judges.cache import AnswerCache, encode_requests
from lmms_comparative.judges.config import EngineConfig
from lmms_comparative.judges.loop import LoopThread

Request = Union[str, list]

# The commit window (module docstring): a batch every COMMIT_EVERY answers or COMMIT_INTERVAL
# seconds, never more than UNCOMMITTED_MAX received answers uncommitted.
COMMIT_EVERY = 128
COMMIT_INTERVAL = 0.5
UNCOMMITTED_MAX = 256


def commit_window(concurrency: int) -> int:
    """The most answers a run holds received and uncommitted: 256, or twice the concurrency when
    that is larger (so the writer never throttles a wide run)."""
    return max(UNCOMMITTED_MAX, 2 * max(1, concurrency))


def normalize_reply(text: str | None) -> str | None:
    """Reply text as every benchmark reads it: surrounding white space stripped (the authors'
    pipelines strip model output before parsing, e.g. CaptionQA's qa.py). One place for every
    backend and for cached answers, so an identical reply scores identically whichever way it came."""
    return text.strip() if isinstance(text, str) else text


@dataclass(frozen=True)
class ChatResult:
    """One request's answer: ``text``, or None with the ``error`` that left it unanswered; ``cached`` when it came
    from the cache."""

    text: str | None
    error: str | None = None
    cached: bool = False

    @property
    def failed(self) -> bool:
        """No answer (the request failed after its retries, or its reply was empty)."""
        return self.text is None


@dataclass
class EngineStats:
    """What an engine did over its life: requests, cache hits, backend calls, failures and their errors."""

    requested: int = 0  # requests handed to run()
    cached: int = 0  # answered from the cache
    calls: int = 0  # distinct requests sent to the backend
    failed: int = 0  # distinct requests that stayed unanswered
    errors: list[str] = field(default_factory=list)


def check_failures(failed: int, total: int, max_failed: float, what: str) -> None:
    """Raise TooManyFailures when ``failed / total`` exceeds ``max_failed``; warn on any failure."""
    if not failed:
        return
    message = (
        f"{what}: {failed} of {total} item(s) could not be judged ({share_of(failed, total):.1%}); they are excluded "
        "from the scores"
    )
    if exceeds(failed, total, max_failed):
        raise TooManyFailures(
            f"{message}, which is more than the allowed {max_failed:.1%} ({MAX_FAILED_ENV}).", failed, total
        )
    logger.warning(message + ".")


_ANSWER_LOGS: dict[str, dict[str, str]] = {}


def _logged_answers(path: str) -> dict[str, str]:
    """An answers log, read once per process."""
    if path not in _ANSWER_LOGS:
        _ANSWER_LOGS[path] = provenance.load_answers(path)
    return _ANSWER_LOGS[path]


def _as_messages(request: Request) -> list:
    return [{"role": "user", "content": request}] if isinstance(request, str) else list(request)


class _Committer:
    """Answers received on the event loop, committed to the cache in batches by one writer thread
    (the commit window in the module docstring). Lives on the loop; not thread-safe.

    A worker reserves room before it sends a request and hands its answer over as soon as it
    arrives (no await in between), so answers received but not committed never exceed ``limit``."""

    def __init__(self, cache: AnswerCache, writer: ThreadPoolExecutor, limit: int):
        self.cache, self.writer, self.limit = cache, writer, limit
        self.loop = asyncio.get_running_loop()
        self.pending: list[tuple[str, str]] = []
        self.oldest = 0.0
        self.writing: asyncio.Future | None = None
        self.writing_count = 0
        self.reserved = 0
        self.timer: asyncio.TimerHandle | None = None

    def uncommitted(self) -> int:
        """Answers received and not yet committed."""
        return len(self.pending) + self.writing_count

    async def reserve(self) -> None:
        while self.uncommitted() + self.reserved >= self.limit:
            self._write(force=True)
            if self.writing is None:  # nothing to wait for (cannot happen while workers <= limit / 2)
                break
            await asyncio.wait([self.writing])  # the writer is behind: wait for its commit
        self.reserved += 1

    def release(self) -> None:
        self.reserved -= 1

    def add(self, key: str, text: str) -> None:
        self.reserved -= 1
        if not self.pending:
            self.oldest = self.loop.time()
            if self.timer is None:
                self.timer = self.loop.call_later(COMMIT_INTERVAL, self._on_timer)
        self.pending.append((key, text))
        if len(self.pending) >= COMMIT_EVERY:
            self._write()

    def _on_timer(self) -> None:
        self.timer = None
        if self.pending:
            self._write(force=True)
            if self.pending:  # the writer was busy: try again shortly
                self.timer = self.loop.call_later(COMMIT_INTERVAL / 10, self._on_timer)

    def _write(self, force: bool = False) -> None:
        if self.writing is not None or not self.pending:
            return
        if not force and len(self.pending) < COMMIT_EVERY and self.loop.time() - self.oldest < COMMIT_INTERVAL:
            return
        batch, self.pending = self.pending, []
        self.writing_count = len(batch)
        self.writing = self.loop.run_in_executor(self.writer, self.cache.put_many, batch)
        self.writing.add_done_callback(self._written)

    def _written(self, future: asyncio.Future) -> None:
        self.writing, self.writing_count = None, 0
        if not future.cancelled() and future.exception() is not None:
            error = future.exception()
            logger.warning(
                f"LLM cache: {len(self.pending)} answer(s) could not be written ({type(error).__name__}: {error}); a "
                "rerun asks them again"
            )
        self._write()  # what arrived meanwhile, if it is due

    async def close(self) -> None:
        """Commit everything received (waits for the writer)."""
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        while self.writing is not None or self.pending:
            if self.writing is not None:
                await asyncio.wait([self.writing])
            self._write(force=True)


class Engine:
    """Every LLM call of a scoring pass, through one configured backend with the cache (module docstring)."""

    def __init__(self, config: EngineConfig, prefix: str | None = None):
        self.config = config
        self.prefix = prefix  # the benchmark's settings prefix (CAPTIONQA_READER, ...), for the answers log
        self.cache = AnswerCache(config.cache_path) if config.cache_path else None
        self.stats = EngineStats()
        self._lock = threading.Lock()
        self._backend = None

    @classmethod
    def from_env(cls, prefix: str | None = None, defaults: dict | None = None, **overrides) -> "Engine":
        """The engine of a benchmark's judge or reader (``prefix``), its settings noted for the
        results file's provenance."""
        config = EngineConfig.from_env(prefix, defaults, **overrides)
        provenance.note_llm(prefix, config)
        return cls(config, prefix)

    @property
    def backend(self):
        """The backend the config names (``openai``, ``azure`` or ``local``), built on first use."""
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

    def run(
        self,
        requests: Sequence[Request],
        desc: str = "LLM calls",
        progress: bool = True,
        fresh: bool = False,
        **overrides,
    ) -> list[ChatResult]:
        """One ``ChatResult`` per request, in order: identical requests asked once, cached answers not asked again,
        the rest sent with bounded concurrency and retries (or answered from ``LMMS_COMPARATIVE_LLM_ANSWERS`` when it
        is set).

        ``fresh``: ask the endpoint even where the cache holds an answer, and keep the new answer in
        its place: for a caller that asks again a reply it could not read, as a scoring script that
        retries a judge's malformed verdict does. A replayed answers log holds the last answer."""
        messages = [_as_messages(r) for r in requests]
        answer_keys = [provenance.answer_key(m) for m in messages]
        logged = os.environ.get(provenance.ANSWERS_ENV, "").strip()
        if logged:
            return self._replay(answer_keys, logged)
        results = self._run(messages, desc, progress, fresh, **overrides)
        provenance.note_answers(self.prefix, [(k, r.text) for k, r in zip(answer_keys, results) if r.text is not None])
        return results

    def _replay(self, answer_keys: list[str], path: str) -> list[ChatResult]:
        """Every answer from a run's answers log (``provenance.ANSWERS_ENV``), no endpoint called;
        a request the log lacks fails, as an unanswered call does."""
        answers = _logged_answers(path)
        results = [
            ChatResult(normalize_reply(answers[k]), cached=True)
            if k in answers
            else ChatResult(None, f"not in the logged answers ({path})")
            for k in answer_keys
        ]
        missing = sum(r.failed for r in results)
        with self._lock:
            self.stats.requested += len(results)
            self.stats.cached += len(results) - missing
            self.stats.failed += missing
        provenance.note_answers(self.prefix, [(k, r.text) for k, r in zip(answer_keys, results) if r.text is not None])
        return results

    def _run(
        self, messages: list[list], desc: str, progress: bool, fresh: bool = False, **overrides
    ) -> list[ChatResult]:
        params = self.params(**overrides)
        # The cache key and the HTTP body share one JSON encoding of the messages.
        encoded = encode_requests(self.config.endpoint, self.config.model, messages, params)
        keys = [key for key, _ in encoded]
        hits = self.cache.get_many(keys) if self.cache is not None and not fresh else {}
        todo: dict = {}  # distinct keys, first occurrence: key -> (messages, body)
        for (key, body), m in zip(encoded, messages):
            if key not in hits and key not in todo:
                todo[key] = (m, body)
        answers: dict[str, tuple[str | None, str | None]] = {}
        if todo:
            bar = tqdm(total=len(todo), desc=desc, disable=not progress, dynamic_ncols=True)
            try:
                if self.config.backend == "local":
                    self._run_local(todo, params, answers, bar)
                else:
                    runner = LoopThread.get()
                    runner.run(self._run_openai(todo, answers, bar, runner.writer))
            finally:
                bar.close()
        results = []
        for key in keys:
            if key in hits:
                results.append(ChatResult(normalize_reply(hits[key]), cached=True))
            else:
                text, error = answers.get(key, (None, "not answered (interrupted)"))
                results.append(ChatResult(text, error))
        failed = {k for k in todo if answers.get(k, (None,))[0] is None}
        with self._lock:
            self.stats.requested += len(keys)
            self.stats.cached += sum(1 for k in keys if k in hits)
            self.stats.calls += len(todo)
            self.stats.failed += len(failed)
            errors = [answers[k][1] for k in failed if k in answers]
            self.stats.errors.extend(e for e in errors if e is not None)  # a failed answer always has its error
        if failed:
            first = next((answers[k][1] for k in failed if k in answers), "interrupted")
            logger.warning(
                f"{desc}: {len(failed)} of {len(todo)} request(s) failed after retries; first error: {first}"
            )
        return results

    async def _run_openai(self, todo: dict, answers: dict, bar, writer: ThreadPoolExecutor) -> None:
        backend = self.backend
        rng = random.Random()
        client = backend.client()  # the process's keep-alive pool for this endpoint, on this loop
        committer = (
            _Committer(self.cache, writer, commit_window(self.config.concurrency)) if self.cache is not None else None
        )
        queue = iter(todo.items())

        # ``concurrency`` workers, each taking the next request when its last one is answered.
        async def worker() -> None:
            for key, (_, body) in queue:
                if committer is not None:
                    await committer.reserve()
                try:
                    text, error = await backend.complete(client, body, rng)
                except BaseException:
                    if committer is not None:
                        committer.release()
                    raise
                text = normalize_reply(text)
                answers[key] = (text, error)
                if committer is not None:
                    committer.add(key, text) if text is not None else committer.release()
                bar.update(1)

        workers = [asyncio.ensure_future(worker()) for _ in range(max(1, min(self.config.concurrency, len(todo))))]
        try:
            # The first call whose credentials are refused (EndpointRejected) stops the whole run:
            # every other call would be refused too. Answers received so far are committed.
            done, _ = await asyncio.wait(workers, return_when=asyncio.FIRST_EXCEPTION)
            for task in done:
                error = None if task.cancelled() else task.exception()
                if error is not None:
                    raise error
        finally:
            for task in workers:
                task.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            if committer is not None:
                await asyncio.shield(committer.close())

    def _run_local(self, todo: dict, params: dict, answers: dict, bar) -> None:
        backend = self.backend
        items = list(todo.items())
        size = max(1, self.config.batch_size)
        for start in range(0, len(items), size):
            chunk = items[start : start + size]
            outcomes: list[tuple[str | None, str | None]]
            try:
                texts = backend.generate([m for _, (m, _) in chunk], params)
                outcomes = [(t, None) for t in texts]
            except Exception as exc:  # noqa: BLE001 - a failed batch is reported per item, not raised
                outcomes = [(None, f"{type(exc).__name__}: {exc}")] * len(chunk)
            fresh = []
            for (key, _), (text, error) in zip(chunk, outcomes):
                text = normalize_reply(text)
                answers[key] = (text, error)
                if text is not None:
                    fresh.append((key, text))
            if self.cache is not None:
                self.cache.put_many(fresh)  # one commit per batch
            bar.update(len(chunk))
