"""VLM²-Bench's data, from one of two sources that ``VLM2BENCH_ROOT`` names (``source``):

1. **The unpacked ``vlm2-bench_dataset.zip``** of HF ``Sterzhang/vlm2-bench`` (github
   vlm2-bench/VLM2-Bench README and code/*/test/run_*.bash), every subtask:

    jsonl/gc/vanilla/gc_{mat,trk}.jsonl           images under data/gc/processed
    jsonl/oc/vanilla/oc_{cpr,cnt,grp}.jsonl       images under data/oc/original_obj
    jsonl/pc/vanilla/pc_{cpr,cnt,grp}.jsonl       images under data/pc/image/picks_face
    jsonl/pc/vallina/pc_v_open-ended.jsonl        videos data/pc/video/UNI/<vid>.<ext>
                                                  (the release spells this folder "vallina")

   Records carry ``q_id``, ``question``, ``gt_answer`` and ``images`` (image tasks) or ``vid``
   (video). T/F pairs share a ``q_id`` (GC) or use ``<id>_p`` / ``<id>_n`` (OC, PC).
2. **VLMEvalKit's ``VLM2Bench_img.tsv``** from the same hub repo (``VLM2Bench.tsv`` where VLMEvalKit
   downloaded it): the eight image subtasks, base64 images, no video. ``tsv.py`` reads it into docs
   of the same shape; ``pc_vid`` stops with an error naming the zip.

``VLM2BENCH_ROOT`` may name the unpacked zip's folder, a folder holding the TSV (and no ``jsonl/``),
or the TSV file itself. Unset, the hub copy is used (``fetch.hub_source``: the zip, else the TSV).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import NamedTuple

from lmms_comparative import provenance
from lmms_comparative.benchmarks.vlm2bench.records import SUBTASKS, distinct_gc_uids, half_of, record_doc, repeat_uid
from lmms_comparative.benchmarks.vlm2bench.table import HUB_REPO, ROOT_VARIABLE
from lmms_comparative.data import generated, items
from lmms_comparative.data.jsonl import read_records
from lmms_comparative.failures import DataError

ENV_VAR = ROOT_VARIABLE
LAYOUT = "the unpacked vlm2-bench_dataset.zip: jsonl/<gc|oc|pc>/vanilla/<subtask>.jsonl and data/..."
TSV_LAYOUT = "VLMEvalKit's VLM2Bench_img.tsv (the eight image subtasks), or a folder holding it"


class Source(NamedTuple):
    """Where VLM2-Bench's items come from: the unpacked zip's folder or VLMEvalKit's TSV, and what named it."""

    kind: str  # "zip" (the unpacked zip's folder) or "tsv" (VLMEvalKit's TSV file)
    path: Path
    origin: str  # what named it: "VLM2BENCH_ROOT=..." or "the hub"


_announced: set[tuple[str, str]] = set()
_announce_lock = threading.Lock()


def source() -> Source:
    """The source that ``VLM2BENCH_ROOT`` names, or the hub copy when it is unset. A folder with
    ``jsonl/`` is the unpacked zip (it wins over a TSV beside it: it has the videos); a folder
    without it that holds ``VLM2Bench_img.tsv`` (or ``VLM2Bench.tsv``) is the TSV; a ``.tsv`` file
    is the TSV. The choice is logged once per process."""
    value = os.environ.get(ENV_VAR, "").strip()
    if value:
        found = _classify(Path(value).expanduser(), f"{ENV_VAR}={value!r}")
        # The record's data source, as every local copy's (data/roots.py): the folder, or the TSV file.
        provenance.note_local(
            ENV_VAR, found.path, generated=generated.read(found.path if found.path.is_dir() else found.path.parent)
        )
    else:
        found = _classify(_hub_source(), "the hub")
    _announce(found)
    return found


