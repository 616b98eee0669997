"""The item browser's data: every item of every run's samples logs, joined across runs by task and
item key, written as small script files beside ``index.html`` (a page opened from disk cannot fetch
JSON, but it can load a script): ``items/index.js`` with what the filters need for every item, and
``items/chunk_<n>.js`` with each item's question, gold answer and every run's reply, parsed answer,
score and per-item fields, loaded when a page shows them. Thumbnails and full-size views of each
image are made once (named by the file's path, size and mtime, so a second report reuses them),
in parallel, under ``thumbs/`` and ``full/``: the page requests nothing outside its folder."""

from __future__ import annotations

import hashlib
import json
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from lmms_comparative.registry import of_task
from lmms_comparative.rescoring.replies import ItemKey, sample_key

CHUNK = 200  # items per detail file
THUMB = 160  # thumbnail's longest side, pixels
FULL = 1024  # the view on click: longest side, pixels
_FIELDS_SKIPPED = {"item_id", "uid", "id", "skipped", "answer_text"}  # shown elsewhere, or noise
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".webp", ".bmp", ".gif", ".tif", ".tiff"}
VIDEO_SUFFIXES = {".mp4", ".avi", ".mov", ".mkv", ".webm"}
FRAMES = 8  # a video item's frames shown: sampled uniformly, as lmms-eval's video models sample theirs


def _item_of(row: dict, key) -> tuple[str | None, dict]:
    """A samples line's item key and its per-item dict (what our process_results logs per metric)."""
    unit = sample_key(row, key)
    item = next((v for v in row.values() if isinstance(v, dict) and key.columns[0] in v), {})
    return unit, item


def _reply(row: dict) -> str:
    value = row.get("resps") if "resps" in row else row.get("filtered_resps")
    while isinstance(value, list) and value:
        value = value[0] if len(value) == 1 else value
        if isinstance(value, list):
            value = "\n---\n".join(str(v) for v in value)
    return "" if value is None else str(value)


def _outcome(item: dict) -> tuple[str, float | None]:
    """(right / wrong / partial / failed / unscored, score) of a per-item dict."""
    if item.get("status") == "failed" or item.get("caption_failed"):
        return "failed", 0.0
    for name in ("correct", "score"):
        value = item.get(name)
        if isinstance(value, bool):
            value = float(value)
        if isinstance(value, (int, float)):
            return ("right" if value >= 1 else "wrong" if value <= 0 else "partial"), float(value)
    return "unscored", None


def _scalars(item: dict) -> dict:
    return {k: v for k, v in item.items() if k not in _FIELDS_SKIPPED and isinstance(v, (str, int, float, bool)) and v != ""}


def collect(runs: list, benchmarks) -> list[dict]:
    """One record per (task, item key) that any run scored: the task, benchmark, category,
    domain, question, gold answer, media paths, and per run its reply, parsed answer, outcome,
    score and fields (CaptionQA: the reader's questions for that image)."""
    found: dict[tuple[str, str], dict] = {}
    for index, run in enumerate(runs):
        for task, rows in sorted(run.samples.items()):
            benchmark = of_task(task)
            if benchmark is None or benchmark not in benchmarks:
                continue
            key = ItemKey.of(benchmark)
            questions = _reader_questions(run, task)
            for row in sorted(rows, key=lambda r: r.get("doc_id", 0)):
                unit, item = _item_of(row, key)
                if unit is None:
                    continue
                record = found.setdefault(
                    (task, unit),
                    {
                        "task": task,
                        "benchmark": benchmark.name,
                        "key": unit,
                        "category": str(item.get("category") or item.get("kind") or task),
                        "domain": str(item.get("domain") or item.get("source") or ""),
                        "question": str(row.get("input") or ""),
                        "target": str(row.get("target") if row.get("target") is not None else ""),
                        "media": [str(m) for m in row.get("input_media") or []],
                        "runs": {},
                    },
                )
                outcome, score = _outcome(item)
                entry = {"reply": _reply(row), "parsed": item.get("parsed", item.get("letter")), "outcome": outcome, "score": score, "fields": _scalars(item)}
                if questions is not None:  # CaptionQA: the image's score is its questions' mean
                    entry["questions"] = asked = questions.get(str(item.get("id", unit)), [])
                    if asked and outcome != "failed":
                        entry["score"] = sum(float(q.get("score") or 0) for q in asked) / len(asked)
                        entry["outcome"] = "right" if entry["score"] >= 1 else "wrong" if entry["score"] <= 0 else "partial"
                record["runs"][index] = entry
    return [found[k] for k in sorted(found)]


def _reader_questions(run, task: str) -> dict[str, list[dict]] | None:
    """CaptionQA: the reader's answers of a task, by image id (its questions' outcomes)."""
    rows = run.side.get("reader", {}).get(task)
    if not rows:
        return None
    out: dict[str, list[dict]] = {}
    for row in rows:
        out.setdefault(str(row.get("id")), []).append({k: row.get(k) for k in ("question", "category", "letter", "answer", "score", "correct", "cannot", "failed") if k in row})
    return out


def _media_name(path: str) -> str | None:
    """The cached file name of an image (its path, size and mtime), None for a file not at hand."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return hashlib.sha256(f"{os.path.abspath(path)}\0{stat.st_size}\0{stat.st_mtime_ns}".encode()).hexdigest()[:24] + ".jpg"


def _save_views(image, name: str, out: Path) -> None:
    """An RGB image's full view (``FULL``) and thumbnail (``THUMB``), as ``full/NAME`` and ``thumbs/NAME``."""
    for folder, side in (("full", FULL), ("thumbs", THUMB)):
        view = image.copy()
        view.thumbnail((side, side))
        view.save(out / folder / name, "JPEG", quality=85)


