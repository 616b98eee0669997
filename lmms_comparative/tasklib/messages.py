"""What a ``doc_to_messages`` hook returns: lmms-eval's chat messages, a list of turns, each a role
and its content parts (``{"type": "text", "text": ...}``, ``{"type": "image", "url": ...}``)."""

from __future__ import annotations


def chat(system: str, content: list[dict]) -> list[dict]:
    """A system turn (``system``, its one text part), then the user turn of ``content``."""
    return [
        {"role": "system", "content": [{"type": "text", "text": system}]},
        {"role": "user", "content": content},
    ]
