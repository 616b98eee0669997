"""Where a CompBench release's files are, and its records read in the release's field names.

``COMPBENCH_ROOT`` holds one annotation JSON per source dataset and the images they name.

Release layout (github RaptorMai/MLLM-CompBench README, "Preparing question-answer pairs": "Each
dataset has one annotated JSON file"): the files are named after the source (``st_label``,
``fashion_label``, ``vaw_label``, ``cub_label``, ``Wildfish_label``, ``mb_label``,
``spot_difference_label``, ``celebA_label``, ``fer2013_label``, ``soccernet_label``, ``car_label``,
``depth_label``, ``vqav2_label``, ``qbench2_label``), looked up as ``annotations/<name>.json``,
``<name>.json`` or a JSON file in a ``<name>/`` folder (see ``source_files``). Keys:

- most sources: ``image_1``, ``image_2``, ``question``, ``answer`` ("Left" = first, "Right" = second);
  MIT-States and VAW add ``type`` (Size, Color, Pattern, Texture, Shape: attribute; State: state);
- CompCars: no ``question``; SoccerNet: ``action`` instead of a question; VQAv2 answers may be "Same";
- MagicBrush, Spot-the-diff: ``options`` and the answer text;
- Q-Bench2: one pre-concatenated ``image``, ``question``, ``options``, ``answer``.

Pre-release layout (github RaptorMai/CompBenchReview ``Labeled_data/<name>/``, several JSON files
per folder: the annotation file its ``val_test_split.py`` splits, the ``<file>_test.json`` and
``<file>_val.json`` it wrote, and the parts the annotation file was merged from): MagicBrush
``path_input``/``path_output``/``Modified_option``/``Answeer``, Spot-the-diff ``Modified_option``/
``Answer``, SoccerNet ``left``/``right``, Q-Bench2 ``option``; image paths relative to each source
dataset's folder under ``dataset/`` (e.g. VAW's ``att_obj_images/...`` is ``dataset/vaw/att_obj_images/...``).

Known defect handled: empty records ``{}`` are skipped (the authors drop them before the
shuffle, ``[i for i in json.load(...) if i]``).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from loguru import logger

from lmms_comparative.benchmarks.compbench.table import ROOT_VARIABLE
from lmms_comparative.failures import DataError

ENV_VAR = ROOT_VARIABLE


@dataclass(frozen=True)
class Column:
    """One column of the paper's Table 2: a relativity measured on one source dataset."""

    relativity: str
    source: str
    label: str  # annotation name in the release
    kind: str  # "binary", "cars", "soccer", "quantity", "options", "qbench"
    type_filter: str | None = None  # "attribute" / "state" for the sources that mix both


# Paper Table 2, left to right.
COLUMNS = (
    Column("attribute", "mitstates", "st_label", "binary", "attribute"),
    Column("attribute", "fashionpedia", "fashion_label", "binary"),
    Column("attribute", "vaw", "vaw_label", "binary", "attribute"),
    Column("attribute", "cub", "cub_label", "binary"),
    Column("attribute", "wildfish", "Wildfish_label", "binary"),
    Column("existence", "magicbrush", "mb_label", "options"),
    Column("existence", "spotdiff", "spot_difference_label", "options"),
    Column("state", "mitstates", "st_label", "binary", "state"),
    Column("state", "vaw", "vaw_label", "binary", "state"),
    Column("emotion", "celeba", "celebA_label", "binary"),
    Column("emotion", "fer2013", "fer2013_label", "binary"),
    Column("temporality", "soccernet", "soccernet_label", "soccer"),
    Column("temporality", "compcars", "car_label", "cars"),
    Column("spatiality", "nyudepth", "depth_label", "binary"),
    Column("quantity", "vqav2", "vqav2_label", "quantity"),
    Column("quality", "qbench2", "qbench2_label", "qbench"),
)
COLUMN_BY_TASK = {f"{c.relativity}_{c.source}": c for c in COLUMNS}
KIND_BY_LABEL = {c.label: c.kind for c in COLUMNS}

# The file of each source in CompBenchReview Labeled_data/ that val_test_split.py splits.
PRERELEASE_FILES = {
    "st_label": "State_Transform_merged0_0_1000.json",
    "fashion_label": "fashion_0_179.json",
    "vaw_label": "VAW_0_3133.json",
    "cub_label": "CUB_0_1000_rebalanced_fixed_path.json",
    "Wildfish_label": "wildfish_0_60_500sample_rebalanced.json",
    "mb_label": "MB_all.json",
    "spot_difference_label": "surveillance_0_1270.json",
    "celebA_label": "celebA_0_141_rebalanced.json",
    "fer2013_label": "fer2013_0_720_rebalanced.json",
    "soccernet_label": "soccer_all.json",
    "car_label": "car_sorted_5000.json",
    "depth_label": "depth_0_529_rebalanced.json",
    "vqav2_label": "vqa_val2014_pairs_updated_questions_cap_50.json",
    "qbench2_label": "qbench2_source.json",
}