def _make_views(path: str, name: str, out: Path) -> bool:
    """The thumbnail and the full view of one image, unless both exist from an earlier report."""
    thumb, full = out / "thumbs" / name, out / "full" / name
    if thumb.is_file() and full.is_file():
        return True
    from PIL import Image

    try:
        with Image.open(path) as image:
            _save_views(image.convert("RGB"), name, out)
    except (OSError, ValueError, Image.DecompressionBombError):
        return False
    return True


def _video_frames(path: str, out: Path) -> list[str]:
    """``FRAMES`` frames of a video, sampled uniformly over its length (lmms-eval's video models
    sample ``max_frames_num`` frames the same way; the model's own count may differ), saved as
    thumbnails and full views once (named by the file's path, size, mtime and frame index)."""
    base = _media_name(path)
    if base is None:
        return []
    names = [f"{base[:-4]}_f{i}.jpg" for i in range(FRAMES)]
    if all((out / "thumbs" / n).is_file() for n in names):
        return names
    import cv2
    from PIL import Image

    capture = cv2.VideoCapture(path)
    try:
        count = int(capture.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        if count <= 0:
            return []
        found = []
        for name, index in zip(names, sorted({round(i * (count - 1) / max(1, FRAMES - 1)) for i in range(FRAMES)})):
            capture.set(cv2.CAP_PROP_POS_FRAMES, index)
            ok, frame = capture.read()
            if not ok:
                continue
            image = Image.fromarray(cv2.cvtColor(frame, cv2.COLOR_BGR2RGB))
            _save_views(image, name, out)
            found.append(name)
        return found
    finally:
        capture.release()


def _embedded(records: list[dict], out: Path, made: dict[str, bool]) -> None:
    """Items whose samples name no image file (CaptionQA embeds its images in parquet): the
    benchmark's ``report.item_images(task, keys)`` reads them from the data at hand; each is
    saved once under the sha256 of its pixels, and stands in the record as a pseudo-path."""
    wanted: dict[str, list[dict]] = {}
    for record in records:
        if not record["media"]:
            wanted.setdefault(record["task"], []).append(record)
    for task, found in wanted.items():
        reader = of_task(task).optional("report", "item_images")
        if reader is None:
            continue
        images = reader(task, [r["key"] for r in found])
        for record in found:
            for image in images.get(record["key"], []):
                name = hashlib.sha256(image.tobytes()).hexdigest()[:24] + ".jpg"
                pseudo = f"embedded:{name}"
                if not (out / "thumbs" / name).is_file():
                    _save_views(image, name, out)
                record["media"].append(pseudo)
                made[pseudo] = True


def write(records: list[dict], runs: list, out: Path, workers: int | None = None) -> dict:
    """The browser's files under ``out``; returns counts (items, images made or reused)."""
    for folder in ("items", "thumbs", "full"):
        (out / folder).mkdir(parents=True, exist_ok=True)
    images: dict[str, str] = {}
    for record in records:
        for path in record["media"]:
            if Path(path).suffix.lower() in IMAGE_SUFFIXES and path not in images:
                name = _media_name(path)
                if name:
                    images[path] = name
    made: dict[str, bool] = {}
    with ThreadPoolExecutor(max_workers=workers or min(8, os.cpu_count() or 1)) as pool:
        for path, ok in zip(images, pool.map(lambda p: _make_views(p, images[p], out), images)):
            made[path] = ok
    _embedded(records, out, made)
    for record in records:  # a video item: the frames, in the record's media, after the video's own entry
        for path in [m for m in record["media"] if Path(m).suffix.lower() in VIDEO_SUFFIXES]:
            for name in _video_frames(path, out):
                record["media"].append(f"embedded:{name}")
                made[f"embedded:{name}"] = True
    tasks = sorted({r["task"] for r in records})
    categories = sorted({r["category"] for r in records})
    domains = sorted({r["domain"] for r in records})
    outcomes = ["right", "wrong", "partial", "failed", "unscored", "absent"]
    rows = []
    for number, record in enumerate(records):
        record["images"] = [p.split(":", 1)[1] if p.startswith("embedded:") else images[p] if made.get(p) else None for p in record["media"]]
        state = [outcomes.index(record["runs"][i]["outcome"]) if i in record["runs"] else outcomes.index("absent") for i in range(len(runs))]
        scores = [record["runs"][i]["score"] if i in record["runs"] else None for i in range(len(runs))]
        first = next((name for name in record["images"] if name), None)
        rows.append([tasks.index(record["task"]), categories.index(record["category"]), domains.index(record["domain"]), record["benchmark"], state, scores, first])
    index = {"runs": [r.name for r in runs], "tasks": tasks, "categories": categories, "domains": domains, "outcomes": outcomes, "chunk": CHUNK, "rows": rows}
    (out / "items" / "index.js").write_text("window.LC_INDEX = " + json.dumps(index, separators=(",", ":")) + ";\n", encoding="utf-8")
    for start in range(0, len(records), CHUNK):
        part = [{k: v for k, v in r.items() if k != "media"} | {"media": [os.path.basename(m) for m in r["media"]]} for r in records[start : start + CHUNK]]
        text = f"window.LC_CHUNK({start // CHUNK}, " + json.dumps(part, separators=(",", ":"), ensure_ascii=False).replace("</", "<\\/") + ");\n"
        (out / "items" / f"chunk_{start // CHUNK:05d}.js").write_text(text, encoding="utf-8")
    return {"items": len(records), "images": len(images), "images_unreadable": sum(1 for ok in made.values() if not ok)}
