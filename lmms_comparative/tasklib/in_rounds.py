"""A multi-round ``doc_to_messages`` (lmms-eval's ``generate_until_multi_round``) made from what a
task asks in its first round and in each later one."""

from __future__ import annotations

from typing import Any, Callable

from lmms_comparative.metrics.aggregate import is_failed_request
from lmms_comparative.tasklib.rounds import END_OF_ROUNDS, next_round

Doc = dict[str, Any]
Later = Callable[[Doc, int, list], "list[dict] | None"]


def in_rounds(first: Callable[[Doc], list[dict]]) -> Callable[[Later], Callable[..., Any]]:
    """Makes ``later(doc, round_idx, the replies so far)`` the ``doc_to_messages`` of a task asked
    in rounds, under its own name: round 0 asks ``first(doc)``; round k >= 1 asks ``later``'s
    messages, and the item ends where ``later`` returns None or where a reply so far is a failed
    request (nothing to build on: the item counts as a failed request)."""

    def decorate(later: Later) -> Callable[..., Any]:
        def doc_to_messages(
            doc: Doc,
            lmms_eval_specific_kwargs: dict | None = None,
            round_idx: int | None = None,
            previous_output: list | None = None,
            previous_round_info=None,
        ):
            if not round_idx:
                return first(doc)
            outputs = list(previous_output or [])
            if any(is_failed_request(o) for o in outputs):
                return END_OF_ROUNDS
            messages = later(doc, round_idx, outputs)
            return END_OF_ROUNDS if messages is None else next_round(messages)

        # The hook is known by the name it is bound to (the task files, the results' configs), and
        # keeps lmms-eval's signature (no ``__wrapped__`` pointing a reader at ``later``'s).
        for attribute in ("__module__", "__name__", "__qualname__", "__doc__"):
            setattr(doc_to_messages, attribute, getattr(later, attribute))
        return doc_to_messages

    return decorate
