"""One VLM2-Bench record as a doc: the shape the zip's JSON-lines records and VLMEvalKit's TSV rows
(``tsv.py``) both become, with its checks; the subtasks' files and kinds."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from lmms_comparative.failures import DataError

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
    "pc_vid": (
        ["jsonl/pc/vallina/pc_v_open-ended.jsonl", "jsonl/pc/vanilla/pc_v_open-ended.jsonl"],
        "data/pc/video/UNI",
        "vid",
    ),
}
VIDEO_SUFFIXES = (".mp4", ".avi", ".mov", ".mkv", ".webm")


def half_of(answer) -> str:
    """A T/F question's half: ``p`` (positive) where the answer is T, else ``n``."""
    return "p" if str(answer).strip() == "T" else "n"


def _pair_fields(record: dict, subtask: str, kind: str, where: str) -> dict:
    q_id = str(record["q_id"])
    if kind == "tf_gc":
        return {"pair_id": q_id, "half": half_of(record["gt_answer"])}
    # pc/image/eval/eval_cpr/eval_comp_tf_pair_batch_3acc.py removes a leading "tf_" (the release's
    # PC-Cpr ids read "tf_300_p"); the OC copy of that script does not.
    key = q_id[3:] if subtask == "pc_cpr" and q_id.startswith("tf_") else q_id
    # Both scripts: main_id, suffix = q_id.split("_", 1), and the suffix must be "p" or "n".
    main, _, suffix = key.partition("_")
    if suffix not in ("p", "n"):
        prefix = 'an optional "tf_" prefix, then ' if subtask == "pc_cpr" else ""
        raise DataError(
            f"{where}: T/F question id {q_id!r} must be {prefix}<pair>_p or <pair>_n, with no other underscore (got "
            f"pair {main!r}, half {suffix!r})."
        )
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


def record_doc(
    record: dict,
    subtask: str,
    kind: str,
    base: Path,
    media: str,
    where: str,
    pair: dict | None = None,
    paths: dict | None = None,
) -> dict:
    """One record as a doc; DataError naming ``where`` if it is unusable. Image files are checked
    by the task hook (missing, empty, corrupt and truncated files are skipped there). ``pair``
    (``pair_id``, ``half``) overrides the zip's T/F id rules (the TSV recovers pairs its own way)."""
    needed = ["q_id" if kind != "vid" else "vid", "question"] + (["gt_answer"] if kind != "vid" else [])
    missing = [k for k in needed if k not in record]
    if missing:
        raise DataError(f"{where}: record lacks {missing}.")
    doc: dict[str, Any] = {
        "uid": str(record.get("q_id", record.get("vid"))),
        "subtask": subtask,
        "kind": kind,
        "question": str(record["question"]),
        "gt": str(record.get("gt_answer", "")).strip(),
    }
    doc.update(pair_id="", half="", n_images=0, images=[], video="", vid_type="")
    if kind == "vid":
        vid = str(record["vid"])
        video = next(
            (base / media / f"{vid}{ext}" for ext in VIDEO_SUFFIXES if (base / media / f"{vid}{ext}").is_file()), None
        )
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
            raise DataError(
                f"{where}: counting record has neither image_seq_len nor image_seq; the image count must come from the "
                "record."
            )
        try:
            int(doc["gt"])
        except ValueError as exc:
            raise DataError(f"{where}: counting gt_answer {doc['gt']!r} is not a number.") from exc
    return doc


def repeat_uid(q_id: str, half: str, seen: dict[tuple[str, str], int]) -> str:
    """A GC record's ``uid``: its ``q_id``, or ``<q_id>~<n>`` for the n-th record (n >= 2, in file
    order) with the same q_id and answer. The release may hold two T/F pairs under one q_id: the
    paper gives 260 GC-Mat and 220 GC-Trk pairs, the authors' own runs count 259 and 219 groups
    (release.json, S2 and S3). The official ``code/gc/eval/eval_tf_batch_pair_3acc.py`` groups by
    q_id (a group's half is right when any of its records is), which ``pair_id`` keeps; the uid
    keeps each record an item of its own, so that ``score`` and ``verify`` can tell them apart.
    ``seen`` counts (q_id, half) over one file."""
    seen[(q_id, half)] = seen.get((q_id, half), 0) + 1
    return q_id if seen[(q_id, half)] == 1 else f"{q_id}~{seen[(q_id, half)]}"


def distinct_gc_uids(docs: list[dict], subtask: str, uids: list[str | None] | None = None) -> list[dict]:
    """``docs`` with ``repeat_uid`` applied to GC T/F docs in order (or ``uids``, one per doc, where
    the loader counted every record of the file, unusable ones included, as the answers readers
    do), and one line where any was renamed (the release's count of pairs then differs from the
    paper's)."""
    seen: dict[tuple[str, str], int] = {}
    renamed = 0
    for number, doc in enumerate(docs):
        if doc.get("kind") == "tf_gc":
            uid = uids[number] if uids is not None and uids[number] else repeat_uid(doc["pair_id"], doc["half"], seen)
            renamed += uid != doc["uid"]
            doc["uid"] = uid
    keys = Counter((doc["uid"], doc["half"]) for doc in docs if doc.get("kind") == "tf_gc")
    clash = sorted(f"{uid}#{half}" for (uid, half), n in keys.items() if n > 1)
    if clash:  # a q_id of the file that is literally another's renamed uid (``<q_id>~2``)
        raise DataError(
            f"VLM2-Bench {subtask}: item key(s) {', '.join(clash[:5])} name two records once repeated q_ids are "
            "numbered <q_id>~2, ...; rename the q_id of one of them."
        )
    if renamed:
        from loguru import logger

        logger.warning(
            f"VLM2-Bench {subtask}: {renamed} record(s) share their q_id and answer with an earlier record (two T/F "
            "pairs under one q_id): "
            "each is an item of its own (uid <q_id>~2, ...), and they are scored as one group by q_id, as the "
            "official GC script groups them"
        )
    return docs
