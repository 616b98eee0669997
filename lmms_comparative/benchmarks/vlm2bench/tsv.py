"""VLMEvalKit's ``VLM2Bench_img.tsv`` as a second source of VLM²-Bench's eight image subtasks.

The hub repo ``Sterzhang/vlm2-bench`` holds this file beside ``vlm2-bench_dataset.zip``: 2,860 image
cases, images as base64, no video. VLMEvalKit downloads it as ``VLM2Bench.tsv``. Each row becomes a
doc of the same shape as a record of the unpacked zip (``records.record_doc``), so the hooks and the
official scoring rules run unchanged.

Where each rule comes from (github open-compass/VLMEvalKit, read, not copied):

- The file: ``vlmeval/smp/file.py`` ``load`` reads it with pandas, tab-separated, with ``"`` quoting.
  ``vlmeval/dataset/image_base.py`` ``ImageBaseDataset.__init__`` and ``dump_image`` define the
  columns: ``index``, ``question``, ``answer`` and ``image``. ``image`` holds one base64 image or a
  list of them, written as a Python list (``vlmeval/smp/misc.py`` ``toliststr``). A value of 64
  characters or fewer is instead the ``index`` of another row whose images this row shares. The
  ``*_local.tsv`` that VLMEvalKit writes for a file over 1 GB (``file.py`` ``localize_df``) has
  ``image_path`` (decoded files) instead of ``image``. Both forms are read here.
- Subtasks: ``vlmeval/dataset/vlm2bench.py`` ``evaluate`` sorts rows by ``category``: gc-mat,
  gc-trk, oc-cpr and pc-cpr are T/F pairs; oc-cnt and pc-cnt are counting; oc-grp and pc-grp are
  grouping. ``answer`` is the zip's ``gt_answer``. ``index`` stands for the zip's ``q_id``
  (``vlmeval/dataset/utils/vlm2bench.py``, module docstring).
- T/F pairs: ``utils/vlm2bench.py`` ``tf_pair_aggregate_accuracy`` takes a row's pair to be its
  ``index`` without the last ``_`` part, and that part (``p``/``n``) to be the half.
- Image counts: ``vlm2bench.py`` ``_infer_image_seq_len`` uses an ``image_seq_len`` column, else the
  number of ``image_path`` entries, else the number of images. Its fallback of 2 is not used here:
  every row has images.

What the TSV lacks, and how it is recovered:

- **The zip's q_id and pair ids.** They come from ``index``. A leading ``<category>_`` is removed
  (VLMEvalKit's example ids read ``pc-cpr_1_p``), and the rest is the q_id. The pair is VLMEvalKit's:
  the q_id without its last ``_`` part. For PC-Cpr, the release's leading ``tf_`` is removed first,
  as the official PC script does. For the zip's own ids (``12_p``, ``tf_300_p``), this gives the pair
  that the official OC/PC scripts (github vlm2-bench/VLM2-Bench,
  ``code/{oc,pc/image}/eval/eval_cpr/eval_comp_tf_pair_batch_3acc.py``) give. They split at the first
  ``_``.
- **The GC pair structure.** In the zip both halves of a GC pair share one ``q_id``
  (``code/gc/eval/eval_tf_batch_pair_3acc.py`` groups by it), but a TSV index is unique per row. The
  pair is therefore the index without its last ``_`` part, as VLMEvalKit groups it. The half comes
  from the answer (T positive, F negative), as ``data.py`` does for the zip.
- **Image counts for counting.** The ``image_seq_len`` column is used when present. Otherwise the
  count is the number of images in the row: the images the question shows, which is what the zip's
  ``image_seq_len`` counts. The official ``acc_with_cnt_score.py`` falls back to the length of
  ``image_seq``.
- **Not exact.** The real file could not be inspected, so the ``index`` format above is inferred
  from VLMEvalKit's scorer, not seen. An optional ``q_id`` column, when present, is taken as the
  zip's q_id and the zip's rules apply exactly. The zip's other fields (``type``, ``task``,
  ``edited_prompt``) and the videos are not in the TSV. No scorer uses the other fields. ``pc_vid``
  needs the zip. A second GC pair under one pair id is keyed ``<pair>~2`` (``records.repeat_uid``)
  counting the rows that became docs; VLMEvalKit's prediction file counts every row, so a skipped
  GC row before such a pair shifts the numbers and ``score`` stops on the mismatch (never a wrong score).

The 1.1 GB file is streamed once. Each row's images are decoded to files in a cache folder
(``image_cache``). Every file is written to a temporary name and renamed into place, so a
half-written image is never used. A manifest of the docs is written last. Later loads (other
subtasks, later runs) read only the manifest, until the TSV's size or mtime changes.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from lmms_comparative.benchmarks.vlm2bench import tsv_images
from lmms_comparative.benchmarks.vlm2bench.records import SUBTASKS, distinct_gc_uids, record_doc
from lmms_comparative.data import items
from lmms_comparative.failures import DataError

TSV_NAMES = ("VLM2Bench_img.tsv", "VLM2Bench.tsv")  # the hub's name, VLMEvalKit's local name
# category column -> subtask (vlmeval/dataset/vlm2bench.py evaluate)
CATEGORIES = {
    "gc-mat": "gc_mat",
    "gc-trk": "gc_trk",
    "oc-cpr": "oc_cpr",
    "oc-cnt": "oc_cnt",
    "oc-grp": "oc_grp",
    "pc-cpr": "pc_cpr",
    "pc-cnt": "pc_cnt",
    "pc-grp": "pc_grp",
}
REQUIRED = ("index", "question", "answer", "category")
MANIFEST = "manifest.json"
FORMAT = 1  # bump when the manifest or the docs change shape: older caches are decoded again
_REFERENCE_MAX = 64  # image_base.py: an image value this short is another row's index

_memo: dict[tuple, tuple[Path, dict]] = {}
_memo_lock = threading.Lock()


def find_in(folder: Path) -> Path | None:
    """The VLMEvalKit TSV in ``folder`` (the hub's name first), or None."""
    return next((folder / name for name in TSV_NAMES if (folder / name).is_file()), None)


def image_caches(tsv: Path) -> list[Path]:
    """Every folder ``image_cache`` may decode the images of ``tsv`` into (the preferred one, then
    the user's cache folder), computed without making or probing either."""
    tsv = Path(tsv).absolute()
    preferred = (
        tsv.parent.parent.parent / "decoded" / tsv.parent.name / f"{tsv.stem}_images"
        if tsv.parent.parent.name == "snapshots"
        else tsv.parent / f"{tsv.stem}_images"
    )
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return [
        preferred,
        base / "lmms-comparative" / "vlm2bench" / f"{tsv.stem}-{hashlib.sha1(str(tsv).encode()).hexdigest()[:12]}",
    ]


def image_cache(tsv: Path) -> Path:
    """Where the images of ``tsv`` are decoded. By default this is ``<tsv folder>/<tsv stem>_images``.
    For a TSV in a Hugging Face cache snapshot (``.../snapshots/<commit>/``) it is
    ``.../decoded/<commit>/<stem>_images``, beside the snapshots, so the cache lists only the
    repo's files. When that folder cannot be written, the user's cache folder is used
    (``$XDG_CACHE_HOME`` or ``~/.cache``, then ``lmms-comparative/vlm2bench``)."""
    preferred, fallback = image_caches(tsv)
    if _writable(preferred):
        return preferred
    if _writable(fallback):
        return fallback
    raise DataError(f"{tsv}: cannot write its decoded images to {preferred} or {fallback}; make one of them writable.")


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(folder, os.W_OK | os.X_OK)


def subtask_docs(tsv: Path, subtask: str) -> list[dict]:
    """The docs of one image subtask from the TSV, in row order. Rows that cannot be used are
    skipped and named (``items.skip``), as records of the zip are."""
    cache, manifest = load(tsv)
    skipped = manifest["skipped"].get(subtask, [])
    for reason, what in skipped:
        items.skip(reason, what)
    docs = manifest["docs"].get(subtask, [])
    if not docs and not skipped:
        category = next(c for c, s in CATEGORIES.items() if s == subtask)
        found = sorted(manifest["rows"])
        raise DataError(
            f"{tsv}: no row of category {category!r} ({subtask}); the file has {found or 'no rows'}. Expected "
            "VLMEvalKit's VLM2Bench TSV (columns index, question, answer, category, image)."
        )
    # Decoded images are stored relative to the cache folder (a moved folder still works); an
    # image_path of a localized TSV is kept as it was (os.path.join keeps an absolute path).
    return distinct_gc_uids(
        [{**doc, "images": [os.path.join(cache, p) for p in doc["images"]]} for doc in docs], subtask
    )


def load(tsv: Path) -> tuple[Path, dict]:
    """(cache folder, manifest) of ``tsv``: from the cache when it matches the file, else by
    streaming the file once. One process decodes at a time (a lock file in the cache folder)."""
    tsv = Path(tsv).absolute()
    stamp = _stamp(tsv)
    with _memo_lock:
        key = (str(tsv), stamp["size"], stamp["mtime_ns"])
        if key not in _memo:
            cache = image_cache(tsv)
            with _locked(cache):
                manifest = _read_manifest(cache, stamp)
                if manifest is None:
                    manifest = _decode(tsv, cache, stamp)
            _memo[key] = (cache, manifest)
        return _memo[key]


def _stamp(tsv: Path) -> dict:
    try:
        st = tsv.stat()
    except OSError as exc:
        raise DataError(f"{tsv}: cannot read the TSV ({exc}).") from exc
    return {"name": tsv.name, "size": st.st_size, "mtime_ns": st.st_mtime_ns}


@contextmanager
def _locked(cache: Path):
    try:
        import fcntl
    except ImportError:  # not POSIX: concurrent decoders still never expose a half-written file
        yield
        return
    with open(cache / ".lock", "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _read_manifest(cache: Path, stamp: dict) -> dict | None:
    """The manifest in ``cache`` if it was written for this very file and every image it names is
    still there; None otherwise (the file is decoded again)."""
    try:
        manifest = json.loads((cache / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT or manifest.get("tsv") != stamp:
        return None
    for docs in manifest["docs"].values():
        for doc in docs:
            if not all(os.path.isfile(os.path.join(cache, p)) for p in doc["images"]):
                return None
    return manifest


@contextmanager
def _wide_fields():
    """csv's field limit (128 KiB) is far below a row of base64 images; lift it while reading."""
    old = csv.field_size_limit()
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    try:
        yield
    finally:
        csv.field_size_limit(old)


def _decode(tsv: Path, cache: Path, stamp: dict) -> dict:
    """Stream ``tsv`` once: decode every row's images into ``cache`` and write the manifest."""
    from loguru import logger
    from tqdm import tqdm  # type: ignore[import-untyped]  # tqdm ships no type information

    logger.info(f"VLM2-Bench: decoding the images of {tsv} once into {cache} (later runs reuse them)")
    entries: list[dict] = []  # one per usable row, in file order, without its base64
    own_images: dict[str, list[str]] = {}  # index -> its image files (for rows that refer to it)
    seen: dict[str, int] = {}
    skipped: dict[str, list[list[str]]] = {}
    rows: dict[str, int] = {}
    try:
        with _wide_fields(), open(tsv, newline="", encoding="utf-8") as handle:
            reader = csv.reader(handle, delimiter="\t")
            header = next(reader, None)
            if not header or not any(h.strip() for h in header):
                raise DataError(
                    f"{tsv}: empty file. Expected VLMEvalKit's VLM2Bench TSV (columns index, question, answer, "
                    "category, image)."
                )
            columns = {name.strip(): i for i, name in enumerate(header)}
            missing = [c for c in REQUIRED if c not in columns] + (
                [] if "image" in columns or "image_path" in columns else ["image"]
            )
            if missing:
                raise DataError(
                    f"{tsv}: not VLMEvalKit's VLM2Bench TSV: no column {missing} (found {sorted(columns)[:20]}). "
                    "Expected columns index, question, answer, category and image (base64)."
                )
            for row in tqdm(reader, desc=f"decoding {tsv.name}", unit=" rows", mininterval=2):
                if not row or (len(row) == 1 and not row[0].strip()):
                    continue
                line = reader.line_num
                fields = {name: (row[i] if i < len(row) else "") for name, i in columns.items()}
                raw_category = fields["category"].strip()
                rows[raw_category] = rows.get(raw_category, 0) + 1
                subtask = _subtask(raw_category)
                if subtask is None:
                    continue  # not one of the eight image subtasks (named by the rows count)
                index = fields["index"].strip()
                where = f"{tsv.name} line {line} (index {index!r})"
                try:
                    if len(row) != len(header):
                        raise DataError(f"{where}: {len(row)} fields where the header has {len(header)}.")
                    if not index:
                        raise DataError(f"{where}: empty index.")
                    if index in seen:
                        raise DataError(f"{where}: index repeats line {seen[index]}.")
                    seen[index] = line
                    entry: dict[str, Any] = {
                        "line": line,
                        "where": where,
                        "subtask": subtask,
                        "category": raw_category,
                        "index": index,
                    }
                    entry.update({k: fields[k] for k in ("question", "answer") if k in fields})
                    entry.update({k: fields[k].strip() for k in ("q_id", "image_seq_len", "image_path") if k in fields})
                    image = fields.get("image", "").strip()
                    if image and len(image) <= _REFERENCE_MAX:
                        entry["refers_to"] = image  # resolved once every row has been read
                    elif image:
                        entry["images"] = own_images[index] = tsv_images.write_images(image, index, cache, where)
                    elif entry.get("image_path"):
                        entry["images"] = own_images[index] = tsv_images.image_paths(entry["image_path"], tsv, where)
                    else:
                        raise DataError(f"{where}: no image.")
                    entries.append(entry)
                except DataError as exc:
                    skipped.setdefault(subtask, []).append([items.RECORD, str(exc)])
    except csv.Error as exc:
        raise DataError(f"{tsv}: not a readable TSV near line {reader.line_num} ({exc}).") from exc
    except UnicodeDecodeError as exc:
        raise DataError(
            f"{tsv}: not UTF-8 text ({exc.reason} at byte {exc.start}); expected VLMEvalKit's VLM2Bench TSV."
        ) from exc
    except OSError as exc:
        raise DataError(f"{tsv}: cannot read it, or write its images to {cache} ({exc}).") from exc
    docs: dict[str, list[dict]] = {}
    for entry in entries:
        try:
            docs.setdefault(entry["subtask"], []).append(_entry_doc(entry, own_images))
        except DataError as exc:
            skipped.setdefault(entry["subtask"], []).append([items.RECORD, str(exc)])
    other = {c: n for c, n in rows.items() if _subtask(c) is None}
    if other:
        logger.warning(f"VLM2-Bench: {tsv.name} has rows of categories that are not image subtasks, left out: {other}")
    manifest = {"format": FORMAT, "tsv": stamp, "rows": rows, "docs": docs, "skipped": skipped}
    tsv_images.write_atomic(cache / MANIFEST, json.dumps(manifest, ensure_ascii=False).encode("utf-8"))
    return manifest


def _subtask(category: str) -> str | None:
    name = category.strip().lower()
    return CATEGORIES.get(name) or CATEGORIES.get(name.replace("_", "-"))


def _without_category(index: str, category: str, subtask: str) -> str:
    """``index`` without a leading ``<category>_`` (``pc-cpr_1_p`` -> ``1_p``)."""
    for prefix in dict.fromkeys(
        (f"{category}_", f"{category.lower()}_", f"{subtask}_", f"{subtask.replace('_', '-')}_")
    ):
        if index.startswith(prefix) and len(index) > len(prefix):
            return index[len(prefix) :]
    return index


def _number(value: str) -> str:
    """A number as pandas may write it (``3.0`` for an int column with gaps) as ``3``."""
    try:
        number = float(value)
    except ValueError:
        return value
    return str(int(number)) if number.is_integer() else value


def _entry_doc(entry: dict, own_images: dict[str, list[str]]) -> dict:
    """One row as a doc of ``records.record_doc``'s shape (its checks apply too)."""
    where, subtask = entry["where"], entry["subtask"]
    kind = SUBTASKS[subtask][2]
    if "refers_to" in entry:
        images = own_images.get(entry["refers_to"])
        if images is None:
            raise DataError(
                f"{where}: its image field names row {entry['refers_to']!r}, which has no images of its own."
            )
    else:
        images = entry["images"]
    q_id = entry.get("q_id") or ""
    pair = None
    if not q_id:
        key = _without_category(entry["index"], entry["category"], subtask)
        q_id = key
        if kind == "tf_gc":
            # Both halves of a GC pair share the zip's q_id; the TSV's unique index carries a half
            # after the last "_" (utils/vlm2bench.py tf_pair_aggregate_accuracy groups by the rest).
            if "_" not in key:
                raise DataError(
                    f"{where}: GC T/F index {entry['index']!r} has no '_<half>' after its pair; VLMEvalKit pairs rows "
                    "by the index without its last '_' part."
                )
            q_id = key.rsplit("_", 1)[0]
        elif kind == "tf":
            # PC script: a leading "tf_" goes; then VLMEvalKit's rule: pair, "_", half (p or n).
            bare = key[3:] if subtask == "pc_cpr" and key.startswith("tf_") else key
            main, _, half = bare.rpartition("_")
            if not main or half not in ("p", "n"):
                raise DataError(f"{where}: T/F index {entry['index']!r} must end in <pair>_p or <pair>_n.")
            pair = {"pair_id": main, "half": half}
    record = {
        "q_id": q_id,
        "question": entry.get("question", ""),
        "gt_answer": entry.get("answer", "").strip(),
        "images": images,
    }
    if kind == "cnt":
        record["gt_answer"] = _number(record["gt_answer"])
        if entry.get("image_seq_len"):
            record["image_seq_len"] = _number(entry["image_seq_len"])
        elif entry.get("image_path"):
            try:
                record["image_seq_len"] = len(tsv_images.image_list(entry["image_path"]))
            except DataError as exc:
                raise DataError(f"{where}: image_path is {exc}.") from exc
        else:
            record["image_seq_len"] = len(images)
    # Image names are relative to the cache folder (or absolute): base "" keeps them as they are.
    return record_doc(record, subtask, kind, Path(""), "", where, pair=pair)
