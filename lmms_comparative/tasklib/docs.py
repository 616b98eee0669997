"""The ``process_docs`` side of a task: a benchmark's real docs in place of the YAML's placeholder
row, images opened with a message naming the doc, run-level problems stopping the run, unusable
items skipped, named and counted."""

from __future__ import annotations

import functools
from typing import Any, Callable, Iterable

from PIL import Image

from lmms_comparative import failures
from lmms_comparative.data import items, untrusted
from lmms_comparative.data.replies import ItemKey, read_replay
from lmms_comparative.failures import DataError, RunStopped, stop_run
from lmms_comparative.record import Benchmark
from lmms_comparative.switches import CHECK_SKIPS_ENV, RECORDED_SKIPS_ENV


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
            with Image.open(path, formats=untrusted.IMAGE_FORMATS) as handle:
                images.append(handle.convert("RGB"))
        except (OSError, ValueError) as exc:
            raise DataError(f"doc {doc_id}: cannot read {name} at {path} ({exc}).") from exc
    return images


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

    lines = "\n".join(f"  {reason}: {what_}" for reason, whats in sorted(skips.by_reason.items()) for what_ in whats)
    logger.warning(
        f"{what}: skipped {len(skips)} of {total} item(s) that cannot be used; the rest are scored:\n{lines}"
    )
    failures.check_share(what, len(skips), total, "were skipped (unusable images or records)")


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


def column_of(docs, name: str, required: bool = False) -> list:
    """One field of every doc, as a list (``None`` where a doc lacks it; KeyError instead when
    ``required``): the docs a task holds are a ``datasets.Dataset`` or a list of dicts. A
    dataset's column is read whole: indexing ``docs[name]`` (datasets' lazy ``Column``) item by
    item, or reading ``docs[i]``, decodes a row per call, a few seconds for the tens of thousands
    of docs of a release's split."""
    if hasattr(docs, "column_names"):
        if name in docs.column_names:
            return docs[name][:]
        if required:
            raise KeyError(name)
        return [None] * len(docs)
    return [doc[name] for doc in docs] if required else [doc.get(name) for doc in docs]


def docs_hook(
    name: str,
    load: Callable[[], Any],
    *,
    record: Benchmark,
    image_paths: Callable[[dict], Iterable[str]] | None = None,
    item_id: Callable[[dict], str] = lambda d: str(d.get("item_id", "?")),
    label: str | None = None,
) -> Callable[[Any], Any]:
    """A ``process_docs`` for lmms-eval that ignores the one-row placeholder the YAML loads and
    returns the benchmark's real docs (a list of dicts, their columns or a Dataset) from ``load``:
    lmms-eval has no hook for data found through an environment variable. Run-level problems stop
    the run (``stops_run_on_bad_input``); items whose images (``image_paths(doc)``) or records are
    unusable are skipped, named in a warning and counted in every doc's ``skipped`` field, under
    the item's key (the ``record``'s ``item_key``). The hook carries the record (``benchmark``):
    a task whose docs it gives is the benchmark's, whatever the YAML that names it is called
    (``registry.of_loaded_task``)."""

    item_key_rule = record.item_key
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
        key = _keyed(item_key_rule) if dropped or skipped_before else None  # only when there is a skip to key
        if skipped_before:  # a scored file's skips stay skips (lmms-comparative score)
            rows = rows_of(docs)
            docs = []
            checking = checks_skips()
            for doc in rows:
                reason = skipped_before.get(key(doc)) if key else None
                if reason is not None and checking:  # verify: skipped again only where unusable here too
                    reason = _skip_at_hand(doc, reason, image_paths)
                if reason is None:
                    docs.append(doc)
                else:
                    skips.add(reason if checking else f"skipped in the scored run: {reason}", key(doc))
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
    setattr(process_docs, "skipped_items", recorded)  # shared with the wrapper below (functools.wraps copies it)
    setattr(process_docs, "benchmark", record)  # the record the task is the benchmark's by (copied too)
    return stops_run_on_bad_input(process_docs)


def checks_skips() -> bool:
    """Whether recorded skips are checked against the data at hand (``CHECK_SKIPS_ENV``)."""
    import os

    return os.environ.get(CHECK_SKIPS_ENV, "").strip().lower() not in ("", "0", "false", "no")


def _skip_at_hand(doc: dict, recorded: str, image_paths) -> str | None:
    """Why a doc recorded as skipped is unusable here: the first problem of its media, the recorded
    reason where its media cannot be looked at (no image paths; a hub record's image, which a replay
    does not fetch), None where every image reads (the skip is not reproduced)."""
    if image_paths is None:
        return recorded
    for path in image_paths(doc):
        problem = items.image_file_problem(path)
        if problem == items.MISSING and not items.images_needed():
            return recorded
        if problem:
            return problem
    return None


def recorded_skips() -> dict[str, str]:
    """Item key -> reason, for the items the files that ``lmms-comparative score`` reads record as
    skipped (the replay file that ``LMMS_COMPARATIVE_RECORDED_SKIPS`` names); {} otherwise."""
    import os

    path = os.environ.get(RECORDED_SKIPS_ENV, "").strip()
    if not path:
        return {}

    return {
        key: reason for by_key in (read_replay(path).get("skipped") or {}).values() for key, reason in by_key.items()
    }


def rows_of(docs) -> list[dict]:
    """Docs as a list of dicts, from a list, a dict of columns or a Dataset."""
    if isinstance(docs, dict):
        names = list(docs)
        return [dict(zip(names, values)) for values in zip(*docs.values())]
    return [dict(d) for d in docs]


def _keyed(rule: ItemKey) -> Callable[[dict], str | None]:
    """An item key rule that gives None for a doc it cannot key (a damaged record)."""

    def key(doc: dict) -> str | None:
        try:
            return rule(doc)
        except (KeyError, TypeError, ValueError):
            return None

    return key