# field -> key, per layout. The release's keys first, then the pre-release ones.
_SIDES = {"image_1": "image_1", "image_2": "image_2", "question": "question", "answer": "answer"}
LAYOUTS: dict[str, list[tuple[str, dict[str, str]]]] = {
    "binary": [("release", _SIDES)],
    "quantity": [("release", _SIDES)],
    "cars": [("release", {"image_1": "image_1", "image_2": "image_2", "answer": "answer"})],
    "soccer": [
        ("release", {"image_1": "image_1", "image_2": "image_2", "answer": "answer", "action": "action"}),
        ("pre-release", {"image_1": "left", "image_2": "right", "answer": "answer", "action": "action"}),
    ],
    "options": [
        ("release", {"image_1": "image_1", "image_2": "image_2", "options": "options", "answer": "answer"}),
        (
            "pre-release MagicBrush",
            {"image_1": "path_input", "image_2": "path_output", "options": "Modified_option", "answer": "Answeer"},
        ),
        (
            "pre-release Spot-the-diff",
            {"image_1": "image_1", "image_2": "image_2", "options": "Modified_option", "answer": "Answer"},
        ),
    ],
    "qbench": [
        ("release", {"image": "image", "question": "question", "options": "options", "answer": "answer"}),
        ("pre-release", {"image": "image", "question": "question", "options": "option", "answer": "answer"}),
    ],
}

# The files val_test_split.py writes beside <file>.json, per part of a source: <file>_test.json and
# <file>_val.json; for MIT-States and VAW <file>_att_test.json, <file>_state_test.json (and _val).
SPLIT_FILE_INFIX = {"attribute": "_att", "state": "_state", "all": ""}
SPLIT_SUFFIXES = ("_test.json", "_val.json")
_cache: dict[tuple, Any] = {}
_lock = threading.Lock()


def _parts_of(label: str) -> tuple[str, ...]:
    return ("attribute", "state") if label in ("st_label", "vaw_label") else ("all",)


@dataclass(frozen=True)
class SourceFiles:
    """The files of one source: its annotation file (None where only the authors' test file is
    there) and the authors' test and val files beside it, by part ("all", or "attribute" and
    "state" for MIT-States and VAW)."""

    annotation: Path | None
    tests: dict[str, Path] = field(default_factory=dict)
    vals: dict[str, Path] = field(default_factory=dict)


def _beside(folder: Path, stem: str, label: str) -> tuple[dict[str, Path], dict[str, Path]]:
    """The authors' test and val files of ``<stem>.json`` in ``folder``, by part."""
    found: tuple[dict[str, Path], dict[str, Path]] = ({}, {})
    for part in _parts_of(label):
        for which, suffix in zip(found, SPLIT_SUFFIXES):
            path = folder / f"{stem}{SPLIT_FILE_INFIX[part]}{suffix}"
            if path.is_file():
                which[part] = path
    return found


def _accepted_names(label: str) -> str:
    pre = PRERELEASE_FILES[label]
    split = "_att_test.json and _state_test.json" if label in ("st_label", "vaw_label") else "_test.json"
    return (
        f"{pre} (the authors' name), {label}.json, the <file>.json that has the authors' <file>{split} beside it, "
        f"a folder holding one JSON file, or the authors' {pre[:-5]}{split} or {label}{split} alone"
    )


def _in_folder(folder: Path, label: str) -> SourceFiles:
    """The files of ``label`` in a folder of JSON files, picked by the names the authors used.

    1. the file CompBenchReview ``val_test_split.py`` splits (``PRERELEASE_FILES``) or ``<label>.json``;
    2. the one ``<file>.json`` that has the authors' ``<file>_test.json`` beside it (the names
       ``val_test_split.py`` writes: ``label_file.split('.')[0] + '_test.json'``);
    3. the folder's only JSON file, as the release README has it ("Each dataset has one annotated
       JSON file");
    4. only the authors' test file (and val file): ``<file>_test.json`` for the names of 1., or the
       one ``<file>`` whose split files are all the folder holds.
    Anything else (a part such as ``CUB_0_200.json``, a ``*_val.json``, ``magic_brush_test.json``) is
    ignored; a folder where none of these names is found stops the run with the files listed."""
    names = sorted(p.name for p in folder.glob("*.json"))
    pre = PRERELEASE_FILES[label]
    for name in (pre, f"{label}.json"):
        if name in names:
            return SourceFiles(folder / name, *_beside(folder, name[:-5], label))
    plain = [n for n in names if not n.endswith(SPLIT_SUFFIXES)]
    with_split = [n for n in plain if _beside(folder, n[:-5], label)[0]]
    if len(with_split) == 1:
        return SourceFiles(folder / with_split[0], *_beside(folder, with_split[0][:-5], label))
    if len(names) == 1 and plain:
        return SourceFiles(folder / names[0], *_beside(folder, names[0][:-5], label))
    for stem in (pre[:-5], label):
        tests, vals = _beside(folder, stem, label)
        if tests:
            return SourceFiles(None, tests, vals)
    if not plain:
        stems = {
            n[: -len(suffix)].removesuffix(SPLIT_FILE_INFIX[part])
            for n in names
            for part in _parts_of(label)
            for suffix in SPLIT_SUFFIXES
            if n.endswith(SPLIT_FILE_INFIX[part] + suffix)
        }
        if len(stems) == 1:
            tests, vals = _beside(folder, stems.pop(), label)
            if tests:
                return SourceFiles(None, tests, vals)
    raise DataError(
        f"{ENV_VAR}: {folder} holds {len(names)} JSON files ({', '.join(names)}) and none is the {label} annotation "
        f"file by the names accepted: {_accepted_names(label)}."
    )


