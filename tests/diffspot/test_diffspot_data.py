"""DiffSpot's loader on the generated copy of the release's parquet: the splits as the authors map
rows, the two screenshots in their order, the prompt, and the messages of the malformed inputs."""

from __future__ import annotations

import io
import json

import pyarrow.parquet as pq
import pytest
from PIL import Image

from lmms_comparative.benchmarks.diffspot import data, hooks
from lmms_comparative.benchmarks.diffspot.fixture import SMOKE_RECORDS, build
from lmms_comparative.benchmarks.diffspot.prompts import VLM_PROMPT
from lmms_comparative.data import items
from lmms_comparative.failures import DataError


@pytest.fixture()
def root(tmp_path, monkeypatch):
    found = build(tmp_path / "diffspot", per_split=3)
    monkeypatch.setenv("DIFFSPOT_ROOT", str(found))
    return found


def test_the_splits_are_the_authors(root):
    table = pq.read_table(root / SMOKE_RECORDS, columns=["id", "difficulty", "task_type"]).to_pylist()
    docs = data.split_docs("all")
    assert [d["id"] for d in docs] == [r["id"] for r in table]  # release order
    by_id = {d["id"]: d for d in docs}
    for row in table:
        expected = "no_diff" if row["task_type"] == "no_diff" else row["difficulty"]
        assert by_id[row["id"]]["split"] == expected
    assert sum(r["difficulty"] == "unknown" for r in table) == 1  # read as no_diff, as diffspot/data.py does
    assert [len(data.split_docs(s)) for s in ("easy", "medium", "hard", "no_diff")] == [3, 3, 3, 3]
    has_diff = [d for d in docs if d["split"] != "no_diff"]
    assert all(d["operator"] and json.loads(json.loads(d["mutations"])[0])["type"] == d["operator"] for d in has_diff)
    assert all(d["operator"] == "" and json.loads(d["mutations"]) == [] for d in docs if d["split"] == "no_diff")


def test_the_messages_hold_the_prompt_then_image_a_then_image_b(root):
    doc = data.split_docs("easy")[0]
    row = pq.read_table(root / SMOKE_RECORDS).to_pylist()[doc["row"]]
    content = hooks.doc_to_messages(doc)[0]["content"]
    assert [part["type"] for part in content] == ["text", "image", "image"] and content[0][
        "text"
    ] == VLM_PROMPT == hooks.doc_to_text(doc)
    before, after = (Image.open(io.BytesIO(row[c]["bytes"])).convert("RGB") for c in ("image_before", "image_after"))
    assert content[1]["url"].tobytes() == before.tobytes() and content[2]["url"].tobytes() == after.tobytes()
    assert [i.tobytes() for i in hooks.doc_to_visual(doc)] == [before.tobytes(), after.tobytes()]


def test_a_malformed_record_is_skipped_and_named(root, tmp_path):
    table = pq.read_table(root / SMOKE_RECORDS)
    rows = table.to_pylist()
    rows[0]["difficulty"], rows[0]["task_type"] = "extreme", "visual_diff"
    rows[1]["mutation_dicts_json"] = (
        ["{not json"] if rows[1]["task_type"] != "no_diff" else rows[1]["mutation_dicts_json"]
    )
    pq.write_table(type(table).from_pylist(rows, schema=table.schema), root / SMOKE_RECORDS)
    skips = items.Skips()
    with items.collecting(skips):
        docs = data.split_docs("all")
    assert rows[0]["id"] not in {d["id"] for d in docs}
    assert all(reason == items.RECORD for reason in skips.by_reason) and any(
        rows[0]["id"] in what for what in skips.by_reason[items.RECORD]
    )


def test_a_missing_column_names_the_columns_found(root):
    table = pq.read_table(root / SMOKE_RECORDS).drop_columns(["mutation_dicts_json"])
    pq.write_table(table, root / SMOKE_RECORDS)
    with pytest.raises(DataError, match=r"lacks column\(s\) \['mutation_dicts_json'\]; its columns are"):
        data.split_docs("all")


def test_an_unreadable_image_skips_its_pair(root):
    table = pq.read_table(root / SMOKE_RECORDS)
    rows = table.to_pylist()
    rows[2]["image_after"] = {"bytes": rows[2]["image_after"]["bytes"][:200], "path": None}  # cut short
    pq.write_table(type(table).from_pylist(rows, schema=table.schema), root / SMOKE_RECORDS)
    skips = items.Skips()
    with items.collecting(skips):
        docs = data.split_docs("all")
    assert rows[2]["id"] not in {d["id"] for d in docs} and len(docs) == len(rows) - 1
    assert skips.counts() == {items.TRUNCATED: 1}


def test_the_reasoning_effort_setting(monkeypatch):
    monkeypatch.delenv("DIFFSPOT_JUDGE_REASONING_EFFORT", raising=False)
    assert hooks.reasoning_effort() == "high"  # diffspot/judge.py DEFAULT_REASONING_EFFORT
    monkeypatch.setenv("DIFFSPOT_JUDGE_REASONING_EFFORT", "")
    assert hooks.reasoning_effort() == ""  # none sent, as --reasoning-effort "" in diffspot/cli.py
    monkeypatch.setenv("DIFFSPOT_JUDGE_REASONING_EFFORT", "medium")
    assert hooks.reasoning_effort() == "medium"
