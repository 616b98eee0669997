"""MLLM-CompBench annotations, in either of the authors' layouts, and the authors' test split.

``COMPBENCH_ROOT`` holds one annotation JSON per source dataset and the images they name. Where
the files are and how their records read, in the release and the pre-release layout: ``files``;
the authors' test/val split: ``split``; here, the images and the docs of one column.

Known defect handled: FER-2013 image names that do not match the files on disk get an error that
says so (release issue #2).
"""

from __future__ import annotations

import os
import string
from pathlib import Path
from typing import Any, Callable

from lmms_comparative.benchmarks.compbench.files import (
    COLUMN_BY_TASK,
    COLUMNS,
    ENV_VAR,
    KIND_BY_LABEL,
    LAYOUTS,
    PRERELEASE_FILES,
    SPLIT_FILE_INFIX,
    SPLIT_SUFFIXES,
    Column,
    SourceFiles,
    _cache,
    _lock,
    annotation_file,
    source_files,
    source_records,
)
from lmms_comparative.benchmarks.compbench.split import (
    ATTRIBUTE_TYPES,
    AUTHORS_COUNTS,
    AUTHORS_PART_SIZES,
    SPLIT_RATIO,
    SPLIT_RUNS,
    SPLIT_SEED,
    STATE_TYPE,
    _check_count,
    authors_key,
    authors_split,
    column_records,
    rebuilt_split,
    split_parts,
)
from lmms_comparative.data import items
from lmms_comparative.data.roots import dataset_root
from lmms_comparative.failures import DataError

LAYOUT = (
    "one annotation JSON per source (annotations/<name>.json, e.g. annotations/vaw_label.json, or the pre-release "
    "Labeled_data/<name>/<file>.json, with the authors' <file>_test.json beside it where they published one) and "
    "the images it names"
)
# Each source's folder under dataset/ (release README, "Preparing images"); pre-release image
# paths are relative to it.
IMAGE_FOLDERS = {
    "st_label": ("transformed_states",),
    "fashion_label": ("fashionpedia",),
    "vaw_label": ("vaw",),
    "cub_label": ("cub_200_2011",),
    "Wildfish_label": ("wildfish",),
    "mb_label": ("magic_brush",),
    "spot_difference_label": ("spot-the-diff",),
    "celebA_label": ("celeba",),
    "fer2013_label": ("fer-2013",),
    "soccernet_label": ("soccernet", "soccernet/val"),
    "car_label": ("comp_cars",),
    "depth_label": ("nyu_depth_v2",),
    "vqav2_label": ("vqav2/counting_images", "vqav2"),
    "qbench2_label": ("q-bench2",),
}


def root() -> Path:
    """``COMPBENCH_ROOT`` (required: MLLM-CompBench has no hub release)."""
    return dataset_root(ENV_VAR, None, LAYOUT)


def _options(value: Any, where: str) -> list[str]:
    """Options as a list. The release stores a list; MagicBrush (release issue #2) and the
    pre-release ``Modified_option`` one string, which the authors split on "," (CompBenchReview
    ``val_test_ft_decom.py``, ``get_acc_option``). Entries empty once stripped are dropped."""
    if isinstance(value, str):
        value = value.split(",")
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        out = [str(v).strip() for v in value]
        out = [o for o in out if o.strip(string.punctuation + " ")]
        if out:
            return out
    raise DataError(f"{where}: 'options' must be a non-empty list or comma-separated string, got {value!r}.")


class MissingImage(DataError):
    """An image the annotations name is not on disk (the record is skipped and counted)."""


def _image_bases(base: Path, label: str) -> list[str]:
    """Where a record's relative image path may start: the root, ``dataset/`` and the source's
    folders under either (strings: this runs for every image of every record)."""
    root, dataset = str(base), os.path.join(str(base), "dataset")
    return [root, dataset] + [os.path.join(b, folder) for folder in IMAGE_FOLDERS[label] for b in (dataset, root)]


