"""A small generated VLM²-Bench copy: the unpacked zip's question files, images and real videos
(``build``), and the same image items as VLMEvalKit's ``VLM2Bench_img.tsv`` (``write_tsv``)."""

from __future__ import annotations

import base64
import csv
import io
import json
import random
from pathlib import Path
from typing import Literal

from lmms_comparative.data import untrusted
from lmms_comparative.data.fixture_images import draw_pair, write_video
from lmms_comparative.record import FixturePart

# The records file under the root that the smoke task reads (tests/failures/test_data_problems.py damages it).
SMOKE_RECORDS = "jsonl/oc/vanilla/oc_cnt.jsonl"

# Frames per person (data.fixture_images.write_video's default): an AB video has 12 frames, an ABA
# video 18, more than the 10 that lmms-eval's openai model samples by default (max_frames_num).
FRAMES_PER_SCENE = 6


def gc_record(task: str, i: int, gt: str, images: list[str]) -> dict:
    """A GC question (``mat``, ``trk``) as the release writes it: the ``gt`` (T or F) half of pair ``i``."""
    question = f"[gc_{task}-{i}-{gt}] Is the same object in both images? Answer T or F."
    return {
        "q_id": f"{task}{i}",
        "task": task,
        "question": question,
        "gt_answer": gt,
        "edited_prompt": "",
        "images": images,
    }


def cpr_record(cat: str, i: int, half: str, images: list[str]) -> dict:
    """An OC or PC comparison question: the ``half`` (p: same, n: not) of pair ``i``. The release's
    PC-Cpr ids carry a "tf_" prefix (tf_300_p); OC-Cpr's do not."""
    question = f"[{cat}_cpr-{i}-{half}] Are these the same? Answer T or F."
    q_id = f"{'tf_' if cat == 'pc' else ''}{i}_{half}"
    return {
        "q_id": q_id,
        "type": "thing",
        "question": question,
        "gt_answer": "T" if half == "p" else "F",
        "images": images,
    }


def cnt_record(cat: str, i: int, images: list[str]) -> dict:
    """An OC or PC counting question over the sequence ``images``."""
    question = f"[{cat}_cnt-{i}] How many distinct objects are there? Answer with a number."
    n = len(images)
    return {
        "q_id": f"cnt{i}",
        "type": "thing",
        "question": question,
        "gt_answer": 1 + i % n,
        "image_seq_len": n,
        "images": images,
    }


def build(root: str | Path, seed: int = 0) -> Path:
    """Write an unpacked vlm2-bench_dataset.zip under ``root``: the nine question files and their
    images and real videos (H.264, a few frames per person). Every question
    carries a unique ``[tag]``. Pairs include an incomplete one (its negative half missing)."""
    root = Path(root)
    rng = random.Random(seed)
    media = {"gc": "data/gc/processed", "oc": "data/oc/original_obj", "pc": "data/pc/image/picks_face"}

    def images(cat: str, name: str, n: int) -> list[str]:
        names = []
        for j in range(n):
            rel = f"{name}_{j}.png"
            (root / media[cat] / rel).parent.mkdir(parents=True, exist_ok=True)
            untrusted.write_image(root / media[cat] / rel, draw_pair(rng)[0])
            names.append(rel)
        return names

    def write(path: str, records: list[dict]) -> None:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        untrusted.write_file(root / path, "".join(json.dumps(r) + "\n" for r in records))

    for task in ("mat", "trk"):
        rows: list[dict] = []
        for i in range(4):
            for gt in ("T", "F") if i < 3 else ("T",):  # pair 3 is incomplete
                rows.append(gc_record(task, i, gt, images("gc", f"{task}/{i}{gt}", 2)))
        write(f"jsonl/gc/vanilla/gc_{task}.jsonl", rows)
    for cat in ("oc", "pc"):
        rows = []
        for i in range(4):
            for half in ("p", "n") if i < 3 else ("p",):
                rows.append(cpr_record(cat, i, half, images(cat, f"cpr/{i}{half}", 2)))
        write(f"jsonl/{cat}/vanilla/{cat}_cpr.jsonl", rows)
        rows = [cnt_record(cat, i, images(cat, f"cnt/{i}", 2 + i % 3)) for i in range(5)]
        write(f"jsonl/{cat}/vanilla/{cat}_cnt.jsonl", rows)
        rows = [
            {
                "q_id": f"grp{i}",
                "type": "thing",
                "question": f"[{cat}_grp-{i}] Which images show the same object? "
                "(A) 1 and 2 (B) 1 and 3 (C) 2 and 3 (D) none",
                "gt_answer": "(ABCD"[1 + i % 4] + ") choice",
                "images": images(cat, f"grp/{i}", 3),
            }
            for i in range(4)
        ]
        write(f"jsonl/{cat}/vanilla/{cat}_grp.jsonl", rows)
    video_dir = root / "data/pc/video/UNI"
    video_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for vid in ("vid_AB_1", "vid_AB_2", "vid_ABA_1", "vid_ABA_2"):
        # Two different people: two independent drawings (one drawing and its subtle variant would
        # leave the scenes too alike to tell which one a sampled frame shows).
        person_a, person_b = draw_pair(rng)[0], draw_pair(rng)[0]
        scenes = [person_a, person_b, person_a] if "ABA" in vid else [person_a, person_b]
        write_video(video_dir / f"{vid}.mp4", scenes, FRAMES_PER_SCENE)
        rows.append({"vid": vid, "question": f"[{vid}] Describe the people in this video.", "gt_answer": ""})
    write("jsonl/pc/vallina/pc_v_open-ended.jsonl", rows)
    return root


