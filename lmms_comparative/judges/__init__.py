"""The engine for every LLM call that scoring makes (judges, the CaptionQA reader).

Usage from a benchmark::

    engine = Engine.from_env("CAPTIONQA_READER", defaults={"model": "Qwen/Qwen2.5-72B-Instruct"})
    results = engine.run(list_of_message_lists, desc="CaptionQA reader")
    check_failures(sum(r.failed for r in results), len(results), engine.config.max_failed, "CaptionQA")
"""

from lmms_comparative.judges.config import EngineConfig
from lmms_comparative.judges.engine import (
    ChatResult,
    Engine,
    EngineStats,
    TooManyFailures,
    check_failures,
)

__all__ = ["ChatResult", "Engine", "EngineConfig", "EngineStats", "TooManyFailures", "check_failures"]