def _hub_source() -> Path:
    try:
        from lmms_comparative.benchmarks.vlm2bench.fetch import hub_source
    except ModuleNotFoundError as exc:
        if exc.name != "lmms_comparative.benchmarks.vlm2bench.fetch":
            raise
        raise DataError(f"{ENV_VAR} is not set. Point it at {LAYOUT}; or at {TSV_LAYOUT}.") from None
    return Path(hub_source())


def _classify(path: Path, origin: str) -> Source:
    from lmms_comparative.benchmarks.vlm2bench import tsv

    if path.is_dir():
        path = path.resolve()
        if not (path / "jsonl").is_dir():
            found = tsv.find_in(path)
            if found is not None:
                return Source("tsv", found, origin)
        return Source("zip", path, origin)  # a folder without either: the zip's errors name what is missing
    if path.is_file():
        if path.suffix.lower() == ".tsv":
            return Source("tsv", path.absolute(), origin)  # not resolved: a hub cache's symlink keeps its folder
        raise DataError(
            f"{origin} is not a directory, and not a .tsv file. It should point at {LAYOUT}; or at {TSV_LAYOUT}."
        )
    raise DataError(
        f"{origin} is not a directory (nor a file). It should point at a local copy of the release: {LAYOUT}; or at "
        f"{TSV_LAYOUT}."
    )


def _announce(found: Source) -> None:
    with _announce_lock:
        if (found.kind, str(found.path)) in _announced:
            return
        _announced.add((found.kind, str(found.path)))
    from loguru import logger

    if found.kind == "zip":
        logger.info(f"VLM2-Bench: reading the unpacked vlm2-bench_dataset.zip at {found.path} ({found.origin})")
    else:
        logger.info(
            f"VLM2-Bench: reading VLMEvalKit's TSV {found.path} ({found.origin}): the eight image subtasks; pc_vid "
            "needs vlm2-bench_dataset.zip"
        )


def video_needs_zip(found: Source) -> DataError:
    """The error for the video subtask when the source is the TSV (it has no videos)."""
    return DataError(
        f"VLM2-Bench pc_vid needs the videos of vlm2-bench_dataset.zip, but the data source ({found.origin}) is "
        f"VLMEvalKit's TSV {found.path}, "
        "which holds the eight image subtasks and no video. Download vlm2-bench_dataset.zip from the hub dataset "
        f"{HUB_REPO}, unpack it and set {ENV_VAR} to that folder; "
        "or run vlm2bench_image (the image subtasks) instead."
    )


def subtask_docs(subtask: str) -> list[dict]:
    """One subtask's docs, from whichever source ``source()`` finds."""
    found = source()
    if found.kind == "tsv":
        if SUBTASKS[subtask][2] == "vid":
            raise video_needs_zip(found)
        from lmms_comparative.benchmarks.vlm2bench import tsv

        return tsv.subtask_docs(found.path, subtask)
    return _zip_docs(found.path, subtask)


def _zip_docs(base: Path, subtask: str) -> list[dict]:
    files, media, kind = SUBTASKS[subtask]
    path = next((base / f for f in files if (base / f).is_file()), None)
    if path is None:
        raise DataError(
            f"{ENV_VAR}: no question file for {subtask} under {base} (looked for {files}). Expected {LAYOUT}; or "
            f"{TSV_LAYOUT}."
        )
    docs: list[dict] = []
    paths: dict[str, str] = {}  # image name -> its path, built once (items share images)
    # GC: a second pair under one q_id, counted over every record as the answers readers count
    uids: list[str | None] = []
    seen: dict[tuple[str, str], int] = {}
    for where, record in read_records(path):
        uid = repeat_uid(str(record.get("q_id")), half_of(record.get("gt_answer")), seen) if kind == "tf_gc" else None
        try:
            docs.append(record_doc(record, subtask, kind, base, media, where, paths=paths))
            uids.append(uid)
        except DataError as exc:  # an unusable record is skipped and counted, not the whole subtask
            items.skip(items.RECORD, str(exc))
    if not docs and not any(True for _ in read_records(path)):
        raise DataError(f"{path}: no records.")
    return distinct_gc_uids(docs, subtask, uids)