def write_zip(release: str | Path, dest: str | Path, nested: bool = False) -> Path:
    """The hub's ``vlm2-bench_dataset.zip`` of an unpacked copy (``build``): ``jsonl/`` and
    ``data/`` at the top, or under one ``vlm2-bench_dataset/`` folder (``nested``)."""
    import zipfile

    release, dest = Path(release), Path(dest)
    with zipfile.ZipFile(dest, "w") as zf:
        for path in sorted(release.rglob("*")):
            if path.is_file():
                zf.write(path, ("vlm2-bench_dataset/" if nested else "") + path.relative_to(release).as_posix())
    return dest


def write_tsv(zip_root: str | Path, dest: str | Path, quoting: Literal[0, 1, 2, 3] = csv.QUOTE_MINIMAL) -> Path:
    """Write the image items of an unpacked zip (``build``'s output) as VLMEvalKit's
    ``VLM2Bench_img.tsv``; ``dest`` is a folder or the file's path. Returns the file.

    The format is the one VLMEvalKit reads (vlmeval/dataset/image_base.py, vlmeval/smp/file.py):
    tab-separated with ``"`` quoting (pandas' ``to_csv``; VLMEvalKit's own dumps quote every field,
    ``quoting=csv.QUOTE_ALL``). The columns are ``index``, ``question``, ``answer``, ``category`` and
    ``image``. ``image`` holds one base64 image, or several as a Python list literal. Rows follow the
    question files, category by category. ``index`` is ``<category>_<q_id>``; a GC row adds
    ``_p``/``_n`` (its answer T/F), because both halves of a GC pair share one q_id in the zip and a
    TSV index is unique. The images are the zip's files, byte for byte."""
    from lmms_comparative.benchmarks.vlm2bench.records import SUBTASKS, half_of
    from lmms_comparative.benchmarks.vlm2bench.tsv import CATEGORIES

    zip_root, dest = Path(zip_root), Path(dest)
    path = dest if dest.suffix == ".tsv" else dest / "VLM2Bench_img.tsv"
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = io.StringIO(newline="")
    writer = csv.writer(handle, delimiter="\t", quoting=quoting, lineterminator="\n")
    writer.writerow(["index", "question", "answer", "category", "image"])
    for category, subtask in CATEGORIES.items():
        files, media, kind = SUBTASKS[subtask]
        for line in (zip_root / files[0]).read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            index = f"{category}_{record['q_id']}"
            if kind == "tf_gc":
                index += "_" + half_of(record["gt_answer"])
            encoded = [
                base64.b64encode((zip_root / media / name).read_bytes()).decode("ascii") for name in record["images"]
            ]
            writer.writerow(
                [
                    index,
                    record["question"],
                    record["gt_answer"],
                    category,
                    encoded[0] if len(encoded) == 1 else str(encoded),
                ]
            )
    untrusted.write_file(path, handle.getvalue())
    return path


PART = FixturePart(build, SMOKE_RECORDS)
