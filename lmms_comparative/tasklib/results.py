"""The ``process_results`` and aggregation side of a task: the reply text, the per-item result,
the failure policy applied to the model's replies and to the scoring passes (readers, judges),
and the group aggregations."""

from __future__ import annotations

import functools
import hashlib
import json
import threading
from typing import Any, Callable, Iterable

from lmms_eval.api.filter import Filter

from lmms_comparative import failures
from lmms_comparative.data import items as _items
from lmms_comparative.failures import RunStopped, stop_run
from lmms_comparative.metrics.aggregate import STATUS_FAILED, accuracy, counts, sum_counts
from lmms_comparative.metrics.bootstrap import combine_ci95


def response_text(results: list) -> str:
    """The model's answer text from lmms-eval's ``results`` (a string, or an object with ``.text``)."""
    response = results[0] if results else ""
    return response if isinstance(response, str) else str(getattr(response, "text", response))


class KeepAllResponses(Filter):
    """An lmms-eval filter that keeps every response of a doc (lmms-eval's default keeps the
    first), so that with ``--repeats K`` process_results sees all K."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)

    def apply(self, resps, docs):
        """Every doc's responses, each doc's as a list (all of them, not only the first)."""
        return [list(r) for r in resps]


class Unscored(float):
    """What a scoring pass returns when its reader or judge failed past the allowed share: NaN for
    every metric, at any key and depth (``result["summary"]["score"]`` is NaN too), and under
    ``"counts"`` the failed and total calls with the reason. The task's results are still written,
    beside the other tasks' (one failing judge must not discard the run)."""

    counts: dict

    def __new__(cls, counts: dict):
        value = super().__new__(cls, "nan")
        value.counts = counts
        return value

    def __getitem__(self, key):
        return self.counts if key == "counts" else self

    def get(self, key, default=None):
        """As ``self[key]``: the counts under ``"counts"``, else itself (NaN); ``default`` is never
        returned."""
        return self[key]

    def __reduce__(self):
        return (Unscored, (self.counts,))


def guard_scoring(fn):
    """Wrap a scoring pass (a reader or judge run through the engine) so that:

    - calls failing past ``LMMS_COMPARATIVE_MAX_FAILED`` (``TooManyFailures``) flag the run (error
      in the log, exit status 1) and make the pass return ``Unscored``: its metrics NaN, its counts
      and the reason in the results;
    - an endpoint refusing the credentials (``EndpointRejected``: HTTP 401/403) stops the run at
      once with one message naming the variable the key came from (never the key);
    - anything else the pass raises (an SBERT model that cannot load, a bug) is logged with its
      traceback, flags the run and makes the pass ``Unscored`` too: the run's results and samples
      logs are still written, so the model's replies are kept and can be scored again
      (``lmms-comparative score``) once the cause is fixed.
    """

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except failures.TooManyFailures as exc:
            failures.flag(str(exc))
            return Unscored({"failed": exc.failed, "total": exc.total, "failure": str(exc)})
        except RunStopped as exc:  # EndpointRejected: HTTP 401/403
            stop_run(exc)
        except Exception as exc:  # noqa: BLE001 - the pass failed: keep the run's other results and its replies
            from loguru import logger

            reason = f"{fn.__name__} failed after generation: {type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
            logger.opt(exception=exc).error(reason)
            failures.add_flag(
                reason + " (the results and samples logs are written; fix the cause, then lmms-comparative score "
                "<output folder> scores the replies again)"
            )
            return Unscored({"failed": None, "total": None, "failure": reason})

    return wrapper


def check_model_failures(items: list, what: str) -> None:
    """Flag the run when more of a task's model requests failed than the allowed share (the
    items stay counted as ``failed`` and are scored by the benchmark's own rule)."""
    failed = sum(1 for it in items if it.get("status") == STATUS_FAILED)
    failures.check_share(what, failed, len(items), "got no answer from the model (failed requests)")


def once_per_run(key: Callable[..., Any] | None = None):
    """Memoise a task's scoring pass on its inputs.

    lmms-eval calls one aggregation per metric, each with the same gathered items; the scoring
    pass behind them (an LLM reader or judge, corpus-level metrics) must run once. The memo key is
    a hash of ``key(*args)`` (default: the arguments), as JSON. Thread-safe; the pass runs under the
    lock, so concurrent callers wait for it instead of repeating it. Failures are handled by
    ``guard_scoring``: a pass whose calls failed is memoised as ``Unscored``.
    """

    def decorate(fn):
        fn = guard_scoring(fn)
        memo: dict[str, Any] = {}
        lock = threading.Lock()

        @functools.wraps(fn)
        def wrapper(*args):
            material = key(*args) if key else args
            digest = hashlib.sha256(json.dumps(material, sort_keys=True, default=str).encode()).hexdigest()
            with lock:
                if digest not in memo:
                    memo[digest] = fn(*args)
                return memo[digest]

        return wrapper

    return decorate


