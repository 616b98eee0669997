"""Preparation at the releases' real sizes: our ``process_docs`` hooks against one plain read of the same files.

    python bench/data_scale.py [--runs 3] [--quick] [--benchmarks subtlebench compbench captionqa vlm2bench]
                               [--captionqa-without-domain] [--small-images] [--profile]

For each benchmark with a real-size release, writes a generated copy at the release's size in the
official layout into a temporary folder, then measures, side by side:

- ours: what lmms-eval calls, the ``process_docs`` hook of every task of a group, read off the
  group's YAML files, in the group's order, with the benchmark's ``*_ROOT`` pointing at the copy;
- plain: one read of the same files, parsing the records with json (pyarrow for parquet) and
  reading every image file's bytes once (what any loader that looks at each image must at least do).

Every measurement runs in a fresh process, so no cache of the package (parsed records, checked
images, the CaptionQA splits) and no Hugging Face datasets cache carries over: each one starts
cold. The OS page cache is warm for both sides (the files were just written). Time and the rise
of the peak RSS come from one process, the tracemalloc peak from another (tracing slows Python
code several times). Prints min / median / max over ``--runs``, the ratio ours / plain (within each run) against
the target (at most 1.5x), memory, and SubtleBench's memory per item at a quarter and at the full
size, with what the docs hold (image paths, or lazily decoded image bytes).

Sizes (``--quick``: a few items each, one run, for a smoke test):

- VLM-SubtleBench: 11,700 test pairs and 1,300 val pairs (the package's fixture builder, hub URLs
  as image fields); the ten type tasks (group ``subtlebench``). The test images are JPEG files of
  60-400 kB, the range the release's images have (its hub listing; about 5 GB in all), drawn from 24
  noise photos spread evenly over that range; each file is its own copy on disk (nothing shared in
  the page cache). ``--small-images`` keeps the fixture's small PNG files (a few hundred bytes:
  the worst case for a loader that checks every image, since reading them costs almost nothing).
- MLLM-CompBench: the release layout (``annotations/<name>.json``, ``images/``) with each source's
  records as the authors split them (39,785 records, 31,822 in the test split, plus the 61
  MIT-States/VAW records typed "None"), one small PNG file per image (the release's image sizes
  are not known: the archive could not be read); groups ``compbench`` (test) and ``compbench_full``.
- CaptionQA: parquet per domain and ``all`` with 657 image sets and 33,027 questions (paper
  Table 1), the images at the size the hub card's download size gives (911 MB for two copies of
  every image set); groups ``captionqa_simple`` (one caption prompt) and ``captionqa_image``.
  ``--captionqa-without-domain`` leaves out the release's ``domain`` column. A task set whose
  hooks fail on a copy is reported with the error, not timed.
- VLM²-Bench: the unpacked zip's question files and images, 2,860 image items (paper Table 3,
  without the 200 video questions), small PNG files (the zip's image sizes are not recorded);
  group ``vlm2bench_image``.
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from lmms_comparative.registry import BENCHMARKS as ALL_BENCHMARKS  # the registry: light, no lmms-eval
from lmms_comparative.registry import BY_NAME

TARGET = 1.5  # ours / plain, wall time
MARK = "DATA_SCALE_RESULT "


def package_dir() -> Path:
    """The installed package's folder (its task YAML files), without importing it."""
    import importlib.util

    return Path(importlib.util.find_spec("lmms_comparative").origin).parent


# (benchmark, task set) -> (the group whose tasks lmms-eval runs, its *_ROOT variable, label)
SETS = {
    ("subtlebench", "types"): ("subtlebench", BY_NAME["subtlebench"].root_variable, "SubtleBench, ten type tasks"),
    ("compbench", "test"): ("compbench", BY_NAME["compbench"].root_variable, "CompBench, 16 test columns"),
    ("compbench", "full"): ("compbench_full", BY_NAME["compbench"].root_variable, "CompBench, 16 full columns"),
    ("captionqa", "caption"): ("captionqa_simple", BY_NAME["captionqa"].root_variable, "CaptionQA, 4 caption tasks"),
    ("captionqa", "image"): ("captionqa_image", BY_NAME["captionqa"].root_variable, "CaptionQA, 4 image tasks"),
    ("vlm2bench", "image"): ("vlm2bench_image", BY_NAME["vlm2bench"].root_variable, "VLM2-Bench, 8 image tasks"),
}
# The registered benchmarks this script has a release-scale generator for, in the registry's order;
# the others are named when the script starts (ViDi: 200 pairs, too small to need one).
BENCHMARKS = tuple(b.name for b in ALL_BENCHMARKS if any(name == b.name for name, _ in SETS))
WITHOUT_GENERATOR = tuple(b.name for b in ALL_BENCHMARKS if b.name not in BENCHMARKS)

