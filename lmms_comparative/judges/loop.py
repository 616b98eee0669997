"""The event loop every LLM call of a process runs on: one thread per process (a forked child
starts its own), which keeps the backends' connection pools across runs, and the cache writer."""

from __future__ import annotations

import asyncio
import atexit
import os
import threading
from concurrent.futures import ThreadPoolExecutor


class LoopThread:
    """One event loop on a daemon thread, per process: every engine's HTTP calls run there, so
    connection pools outlive a run. Closed (pools included) at interpreter exit."""

    _instance: "LoopThread | None" = None
    _guard = threading.Lock()

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lmms-comparative-cache")  # cache commits
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="lmms-comparative-llm", daemon=True)
        self.thread.start()

    @classmethod
    def get(cls) -> "LoopThread":
        """The process's loop thread, started on first use (a forked child starts its own) and closed at interpreter
        exit."""
        with cls._guard:
            if cls._instance is None or cls._instance.pid != os.getpid():  # a forked child starts its own
                cls._instance = cls()
                atexit.register(cls._instance.close)
            return cls._instance

    def run(self, coro):
        """Run ``coro`` on the loop and wait for it. An interrupt of the waiting thread (Ctrl-C)
        cancels it and waits for its cleanup (the final cache commit) before propagating."""
        finished = threading.Event()

        async def tracked():
            try:
                return await coro
            finally:
                finished.set()  # after the coroutine's own cleanup (a cancelled future says done at once)

        future = asyncio.run_coroutine_threadsafe(tracked(), self.loop)
        try:
            return future.result()
        except BaseException:
            future.cancel()
            finished.wait(30)
            raise

    def close(self) -> None:
        """Close the connection pools on the loop, then stop it and join its thread (best effort, a few seconds at
        most); nothing in a forked child or once the thread has stopped."""
        if self.pid != os.getpid() or not self.thread.is_alive():
            return
        from lmms_comparative.judges.openai_backend import close_pools

        try:
            asyncio.run_coroutine_threadsafe(close_pools(), self.loop).result(10)
        except Exception:  # noqa: BLE001 - best effort at exit
            pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
