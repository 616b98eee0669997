"""``process_results`` for a free-text reply that a judge reads after generation."""

from __future__ import annotations

from collections.abc import Iterable

from lmms_comparative.metrics import aggregate
from lmms_comparative.tasklib.results import item_results, response_text


def kept_reply_results(
    doc: dict, results: list, metrics: Iterable[str], key: Iterable[str] = ("item_id",), **fields
) -> dict[str, dict]:
    """The reply kept as it is (``prediction``: the raw reply, as the authors' runners write it),
    as ``item_results`` returns it; a failed request (lmms-eval's failure text) is no prediction
    (``status`` failed, ``prediction`` ""), for the scoring pass to count."""
    reply = response_text(results)
    failed = aggregate.is_failed_request(reply)
    outcome = {
        "status": aggregate.STATUS_FAILED if failed else aggregate.STATUS_OK,
        "prediction": "" if failed else reply,
    }
    return item_results(doc, outcome, metrics, key=key, **fields)
