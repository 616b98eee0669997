"""VLM-SubtleBench in the layout of the HF dataset repo ``KRAFTON/VLM-SubtleBench``.

::

    <root>/data/test.jsonl, <root>/data/val.jsonl   one JSON object per line
    <root>/images/...                               the image files

Image fields hold hub URLs ending in ``/resolve/main/<relative path>``; like the official adapter
(src/vlm_subtlebench/dataset_adapters/unified_adapter.py, ``_resolve_image_path``) we resolve the
part after that marker against the root. Plain relative paths are resolved against the root too.
"""

from __future__ import annotations

import functools
import json
import os
import threading
from pathlib import Path
from typing import Any

from lmms_comparative.benchmarks.subtlebench.table import (
    CATEGORIES,  # the ten difference types (task table)
    HUB_REPO,
    ROOT_VARIABLE,
)
from lmms_comparative.data import hub, items
from lmms_comparative.data.jsonl import read_records
from lmms_comparative.data.roots import local_root
from lmms_comparative.failures import DataError
from lmms_comparative.metrics.mcq import LETTERS, shuffle_options

ENV_VAR = ROOT_VARIABLE
LAYOUT = "data/test.jsonl and data/val.jsonl (one JSON record per line) and the images/ folder they refer to"

TYPE_TASKS = tuple(f"subtlebench_{code}" for code in CATEGORIES)
# unified_adapter.py: REQUIRED_FIELDS
REQUIRED_FIELDS = ("image_1", "image_2", "question", "answer", "distractors")
_URL_MARKER = "/resolve/main/"

_cache: dict[tuple[str, str, int, int], tuple[list[dict[str, Any]], list[tuple[str, str]]]] = {}
_lock = threading.Lock()


def root(split: str = "test") -> Path:
    """The release: ``SUBTLEBENCH_ROOT``, else what ``split`` needs from the hub repo (its JSON
    lines, then only the images they name), fetched once into the Hugging Face cache."""
    local = local_root(ENV_VAR, LAYOUT)
    return local if local is not None else _hub_root(split)


@functools.lru_cache(maxsize=None)
def _hub_root(split: str) -> Path:
    # Looked up once per process and split: the ten type tasks, the swap and caption tasks each ask.
    snap = hub.snapshot(HUB_REPO, ENV_VAR)
    records = f"data/{split}.jsonl"
    folder = hub.fetch(snap, [records], ENV_VAR, f"VLM-SubtleBench {split} records")
    hub.fetch(snap, referenced_images(folder / records), ENV_VAR, f"VLM-SubtleBench {split} images", required=False)
    return folder


def image_ref(ref: str) -> str:
    """The repository path of an image field (a hub URL or a path relative to the root)."""
    if ref.startswith(("http://", "https://")):
        cut = ref.find(_URL_MARKER)
        if cut == -1:
            raise ValueError(f"image URL {ref!r} has no '{_URL_MARKER}' part to resolve against the local root")
        return ref[cut + len(_URL_MARKER) :]
    return ref


def _hub_repo_of(ref: str) -> str:
    """``owner/name`` of a hub dataset URL (``.../datasets/<owner>/<name>/resolve/...``), else ""."""
    if not isinstance(ref, str) or _URL_MARKER not in ref or "/datasets/" not in ref:
        return ""
    return ref.split("/datasets/", 1)[1].split(_URL_MARKER, 1)[0]


