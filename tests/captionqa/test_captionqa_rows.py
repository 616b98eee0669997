"""CaptionQA's splits read in place (``data.SplitRows``) give what ``load_dataset("parquet")``
gives: the same rows in the same order and the same decoded images, across row groups and files,
in any order of access; and the image check finds the rows the old check on the converted
dataset found."""

from __future__ import annotations

import random

import pyarrow.parquet as pq
import pytest
from datasets import load_dataset

from lmms_comparative.benchmarks.captionqa import data
from lmms_comparative.benchmarks.captionqa.fixture import build
from lmms_comparative.data import items


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    """Seven image sets per domain; natural split into two files, each in row groups of 2 (the
    release's files hold 100 image sets per row group)."""
    root = build(tmp_path_factory.mktemp("cqa_rows"), per_domain=7)
    natural = root / "data" / "natural-00000-of-00001.parquet"
    table = pq.read_table(natural)
    pq.write_table(table.slice(0, 3), root / "data" / "natural-00000-of-00002.parquet", row_group_size=2)
    pq.write_table(table.slice(3), root / "data" / "natural-00001-of-00002.parquet", row_group_size=2)
    natural.unlink()
    return root


def _reference(root, split):
    files = data.split_files(root, split)
    return load_dataset("parquet", data_files={split: files}, split=split, cache_dir=str(root.parent / f"hf_{split}"))


@pytest.mark.parametrize("split", ["natural", "document"])
def test_rows_and_images_match_load_dataset(root, split):
    rows, reference = data.load_split(root, split), _reference(root, split)
    assert len(rows) == len(reference) and rows.ids == reference["id"]
    assert rows.counts == [len(images) for images in reference["images"]]
    order = list(range(len(rows)))
    random.Random(0).shuffle(order)  # a model's batches visit rows out of order
    for row in order + order[:3]:
        ours, theirs = rows.images(row), reference[row]["images"]
        assert [(i.mode, i.size, i.tobytes()) for i in ours] == [(i.mode, i.size, i.tobytes()) for i in theirs]
    assert len(rows._kept) <= rows.KEEP_GROUPS


def test_the_image_check_names_each_unusable_row(root, tmp_path):
    import pyarrow as pa

    path = root / "data" / "document-00000-of-00001.parquet"
    table = pq.read_table(path)
    records = table.to_pylist()
    records[1]["images"][0]["bytes"] = records[1]["images"][0]["bytes"][:60]  # cut short
    records[2]["images"][-1]["bytes"] = b""
    records[4]["images"][0]["bytes"] = b"not an image at all"
    copy = tmp_path / "document.parquet"
    pq.write_table(pa.Table.from_pylist(records, schema=table.schema), copy, row_group_size=3)
    rows = data.SplitRows([str(copy)], "document")
    ids = rows.ids
    n = len(records[2]["images"])
    assert rows.unusable() == {
        1: (items.TRUNCATED, f"{ids[1]} (image 1)"),
        2: (items.EMPTY, f"{ids[2]} (image {n})"),
        4: (items.UNREADABLE, f"{ids[4]} (image 1)"),
    }
    # The same verdicts as the checks of whole image bytes.
    for row, (reason, _) in rows.unusable().items():
        first_bad = next(v for v in rows.image_values(row) if items.image_bytes_problem(v["bytes"]))
        assert items.image_bytes_problem(first_bad["bytes"]) == reason
