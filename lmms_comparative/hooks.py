"""Hook helpers shared by every benchmark."""

from __future__ import annotations

import functools
import hashlib
import json
import threading
from typing import Any, Callable, Iterable

from PIL import Image

from lmms_comparative.data import items
from lmms_comparative.failures import DataError, RunStopped, stop_run


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


def stops_run_on_bad_input(process_docs):
    """Make a ``process_docs`` stop the run at once, with one message, on a run-level problem
    (``failures.RunStopped``): a missing or malformed data root or file (``DataError``) or a model
    that cannot take the task's input (``ModelCapabilityError``).

    lmms-eval wraps ``process_docs`` in a retry on any ``Exception`` (5 attempts, 2 s apart), then
    buries the message in a ``RetryError`` traceback and exits 0. A ``SystemExit`` is neither
    retried nor caught: the process prints the message and exits with status 1.
    """

    @functools.wraps(process_docs)
    def wrapper(*args, **kwargs):
        try:
            return process_docs(*args, **kwargs)
        except RunStopped as exc:
            from loguru import logger

            logger.error(str(exc))
            stop_run(exc)

    return wrapper


def report_skips(what: str, skips, total: int) -> None:
    """Name every skipped item (one line each) in one warning; flag the run past the allowed share."""
    from loguru import logger

    from lmms_comparative import failures

    lines = "\n".join(f"  {reason}: {what_}" for reason, whats in sorted(skips.by_reason.items()) for what_ in whats)
    logger.warning(f"{what}: skipped {len(skips)} of {total} item(s) that cannot be used; the rest are scored:\n{lines}")
    failures.check_share(what, len(skips), total, "were skipped (unusable images or records)")


def skip_counts(items_: list) -> dict:
    """``counts`` fields for what the task's docs skipped: ``skipped`` and ``skipped_by_reason``."""
    by_reason = items.skipped_counts(items_)
    return {"skipped": sum(by_reason.values()), "skipped_by_reason": by_reason} if by_reason else {"skipped": 0}


def docs_dataset(columns: dict[str, list]):
    """The docs as a ``datasets.Dataset`` built from their columns: the table and the features
    ``Dataset.from_dict`` gives, without its fingerprint. ``Dataset`` names a new dataset by
    hashing every value it holds (about a fifth of a benchmark's preparation time at the releases'
    sizes, bench/data_scale.py); the docs live in memory and are never written to the datasets
    cache, which is what the fingerprint names, so a random one loses nothing."""
    import pyarrow as pa
    from datasets import Dataset
    from datasets.fingerprint import generate_random_fingerprint
    from datasets.table import InMemoryTable

    return Dataset(InMemoryTable(pa.Table.from_pydict(columns)), fingerprint=generate_random_fingerprint())


def rows_to_columns(docs: list[dict]) -> dict[str, list]:
    """Columns of a list of docs, keyed as ``Dataset.from_list`` keys them (the first doc's keys;
    a key a doc lacks is None)."""
    return {key: [doc.get(key) for doc in docs] for key in docs[0]} if docs else {}


def docs_hook(name: str, load: Callable[[], Any], image_paths: Callable[[dict], Iterable[str]] | None = None, item_id: Callable[[dict], str] = lambda d: str(d.get("item_id", "?")), label: str | None = None):
    """A ``process_docs`` for lmms-eval that ignores the one-row placeholder the YAML loads and
    returns the benchmark's real docs (a list of dicts, their columns or a Dataset) from ``load``: lmms-eval has
    no hook for data found through an environment variable. Run-level problems stop the run
    (``stops_run_on_bad_input``); items whose images (``image_paths(doc)``) or records are unusable
    are skipped, named in a warning and counted in every doc's ``skipped`` field."""

    recorded: dict[str, str] = {}  # item key -> why it was skipped, of the last load (provenance)

    def process_docs(_placeholder):
        from datasets import Dataset

        skips = items.Skips()
        with items.collecting(skips):
            docs = load()
        dropped: list = []
        if image_paths is not None and items.images_needed():
            docs = items.drop_bad_images(list(docs), image_paths, item_id, skips, dropped)
        skipped_before = recorded_skips()
        key = _item_key(load) if dropped or skipped_before else None  # only when there is a skip to key
        if skipped_before:  # a scored file's skips stay skips (lmms-comparative score)
            rows = rows_of(docs)
            docs = []
            for doc in rows:
                reason = skipped_before.get(key(doc)) if key else None
                if reason is None:
                    docs.append(doc)
                else:
                    skips.add(f"skipped in the scored run: {reason}", key(doc))
                    dropped.append((doc, reason))
        recorded.clear()
        recorded.update({key(doc): reason for doc, reason in dropped} if key else {})
        count = len(next(iter(docs.values()), [])) if isinstance(docs, dict) else len(docs)
        if skips:
            report_skips(label or name, skips, count + len(skips))
        if not count:
            raise DataError(f"{label or name}: no usable item is left ({len(skips)} skipped: {skips.counts()}).")
        # Every doc carries the task's skip counts, so its results can show them on any rank.
        skipped = skips.as_json() if skips else ""
        if isinstance(docs, Dataset):
            return docs.add_column("skipped", [skipped] * count)
        columns = dict(docs) if isinstance(docs, dict) else rows_to_columns(docs)
        return docs_dataset({**columns, "skipped": [skipped] * count})

    process_docs.__name__ = f"process_docs_{name}"
    process_docs.skipped_items = recorded  # shared with the wrapper below (functools.wraps copies it)
    return stops_run_on_bad_input(process_docs)