# ---- generated copies -----------------------------------------------------------------------------


def small_pngs(n: int = 8) -> list[bytes]:
    """A few distinct, valid 32x32 PNG files (header to IEND marker), written to many paths."""
    from PIL import Image, ImageDraw

    out = []
    for k in range(n):
        image = Image.new("RGB", (32, 32), "white")
        ImageDraw.Draw(image).ellipse((k, k, 16 + k, 16 + k), fill=(30 * k % 256, 90, 160))
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        out.append(buffer.getvalue())
    return out


def noise_png(rng, side: int) -> bytes:
    """A PNG of random pixels (stored uncompressed: its size is about 3 * side**2 bytes)."""
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(rng.integers(0, 256, (side, side, 3), dtype="uint8")).save(buffer, format="PNG", compress_level=0)
    return buffer.getvalue()


# The release's images: JPEG files of 60-400 kB (REAL_RELEASES: its hub listing).
SUBTLEBENCH_IMAGE_KB = (60, 400)


def noise_jpegs(n: int, low_kb: int, high_kb: int) -> list[bytes]:
    """``n`` JPEG files of random pixels whose sizes spread evenly over [low_kb, high_kb] kB (a
    photo's layout: a short header, then the scan)."""
    import numpy as np
    from PIL import Image

    rng, out = np.random.default_rng(1), []
    for k in range(n):
        target = 1000 * (low_kb + (high_kb - low_kb) * k / max(1, n - 1))
        side = 64
        while True:  # noise at quality 85 takes about 1.1 bytes per pixel
            buffer = io.BytesIO()
            Image.fromarray(rng.integers(0, 256, (side, side, 3), dtype="uint8")).save(
                buffer, format="JPEG", quality=85
            )
            if buffer.tell() >= target:
                break
            side = max(side + 8, int(side * (target / buffer.tell()) ** 0.5))
        out.append(buffer.getvalue())
    return out


def write_subtlebench(dest: Path, per_category: int, val_per_category: int, small_images: bool = False) -> Path:
    from lmms_comparative.benchmarks.subtlebench.fixture import build

    root = build(dest, per_category=per_category, val_per_category=val_per_category)
    if not small_images:  # the test split's images at the release's sizes, each file its own copy
        photos = noise_jpegs(24, *SUBTLEBENCH_IMAGE_KB)
        marker = "/resolve/main/"
        with open(root / "data" / "test.jsonl", encoding="utf-8") as handle:
            for i, line in enumerate(line for line in handle if line.strip()):
                record = json.loads(line)
                for k, field in enumerate(("image_1", "image_2")):
                    (root / record[field].split(marker, 1)[-1]).write_bytes(photos[(2 * i + k) % len(photos)])
    return root


