"""The engine tests' local server and engine: the server requires this key, as a real endpoint
would, and the engine records its retry waits instead of sleeping them."""

from __future__ import annotations

from helpers.fake_openai import FakeOpenAI
from lmms_comparative.judges import Engine, EngineConfig

SECRET = "sk-test-SECRET-must-not-leak-123"


def serve(responder, **kw) -> FakeOpenAI:
    """The local server, requiring ``SECRET`` as a real endpoint would."""
    return FakeOpenAI(responder, api_key=SECRET, **kw)


def engine(server: FakeOpenAI, cache_path=None, **kw) -> Engine:
    settings = {"model": "judge-model", "api_key": SECRET, "max_retries": 3, "timeout": 30.0, **kw}
    config = EngineConfig(base_url=server.base_url, cache_path=cache_path, **settings)
    found = Engine(config)
    waits: list[float] = []

    async def record_wait(seconds: float) -> None:  # keep the retry schedule, skip the waiting
        waits.append(seconds)

    found.backend.sleep = record_wait
    found.waits = waits
    return found