RECORDED_SKIPS_ENV = "LMMS_COMPARATIVE_RECORDED_SKIPS"


def recorded_skips() -> dict[str, str]:
    """Item key -> reason, for the items the files that ``lmms-comparative score`` reads record as
    skipped (the replay file that ``LMMS_COMPARATIVE_RECORDED_SKIPS`` names); {} otherwise."""
    import os

    path = os.environ.get(RECORDED_SKIPS_ENV, "").strip()
    if not path:
        return {}
    from lmms_comparative.predictions import read_replay

    return {key: reason for by_key in (read_replay(path).get("skipped") or {}).values() for key, reason in by_key.items()}


def rows_of(docs) -> list[dict]:
    """Docs as a list of dicts, from a list, a dict of columns or a Dataset."""
    if isinstance(docs, dict):
        names = list(docs)
        return [dict(zip(names, values)) for values in zip(*docs.values())]
    return [dict(d) for d in docs]


def _item_key(load: Callable) -> Callable[[dict], str] | None:
    """The item key rule of the benchmark whose module defines ``load`` (predictions.ItemKey)."""
    from lmms_comparative.benchmarks import of_module
    from lmms_comparative.predictions import ItemKey

    while isinstance(load, functools.partial):
        load = load.func
    benchmark = of_module(getattr(load, "__module__", "") or "")
    if benchmark is None:
        return None
    try:
        rule = ItemKey.of(benchmark)
    except (ImportError, AttributeError):
        return None

    def key(doc: dict) -> str | None:
        try:
            return rule(doc)
        except (KeyError, TypeError, ValueError):
            return None

    return key


class Unscored(float):
    """What a scoring pass returns when its reader or judge failed past the allowed share: NaN for
    every metric, at any key and depth (``result["summary"]["score"]`` is NaN too), and under
    ``"counts"`` the failed and total calls with the reason. The task's results are still written,
    beside the other tasks' (one failing judge must not discard the run)."""

    def __new__(cls, counts: dict):
        value = super().__new__(cls, "nan")
        value.counts = counts
        return value

    def __getitem__(self, key):
        return self.counts if key == "counts" else self

    def get(self, key, default=None):
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
    from lmms_comparative import failures

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
            failures.add_flag(reason + " (the results and samples logs are written; fix the cause, then lmms-comparative score <output folder> scores the replies again)")
            return Unscored({"failed": None, "total": None, "failure": reason})

    return wrapper


def check_model_failures(items: list, what: str) -> None:
    """Flag the run when more of a task's model requests failed than the allowed share (the
    items stay counted as ``failed`` and are scored by the benchmark's own rule)."""
    from lmms_comparative import failures
    from lmms_comparative.metrics.aggregate import STATUS_FAILED

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


# ---- several rounds per item (lmms-eval's generate_until_multi_round) ---------------------------

# What a multi-round doc_to_messages returns for round k >= 1 (lmms-eval's protocol, as its vLLM
# chat class and our ``multiround`` model read it): (messages, terminal, previous_output, info).
END_OF_ROUNDS = (None, True, None, None)


def next_round(messages: list[dict]) -> tuple:
    return (messages, False, None, None)


def round_replies(results: list) -> list[str]:
    """Every round's reply of a multi-round request (lmms-eval hands ``process_results`` the list
    of them), or the one reply of a single-round request."""
    response = results[0] if results else ""
    if isinstance(response, (list, tuple)):
        return [response_text([r]) for r in response]
    return [response_text(results)]


def multi_round_docs(process_docs, task: str):
    """A ``process_docs`` that first checks that the run's model can run rounds (``--model
    multiround`` can, with any inner model; lmms-eval's vLLM and SGLang chat classes can)."""

    @functools.wraps(process_docs)
    def wrapper(dataset):
        from lmms_comparative.harness import run_model
        from lmms_comparative.harness.capabilities import require_multi_round

        try:
            require_multi_round(run_model(), task)
        except RunStopped as exc:
            from loguru import logger

            logger.error(str(exc))
            stop_run(exc)
        return process_docs(dataset)

    wrapper.__name__ = f"{getattr(process_docs, '__name__', 'process_docs')}_multi_round"
    return wrapper


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