def write_compbench(dest: Path, scale: float) -> Path:
    """The release layout (as the package's fixture writes it): annotations/<name>.json per source
    and the images they name, relative to the root. Each source has the records the authors split
    (their test + val counts per column), scaled by ``scale``."""
    from lmms_comparative.benchmarks.compbench import data as cb

    pngs = small_pngs()
    sized = lambda n: max(3, round(n * scale))  # noqa: E731
    parts: dict[str, dict[str, int]] = {}
    for task, (test, val) in cb.AUTHORS_COUNTS.items():
        column = cb.COLUMN_BY_TASK[task]
        parts.setdefault(column.label, {})[column.type_filter or "all"] = sized(test + val)
    # data.py: MIT-States and VAW records typed "None" (14 and 47) are in neither of the authors' splits.
    for label, n in (("st_label", 14), ("vaw_label", 47)):
        parts[label]["none"] = sized(n)
    folder_of = {}
    for column in cb.COLUMNS:
        folder_of.setdefault(column.label, column.source)
    (dest / "annotations").mkdir(parents=True, exist_ok=True)
    written = 0
    for label, sizes in parts.items():
        kind, source = cb.KIND_BY_LABEL[label], folder_of[label]
        folder = dest / "images" / source
        folder.mkdir(parents=True, exist_ok=True)
        types = [t for part, n in sizes.items() for t in [part] * n]
        random.Random(label).shuffle(types)
        rows = []
        for i, part in enumerate(types):
            names = [f"{i:05d}.png"] if kind == "qbench" else [f"{i:05d}_1.png", f"{i:05d}_2.png"]
            for k, name in enumerate(names):
                (folder / name).write_bytes(pngs[(i + k) % len(pngs)])
                written += 1
            refs = [f"images/{source}/{name}" for name in names]
            side = "Left" if (i * 7 + 3) % 5 < 2 else "Right"
            if kind == "qbench":
                options = ["The left image", "The right image", "They are equally sharp"][: 2 + i % 2]
                row = {
                    "image": refs[0],
                    "question": f"Which image is sharper? #{source}-{i}",
                    "options": options,
                    "answer": options[i % len(options)],
                }
            elif kind == "options":
                options = [f"red car #{source}-{i}", f"blue door #{source}-{i}", f"the tree #{source}-{i}"][: 2 + i % 2]
                row = {
                    "image_1": refs[0],
                    "image_2": refs[1],
                    "options": ", ".join(options) if label == "mb_label" else options,
                    "answer": options[i % len(options)] if i % 4 else "None",
                }
            elif kind == "cars":
                row = {"image_1": refs[0], "image_2": refs[1], "answer": side}
            elif kind == "soccer":
                row = {
                    "image_1": refs[0],
                    "image_2": refs[1],
                    "answer": side,
                    "action": f"Corner #{source}-{i}",
                    "CLIP_similarity": 0.9,
                }
            else:  # binary, quantity
                answer = ["Left", "Right", "Same"][i % 3] if kind == "quantity" else side
                row = {
                    "image_1": refs[0],
                    "image_2": refs[1],
                    "question": f"Which one is more striking? #{source}-{i}",
                    "answer": answer,
                }
            if label in ("st_label", "vaw_label"):
                row["type"] = {
                    "attribute": cb.ATTRIBUTE_TYPES[i % len(cb.ATTRIBUTE_TYPES)],
                    "state": cb.STATE_TYPE,
                    "none": "None",
                }[part]
            rows.append(row)
        (dest / "annotations" / f"{label}.json").write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return dest


# Paper Table 1: image sets and questions per domain (657 and 33,027 in all; the authors' example
# captions cover the same 657 image sets).
CAPTIONQA_SIZES = {
    "natural": (158, 10445),
    "document": (178, 7422),
    "ecommerce": (121, 5886),
    "embodiedai": (200, 9274),
}
CAPTIONQA_PREFIX = {"natural": "nat", "document": "doc", "ecommerce": "eco", "embodiedai": "emb"}
# The hub card's download size, 911 MB, holds every image set twice (its domain split and "all").
CAPTIONQA_SET_BYTES = 911e6 / 2 / 657


def captionqa_features():
    """The columns of CaptionQA's parquet files (``datasets`` features), read from a copy the
    package's fixture builder writes: the release's, declared in one place."""
    import pyarrow.parquet as pq
    from datasets import Features

    from lmms_comparative.benchmarks.captionqa.fixture import SMOKE_RECORDS, build

    with tempfile.TemporaryDirectory() as tmp:
        return Features.from_arrow_schema(pq.read_schema(build(Path(tmp), per_domain=1) / SMOKE_RECORDS))


