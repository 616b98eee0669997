"""The authors' test/val split of CompBench, and the records of one column in it.

The split (``split="test"``): the authors' own ``<file>_test.json`` (``_att_test``/``_state_test``
for MIT-States and VAW) where it lies beside the annotation file, or alone; otherwise the authors'
80/20 val/test cut, rebuilt from the annotations as ``val_test_split.py`` made it (see
``SPLIT_RUNS``). ``split="full"``: every record the authors split, in file order.
"""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict, deque
from pathlib import Path

from loguru import logger

from lmms_comparative.benchmarks.compbench.files import (
    ENV_VAR,
    Column,
    SourceFiles,
    _records,
    source_files,
    source_records,
)
from lmms_comparative.failures import DataError

# release README: MIT-States/VAW `type` values; CompBenchReview val_test_split.py `attribute` list.
ATTRIBUTE_TYPES = ("Size", "Color", "Pattern", "Texture", "Shape")
STATE_TYPE = "State"

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

# (test, val) records per column in the authors' split. The paper gives no per-column count: it
# prints the whole split only (§5 "Evaluation tasks & metrics": test 31.8K, held-out 7.9K) and
# per-source totals rounded to 0.1K (Table 1). These are the lengths of the authors' own
# Labeled_data/<name>/<file>_test.json and _val.json files (_att_/_state_ for MIT-States and VAW) in
# github RaptorMai/CompBenchReview; they sum to 31,822 and 7,963 (39,785 records split).
AUTHORS_COUNTS = {
    "attribute_mitstates": (146, 37),
    "attribute_fashionpedia": (1948, 487),
    "attribute_vaw": (714, 179),
    "attribute_cub": (696, 174),
    "attribute_wildfish": (756, 190),
    "existence_magicbrush": (741, 186),
    "existence_spotdiff": (1016, 254),
    "state_mitstates": (477, 120),
    "state_vaw": (376, 94),
    "emotion_celeba": (1176, 295),
    "emotion_fer2013": (3026, 757),
    "temporality_soccernet": (6652, 1664),
    "temporality_compcars": (4000, 1000),
    "spatiality_nyudepth": (1486, 372),
    "quantity_vqav2": (7812, 1954),
    "quality_qbench2": (800, 200),
}


def authors_key(record: dict) -> str:
    """What identifies a record for the authors: the two images, the question where there is one,
    and the answer (CompBenchReview ``val_test_split.py``, the ``fast`` dict:
    ``(i[image1], i[image2], i['question'], i[gt_key])``, without the question where a source has
    none). Records equal in these are equal in every field in the authors' files."""
    return json.dumps(
        [
            record.get("image"),
            record.get("image_1"),
            record.get("image_2"),
            record.get("question"),
            record.get("answer"),
        ]
    )


def split_parts(label: str, records: list) -> dict[str, list]:
    """The lists the authors shuffle for one source: MIT-States/VAW's attribute and state
    records apart (CompBenchReview ``val_test_split.py``, ``data_att`` then ``data_state``), one
    list for every other source."""
    if label in ("st_label", "vaw_label"):
        attribute = [r for r in records if r[1].get("type") in ATTRIBUTE_TYPES]
        state = [r for r in records if r[1].get("type") == STATE_TYPE]
        left_out = len(records) - len(attribute) - len(state)
        if left_out:
            logger.info(
                f"{ENV_VAR}: {left_out} {label} record(s) have a type that is neither an attribute nor State; the "
                "authors' split leaves them out."
            )
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
            logger.warning(
                f"{ENV_VAR}: {other} is absent; {label}'s split assumes the authors' {other} size(s) {sizes}, which it "
                "follows in their run."
            )
            lists.extend([[None] * n for n in sizes])
    raise AssertionError(label)


def rebuilt_split(base: Path, column: Column) -> list[tuple[str, dict]]:
    """(where, record) of one column's test split rebuilt from the annotations, in the authors' order."""
    records = source_records(base, column.label)
    lists = _part_lists(base, column.label)
    names = list(split_parts(column.label, records))
    own = authors_split(lists)[len(lists) - len(names) :]
    return own[names.index(column.type_filter or "all")][0]


