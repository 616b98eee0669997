"""Several rounds per item (lmms-eval's ``generate_until_multi_round``)."""

from __future__ import annotations

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
