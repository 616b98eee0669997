"""MLLM-CompBench in the layout of its official release (github RaptorMai/MLLM-CompBench README).

``COMPBENCH_ROOT`` holds one annotation JSON per source dataset, named as the release names them
(``st_label``, ``fashion_label``, ``vaw_label``, ``cub_label``, ``Wildfish_label``, ``mb_label``,
``spot_difference_label``, ``celebA_label``, ``fer2013_label``, ``soccernet_label``,
``car_label``, ``depth_label``, ``vqav2_label``, ``qbench2_label``) as ``annotations/<name>.json``,
``<name>.json`` or ``<name>/*.json``, and the images those annotations name, resolved against the
root (or ``<root>/dataset``, the release's own folder name). Each annotation file is a list of
records; the keys differ per source (README "Preparing question-answer pairs"):

- most sources: ``image_1``, ``image_2``, ``question``, ``answer`` ("Left" = first, "Right" = second);
  MIT-States and VAW add ``type`` (Size, Color, Pattern, Texture, Shape: attribute; State: state);
- CompCars: no ``question`` (every question is the same, see the prompts);
- MagicBrush, Spot-the-diff: ``options`` and the answer text;
- Q-Bench2: one pre-concatenated ``image``, ``question``, ``options``, ``answer``;
- SoccerNet: ``action`` instead of a question; VQAv2 answers may be "Same".

Known defects of the release (official repository, issue #2) are handled: empty records ``{}``
(VAW) are skipped and counted; FER-2013 image names that do not match the files on disk get an
error that says so.
"""

from __future__ import annotations

import glob
import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from loguru import logger

from lmms_comparative.data.errors import DataError
from lmms_comparative.data.roots import dataset_root

ENV_VAR = "COMPBENCH_ROOT"
LAYOUT = "one annotation JSON per source (annotations/<name>.json, e.g. annotations/vaw_label.json) and the images it names, relative to the root"
ATTRIBUTE_TYPES = {"Size", "Color", "Pattern", "Texture", "Shape"}


@dataclass(frozen=True)
class Column:
    """One column of the paper's Table 2: a relativity measured on one source dataset."""

    relativity: str
    source: str
    label: str  # annotation file name in the release
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
_REQUIRED = {
    "binary": ("image_1", "image_2", "question", "answer"),
    "cars": ("image_1", "image_2", "answer"),
    "soccer": ("image_1", "image_2", "answer", "action"),
    "quantity": ("image_1", "image_2", "question", "answer"),
    "options": ("image_1", "image_2", "options", "answer"),
    "qbench": ("image", "question", "options", "answer"),
}
_cache: dict[tuple, list] = {}
_lock = threading.Lock()


def root() -> Path:
    return dataset_root(ENV_VAR, None, LAYOUT)


def annotation_records(base: Path, label: str) -> list[tuple[str, Any]]:
    """(where, record) for every record of a source's annotation file(s)."""
    files = [p for p in (base / "annotations" / f"{label}.json", base / f"{label}.json") if p.is_file()]
    files = files[:1] or sorted(Path(p) for p in glob.glob(str(base / label / "*.json")))
    if not files:
        raise DataError(f"{ENV_VAR}: no annotation file for {label!r} under {base} (looked for annotations/{label}.json, {label}.json, {label}/*.json).")
    out = []
    for path in files:
        try:
            records = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise DataError(f"{path}: not a readable JSON file ({exc}).") from exc
        if not isinstance(records, list):
            raise DataError(f"{path}: expected a JSON list of records, got {type(records).__name__}.")
        out.extend((f"{path}[{i}]", r) for i, r in enumerate(records))
    return out


def _image(base: Path, ref: Any, where: str, column: Column) -> str:
    if not isinstance(ref, str) or not ref:
        raise DataError(f"{where}: image path must be a non-empty string, got {ref!r}.")
    for candidate in (Path(ref), base / ref, base / "dataset" / ref):
        if candidate.is_file():
            return str(candidate)
    hint = " FER-2013 annotations name images imXXX.png while the original files are PrivateTest_XXXXXXX.jpg (official repository issue #2): use the processed images of the release." if column.source == "fer2013" else ""
    raise DataError(f"{where}: image {ref!r} not found under {base}.{hint}")


def _options(value: Any, where: str) -> list[str]:
    """Options as a list: the release stores them as a list, or (MagicBrush, issue #2) as one string."""
    if isinstance(value, list) and value and all(isinstance(v, (str, int, float)) for v in value):
        return [str(v) for v in value]
    if isinstance(value, str) and value.strip():
        return [part.strip() for part in value.split(",") if part.strip()]
    raise DataError(f"{where}: 'options' must be a non-empty list or comma-separated string, got {value!r}.")


def column_docs(task: str) -> list[dict]:
    """The docs of one column (``<relativity>_<source>``), every image checked to exist."""
    column = COLUMN_BY_TASK[task]
    base = root()
    key = (str(base), task)
    with _lock:
        if key in _cache:
            return _cache[key]
    docs, empty = [], 0
    for where, record in annotation_records(base, column.label):
        if record == {}:
            empty += 1
            continue
        if not isinstance(record, dict):
            raise DataError(f"{where}: expected a JSON object, got {type(record).__name__}.")
        if column.type_filter:
            is_state = record.get("type") == "State"
            if (column.type_filter == "state") != is_state:
                continue
        missing = [k for k in _REQUIRED[column.kind] if k not in record]
        if missing:
            raise DataError(f"{where}: {column.label} record lacks {missing} (needs {list(_REQUIRED[column.kind])}).")
        images = [record["image"]] if column.kind == "qbench" else [record["image_1"], record["image_2"]]
        docs.append(
            {
                "uid": f"{task}:{len(docs)}",
                "task": task,
                "relativity": column.relativity,
                "source": column.source,
                "kind": column.kind,
                "question": str(record.get("question", "")),
                "action": str(record.get("action", "")),
                "options": _options(record["options"], where) if column.kind in ("options", "qbench") else [],
                "answer": str(record["answer"]).strip(),
                "images": [_image(base, ref, where, column) for ref in images],
            }
        )
    if empty:
        logger.warning(f"{ENV_VAR}: skipped {empty} empty record(s) {{}} in {column.label} (a known defect of the release, official issue #2).")
    if not docs:
        raise DataError(f"{ENV_VAR}: {column.label} has no records for {task}.")
    with _lock:
        _cache[key] = docs
    return docs