def _split_file_records(base: Path, column: Column, files: SourceFiles, task: str) -> list[tuple[str, dict]]:
    """The records of the authors' test file of one column, each matched to its annotation record
    (``authors_key``; a test record with no match is scored as the test file gives it). Where the
    split rebuilt from the annotations differs, a warning says by how many records."""
    part = column.type_filter or "all"
    path = files.tests[part]
    test = _records(path, column.label)
    if files.annotation is None:
        logger.info(
            f"{ENV_VAR}: {task}: scoring the authors' test file {path.name} ({len(test)} records); no annotation file "
            "beside it."
        )
        return test
    index: dict[str, deque] = defaultdict(deque)
    for where, record in source_records(base, column.label):
        index[authors_key(record)].append((where, record))
    out, unmatched = [], 0
    for where, record in test:
        found = index.get(authors_key(record))
        if found:
            out.append(found.popleft())
        else:
            out.append((where, record))
            unmatched += 1
    if unmatched:
        logger.warning(
            f"{ENV_VAR}: {task}: {unmatched} of the {len(test)} records of the authors' test file {path.name} are not "
            f"in {files.annotation.name} "
            "(matched on the images, question and answer, as the authors' scripts match records); they are scored as "
            "the test file gives them."
        )
    rebuilt = rebuilt_split(base, column)
    mine, theirs = Counter(authors_key(r) for _, r in out), Counter(authors_key(r) for _, r in rebuilt)
    only_test, only_rebuilt = sum((mine - theirs).values()), sum((theirs - mine).values())
    if only_test or only_rebuilt:
        logger.warning(
            f"{ENV_VAR}: {task}: the split rebuilt from {files.annotation.name} (seed {SPLIT_SEED}, first "
            f"{SPLIT_RATIO:.0%} of the shuffle) differs from the authors' "
            f"test file {path.name} in {only_test + only_rebuilt} record(s): {only_test} of the test file's {len(out)} "
            "are not in the rebuilt split, "
            f"{only_rebuilt} of the rebuilt split's {len(rebuilt)} are not in the test file. Scoring the test file, "
            "the split the paper scored."
        )
    elif [authors_key(r) for _, r in out] != [authors_key(r) for _, r in rebuilt]:
        logger.info(
            f"{ENV_VAR}: {task}: the authors' test file {path.name} holds the records of the rebuilt split in another "
            "order; scoring it in its own order."
        )
    return out


def column_records(base: Path, column: Column, split: str, task: str = "") -> list[tuple[str, dict]]:
    """(where, record) of one column: the authors' test split in their order, or every record
    they split ("full") in file order.

    The test split is the authors' ``<file>_test.json`` where it lies beside the annotation file
    (or alone); otherwise it is rebuilt from the annotation file (``rebuilt_split``). Without an
    annotation file, "full" is the authors' test file then their val file."""
    if split not in ("test", "full"):
        raise ValueError(f"split must be 'test' or 'full', got {split!r}")
    task = task or f"{column.relativity}_{column.source}"
    files = source_files(base, column.label)
    part = column.type_filter or "all"
    if split == "full":
        if files.annotation is not None:
            return split_parts(column.label, source_records(base, column.label))[part]
        if part not in files.tests or part not in files.vals:
            found = ", ".join(p.name for p in (*files.tests.values(), *files.vals.values()))
            raise DataError(
                f"{ENV_VAR}: {column.label} has no annotation file under {base}, and its {part} records need the "
                f"authors' test and val files; found {found}."
            )
        return _records(files.tests[part], column.label) + _records(files.vals[part], column.label)
    if part in files.tests:
        return _split_file_records(base, column, files, task)
    if files.annotation is None:
        found = ", ".join(p.name for p in (*files.tests.values(), *files.vals.values()))
        raise DataError(
            f"{ENV_VAR}: {column.label} has no annotation file under {base}, and no authors' test file for {task}; "
            f"found {found}."
        )
    return rebuilt_split(base, column)


def _check_count(task: str, split: str, n: int) -> None:
    """Warn when a column's record count is not the authors' (``AUTHORS_COUNTS``)."""
    test, val = AUTHORS_COUNTS[task]
    want = test if split == "test" else test + val
    if n != want:
        what = "test split" if split == "test" else "full set (test + val)"
        logger.warning(
            f"{ENV_VAR}: column {task} has {n} records in its {what}; the authors' {what} has {want} (their "
            f"_test.json/_val.json files). Its score is not comparable with the paper's {task} column."
        )