def write_captionqa(dest: Path, scale: float, set_bytes: float, domain_column: bool = True) -> Path:
    """Parquet per domain and "all" (data/<split>-00000-of-00001.parquet) with the release's columns
    (``captionqa_features``; ``domain_column=False``: without ``domain``); every third image set has
    two images, each of random pixels so that an image set weighs ``set_bytes``."""
    import datasets
    import numpy as np
    from datasets import Dataset, Features

    datasets.disable_progress_bars()

    from lmms_comparative.benchmarks.captionqa.data import taxonomy

    features = captionqa_features()
    rng = np.random.default_rng(0)
    (dest / "data").mkdir(parents=True, exist_ok=True)
    by_domain = {}
    for domain, (sets, questions) in CAPTIONQA_SIZES.items():
        sets, questions = max(2, round(sets * scale)), max(4, round(questions * scale))
        tops = list(taxonomy(domain))
        rows = {name: [] for name in features}
        for i in range(sets):
            n_images = 2 if i % 3 == 2 else 1
            side = max(8, int((set_bytes / n_images / 3) ** 0.5))
            entry = f"{CAPTIONQA_PREFIX[domain]}_{i + 1:03d}"
            paths = [f"images/{domain}/{entry}_{k}.png" for k in range(n_images)]
            count = questions // sets + (1 if i < questions % sets else 0)
            qs = []
            for q in range(count):
                choices = ["Yes", "No"] if q % 5 == 0 else [f"option {c} of {entry}/{q}" for c in "abcd"]
                qs.append(
                    {
                        "answer": choices[q % len(choices)],
                        "category": [tops[q % len(tops)]],
                        "choices": choices,
                        "question": f"Question {q} about {entry}?",
                        "source": "generated",
                    }
                )
            rows["id"].append(entry)
            rows["images"].append([{"bytes": noise_png(rng, side), "path": Path(p).name} for p in paths])
            rows["questions"].append(qs)
            rows["domain"].append(domain)
            rows["image_paths"].append(paths)
        if not domain_column:
            del rows["domain"]
        by_domain[domain] = Dataset.from_dict(rows, features=Features({k: v for k, v in features.items() if k in rows}))
        by_domain[domain].to_parquet(str(dest / "data" / f"{domain}-00000-of-00001.parquet"))
    from datasets import concatenate_datasets

    concatenate_datasets(list(by_domain.values())).to_parquet(str(dest / "data" / "all-00000-of-00001.parquet"))
    splits = list(CAPTIONQA_SIZES) + ["all"]
    card = (
        "---\nconfigs:\n- config_name: default\n  data_files:\n"
        + "".join(f"  - split: {s}\n    path: data/{s}-*\n" for s in splits)
        + "---\n# CaptionQA (generated copy)\n"
    )
    (dest / "README.md").write_text(card, encoding="utf-8")
    return dest


# Paper Table 3 (appendix C): T/F pairs (two questions each), counting and grouping questions; the
# image pools of appendix E (320 object images, 120 person images). The 200 video questions are left out.
VLM2_SIZES = {
    "gc_mat": 260,
    "gc_trk": 220,
    "oc_cpr": 360,
    "oc_cnt": 360,
    "oc_grp": 200,
    "pc_cpr": 200,
    "pc_cnt": 120,
    "pc_grp": 100,
}
VLM2_POOLS = {"oc": 320, "pc": 120}
VLM2_MEDIA = {"gc": "data/gc/processed", "oc": "data/oc/original_obj", "pc": "data/pc/image/picks_face"}


def write_vlm2bench(dest: Path, scale: float) -> Path:
    """The unpacked vlm2-bench_dataset.zip: jsonl/<cat>/vanilla/<subtask>.jsonl and the images under
    data/ (GC pairs have their own two images; OC and PC sequences draw from their pools), each
    question made as the fixture makes it."""
    from lmms_comparative.benchmarks.vlm2bench import fixture as vlm2_fixture

    pngs = small_pngs()
    rng = random.Random(0)

    def put(cat: str, name: str, k: int) -> str:
        path = dest / VLM2_MEDIA[cat] / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            path.write_bytes(pngs[k % len(pngs)])
        return name

    pools = {
        cat: [put(cat, f"pool/{k:03d}.png", k) for k in range(max(4, round(n * scale)))]
        for cat, n in VLM2_POOLS.items()
    }
    for subtask, n in VLM2_SIZES.items():
        cat, kind = subtask.split("_")
        n = max(2, round(n * scale))
        rows = []
        for i in range(n):
            if cat == "gc":
                images = [put(cat, f"{kind}/{i}_{k}.png", i + k) for k in range(2)]
                rows += [vlm2_fixture.gc_record(kind, i, gt, images) for gt in ("T", "F")]
            elif kind == "cpr":
                images = rng.sample(pools[cat], 2)
                rows += [vlm2_fixture.cpr_record(cat, i, half, images) for half in ("p", "n")]
            elif kind == "cnt":
                rows.append(vlm2_fixture.cnt_record(cat, i, rng.sample(pools[cat], 2 + i % 3)))
            else:
                rows.append(
                    {
                        "q_id": f"grp{i}",
                        "type": "thing",
                        "question": f"[{subtask}-{i}] Which images show the same object? (A) 1 and 2 (B) 1 and 3 (C) 2 "
                        "and 3 (D) none",
                        "gt_answer": f"({'ABCD'[i % 4]})",
                        "images": rng.sample(pools[cat], 4),
                    }
                )
        path = dest / "jsonl" / cat / "vanilla" / f"{subtask}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return dest


