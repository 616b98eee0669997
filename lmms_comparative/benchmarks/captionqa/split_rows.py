"""The rows of a CaptionQA split read in place from its parquet files (``SplitRows``), and the
layout those files are expected in (``LAYOUT``, named in every error about them)."""

from __future__ import annotations

import threading
from pathlib import Path

from lmms_comparative.benchmarks.captionqa.table import ROOT_VARIABLE
from lmms_comparative.data import items
from lmms_comparative.failures import DataError

ENV_VAR = ROOT_VARIABLE
LAYOUT = (
    "parquet files per split (natural, document, ecommerce, embodiedai; an 'all' split optional) as "
    "data/<split>-*.parquet, with columns id, images, questions, and the dataset card (README.md) whose configs "
    "list the splits"
)


class SplitRows:
    """The rows of one split, read from its parquet files where they lie: no copy into the
    datasets cache. ``load_dataset("parquet", ...)`` converted every file into the cache before the
    first doc (most of a run's preparation time: about 10x one plain read of the files, see
    bench/README.md). Here the ids and image counts come from the leaf columns that hold them (the
    image bytes are not read for them), the image bytes are read once for the checks, a row group at
    a time, and then again only for the row a model asks for, with the last row groups read kept.
    Rows are in file order, as ``load_dataset`` gives them; images are decoded by
    ``datasets.Image``, the code that ``load_dataset``'s rows decode with."""

    KEEP_GROUPS = 2  # row groups kept decoded; push_to_hub writes 100 image sets per group

    def __init__(self, files: list[str], split: str):
        import pyarrow.compute as pc
        import pyarrow.parquet as pq

        self.files, self.split = list(files), split
        self._groups: list[tuple[int, int, int, int]] = []  # (first row, file, row group, rows)
        self.ids: list[str] = []
        self.counts: list[int] = []  # images per row
        self._leaves: list[list[str]] = []  # per file: the image struct's leaf columns to read
        start = 0
        for f, path in enumerate(self.files):
            try:
                handle = pq.ParquetFile(path, memory_map=True)
                names = set(handle.schema_arrow.names)
                missing = {"id", "images", "questions"} - names
                if missing:
                    raise DataError(
                        f"{ENV_VAR}: split {split!r} lacks column(s) {sorted(missing)} in {path}; expected {LAYOUT}."
                    )
                paths = [handle.schema.column(i).path for i in range(len(handle.schema))]
                # The image struct's leaves, as the writer named them (images.list.element.bytes
                # from datasets and pyarrow, images.list.item.bytes from older writers).
                leaves = {
                    leaf: next((c for c in paths if c.startswith("images.") and c.endswith("." + leaf)), "")
                    for leaf in ("bytes", "path")
                }
                if not any(leaves.values()):
                    raise DataError(
                        f"{ENV_VAR}: split {split!r}: the images column of {path} holds no image bytes or paths (a "
                        f"list of {{bytes, path}} is expected)."
                    )
                table = handle.read(columns=["id", leaves["path"] or leaves["bytes"]])
            except DataError:
                raise
            except Exception as exc:  # noqa: BLE001 - not parquet, cut short, unreadable
                raise DataError(
                    f"{ENV_VAR}: cannot load split {split!r} from {path} ({type(exc).__name__}: {exc})."
                ) from exc
            for i, entry_id in enumerate(table.column("id").to_pylist()):
                if entry_id is None:
                    raise DataError(f"{path}: row {i} has no id.")
                self.ids.append(str(entry_id))
            self.counts += pc.fill_null(pc.list_value_length(table.column("images")), 0).to_pylist()
            self._leaves.append([c for c in (leaves["bytes"], leaves["path"]) if c])
            for g in range(handle.metadata.num_row_groups):
                rows = handle.metadata.row_group(g).num_rows
                self._groups.append((start, f, g, rows))
                start += rows
        self._starts = [g[0] for g in self._groups]
        self._kept: dict[int, list] = {}  # group -> its rows' image values, most recent last
        self._lock = threading.Lock()
        self._unusable: dict[int, tuple[str, str]] | None = None

    def __len__(self) -> int:
        return len(self.ids)

    def _images_column(self, f: int, group: int):
        """The ``images`` column of row group ``group`` of file ``f`` (its image leaves only)."""
        import pyarrow.parquet as pq

        return (
            pq.ParquetFile(self.files[f], memory_map=True)
            .read_row_group(group, columns=self._leaves[f])
            .column("images")
        )

    def _read_group(self, g: int) -> list[list[dict | None]]:
        """Every row's image values ``[{"bytes", "path"}, ...]`` of row group ``g`` (None for a null image)."""
        _, f, group, _ = self._groups[g]
        column = self._images_column(f, group)
        return [
            [None if v is None else {"bytes": v.get("bytes"), "path": v.get("path")} for v in row or []]
            for row in column.to_pylist()
        ]

    def image_values(self, row: int) -> list[dict | None]:
        """The raw image values of a row (``{"bytes", "path"}``, None for a null image), as ``datasets``
        stores them."""
        import bisect

        g = bisect.bisect_right(self._starts, row) - 1
        with self._lock:
            values = self._kept.pop(g, None)
            if values is None:
                values = self._read_group(g)
            self._kept[g] = values
            while len(self._kept) > self.KEEP_GROUPS:
                self._kept.pop(next(iter(self._kept)))
        return values[row - self._groups[g][0]]

    def images(self, row: int) -> list:
        """A row's images, decoded as a ``load_dataset`` row's ``images`` column decodes them."""
        from datasets import Image as ImageFeature

        feature = ImageFeature()
        return [feature.decode_example(value) for value in self.image_values(row) if value is not None]

    def unusable(self) -> dict[int, tuple[str, str]]:
        """``{row: (reason, what)}`` (``what``: the id and which image) for the rows with an image
        the model cannot be given (empty, corrupt, truncated, decompression bomb), checked on the
        embedded bytes through the same checks as image files (``data.items``): datasets would
        otherwise decode a truncated image with black fill, as lmms-eval lets PIL do for the whole
        process. One pass over the image bytes, a row group at a time; a row's bytes are seen
        without a copy (only an image's head and end are read). Checked once per split."""
        if self._unusable is not None:
            return self._unusable
        bad: dict[int, tuple[str, str]] = {}
        for first, f, group, _ in self._groups:
            column = self._images_column(f, group)
            for chunk in column.chunks:
                offsets = chunk.offsets.to_pylist()
                values = chunk.values  # the struct array of every image of the chunk
                blobs = values.field("bytes") if values.type.get_field_index("bytes") >= 0 else None
                paths = values.field("path") if values.type.get_field_index("path") >= 0 else None
                for r in range(len(chunk)):
                    row = first + r
                    for k, at in enumerate(range(offsets[r], offsets[r + 1])):
                        blob = blobs[at] if blobs is not None else None
                        problem = (
                            items.buffer_problem(memoryview(blob.as_buffer()))
                            if blob is not None and blob.is_valid
                            else _path_problem(paths[at].as_py() if paths is not None else None)
                        )
                        if problem:
                            bad[row] = (problem, f"{self.ids[row]} (image {k + 1})")
                            break
                first += len(chunk)
        self._unusable = bad
        return bad


def _path_problem(path: str | None) -> str | None:
    """An image stored by path only (no embedded bytes): the file's problem, as before."""
    if path and Path(path).is_file():
        return items.image_file_problem(path)
    return items.EMPTY
