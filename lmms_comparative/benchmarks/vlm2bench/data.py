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

from lmms_comparative.benchmarks.vlm2bench import BENCHMARK
from lmms_comparative.data import items
from lmms_comparative.data.jsonl import read_records
from lmms_comparative.failures import DataError

ENV_VAR = BENCHMARK.root_variable
HUB_REPO = BENCHMARK.hub_repo  # Sterzhang/vlm2-bench
LAYOUT = "the unpacked vlm2-bench_dataset.zip: jsonl/<gc|oc|pc>/vanilla/<subtask>.jsonl and data/..."
TSV_LAYOUT = "VLMEvalKit's VLM2Bench_img.tsv (the eight image subtasks), or a folder holding it"
SUBTASKS = {
    # subtask: (question file candidates, media folder, kind)
    "gc_mat": (["jsonl/gc/vanilla/gc_mat.jsonl"], "data/gc/processed", "tf_gc"),
    "gc_trk": (["jsonl/gc/vanilla/gc_trk.jsonl"], "data/gc/processed", "tf_gc"),
    "oc_cpr": (["jsonl/oc/vanilla/oc_cpr.jsonl"], "data/oc/original_obj", "tf"),
    "oc_cnt": (["jsonl/oc/vanilla/oc_cnt.jsonl"], "data/oc/original_obj", "cnt"),
    "oc_grp": (["jsonl/oc/vanilla/oc_grp.jsonl"], "data/oc/original_obj", "grp"),
    "pc_cpr": (["jsonl/pc/vanilla/pc_cpr.jsonl"], "data/pc/image/picks_face", "tf"),
    "pc_cnt": (["jsonl/pc/vanilla/pc_cnt.jsonl"], "data/pc/image/picks_face", "cnt"),
    "pc_grp": (["jsonl/pc/vanilla/pc_grp.jsonl"], "data/pc/image/picks_face", "grp"),
    "pc_vid": (["jsonl/pc/vallina/pc_v_open-ended.jsonl", "jsonl/pc/vanilla/pc_v_open-ended.jsonl"], "data/pc/video/UNI", "vid"),
}
VIDEO_SUFFIXES = (".mp4", ".avi", ".mov", ".mkv", ".webm")


class Source(NamedTuple):
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
        raise DataError(f"{origin} is not a directory, and not a .tsv file. It should point at {LAYOUT}; or at {TSV_LAYOUT}.")
    raise DataError(f"{origin} is not a directory (nor a file). It should point at a local copy of the release: {LAYOUT}; or at {TSV_LAYOUT}.")


def _announce(found: Source) -> None:
    with _announce_lock:
        if (found.kind, str(found.path)) in _announced:
            return
        _announced.add((found.kind, str(found.path)))
    from loguru import logger

    if found.kind == "zip":
        logger.info(f"VLM2-Bench: reading the unpacked vlm2-bench_dataset.zip at {found.path} ({found.origin})")
    else:
        logger.info(f"VLM2-Bench: reading VLMEvalKit's TSV {found.path} ({found.origin}): the eight image subtasks; pc_vid needs vlm2-bench_dataset.zip")


def video_needs_zip(found: Source) -> DataError:
    return DataError(
        f"VLM2-Bench pc_vid needs the videos of vlm2-bench_dataset.zip, but the data source ({found.origin}) is VLMEvalKit's TSV {found.path}, "
        f"which holds the eight image subtasks and no video. Download vlm2-bench_dataset.zip from the hub dataset {HUB_REPO}, unpack it and set {ENV_VAR} to that folder; "
        "or run vlm2bench_image (the image subtasks) instead."
    )


