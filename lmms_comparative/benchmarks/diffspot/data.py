"""DiffSpot in the layout of its hub release, ``tencent/DiffSpot``: one split, ``test``, in parquet
(the card names one file, ``test-00000-of-00001.parquet``), a row per screenshot pair with the
columns the authors' loader reads (diffspot/data.py ``_row_to_item``): ``id``, ``image_before`` and
``image_after`` (images as ``datasets`` stores them: ``{bytes, path}``), ``difficulty``,
``task_type``, ``ground_truth_diff``, ``mutation_dicts_json`` (a list of JSON strings), ``domain``;
the others (``mutation_types``, ``pixel_diff``, ``target_bbox_*``, ...) are kept where present.

The parquet could not be opened where this loader was written (no access to the hub): the column
names come from the authors' code and README, their types are read as they come, and the loader
logs what it found (files, rows per split, the "unknown" difficulties read as no-diff) and names the
columns it found when one it needs is missing. Rows are read in file order (``load_dataset``'s); the
images of a row are read when the model asks for them, and checked once before generation.
"""

from __future__ import annotations

import glob
import json
import threading
from functools import lru_cache
from pathlib import Path

from loguru import logger

from lmms_comparative.benchmarks.diffspot import scoring
from lmms_comparative.benchmarks.diffspot.table import HUB_REPO, ROOT_VARIABLE
from lmms_comparative.data import hub, items
from lmms_comparative.data.roots import local_root
from lmms_comparative.failures import DataError

ENV_VAR = ROOT_VARIABLE
LAYOUT = (
    "the hub release's parquet (data/test-*.parquet, or *.parquet anywhere under the root) with columns id, "
    "image_before, image_after, difficulty, task_type, ground_truth_diff, mutation_dicts_json"
)
REQUIRED = ("id", "image_before", "image_after", "difficulty", "task_type", "ground_truth_diff", "mutation_dicts_json")
IMAGES = ("image_before", "image_after")  # Image A (shown first), Image B (baselines/_common.py, every runner)
BBOX = ("target_bbox_x", "target_bbox_y", "target_bbox_w", "target_bbox_h")
# The release's counts (diffspot/data.py, the loader's commit d11e786; the README): 4,400 pairs.
RELEASE_COUNTS = {"easy": 1300, "medium": 1300, "hard": 1300, "no_diff": 500}


def root() -> Path:
    """``DIFFSPOT_ROOT``, else the release's parquet fetched once into the Hugging Face cache."""
    local = local_root(ENV_VAR, LAYOUT)
    return local if local is not None else _hub_root()


@lru_cache(maxsize=1)
def _hub_root() -> Path:
    snap = hub.snapshot(HUB_REPO, ENV_VAR)
    if snap.files is None:  # offline: the parquet the cache holds
        return snap.folder
    wanted = [f for f in snap.files if f.endswith(".parquet")]
    wanted = [f for f in wanted if "test" in Path(f).name] or wanted
    if not wanted:
        raise DataError(
            f"{HUB_REPO} lists no parquet file at commit {snap.commit[:8]} (files: {', '.join(snap.files[:8])}). Set "
            f"{ENV_VAR} to a local copy: {LAYOUT}."
        )
    return hub.fetch(snap, wanted, ENV_VAR, "DiffSpot parquet")


def parquet_files(base: Path) -> list[str]:
    """The release's parquet files under ``base``: ``data/test-*.parquet``, else ``test-*.parquet``,
    else every ``*.parquet`` below it, in name order (the shards' order)."""
    for pattern in ("data/test-*.parquet", "test-*.parquet", "**/*.parquet"):
        found = sorted(glob.glob(str(base / pattern), recursive=True))
        if found:
            return found
    raise DataError(f"{ENV_VAR}: no parquet file under {base}. Expected {LAYOUT}.")