# ---- plain reads (no package code) -------------------------------------------------------------


def _read_once(path: Path, seen: set) -> int:
    key = str(path)
    if key in seen:
        return 0
    seen.add(key)
    return len(path.read_bytes())


def plain_subtlebench(root: Path) -> tuple[int, int]:
    marker, seen, records = "/resolve/main/", set(), 0
    with open(root / "data" / "test.jsonl", encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                record = json.loads(line)
                records += 1
                for field in ("image_1", "image_2"):
                    _read_once(root / record[field].split(marker, 1)[-1], seen)
    return records, len(seen)


def plain_compbench(root: Path) -> tuple[int, int]:
    seen, records = set(), 0
    for path in sorted((root / "annotations").glob("*.json")):
        for record in json.loads(path.read_text(encoding="utf-8")):
            records += 1
            for field in ("image", "image_1", "image_2"):
                if field in record:
                    _read_once(root / record[field], seen)
    return records, len(seen)


def plain_captionqa(root: Path) -> tuple[int, int]:
    import pyarrow.compute as pc  # imported by the child before the clock starts
    import pyarrow.parquet as pq

    rows, images = 0, 0
    for domain in CAPTIONQA_SIZES:
        for path in sorted((root / "data").glob(f"{domain}-*.parquet")):
            table = pq.read_table(path)  # every column: ids, questions and the image bytes
            rows += table.num_rows
            images += pc.sum(pc.list_value_length(table.column("images"))).as_py() or 0
    return rows, images


def plain_vlm2bench(root: Path) -> tuple[int, int]:
    seen, records = set(), 0
    for subtask in VLM2_SIZES:
        cat = subtask.split("_")[0]
        with open(root / "jsonl" / cat / "vanilla" / f"{subtask}.jsonl", encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    record = json.loads(line)
                    records += 1
                    for name in record["images"]:
                        _read_once(root / VLM2_MEDIA[cat] / name, seen)
    return records, len(seen)


PLAIN = {
    "subtlebench": plain_subtlebench,
    "compbench": plain_compbench,
    "captionqa": plain_captionqa,
    "vlm2bench": plain_vlm2bench,
}

# ---- ours: the hooks lmms-eval calls -------------------------------------------------------------


def _yaml(path: Path) -> dict:
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))
    return yaml.load(path.read_text(encoding="utf-8"), Loader=Loader) or {}


def group_hooks(bench: str, group: str) -> list[tuple[str, object]]:
    """(task, process_docs) for every task of a group, as its YAML files name them."""
    import importlib

    folder = package_dir() / "benchmarks" / bench / "yaml"
    out = []
    for task in _yaml(folder / f"{group}.yaml")["task"]:
        config, path = {}, folder / f"{task}.yaml"
        while path is not None:  # a task file, then the templates it includes
            loaded = _yaml(path)
            config = {**loaded, **config}
            path = folder / loaded["include"] if "include" in loaded and "process_docs" not in config else None
        module, _, name = config["process_docs"].rpartition(".")
        out.append((task, getattr(importlib.import_module(module), name)))
    return out


def _holds(docs) -> dict[str, str]:
    """What the docs' image columns hold: paths (strings) or embedded image bytes."""
    from datasets import Image as ImageFeature

    out = (
        {}
        if any(name in docs.features for name in ("image", "image_1", "image_2", "images"))
        else {"(no image column)": "row numbers into the split" if "row" in docs.features else "nothing"}
    )
    for name, feature in docs.features.items():
        if name not in ("image", "image_1", "image_2", "images"):
            continue
        inner = getattr(feature, "feature", feature[0] if isinstance(feature, list) else feature)
        if isinstance(inner, ImageFeature):
            where = "memory-mapped" if docs.cache_files else "in memory"
            out[name] = f"image bytes ({where}, decoded when read)"
        else:
            out[name] = "paths" if getattr(inner, "dtype", "") == "string" else f"{inner}"
    return out


def _status_kib(field: str) -> int:
    with open("/proc/self/status", encoding="ascii") as handle:
        return next(int(line.split()[1]) for line in handle if line.startswith(field + ":"))