def metric_of(score: Callable[..., dict], name: str, *args):
    """An lmms-eval aggregation returning ``score(items, *args)[name]``."""

    def aggregation(items: list) -> Any:
        return score(items, *args)[name]

    aggregation.__name__ = f"aggregate_{name}"
    return aggregation


class Share(float):
    """A share ``hits / n`` (NaN when ``n`` is 0) that keeps its parts, so that a group can add
    them up: the micro average over its tasks (``group_share``). In the results JSON it is the
    plain number."""

    hits: float
    n: int

    def __new__(cls, hits: float, n: int):
        value = super().__new__(cls, hits / n if n else float("nan"))
        value.hits, value.n = hits, n
        return value

    def __reduce__(self):
        return (Share, (self.hits, self.n))


def group_share(values: list, sizes: list, weight_by_size: bool = False) -> float:
    """Group aggregation of a ``Share`` metric: all hits over all items of the tasks that report
    it (a task without the metric's items does not report it). A value that lost its parts
    counts with its task's size."""
    hits = n = 0.0
    for value, size in zip(values, sizes):
        if isinstance(value, Share):
            hits, n = hits + value.hits, n + value.n
        elif isinstance(value, (int, float)) and value == value:
            hits, n = hits + value * size, n + size
    return Share(hits, int(n))


def group_sum_counts(values: list, sizes: list, weight_by_size: bool = False) -> dict:
    """Group aggregation of the tasks' ``counts``: the integer fields summed (others, such as
    rates or model names, do not add up and are left out)."""
    return sum_counts([{k: v for k, v in part.items() if isinstance(v, int)} for part in values])


def group_ci95(values: list, sizes: list, weight_by_size: bool = False) -> dict:
    """Group aggregation of the tasks' ``ci95``: the interval of the unweighted mean of the
    tasks' values (an Overall), from their bootstrap standard errors."""
    return combine_ci95(values)


def group_ci95_same_items(values: list, sizes: list, weight_by_size: bool = False) -> dict:
    """``group_ci95`` for tasks that score the same items (both image orders of ViDi)."""
    return combine_ci95(values, correlated=True)


def skip_counts(items_: list) -> dict:
    """``counts`` fields for what the task's docs skipped: ``skipped`` and ``skipped_by_reason``."""
    by_reason = _items.skipped_counts(items_)
    return {"skipped": sum(by_reason.values()), "skipped_by_reason": by_reason} if by_reason else {"skipped": 0}


# ---- the smallest benchmark's defaults: a per-item result with its key, checked aggregations ----


def item_results(
    doc: dict, outcome: dict, metrics: Iterable[str], key: Iterable[str] = ("item_id",), **fields
) -> dict[str, dict]:
    """What ``process_results`` returns: one per-item result under each of the task's metric names.

    The result carries the doc's ``key`` columns (the benchmark's record's ``item_key`` columns, by
    which ``lmms-comparative score`` and ``verify`` find the item again in a samples log), the
    doc's ``skipped`` counts (``docs_hook`` puts them on every doc), the ``fields`` a breakdown
    needs, and the ``outcome``: ``status``, ``correct`` and ``parsed``, as
    ``metrics.aggregate.mcq_outcome`` gives them (a failed model request has status ``failed``)."""
    missing = [column for column in key if doc.get(column) in (None, "")]
    if missing:
        raise KeyError(f"item_results: the doc has no {', '.join(missing)} (the item key: the record's item_key)")
    sample = {column: doc[column] for column in key}
    sample.update(fields, skipped=doc.get("skipped", ""))
    sample.update(outcome)
    return {name: sample for name in metrics}


def accuracy_aggregation(label: str) -> Callable[[list], float]:
    """An aggregation for the ``accuracy`` metric that applies the failure policy: more failed model
    requests than ``LMMS_COMPARATIVE_MAX_FAILED`` allows flag the run (exit status 1); the share
    correct is taken over the answered items. ``label`` names the task in the message."""

    def aggregate_accuracy(items: list) -> float:
        check_model_failures(items, label)
        return accuracy(items)

    return aggregate_accuracy


def counts_aggregation(label: str) -> Callable[[list], dict]:
    """An aggregation for the ``counts`` metric (items, scored, correct, unparsed, failed, skipped)
    that applies the failure policy as ``accuracy_aggregation`` does."""

    def aggregate_counts(items: list) -> dict:
        check_model_failures(items, label)
        return {**counts(items), **skip_counts(items)}

    return aggregate_counts
