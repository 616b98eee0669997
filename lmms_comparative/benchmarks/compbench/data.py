"""MLLM-CompBench annotations, in either of the authors' layouts, and the authors' test split.

``COMPBENCH_ROOT`` holds one annotation JSON per source dataset and the images they name.

Release layout (github RaptorMai/MLLM-CompBench README, "Preparing question-answer pairs"): the
files are named after the source (``st_label``, ``fashion_label``, ``vaw_label``, ``cub_label``,
``Wildfish_label``, ``mb_label``, ``spot_difference_label``, ``celebA_label``, ``fer2013_label``,
``soccernet_label``, ``car_label``, ``depth_label``, ``vqav2_label``, ``qbench2_label``), looked up as
``annotations/<name>.json``, ``<name>.json`` or the one JSON file in ``<name>/``. Keys:

- most sources: ``image_1``, ``image_2``, ``question``, ``answer`` ("Left" = first, "Right" = second);
  MIT-States and VAW add ``type`` (Size, Color, Pattern, Texture, Shape: attribute; State: state);
- CompCars: no ``question``; SoccerNet: ``action`` instead of a question; VQAv2 answers may be "Same";
- MagicBrush, Spot-the-diff: ``options`` and the answer text;
- Q-Bench2: one pre-concatenated ``image``, ``question``, ``options``, ``answer``.

Pre-release layout (github RaptorMai/CompBenchReview ``Labeled_data/<name>/<file>.json``, the
files its ``val_test_split.py`` splits): MagicBrush ``path_input``/``path_output``/``Modified_option``/
``Answeer``, Spot-the-diff ``Modified_option``/``Answer``, SoccerNet ``left``/``right``, Q-Bench2
``option``; image paths relative to each source dataset's folder under ``dataset/`` (e.g. VAW's
``att_obj_images/...`` is ``dataset/vaw/att_obj_images/...``).

The split (``split="test"``): the authors' 80/20 val/test cut, reproduced from the annotations
as CompBenchReview ``val_test_split.py`` made it (see ``SPLIT_RUNS``). ``split="full"``: every
record the authors split, in file order.

Known defects handled: empty records ``{}`` are skipped (the authors drop them before the
shuffle, ``[i for i in json.load(...) if i]``); FER-2013 image names that do not match the files
on disk get an error that says so (release issue #2).
"""

from __future__ import annotations

import json
import random
import string
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from loguru import logger

from lmms_comparative.data import items
from lmms_comparative.data.roots import dataset_root
from lmms_comparative.failures import DataError

ENV_VAR = "COMPBENCH_ROOT"
LAYOUT = "one annotation JSON per source (annotations/<name>.json, e.g. annotations/vaw_label.json, or the pre-release Labeled_data/<name>/<file>.json) and the images it names"
# release README: MIT-States/VAW `type` values; CompBenchReview val_test_split.py `attribute` list.
ATTRIBUTE_TYPES = ("Size", "Color", "Pattern", "Texture", "Shape")
STATE_TYPE = "State"


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
        ("pre-release MagicBrush", {"image_1": "path_input", "image_2": "path_output", "options": "Modified_option", "answer": "Answeer"}),
        ("pre-release Spot-the-diff", {"image_1": "image_1", "image_2": "image_2", "options": "Modified_option", "answer": "Answer"}),
    ],
    "qbench": [
        ("release", {"image": "image", "question": "question", "options": "options", "answer": "answer"}),
        ("pre-release", {"image": "image", "question": "question", "options": "option", "answer": "answer"}),
    ],
}

# ---- the authors' split ---------------------------------------------------------------------------
# CompBenchReview val_test_split.py: `random.seed(30)` once at the top of the script, then, for each
# annotation file of the run, `data = [i for i in json.load(...) if i]`, `random.shuffle(data)`,
# test = data[:int(len(data) * 0.8)], val = the rest. The script holds three blocks (option files;
# MIT-States/VAW, where the attribute records and then the state records are shuffled apart; the
# other files), run with different lines commented out. Which files shared a run (and so one
# random stream) is read off the published *_test.json files: each matches, records and order,
# only under these runs. Records of MIT-States/VAW whose `type` is neither an attribute nor
# State ("None": 14 and 47) are in neither split.
SPLIT_RUNS: tuple[tuple[str, ...], ...] = (
    ("qbench2_label",),
    ("mb_label",),
    ("spot_difference_label",),
    ("car_label",),
    ("celebA_label",),
    ("cub_label",),
    ("depth_label",),
    ("soccernet_label",),
    ("vqav2_label",),
    ("Wildfish_label",),
    ("fashion_label", "fer2013_label"),
    ("st_label", "vaw_label"),
)
SPLIT_SEED = 30
SPLIT_RATIO = 0.8
# How many records the authors shuffled for a source (its parts), used only when a source that
# precedes another in its run is absent from COMPBENCH_ROOT: the shuffle consumes the random
# stream according to the length alone.
AUTHORS_PART_SIZES = {"fashion_label": (2435,), "st_label": (183, 597)}
_cache: dict[tuple, Any] = {}
_lock = threading.Lock()


def root() -> Path:
    return dataset_root(ENV_VAR, None, LAYOUT)