def rss_mark() -> tuple[str, int]:
    """Where the resident set starts. On Linux the peak (VmHWM) is reset to the current size, so
    that the peak after is the measured part's own: ``getrusage``'s ``ru_maxrss`` starts at the
    peak of the parent this process was started from, and at the imports' transient peak."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as handle:
            handle.write("5")
        return "VmHWM", _status_kib("VmRSS")
    except (OSError, StopIteration):
        return "ru_maxrss", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def rss_growth(mark: tuple[str, int]) -> int:
    """Bytes by which the peak resident set rose above ``mark``."""
    kind, before = mark
    after = _status_kib("VmHWM") if kind == "VmHWM" else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return 1024 * max(0, after - before)


def _warm_parquet_reader() -> None:
    """Both sides: pyarrow's first parquet read in a process starts its thread pools and memory
    pool (a fixed cost, whatever the file); done on a one-row file before the clock, so that
    neither side is charged for it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "warm.parquet")
        pq.write_table(pa.table({"x": [1]}), path)
        pq.read_table(path)
        pq.ParquetFile(path, memory_map=True).read()


def child(spec: dict) -> dict:
    """One measurement in this (fresh) process: imports first, then the timed part."""
    bench, root = spec["bench"], Path(spec["root"])
    if spec["variant"] == "ours":
        group, env_var, _ = SETS[(bench, spec["set"])]
        os.environ[env_var] = str(root)
        hooks = group_hooks(bench, group)
        import datasets  # noqa: F401 - what the hooks import anyway, loaded before the clock starts
    # Both sides: what pyarrow's parquet reader imports on first use (pandas, for the schema's metadata).
    import pandas  # noqa: F401
    import pyarrow.compute  # noqa: F401
    import pyarrow.dataset  # noqa: F401
    import pyarrow.parquet  # noqa: F401

    _warm_parquet_reader()
    gc.collect()
    mark = rss_mark()
    profiler = None
    if spec.get("profile"):
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    if spec["trace"]:
        tracemalloc.start()
    start = time.perf_counter()
    result: dict = {}
    if spec["variant"] == "ours":
        per_task, outs = [], []  # every task's docs stay alive, as lmms-eval's tasks keep them
        for task, hook in hooks:
            begin = time.perf_counter()
            outs.append(hook(None))  # lmms-eval passes the placeholder split; the hook ignores it
            per_task.append((task, time.perf_counter() - begin))
    else:
        records, files = PLAIN[bench](root)
    result["wall_s"] = time.perf_counter() - start
    if spec["variant"] == "ours":
        result.update(
            per_task=per_task,
            docs=sum(len(out) for out in outs),
            holds={k: v for out in outs for k, v in _holds(out).items()},
        )
    else:
        result.update(docs=records, files=files)
    if spec["trace"]:
        result["traced_peak"] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    if profiler is not None:
        import pstats

        profiler.disable()
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(25)
    result["rss_delta"], result["rss_from"] = rss_growth(mark), mark[0]
    return result


def measure(spec: dict, cwd: Path) -> dict:
    """Run ``child(spec)`` in a fresh interpreter; a fresh, empty Hugging Face datasets cache."""
    with tempfile.TemporaryDirectory(dir=cwd) as cache:
        env = {**os.environ, "HF_DATASETS_CACHE": cache, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
        proc = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--child", json.dumps(spec)],
            capture_output=True,
            text=True,
            env=env,
            cwd=cwd,
            timeout=900,
        )
    lines = [line for line in proc.stdout.splitlines() if line.startswith(MARK)]
    if proc.returncode != 0 or not lines:
        if spec["variant"] == "ours":  # the package failed on this copy: reported in the table
            last = [line for line in proc.stderr.splitlines() if line.strip()][-1:] or [f"exit {proc.returncode}"]
            print(f"ours failed on {spec['bench']} ({spec['set']}):\n{proc.stderr[-3000:]}", file=sys.stderr)
            return {"error": last[0].strip()}
        raise SystemExit(
            f"measurement {spec} failed (exit {proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"
        )
    if spec.get("profile"):
        print(proc.stderr[-12000:], file=sys.stderr)
    return json.loads(lines[-1][len(MARK) :])


# ---- the run ---------------------------------------------------------------------------------------


