"""Hook helpers shared by every benchmark."""

from __future__ import annotations

import functools
import hashlib
import json
import threading
from typing import Any, Callable, Iterable

from PIL import Image

from lmms_comparative.data.errors import DataError


def load_images(doc: dict[str, Any], fields: Iterable[str]) -> list[Image.Image]:
    """Open the image files that ``doc`` names in ``fields``, as RGB, in that order."""
    fields = list(fields)
    return load_image_paths([doc[f] for f in fields], doc.get("item_id", "?"), fields)


def load_image_paths(paths: Iterable[str], doc_id: str, names: Iterable[str] | None = None) -> list[Image.Image]:
    """Open image files as RGB, in order; a missing or undecodable file raises DataError naming
    the doc, the image and the path."""
    paths = list(paths)
    names = list(names) if names is not None else [f"image {i + 1}" for i in range(len(paths))]
    images = []
    for name, path in zip(names, paths):
        try:
            with Image.open(path) as handle:
                images.append(handle.convert("RGB"))
        except (OSError, ValueError) as exc:
            raise DataError(f"doc {doc_id}: cannot read {name} at {path} ({exc}).") from exc
    return images


def response_text(results: list) -> str:
    """The model's answer text from lmms-eval's ``results`` (a string, or an object with ``.text``)."""
    response = results[0] if results else ""
    return response if isinstance(response, str) else str(getattr(response, "text", response))


def _filter_base():
    from lmms_eval.api.filter import Filter

    return Filter


class KeepAllResponses(_filter_base()):
    """An lmms-eval filter that keeps every response of a doc (lmms-eval's default keeps the
    first), so that with ``--repeats K`` process_results sees all K."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)

    def apply(self, resps, docs):
        return [list(r) for r in resps]


def docs_hook(name: str, load: Callable[[], Any]):
    """A ``process_docs`` for lmms-eval that ignores the one-row placeholder the YAML loads and
    returns the benchmark's real docs (a list of dicts or a Dataset) from ``load``: lmms-eval has
    no hook for data found through an environment variable."""

    def process_docs(_placeholder):
        from datasets import Dataset

        docs = load()
        return docs if isinstance(docs, Dataset) else Dataset.from_list(docs)

    process_docs.__name__ = f"process_docs_{name}"
    return process_docs


def once_per_run(key: Callable[..., Any] | None = None):
    """Memoise a task's scoring pass on its inputs.

    lmms-eval calls one aggregation per metric, each with the same gathered items; the scoring
    pass behind them (an LLM reader or judge, corpus-level metrics) must run once. The memo key is
    a hash of ``key(*args)`` (default: the arguments), as JSON. Thread-safe; the pass runs under the
    lock, so concurrent callers wait for it instead of repeating it.
    """

    def decorate(fn):
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


def group_sum_counts(values: list, sizes: list, weight_by_size: bool = False) -> dict:
    """Group aggregation of the tasks' ``counts``: the integer fields summed (others, such as
    rates or model names, do not add up and are left out)."""
    from lmms_comparative.metrics.aggregate import sum_counts

    return sum_counts([{k: v for k, v in part.items() if isinstance(v, int)} for part in values])


def group_ci95(values: list, sizes: list, weight_by_size: bool = False) -> dict:
    """Group aggregation of the tasks' ``ci95``: the interval of the unweighted mean of the
    tasks' values (an Overall), from their bootstrap standard errors."""
    from lmms_comparative.metrics.bootstrap import combine_ci95

    return combine_ci95(values)


def group_ci95_same_items(values: list, sizes: list, weight_by_size: bool = False) -> dict:
    """``group_ci95`` for tasks that score the same items (both image orders of ViDi)."""
    from lmms_comparative.metrics.bootstrap import combine_ci95

    return combine_ci95(values, correlated=True)
