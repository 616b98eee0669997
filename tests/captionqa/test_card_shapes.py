"""CaptionQA's "all" split, on both dataset-card shapes, against ``load_dataset`` itself: the
official qa.py walks ``load_dataset("Borise/CaptionQA", split="all")``, and that walk fixes every
question's option shuffle, so the order must be what ``datasets`` makes of the card."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from lmms_comparative.benchmarks.captionqa import data
from lmms_comparative.benchmarks.captionqa.fixture import build
from lmms_comparative.benchmarks.captionqa.scoring import official_permutations

ORDER = ("ecommerce", "natural", "embodiedai", "document")  # neither the domains' order nor its reverse


def test_a_card_of_domain_splits_gives_all_as_load_dataset_does(tmp_path):
    from datasets import load_dataset

    root = build(tmp_path / "cqa", per_domain=2, all_order=ORDER)
    assert not list((root / "data").glob("all*"))  # no file of its own: the union is meant
    official = load_dataset(str(root), split="all")
    ids = list(official["id"])
    assert [i.split("_")[0] for i in ids] == [
        p
        for d in ORDER
        for p in [{"ecommerce": "eco", "natural": "nat", "embodiedai": "emb", "document": "doc"}[d]] * 2
    ]
    assert [row_id for row_id, _ in data.question_table(root, "all")] == ids
    entries = [(row["id"], row["questions"]) for row in official.remove_columns(["images"])]
    assert data.permutations(root) == official_permutations(entries)
    assert data.walk_domains(root) == list(ORDER)
    assert "in the dataset card's order" in data.all_source(root)


def test_a_card_with_its_own_all_split_is_read_though_load_dataset_refuses_it(tmp_path):
    from datasets import load_dataset

    root = build(tmp_path / "cqa", per_domain=2, all_order=ORDER, card="all")
    with pytest.raises(ValueError, match="special split keyword"):
        load_dataset(str(root), split="all")  # datasets 5: why qa.py cannot run on this shape
    own = pq.read_table(root / "data" / "all-00000-of-00001.parquet", columns=["id"]).column("id").to_pylist()
    assert [row_id for row_id, _ in data.question_table(root, "all")] == own
    assert data.walk_domains(root) == list(ORDER)
    assert "its own files" in data.all_source(root)


def test_without_a_card_the_domains_are_walked_in_their_order_with_a_warning(tmp_path):
    root = build(tmp_path / "cqa", per_domain=1, all_order=ORDER)
    (root / "README.md").unlink()
    assert data.split_files(root, "all") == []
    assert data.walk_domains(root) == list(data.DOMAINS)
