"""Several rounds per item (lmms-eval's ``generate_until_multi_round``)."""

from __future__ import annotations

import functools

from lmms_comparative.failures import RunStopped, stop_run
from lmms_comparative.tasklib.capabilities import require_multi_round
from lmms_comparative.tasklib.host import run_model
from lmms_comparative.tasklib.results import response_text

# What a multi-round doc_to_messages returns for round k >= 1 (lmms-eval's protocol, as its vLLM
# chat class and our ``multiround`` model read it): (messages, terminal, previous_output, info).
END_OF_ROUNDS = (None, True, None, None)


def next_round(messages: list[dict]) -> tuple:
    """What a multi-round ``doc_to_messages`` returns for a round k >= 1 that asks ``messages``."""
    return (messages, False, None, None)


def round_replies(results: list) -> list[str]:
    """Every round's reply of a multi-round request (lmms-eval hands ``process_results`` the list
    of them), or the one reply of a single-round request."""
    response = results[0] if results else ""
    if isinstance(response, (list, tuple)):
        return [response_text([r]) for r in response]
    return [response_text(results)]


def flatten(messages: list[dict]) -> tuple[str, list]:
    """Chat messages as a simple model takes them: the text parts joined by a blank line (system
    turn first, as our tasks' ``doc_to_text`` do), and the images (videos, audio) in order."""
    texts, visuals = [], []
    for message in messages:
        content = message.get("content")
        for part in [{"type": "text", "text": content}] if isinstance(content, str) else content or []:
            if part.get("type") == "text":
                texts.append(str(part.get("text", "")))
            elif part.get("type") in ("image", "video", "audio"):
                visuals.append(part.get("url"))
    return "\n\n".join(t for t in texts if t), visuals


def multi_round_docs(process_docs, task: str):
    """Tasks asked in several rounds need a model class that runs rounds: a ``process_docs`` that
    first checks that the run's model can run rounds (``--model multiround`` can, with any inner
    model; lmms-eval's vLLM and SGLang chat classes can)."""

    @functools.wraps(process_docs)
    def wrapper(dataset):
        try:
            require_multi_round(run_model(), task)
        except RunStopped as exc:
            from loguru import logger

            logger.error(str(exc))
            stop_run(exc)
        return process_docs(dataset)

    wrapper.__name__ = f"{getattr(process_docs, '__name__', 'process_docs')}_multi_round"
    return wrapper