def fetch_missing_images(docs: list[dict[str, Any]], base: Path) -> int:
    """Like the official adapter (unified_adapter.py, ``_resolve_image_path``: a missing local
    file is fetched from the record's URL): the images missing under a local root are fetched
    from the hub repo their URLs name, into the Hugging Face cache, and the docs point there.
    What cannot be fetched stays missing (the item is skipped and named). Returns how many were
    fetched."""
    wanted: dict[str, dict[str, list[tuple[dict, str]]]] = {}
    present = items.file_lister()
    for doc in docs:
        for field in ("image_1", "image_2"):
            if doc.get("image_repo") and not present(doc[field]):
                rel = Path(doc[field]).relative_to(base).as_posix()
                wanted.setdefault(doc["image_repo"], {}).setdefault(rel, []).append((doc, field))
    if not wanted or hub.offline() or not items.images_needed():
        return 0
    from loguru import logger

    fetched = 0
    for repo, by_path in wanted.items():
        try:
            folder = hub.fetch(
                hub.snapshot(repo, ENV_VAR),
                sorted(by_path),
                ENV_VAR,
                f"VLM-SubtleBench images missing under {ENV_VAR}",
                required=False,
            )
        except DataError as exc:
            logger.warning(
                f"{ENV_VAR}: {sum(map(len, by_path.values()))} image(s) are missing under {base} and could not be "
                f"fetched from their URLs: {exc}"
            )
            continue
        for rel, uses in by_path.items():
            if (folder / rel).is_file():
                fetched += 1
                for doc, field in uses:
                    doc[field] = str(folder / rel)
    if fetched:
        logger.info(
            f"{ENV_VAR}: {fetched} image(s) missing under {base} were fetched from their URLs (as the official adapter "
            "does)."
        )
    return fetched


def referenced_images(path: Path) -> list[str]:
    """The repository paths of the images the records of a JSON-lines file name, in order."""
    refs = []
    for _, record in read_records(path):
        for field in ("image_1", "image_2"):
            value = record.get(field)
            if isinstance(value, str):
                try:
                    refs.append(image_ref(value))
                except ValueError:
                    continue  # reported with the record when it is loaded
    return list(dict.fromkeys(refs))


def resolve_image(ref: str, base: Path) -> str:
    """A local path for an image field (hub URL or relative path)."""
    return os.path.join(base, image_ref(ref))


def item_id(record: dict[str, Any]) -> str:
    """``{category}_{source}_{source_id}``, else ``{image_1}_{image_2}`` (unified_adapter.py)."""
    category, source, source_id = record.get("category", ""), record.get("source", ""), str(record.get("source_id", ""))
    if category and source and source_id:
        return f"{category}_{source}_{source_id}"
    return f"{record['image_1']}_{record['image_2']}"


def _doc(record: dict[str, Any], base: Path, split: str, where: str) -> dict[str, Any]:
    missing = [f for f in REQUIRED_FIELDS if f not in record]
    if missing:
        raise DataError(
            f"{where}: record lacks required field(s) {missing}; every record needs {list(REQUIRED_FIELDS)}."
        )
    distractors = record["distractors"]
    if not isinstance(distractors, list) or not distractors or not all(isinstance(d, str) for d in distractors):
        raise DataError(f"{where}: 'distractors' must be a non-empty list of strings, got {distractors!r}.")
    if not isinstance(record["answer"], str) or not isinstance(record["question"], str):
        raise DataError(f"{where}: 'question' and 'answer' must be strings.")
    if len(distractors) + 1 > len(LETTERS):
        raise DataError(f"{where}: {len(distractors) + 1} options cannot be lettered.")
    key = item_id(record)
    options, correct = shuffle_options(record["answer"], distractors, f"{key}\x1f{record['question']}")
    try:
        images = [str(resolve_image(record[f], base)) for f in ("image_1", "image_2")]
    except (ValueError, TypeError) as exc:
        raise DataError(f"{where}: {exc}") from exc
    repo = _hub_repo_of(record["image_1"])
    return {
        "item_id": key,
        "split": split,
        "category": str(record.get("category") or ""),
        "domain": str(record.get("domain") or ""),
        "source": str(record.get("source") or ""),
        "source_id": str(record.get("source_id") or ""),
        "question": record["question"],
        "answer": record["answer"],
        "options": options,
        "answer_letter": LETTERS[correct],
        "image_1": images[0],
        "image_2": images[1],
        "image_repo": repo,  # the hub repo the image fields point into ("" for relative paths)
        # data_loader.py keeps an item for captioning only if has_caption == True: the string
        # "false" (or "true") is not True.
        "has_caption": record.get("has_caption") == True,  # noqa: E712 - the official comparison
        "caption": str(record.get("caption") or ""),
        # The scalar difficulty factors of a generated pair (synthetic records), as JSON text: the
        # types differ in their factors, and a Dataset column needs one schema.
        "factors": json.dumps(scalar_factors(record.get("generation_info"))),
    }