def annotation_file(base: Path, label: str) -> Path:
    """The annotation file of one source, in the release or the pre-release layout."""
    pre = PRERELEASE_FILES[label]
    candidates = [base / "annotations" / f"{label}.json", base / f"{label}.json", base / "Labeled_data" / label / pre, base / label / pre]
    for path in candidates:
        if path.is_file():
            return path
    folder = base / label
    inside = sorted(p for p in folder.glob("*.json")) if folder.is_dir() else []
    if len(inside) == 1:
        return inside[0]
    looked = ", ".join(str(p.relative_to(base)) for p in candidates)
    extra = f"; {folder} holds {len(inside)} JSON files, name the one to use as {label}.json" if len(inside) > 1 else ""
    raise DataError(f"{ENV_VAR}: no annotation file for {label!r} under {base} (looked for {looked}, {label}/*.json){extra}.")


def _read_list(path: Path) -> list:
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise DataError(f"{path}: not a readable JSON file ({exc}).") from exc
    if not isinstance(records, list):
        raise DataError(f"{path}: expected a JSON list of records, got {type(records).__name__}.")
    return records


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
    raise DataError(f"{where}: {label} record in no known layout: keys found {sorted(record)}; expected the {expected} (file {path}).")


def source_records(base: Path, label: str) -> list[tuple[str, dict]]:
    """(where, record) for every non-empty record of a source, in file order, in the release's
    field names."""
    key = (str(base), label, "records")
    with _lock:
        if key in _cache:
            return _cache[key]
    path = annotation_file(base, label)
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


def split_parts(label: str, records: list) -> dict[str, list]:
    """The lists the authors shuffle for one source: MIT-States/VAW's attribute and state
    records apart (CompBenchReview ``val_test_split.py``, ``data_att`` then ``data_state``), one
    list for every other source."""
    if label in ("st_label", "vaw_label"):
        attribute = [r for r in records if r[1].get("type") in ATTRIBUTE_TYPES]
        state = [r for r in records if r[1].get("type") == STATE_TYPE]
        left_out = len(records) - len(attribute) - len(state)
        if left_out:
            logger.info(f"{ENV_VAR}: {left_out} {label} record(s) have a type that is neither an attribute nor State; the authors' split leaves them out.")
        return {"attribute": attribute, "state": state}
    return {"all": records}


def authors_split(lists: list[list], seed: int = SPLIT_SEED, ratio: float = SPLIT_RATIO) -> list[tuple[list, list]]:
    """(test, val) of each list, shuffled one after the other from one ``random.seed(seed)``, as in
    one run of CompBenchReview ``val_test_split.py``."""
    rng = random.Random(seed)
    out = []
    for records in lists:
        shuffled = list(records)
        rng.shuffle(shuffled)
        cut = int(len(shuffled) * ratio)
        out.append((shuffled[:cut], shuffled[cut:]))
    return out


def _run_of(label: str) -> tuple[str, ...]:
    return next(run for run in SPLIT_RUNS if label in run)


def _part_lists(base: Path, label: str) -> list[list]:
    """The lists shuffled, in the run's order, up to and including ``label``'s own."""
    lists: list[list] = []
    for other in _run_of(label):
        if other == label:
            lists.extend(split_parts(label, source_records(base, label)).values())
            return lists
        try:
            lists.extend(split_parts(other, source_records(base, other)).values())
        except DataError:
            sizes = AUTHORS_PART_SIZES[other]
            logger.warning(f"{ENV_VAR}: {other} is absent; {label}'s split assumes the authors' {other} size(s) {sizes}, which it follows in their run.")
            lists.extend([[None] * n for n in sizes])
    raise AssertionError(label)


def column_records(base: Path, column: Column, split: str) -> list[tuple[str, dict]]:
    """(where, record) of one column: the authors' test split in their order, or every record
    they split ("full") in file order."""
    records = source_records(base, column.label)
    part = column.type_filter or "all"
    if split == "full":
        return split_parts(column.label, records)[part]
    if split != "test":
        raise ValueError(f"split must be 'test' or 'full', got {split!r}")
    lists = _part_lists(base, column.label)
    names = list(split_parts(column.label, records))
    own = authors_split(lists)[len(lists) - len(names) :]
    return own[names.index(part)][0]


class MissingImage(DataError):
    """An image the annotations name is not on disk (the record is skipped and counted)."""


def _image(base: Path, ref: Any, where: str, label: str) -> str:
    if not isinstance(ref, str) or not ref:
        raise DataError(f"{where}: image path must be a non-empty string, got {ref!r}.")
    bases = [base, base / "dataset"] + [b / folder for folder in IMAGE_FOLDERS[label] for b in (base / "dataset", base)]
    for candidate in [Path(ref)] + [b / ref for b in bases]:
        if candidate.is_file():
            return str(candidate)
    hint = " FER-2013 annotations name images imXXX.png while the original files are PrivateTest_XXXXXXX.jpg (official repository issue #2): use the processed images of the release." if label == "fer2013_label" else ""
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
    records = column_records(base, column, split)
    for i, (where, record) in enumerate(records):
        refs = [record["image"]] if column.kind == "qbench" else [record["image_1"], record["image_2"]]
        try:
            images = [_image(base, ref, where, column.label) for ref in refs]
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
