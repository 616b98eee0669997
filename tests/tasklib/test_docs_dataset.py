"""The docs a task hands lmms-eval: built without datasets' fingerprint hashing, yet the same
table, features and rows as ``Dataset.from_dict`` / ``from_list`` give."""

from __future__ import annotations

import json

import pytest
from datasets import Dataset

from lmms_comparative.data import items
from lmms_comparative.record import Benchmark
from lmms_comparative.tasklib import docs_dataset, docs_hook, rows_to_columns

# One doc shape per benchmark, with the values that make arrow's type inference work: nulls,
# empty lists, nested dicts, ints beside strings in other columns, unicode.
DOCS = {
    "subtlebench": [
        {
            "item_id": "attribute_x_1",
            "options": ["a", "b"],
            "answer_letter": "A",
            "has_caption": True,
            "caption": "",
            "factors": "{}",
        },
        {
            "item_id": "attribute_x_2",
            "options": ["b", "c", "d"],
            "answer_letter": "C",
            "has_caption": False,
            "caption": "é",
            "factors": '{"k": 1}',
        },
    ],
    "compbench": [
        {"uid": "cub/0", "images": ["a.png", "b.png"], "idx": 0, "extra": None},
        {"uid": "cub/1", "images": ["c.png"], "idx": 1, "extra": None},
    ],
    "captionqa": [
        {"id": "nat_001", "row": 0, "q_idx": 3, "options": ["x"], "category": ""},
        {"id": "nat_002", "row": 5, "q_idx": 0, "options": [], "category": "Color"},
    ],
    "nested": [
        {"uid": "g1", "meta": {"pair": "1", "n": 2}, "tags": []},
        {"uid": "g2", "meta": {"pair": "2", "n": 3}, "tags": ["t"]},
    ],
}


@pytest.mark.parametrize("name", sorted(DOCS))
def test_docs_dataset_is_what_from_dict_builds(name):
    docs = DOCS[name]
    ours, theirs = docs_dataset(rows_to_columns(docs)), Dataset.from_list(docs)
    assert ours.features == theirs.features
    assert ours.data.table.equals(theirs.data.table)
    assert list(ours) == list(theirs) == [{k: d.get(k) for k in docs[0]} for d in docs]
    # Two builds of the same docs are two datasets (nothing cached under a shared name).
    assert docs_dataset(rows_to_columns(docs))._fingerprint != ours._fingerprint


def test_rows_to_columns_keys_as_from_list():
    docs = [{"a": 1, "b": "x"}, {"a": 2, "c": "dropped"}]
    assert rows_to_columns(docs) == {"a": [1, 2], "b": ["x", None]}
    assert list(docs_dataset(rows_to_columns(docs))) == list(Dataset.from_list(docs))
    assert rows_to_columns([]) == {}


@pytest.mark.parametrize("shape", ["rows", "columns", "dataset"])
def test_docs_hook_takes_rows_columns_or_a_dataset_and_adds_the_skip_counts(shape, monkeypatch):
    monkeypatch.setenv("LMMS_COMPARATIVE_MAX_FAILED", "1")  # one skip in three: within the share, no run flag
    docs = DOCS["compbench"]

    def load():
        items.skip(items.MISSING, "cub/9 (gone.png)")
        if shape == "rows":
            return docs
        return rows_to_columns(docs) if shape == "columns" else Dataset.from_list(docs)

    out = docs_hook("shape", load, record=Benchmark("shape", "Shape", "", ()))(None)
    assert [{k: v for k, v in d.items() if k != "skipped"} for d in out] == docs
    assert {d["skipped"] for d in out} == {json.dumps({items.MISSING: 1})}