def generate(
    bench: str,
    dest: Path,
    quick: bool,
    quarter: bool = False,
    captionqa_domain: bool = True,
    small_images: bool = False,
) -> Path:
    if bench == "subtlebench":
        per_category, val = (5, 1) if quick and quarter else (20, 2) if quick else (292, 33) if quarter else (1170, 130)
        return write_subtlebench(dest, per_category, val, small_images)
    if bench == "compbench":
        return write_compbench(dest, 0.01 if quick else 1.0)
    if bench == "captionqa":
        return write_captionqa(dest, 0.03 if quick else 1.0, 3_000 if quick else CAPTIONQA_SET_BYTES, captionqa_domain)
    return write_vlm2bench(dest, 0.05 if quick else 1.0)


def spread(values: list[float], fmt: str = "{:.2f}") -> str:
    return " / ".join(fmt.format(v) for v in (min(values), statistics.median(values), max(values)))


def mib(n: float) -> float:
    return n / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=None, help="measurements per variant (default 3; 1 with --quick)")
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke test")
    parser.add_argument("--benchmarks", nargs="+", choices=BENCHMARKS, default=list(BENCHMARKS))
    parser.add_argument(
        "--profile",
        action="store_true",
        help="instead of timing: profile one run of ours per task set (cProfile, top 25 by cumulative time)",
    )
    parser.add_argument(
        "--captionqa-without-domain",
        action="store_true",
        help="write CaptionQA without the release's 'domain' column",
    )
    parser.add_argument(
        "--small-images",
        action="store_true",
        help="SubtleBench: the fixture's small PNG files instead of JPEG files at the release's sizes (60-400 kB)",
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(MARK + json.dumps(child(json.loads(args.child))), flush=True)
        return
    runs = args.runs or (1 if args.quick else 3)
    if WITHOUT_GENERATOR:
        print(f"not measured (no release-scale generator here): {', '.join(WITHOUT_GENERATOR)}", file=sys.stderr)
    # (label, benchmark, variant, set, size) -> per-run results
    rows: dict[tuple, dict[str, list[dict]]] = {}
    sizes = [(b, False) for b in args.benchmarks] + (
        [("subtlebench", True)] if "subtlebench" in args.benchmarks and not args.profile else []
    )
    for bench, quarter in sizes:
        with tempfile.TemporaryDirectory(prefix=f"data_scale_{bench}_") as tmp:
            began = time.perf_counter()
            root = generate(
                bench, Path(tmp) / bench, args.quick, quarter, not args.captionqa_without_domain, args.small_images
            )
            size = "1/4" if quarter else "full"
            on_disk = sum(f.stat().st_size for f in root.rglob("*") if f.is_file())
            print(
                f"[{bench} {size}] generated in {time.perf_counter() - began:.1f} s ({on_disk / 1e9:.2f} GB on disk)",
                file=sys.stderr,
                flush=True,
            )
            sets = [s for (b, s) in SETS if b == bench]
            if args.profile:
                for which in sets:
                    print(f"[{bench} {size}] profile of ours, {SETS[(bench, which)][2]}:", file=sys.stderr)
                    measure(
                        {
                            "bench": bench,
                            "variant": "ours",
                            "set": which,
                            "root": str(root),
                            "trace": False,
                            "profile": True,
                        },
                        Path(tmp),
                    )
                continue
            for r in range(runs):
                order = ["plain", "ours"] if r % 2 else ["ours", "plain"]
                for variant in order:
                    for which in sets if variant == "ours" else ["plain"]:
                        key = (bench, size, which)
                        timed = measure(
                            {"bench": bench, "variant": variant, "set": which, "root": str(root), "trace": False},
                            Path(tmp),
                        )
                        if "error" not in timed:
                            timed["traced_peak"] = measure(
                                {"bench": bench, "variant": variant, "set": which, "root": str(root), "trace": True},
                                Path(tmp),
                            )["traced_peak"]
                        rows.setdefault(key, {"runs": []})["runs"].append(timed)
                print(f"[{bench} {size}] run {r + 1}/{runs} done", file=sys.stderr, flush=True)
    if args.profile:
        return
    report, failed = [], []
    for (bench, size, which), row in rows.items():
        if which == "plain":
            continue
        ours, plain = row["runs"], rows[(bench, size, "plain")]["runs"]
        errors = [o["error"] for o in ours if "error" in o]
        if errors:
            failed.append(
                {
                    "label": SETS[(bench, which)][2],
                    "bench": bench,
                    "size": size,
                    "group": SETS[(bench, which)][0],
                    "error": errors[0],
                    "failed_runs": len(errors),
                }
            )
            continue
        ratios = [o["wall_s"] / p["wall_s"] for o, p in zip(ours, plain)]
        first = [o["per_task"][0][1] / o["wall_s"] for o in ours]
        report.append(
            {
                "label": SETS[(bench, which)][2] + ("" if size == "full" else f" ({size} size)"),
                "bench": bench,
                "size": size,
                "group": SETS[(bench, which)][0],
                "docs": ours[0]["docs"],
                "records": plain[0]["docs"],
                "image_files": plain[0]["files"],
                "ours_s": [o["wall_s"] for o in ours],
                "plain_s": [p["wall_s"] for p in plain],
                "ratio": ratios,
                "first_task_share": statistics.median(first),
                "ours_traced_peak": [o["traced_peak"] for o in ours],
                "plain_traced_peak": [p["traced_peak"] for p in plain],
                "ours_rss_delta": [o["rss_delta"] for o in ours],
                "plain_rss_delta": [p["rss_delta"] for p in plain],
                "holds": ours[0]["holds"],
                "meets_target": statistics.median(ratios) <= TARGET,
            }
        )
    print(
        f"\nTime, s (min / median / max of {runs} run(s); each a fresh process, cold caches). Target: ours "
        f"/ plain <= {TARGET}x (median)."
    )
    print(
        f"{'task set':<44} {'docs':>7} {'records':>7} {'images':>7}  {'ours s':<20} {'plain s':<20} "
        f"{'ours / plain':<20} {'1st task':>8}  target"
    )
    for row in report:
        print(
            f"{row['label']:<44} {row['docs']:>7} {row['records']:>7} {row['image_files']:>7}  "
            f"{spread(row['ours_s']):<20} {spread(row['plain_s']):<20} "
            f"{spread(row['ratio']) + 'x':<20} {row['first_task_share']:>7.0%}  "
            f"{'meets' if row['meets_target'] else 'MISSES'}"
        )
    how = sorted({o["rss_from"] for row in rows.values() for o in row["runs"] if "rss_from" in o})
    print(
        "\nMemory, MiB (median over runs): tracemalloc peak (Python allocations) and the rise of the peak "
        f"RSS over the RSS at the start (everything, native buffers included; {', '.join(how)})."
    )
    print(f"{'task set':<44} {'ours traced':>11} {'plain traced':>12} {'ours RSS':>9} {'plain RSS':>9}  docs hold")
    for row in report:
        med = lambda key: mib(statistics.median(row[key]))  # noqa: E731
        holds = ", ".join(f"{k}: {v}" for k, v in sorted(row["holds"].items()))
        print(
            f"{row['label']:<44} {med('ours_traced_peak'):>11.1f} {med('plain_traced_peak'):>12.1f} "
            f"{med('ours_rss_delta'):>9.1f} {med('plain_rss_delta'):>9.1f}  {holds}"
        )
    for row in failed:
        print(
            f"\n{row['label']} ({row['group']}): ours FAILED in {row['failed_runs']} of {runs} run(s) on "
            f"the generated copy: {row['error']}"
        )
    subtle = [row for row in report if row["bench"] == "subtlebench"]
    if subtle:
        print(
            "\nSubtleBench memory per item (KiB per test pair, median over runs): flat across sizes when "
            "docs hold paths."
        )
        print(f"{'size':<6} {'pairs':>6} {'ours traced':>11} {'plain traced':>12} {'ours RSS':>9} {'plain RSS':>9}")
        for row in sorted(subtle, key=lambda r: r["docs"]):
            per = lambda key: statistics.median(row[key]) / row["docs"] / 1024  # noqa: E731
            print(
                f"{row['size']:<6} {row['docs']:>6} {per('ours_traced_peak'):>11.2f} "
                f"{per('plain_traced_peak'):>12.2f} {per('ours_rss_delta'):>9.2f} "
                f"{per('plain_rss_delta'):>9.2f}"
            )
        if any(v != "paths" for row in subtle for v in row["holds"].values()):
            raise SystemExit("SubtleBench docs hold something other than image paths.")
    print(
        json.dumps(
            {
                "runs": runs,
                "quick": args.quick,
                "small_images": args.small_images,
                "target": TARGET,
                "rows": report,
                "failed": failed,
            }
        )
    )


if __name__ == "__main__":
    main()