def scalar_factors(info) -> dict[str, Any]:
    """The numeric and text fields of a record's ``generation_info`` (not its nested params)."""
    if isinstance(info, str):  # a hub export may carry it as JSON text
        try:
            info = json.loads(info)
        except ValueError:
            return {}
    if not isinstance(info, dict):
        return {}
    return {k: v for k, v in info.items() if isinstance(v, (int, float, str)) and not isinstance(v, bool)}


def load_docs(split: str = "test", base: Path | None = None) -> list[dict[str, Any]]:
    """All records of a split as docs with resolved image paths and their fixed option order.

    Parsed once per process for a given file (the ten category tasks share it). A line that is not
    JSON raises DataError naming the file and line (the file is malformed); a record that lacks a
    required field or has malformed options is skipped, as unified_adapter.py skips records
    without its REQUIRED_FIELDS, and reported to the task of its category (``data.items``).
    """
    return _load(split, base)[0]


def _load(split: str, base: Path | None) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    base = root(split) if base is None else base
    path = base / "data" / f"{split}.jsonl"
    if not path.is_file():
        raise DataError(f"{ENV_VAR}: no {path}. Expected layout under {base}: {LAYOUT}.")
    stat = path.stat()
    cache_key = (str(path), split, stat.st_mtime_ns, stat.st_size)
    with _lock:
        if cache_key in _cache:
            return _cache[cache_key]
        docs, skipped = [], []
        for where, record in read_records(path):
            try:
                docs.append(_doc(record, base, split, where))
            except DataError as exc:
                skipped.append((str(record.get("category") or ""), str(exc)))
        if not docs:
            raise DataError(
                f"{ENV_VAR}: {path} has no usable record ({len(skipped)} malformed). Expected layout under {base}: "
                f"{LAYOUT}."
            )
        fetch_missing_images(docs, base)
        _cache[cache_key] = (docs, skipped)
        return docs, skipped


def image_paths(doc: dict[str, Any]) -> tuple[str, str]:
    """The two image files of a doc (checked by the task hook before the model sees them)."""
    return doc["image_1"], doc["image_2"]


BINARY_IMAGE_OPTIONS = ("first image", "second image")


def swapped_docs(split: str = "test") -> list[dict[str, Any]]:
    """The image-order check: every item whose options are exactly "first image" and "second
    image" (the binary types of unified_adapter.py), with the two images swapped and the answer
    moved to the other option. The prompt, option order and letters stay as in the original order,
    so a model without position bias answers the other letter."""
    swapped = []
    for doc in load_docs(split):
        options = [o.strip().lower() for o in doc["options"]]
        if sorted(options) != list(BINARY_IMAGE_OPTIONS):
            continue
        other = LETTERS[1 - LETTERS.index(doc["answer_letter"])]
        answer = doc["options"][LETTERS.index(other)]
        swapped.append(
            {**doc, "image_1": doc["image_2"], "image_2": doc["image_1"], "answer": answer, "answer_letter": other}
        )
    if not swapped:
        raise DataError(
            f"{ENV_VAR}: the {split} split has no items with the options {list(BINARY_IMAGE_OPTIONS)}, so there is "
            "nothing to swap."
        )
    return swapped


def category_docs(category: str, split: str = "test") -> list[dict[str, Any]]:
    """The docs of one difference type; its malformed records are reported as skipped."""
    all_docs, skipped = _load(split, None)
    for record_category, reason in skipped:
        if record_category == category:
            items.skip(items.RECORD, reason)
    docs = [d for d in all_docs if d["category"] == category]
    if not docs and not any(c == category for c, _ in skipped):
        raise DataError(f"{ENV_VAR}: the {split} split has no records with category {category!r}.")
    return docs
