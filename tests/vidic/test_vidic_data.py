"""ViDiC-1K's loader on the fixture in the release's layout: what it reads of a pair, and each kind
of damaged pair skipped, named and counted (never a failed run), beside its honest twin."""

from __future__ import annotations

import json
import os

import pytest

from lmms_comparative.benchmarks.vidic import data
from lmms_comparative.benchmarks.vidic.fixture import SMOKE_RECORDS, build
from lmms_comparative.data import items
from lmms_comparative.failures import DataError


@pytest.fixture
def root(tmp_path, monkeypatch):
    found = build(tmp_path / "root", pairs=4)
    monkeypatch.setenv("VIDIC_ROOT", str(found))
    return found


def _load() -> tuple[list[dict], dict[str, list[str]]]:
    skips = items.Skips()
    with items.collecting(skips):
        docs = data.pair_docs()
    return docs, dict(skips.by_reason)


def _records(root) -> list[dict]:
    return json.loads((root / SMOKE_RECORDS).read_text(encoding="utf-8"))


def _write(root, records) -> None:
    (root / SMOKE_RECORDS).write_text(json.dumps(records), encoding="utf-8")


def test_every_pair_of_the_release_layout_is_read(root):
    docs, skipped = _load()
    assert skipped == {} and len(docs) == 4
    first = docs[0]
    checklist = json.loads(first["checklist"])
    assert first["pair"] == f"{first['video1_path']} | {first['video2_path']}"
    assert first["video1"] == str(root / first["video1_path"]) and os.path.isfile(first["video1"])
    assert [q["section"] for q in checklist] == sorted((q["section"] for q in checklist), reverse=True)  # Sim first
    assert {q["correct_answer"] for q in checklist if q["section"] == "Similarities"} == {"no"}
    assert any(" " in d["video1_path"] for d in docs)  # a folder name with a space, as in the release


def test_a_checklist_at_the_root_is_found_too(root):
    (root / "checklist.json").write_bytes((root / SMOKE_RECORDS).read_bytes())
    (root / SMOKE_RECORDS).unlink()
    assert len(_load()[0]) == 4


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (lambda r, root: r[1].pop("structured_analysis"), data.UNREADABLE_RECORD),
        (
            lambda r, root: r[1]["structured_analysis"]["Differences"][0].update(correct_answer=1),
            data.UNREADABLE_RECORD,
        ),
        (lambda r, root: r[1]["structured_analysis"].update(Similarities="no"), data.UNREADABLE_RECORD),
        (lambda r, root: r[1].update(video2_path=None), data.UNREADABLE_RECORD),
        (lambda r, root: r.append(dict(r[1])), data.UNREADABLE_RECORD),  # the same pair twice
        (lambda r, root: (root / r[1]["video1_path"]).write_text("not a video"), data.UNREADABLE_VIDEO),
        (lambda r, root: (root / r[1]["video2_path"]).unlink(), data.UNREADABLE_VIDEO),
        (lambda r, root: r[1].update(video1_path="data/../../outside.mp4"), data.UNREADABLE_RECORD),
    ],
)
def test_a_damaged_pair_is_skipped_and_counted(root, damage, reason):
    records = _records(root)
    damage(records, root)
    _write(root, records)
    docs, skipped = _load()
    assert list(skipped) == [reason] and len(skipped[reason]) == 1, skipped
    assert len(docs) == 4 - (reason != data.UNREADABLE_RECORD or len(records) == 4)


def test_a_checklist_that_is_not_a_list_stops_the_run_naming_it(root):
    (root / SMOKE_RECORDS).write_text('{"pairs": []}', encoding="utf-8")
    with pytest.raises(DataError, match="checklist.json"):
        _load()


def test_no_checklist_stops_the_run_naming_the_variable(root):
    (root / SMOKE_RECORDS).unlink()
    with pytest.raises(DataError, match="VIDIC_ROOT"):
        _load()