def _image(
    base: Path,
    ref: Any,
    where: str,
    label: str,
    bases: list[str] | None = None,
    present: Callable[[str], bool] = os.path.isfile,
) -> str:
    """The image file a record names: as given (absolute or relative to the working folder), else
    under the first of ``bases`` (``_image_bases``) that has it. ``present`` says whether a path
    is a file (``items.file_lister()`` for a whole column)."""
    if not isinstance(ref, str) or not ref:
        raise DataError(f"{where}: image path must be a non-empty string, got {ref!r}.")
    if present(ref):
        return ref
    bases = bases if bases is not None else _image_bases(base, label)
    for folder in bases:
        candidate = (
            os.path.join(folder, ref) if os.path.isabs(ref) else f"{folder}{os.sep}{ref}"
        )  # os.path.join, without its cost per call
        if present(candidate):
            return candidate
    if not items.images_needed():  # scoring replies read from files: the image is never opened
        return str(base / ref)
    hint = (
        " FER-2013 annotations name images imXXX.png while the original files are PrivateTest_XXXXXXX.jpg (official "
        "repository issue #2): use the processed images of the release."
        if label == "fer2013_label"
        else ""
    )
    folders = ", ".join(f"dataset/{f}" for f in IMAGE_FOLDERS[label])
    raise MissingImage(f"{where}: image {ref!r} not found under {base} (nor under dataset/ or {folders}).{hint}")


def column_docs(task: str, split: str = "test") -> list[dict]:
    """The docs of one column (``<relativity>_<source>``). A record whose image is missing or
    whose fields are malformed is skipped and reported (``data.items``) after the split is drawn,
    so the other records keep their places in the authors' split."""
    column = COLUMN_BY_TASK[task]
    base = root()
    key = (str(base), task, split)
    with _lock:
        cached = _cache.get(key)
    if cached is None:
        cached = _column(base, column, task, split)
        with _lock:
            _cache[key] = cached
    docs, skipped = cached
    for reason, what in skipped:
        items.skip(reason, what)
    return docs


def _column(base: Path, column: Column, task: str, split: str) -> tuple[list[dict], list[tuple[str, str]]]:
    name = task if split == "test" else f"full_{task}"
    docs, skipped = [], []
    records = column_records(base, column, split, task)
    _check_count(task, split, len(records))
    bases = _image_bases(base, column.label)
    present = items.file_lister()
    for i, (where, record) in enumerate(records):
        refs = [record["image"]] if column.kind == "qbench" else [record["image_1"], record["image_2"]]
        try:
            images = [_image(base, ref, where, column.label, bases, present) for ref in refs]
            options = _options(record["options"], where) if column.kind in ("options", "qbench") else []
        except DataError as exc:
            skipped.append((items.MISSING if isinstance(exc, MissingImage) else items.RECORD, str(exc)))
            continue
        docs.append(
            {
                "uid": f"{name}:{i}",  # the record's place in the split, stable when others are skipped
                "task": task,
                "relativity": column.relativity,
                "source": column.source,
                "kind": column.kind,
                "question": str(record.get("question", "")),
                "action": str(record.get("action", "")),
                "options": options,
                "answer": str(record["answer"]).strip(),
                "images": images,
            }
        )
    if not records:
        raise DataError(f"{ENV_VAR}: {column.label} has no records for {task} ({split} split).")
    return docs, skipped


__all__ = [
    "ATTRIBUTE_TYPES",
    "AUTHORS_COUNTS",
    "AUTHORS_PART_SIZES",
    "COLUMNS",
    "COLUMN_BY_TASK",
    "ENV_VAR",
    "IMAGE_FOLDERS",
    "KIND_BY_LABEL",
    "LAYOUT",
    "LAYOUTS",
    "PRERELEASE_FILES",
    "SPLIT_FILE_INFIX",
    "SPLIT_RATIO",
    "SPLIT_RUNS",
    "SPLIT_SEED",
    "SPLIT_SUFFIXES",
    "STATE_TYPE",
    "Column",
    "MissingImage",
    "SourceFiles",
    "annotation_file",
    "authors_key",
    "authors_split",
    "column_docs",
    "column_records",
    "rebuilt_split",
    "root",
    "source_files",
    "source_records",
    "split_parts",
]