def source_files(base: Path, label: str) -> SourceFiles:
    """Where one source's annotation file and the authors' test/val files are: ``annotations/<label>.json``
    or ``<label>.json`` (release), else the folder ``Labeled_data/<label>/``, ``<label>/`` or
    ``annotations/<label>/`` (see ``_in_folder``), else ``<label>_test.json`` alone."""
    for folder in (base / "annotations", base):
        if (folder / f"{label}.json").is_file():
            return SourceFiles(folder / f"{label}.json", *_beside(folder, label, label))
    folders = (base / "Labeled_data" / label, base / label, base / "annotations" / label)
    for folder in folders:
        if folder.is_dir() and any(folder.glob("*.json")):
            return _in_folder(folder, label)
    for folder in (base / "annotations", base):
        tests, vals = _beside(folder, label, label)
        if tests:
            return SourceFiles(None, tests, vals)
    looked = ", ".join(
        [f"annotations/{label}.json", f"{label}.json"] + [f"{f.relative_to(base)}/*.json" for f in folders]
    )
    raise DataError(f"{ENV_VAR}: no annotation file for {label!r} under {base} (looked for {looked}).")


def annotation_file(base: Path, label: str) -> Path:
    """The annotation file of one source, in the release or the pre-release layout."""
    files = source_files(base, label)
    if files.annotation is None:
        found = ", ".join(p.name for p in (*files.tests.values(), *files.vals.values()))
        raise DataError(
            f"{ENV_VAR}: no annotation file for {label!r} under {base}: only the authors' split files ({found})."
        )
    return files.annotation


def _read_list(path: Path) -> list:
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise DataError(f"{path}: not a readable JSON file ({exc}).") from exc
    if not isinstance(records, list):
        raise DataError(f"{path}: expected a JSON list of records, got {type(records).__name__}.")
    return records


def _normalise(record: dict, label: str, where: str, path: Path) -> dict:
    """The record in the release's field names, whichever layout it came in."""
    kind = KIND_BY_LABEL[label]
    for _name, keys in LAYOUTS[kind]:
        if all(k in record for k in keys.values()):
            out = {field: record[key] for field, key in keys.items()}
            if "type" in record:
                out["type"] = record["type"]
            return out
    expected = " or ".join(f"{name} {sorted(keys.values())}" for name, keys in LAYOUTS[kind])
    raise DataError(
        f"{where}: {label} record in no known layout: keys found {sorted(record)}; expected the {expected} (file "
        f"{path})."
    )


def _records(path: Path, label: str) -> list[tuple[str, dict]]:
    """(where, record) for every non-empty record of one file, in file order, in the release's
    field names."""
    stat = path.stat()
    key = (str(path), label, stat.st_mtime_ns, stat.st_size)
    with _lock:
        if key in _cache:
            return _cache[key]
    out, empty = [], 0
    for i, record in enumerate(_read_list(path)):
        where = f"{path}[{i}]"
        if record == {} or record is None:
            empty += 1
            continue
        if not isinstance(record, dict):
            raise DataError(f"{where}: expected a JSON object, got {type(record).__name__}.")
        out.append((where, _normalise(record, label, where, path)))
    if empty:
        logger.info(f"{ENV_VAR}: skipped {empty} empty record(s) {{}} in {path.name} (the authors drop them too).")
    with _lock:
        _cache[key] = out
    return out


def source_records(base: Path, label: str) -> list[tuple[str, dict]]:
    """(where, record) for every non-empty record of a source's annotation file, in file order, in
    the release's field names."""
    return _records(annotation_file(base, label), label)