def _pair_fields(record: dict, subtask: str, kind: str, where: str) -> dict:
    q_id = str(record["q_id"])
    if kind == "tf_gc":
        return {"pair_id": q_id, "half": "p" if str(record["gt_answer"]).strip() == "T" else "n"}
    # pc/image/eval/eval_cpr/eval_comp_tf_pair_batch_3acc.py removes a leading "tf_" (the release's
    # PC-Cpr ids read "tf_300_p"); the OC copy of that script does not.
    key = q_id[3:] if subtask == "pc_cpr" and q_id.startswith("tf_") else q_id
    # Both scripts: main_id, suffix = q_id.split("_", 1), and the suffix must be "p" or "n".
    main, _, suffix = key.partition("_")
    if suffix not in ("p", "n"):
        prefix = 'an optional "tf_" prefix, then ' if subtask == "pc_cpr" else ""
        raise DataError(f"{where}: T/F question id {q_id!r} must be {prefix}<pair>_p or <pair>_n, with no other underscore (got pair {main!r}, half {suffix!r}).")
    return {"pair_id": main, "half": suffix}


def _count(value, field: str, where: str) -> int:
    """A record's image count as a positive int; DataError (the record is skipped) otherwise."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = None
    if number is None or number < 1 or isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
        raise DataError(f"{where}: counting record's {field} {value!r} is not a positive whole number.")
    return number


def subtask_docs(subtask: str) -> list[dict]:
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
        raise DataError(f"{ENV_VAR}: no question file for {subtask} under {base} (looked for {files}). Expected {LAYOUT}; or {TSV_LAYOUT}.")
    docs, paths = [], {}  # image name -> its path, built once (items share images)
    for where, record in read_records(path):
        try:
            docs.append(_record_doc(record, subtask, kind, base, media, where, paths=paths))
        except DataError as exc:  # an unusable record is skipped and counted, not the whole subtask
            items.skip(items.RECORD, str(exc))
    if not docs and not any(True for _ in read_records(path)):
        raise DataError(f"{path}: no records.")
    return docs


def _record_doc(record: dict, subtask: str, kind: str, base: Path, media: str, where: str, pair: dict | None = None, paths: dict | None = None) -> dict:
    """One record as a doc; DataError naming ``where`` if it is unusable. Image files are checked
    by the task hook (missing, empty, corrupt and truncated files are skipped there). ``pair``
    (``pair_id``, ``half``) overrides the zip's T/F id rules (the TSV recovers pairs its own way)."""
    needed = ["q_id" if kind != "vid" else "vid", "question"] + (["gt_answer"] if kind != "vid" else [])
    missing = [k for k in needed if k not in record]
    if missing:
        raise DataError(f"{where}: record lacks {missing}.")
    doc = {"uid": str(record.get("q_id", record.get("vid"))), "subtask": subtask, "kind": kind, "question": str(record["question"]), "gt": str(record.get("gt_answer", "")).strip()}
    doc.update(pair_id="", half="", n_images=0, images=[], video="", vid_type="")
    if kind == "vid":
        vid = str(record["vid"])
        video = next((base / media / f"{vid}{ext}" for ext in VIDEO_SUFFIXES if (base / media / f"{vid}{ext}").is_file()), None)
        if video is None:
            raise DataError(f"{where}: no video {vid}.* under {base / media}.")
        doc.update(video=str(video), vid_type="ABA" if "ABA" in vid else "AB")  # eval_pc-v_open-ended.py: "ABA" in vid
        return doc
    images = record.get("images")
    if not isinstance(images, list) or not images:
        raise DataError(f"{where}: 'images' must be a non-empty list.")
    paths = {} if paths is None else paths
    doc["images"] = [paths[im] if im in paths else paths.setdefault(im, str(base / media / im)) for im in images]
    if kind in ("tf", "tf_gc"):
        doc.update(pair if pair is not None else _pair_fields(record, subtask, kind, where))
    if kind == "cnt":
        # acc_with_cnt_score.py reads image_seq_len, else len(image_seq), else silently 2;
        # we take the record's count and refuse to guess.
        if "image_seq_len" in record:
            doc["n_images"] = _count(record["image_seq_len"], "image_seq_len", where)
        elif isinstance(record.get("image_seq"), list):
            doc["n_images"] = len(record["image_seq"])
        else:
            raise DataError(f"{where}: counting record has neither image_seq_len nor image_seq; the image count must come from the record.")
        try:
            int(doc["gt"])
        except ValueError as exc:
            raise DataError(f"{where}: counting gt_answer {doc['gt']!r} is not a number.") from exc
    return doc