class Release:
    """The release's rows: their fields (images aside) read once; a row's two images read from its
    row group when asked, the last groups read kept."""

    KEEP_GROUPS = 2

    def __init__(self, files: list[str]):
        import pyarrow.parquet as pq

        self.files = list(files)
        self.rows: list[dict] = []
        self.problems: dict[int, str] = {}  # row -> why its record is unusable
        self._groups: list[tuple[int, int, int, int]] = []  # (first row, file, row group, rows)
        for f, path in enumerate(self.files):
            try:
                handle = pq.ParquetFile(path, memory_map=True)
                names = handle.schema_arrow.names
                missing = [c for c in REQUIRED if c not in names]
                if missing:
                    raise DataError(
                        f"{ENV_VAR}: {path} lacks column(s) {missing}; its columns are {names}. Expected {LAYOUT}."
                    )
                table = handle.read(columns=[c for c in names if c not in IMAGES])
            except DataError:
                raise
            except Exception as exc:  # noqa: BLE001 - not parquet, cut short, unreadable
                raise DataError(f"{ENV_VAR}: cannot read {path} ({type(exc).__name__}: {exc}).") from exc
            start = len(self.rows)
            for g in range(handle.metadata.num_row_groups):
                self._groups.append((start, f, g, handle.metadata.row_group(g).num_rows))
                start += handle.metadata.row_group(g).num_rows
            for record in table.to_pylist():
                self._add(record, path)
        self._starts = [g[0] for g in self._groups]
        self._kept: dict[int, list] = {}
        self._lock = threading.Lock()
        self._unusable: dict[int, tuple[str, str]] | None = None

    def _add(self, record: dict, path: str) -> None:
        row = len(self.rows)
        entry = {
            "row": row,
            "id": record.get("id"),
            "difficulty": record.get("difficulty"),
            "task_type": record.get("task_type"),
            "domain": record.get("domain") or "",
        }
        try:
            if entry["id"] in (None, ""):
                raise ValueError("no id")
            entry["split"] = scoring.split_of(record.get("difficulty"), record.get("task_type"))
            if entry["split"] is None:
                raise ValueError(
                    f"difficulty {record.get('difficulty')!r}, task_type {record.get('task_type')!r} name no split"
                )
            raw = record.get("mutation_dicts_json")
            mutations = scoring.mutations_of(raw)
            entry["mutations"] = json.dumps(
                list(raw) if raw is not None and mutations else [], ensure_ascii=False
            )  # the release's strings, as released (mutations found: raw is a list)
            entry["operator"] = scoring.operator_of(mutations) or ""
            entry["description"] = record.get("ground_truth_diff") or ""
            entry["bbox"] = json.dumps([record.get(c) for c in BBOX]) if all(c in record for c in BBOX) else ""
        except (ValueError, TypeError) as exc:
            self.problems[row] = f"{path}, row {row} (id {entry['id']!r}): {exc}"
        self.rows.append(entry)

    def __len__(self) -> int:
        return len(self.rows)

    def _group_of(self, row: int) -> int:
        import bisect

        return bisect.bisect_right(self._starts, row) - 1

    def _read_group(self, g: int) -> list:
        import pyarrow.parquet as pq

        with self._lock:
            if g in self._kept:
                self._kept[g] = self._kept.pop(g)  # most recent last
                return self._kept[g]
        _, f, group, _ = self._groups[g]
        table = pq.ParquetFile(self.files[f], memory_map=True).read_row_group(group, columns=list(IMAGES))
        values = list(zip(*(table.column(c).to_pylist() for c in IMAGES)))
        with self._lock:
            self._kept[g] = values
            while len(self._kept) > self.KEEP_GROUPS:
                self._kept.pop(next(iter(self._kept)))
        return values

    def image_values(self, row: int) -> tuple:
        """The row's two image values as stored (``{bytes, path}``), before then after."""
        g = self._group_of(row)
        return self._read_group(g)[row - self._groups[g][0]]

    def _bytes(self, value, where: str) -> bytes:
        if isinstance(value, dict) and value.get("bytes"):
            return value["bytes"]
        path = value.get("path") if isinstance(value, dict) else None
        if path:  # an image stored by path: relative to the parquet's folder
            target = Path(path) if Path(path).is_absolute() else Path(self.files[0]).parent / path
            return target.read_bytes()
        raise ValueError(f"{where}: no image bytes")

    def images(self, row: int) -> list:
        """Image A (``image_before``) and image B (``image_after``) of a row, as RGB."""
        found = []
        for name, value in zip(IMAGES, self.image_values(row)):
            where = f"DiffSpot {self.rows[row]['id']} {name}"
            found.append(items.open_image_bytes(self._bytes(value, where), where))
        return found

    def unusable(self) -> dict[int, tuple[str, str]]:
        """``{row: (reason, what)}`` for the rows with an image that would not decode (checked
        once, a row group at a time)."""
        if self._unusable is None:
            bad: dict[int, tuple[str, str]] = {}
            for g, (first, _, _, count) in enumerate(self._groups):
                for offset, values in enumerate(self._read_group(g)[:count]):
                    row = first + offset
                    for name, value in zip(IMAGES, values):
                        try:
                            problem = items.image_bytes_problem(self._bytes(value, name))
                        except (OSError, ValueError):
                            problem = items.MISSING
                        if problem:
                            bad[row] = (problem, f"{self.rows[row]['id']} ({name})")
                            break
            self._unusable = bad
        return self._unusable


def _stamp(files: list[str]) -> tuple:
    import os

    return tuple((f, os.stat(f).st_mtime_ns, os.stat(f).st_size) for f in files)


@lru_cache(maxsize=2)
def _release(stamp: tuple) -> Release:
    release = Release([f for f, _, _ in stamp])
    counts = {s: sum(1 for r in release.rows if r.get("split") == s) for s in scoring.SPLITS}
    unknown = sum(1 for r in release.rows if r.get("difficulty") == "unknown")
    note = "the release's counts" if counts == RELEASE_COUNTS else f"the release has {RELEASE_COUNTS}"
    logger.info(
        f"DiffSpot: {len(release)} pairs in {', '.join(Path(f).name for f in release.files)}: {counts} ({note}); "
        f"{unknown} with difficulty 'unknown' read as no_diff; {len(release.problems)} malformed record(s)"
    )
    return release


def load_release(base: Path | None = None) -> Release:
    """The release under ``base`` (default: ``root()``), read once per file version."""
    return _release(_stamp(parquet_files(root() if base is None else base)))


def split_docs(split: str) -> list[dict]:
    """The docs of one split ("all", or easy, medium, hard, no_diff), in release order; a malformed
    record or (when images are needed) an unreadable image is skipped and named (``data.items``).
    Each doc names the folder it was read from (``root``), where its images are read again."""
    base = root()
    release = load_release(base)
    bad = release.unusable() if items.images_needed() else {}
    docs = []
    for row in release.rows:
        number = row["row"]
        if number in release.problems:
            if split in ("all", row.get("split")):
                items.skip(items.RECORD, release.problems[number])
            continue
        if split != "all" and row["split"] != split:
            continue
        if number in bad:
            items.skip(*bad[number])
            continue
        docs.append(
            {
                "root": str(base),
                **{
                    k: row[k]
                    for k in (
                        "id",
                        "row",
                        "split",
                        "difficulty",
                        "task_type",
                        "operator",
                        "domain",
                        "mutations",
                        "description",
                        "bbox",
                    )
                },
            }
        )
    return docs
