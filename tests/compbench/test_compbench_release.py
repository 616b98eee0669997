"""MLLM-CompBench as released: which JSON file of a folder is the annotation file, the authors' own
``*_test.json`` as the split scored, and the warnings when the data is not the authors'.

The pre-release folders (github RaptorMai/CompBenchReview ``Labeled_data/<label>/``) hold the
annotation file that ``val_test_split.py`` splits, the ``<file>_test.json`` / ``<file>_val.json`` it
wrote (``_att_``/``_state_`` for MIT-States and VAW) and the parts the annotation file was merged
from. The fixture writes such a folder for CUB and VAW.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import base_env, eval_args, read_run, run_cli

from lmms_comparative.benchmarks.compbench import data
from lmms_comparative.benchmarks.compbench.fixture import build as build_compbench
from lmms_comparative.failures import DataError

TAG = re.compile(r"#(\w+-\d+)")
CUB = "CUB_0_1000_rebalanced_fixed_path"
VAW = "VAW_0_3133"


def _tag(record: dict) -> str:
    return TAG.search(json.dumps(record)).group(1)


def _doc_tags(docs: list[dict]) -> list[str]:
    return [TAG.search(d["question"]).group(1) for d in docs]


@pytest.fixture
def warnings():
    from loguru import logger

    messages: list[str] = []
    handle = logger.add(lambda m: messages.append(str(m).strip()), level="WARNING", format="{message}")
    yield messages
    logger.remove(handle)


@pytest.fixture
def pre(tmp_path, monkeypatch) -> Path:
    root = build_compbench(tmp_path / "cb", per_source=12, layout="prerelease")
    monkeypatch.setenv("COMPBENCH_ROOT", str(root))
    return root


def _cub(root: Path, suffix: str = "") -> Path:
    return root / "Labeled_data" / "cub_label" / f"{CUB}{suffix}.json"


# ---- which file is the annotation file -----------------------------------------------------------------


def test_the_fixture_folder_holds_the_authors_files(pre):
    assert sorted(p.name for p in (pre / "Labeled_data" / "cub_label").glob("*.json")) == [
        f"{CUB}.json",
        f"{CUB}_test.json",
        f"{CUB}_val.json",
        "CUB_0_200.json",
    ]
    assert sorted(p.name for p in (pre / "Labeled_data" / "vaw_label").glob("*.json")) == [
        f"{VAW}.json",
        f"{VAW}_att_test.json",
        f"{VAW}_att_val.json",
        f"{VAW}_state_test.json",
        f"{VAW}_state_val.json",
        "vaw_0_626.json",
    ]


def test_several_json_files_pick_the_authors_annotation_file(pre):
    files = data.source_files(pre, "cub_label")
    assert files.annotation == _cub(pre)
    assert files.tests == {"all": _cub(pre, "_test")} and files.vals == {"all": _cub(pre, "_val")}
    vaw = data.source_files(pre, "vaw_label")
    assert vaw.annotation.name == f"{VAW}.json" and {k: p.name for k, p in vaw.tests.items()} == {
        "attribute": f"{VAW}_att_test.json",
        "state": f"{VAW}_state_test.json",
    }
    # the full set is the annotation file's, not the part's
    assert len(data.column_docs("attribute_cub", "full")) == 12


def test_an_annotation_file_of_another_name_is_found_by_its_test_file(pre):
    """The release archive's inner names were not visible: a <file>.json with the authors'
    <file>_test.json beside it is the annotation file, whatever its name; the part is ignored."""
    folder = pre / "Labeled_data" / "cub_label"
    for suffix in ("", "_test", "_val"):
        _cub(pre, suffix).rename(folder / f"cub_reverified{suffix}.json")
    files = data.source_files(pre, "cub_label")
    assert (
        files.annotation == folder / "cub_reverified.json" and files.tests["all"] == folder / "cub_reverified_test.json"
    )


def test_a_release_folder_with_one_json_file_is_read(tmp_path, monkeypatch):
    root = build_compbench(tmp_path / "cb", per_source=5)
    folder = root / "cub_label"
    folder.mkdir()
    (root / "annotations" / "cub_label.json").rename(folder / "annotations_2025.json")
    assert data.source_files(root, "cub_label").annotation == folder / "annotations_2025.json"


def test_an_unknown_set_of_files_lists_them_and_the_names_accepted(pre):
    folder = pre / "Labeled_data" / "depth_label"
    (folder / data.PRERELEASE_FILES["depth_label"]).rename(folder / "depth_new.json")
    (folder / "Checked_Depth_0_265.json").write_text("[]")
    (folder / "depth_new_val.json").write_text("[]")
    with pytest.raises(DataError) as err:
        data.column_docs("spatiality_nyudepth", "test")
    message = str(err.value)
    assert (
        str(folder) in message
        and "holds 3 JSON files (Checked_Depth_0_265.json, depth_new.json, depth_new_val.json)" in message
    )
    assert (
        "depth_0_529_rebalanced.json (the authors' name), depth_label.json" in message
        and "<file>_test.json beside it" in message
    )


def test_the_val_file_and_parts_alone_are_not_an_annotation_file(pre):
    folder = pre / "Labeled_data" / "cub_label"
    _cub(pre).unlink()
    _cub(pre, "_test").unlink()
    with pytest.raises(DataError) as err:
        data.annotation_file(pre, "cub_label")
    assert f"holds 2 JSON files ({CUB}_val.json, CUB_0_200.json)" in str(err.value) and str(folder) in str(err.value)


# ---- the authors' test file is the split scored ------------------------------------------------------


def test_the_fixture_test_file_is_the_rebuilt_split(pre, warnings):
    """Written as val_test_split.py wrote them, the test files equal the rebuilt split: no warning
    but the count one."""
    for task, part in (("attribute_cub", ""), ("attribute_vaw", "_att"), ("state_vaw", "_state")):
        label = data.COLUMN_BY_TASK[task].label
        test = json.loads(
            (pre / "Labeled_data" / label / f"{data.PRERELEASE_FILES[label][:-5]}{part}_test.json").read_text()
        )
        assert _doc_tags(data.column_docs(task, "test")) == [_tag(r) for r in test], task
        assert [_tag(r) for _, r in data.rebuilt_split(pre, data.COLUMN_BY_TASK[task])] == [_tag(r) for r in test], task
    assert not [m for m in warnings if "differs" in m or "not in" in m]


def test_the_test_file_is_scored_and_a_differing_rebuild_warns_with_the_count(pre, warnings):
    annotations = [r for r in json.loads(_cub(pre).read_text()) if r]
    rebuilt = {_tag(r) for _, r in data.rebuilt_split(pre, data.COLUMN_BY_TASK["attribute_cub"])}
    outside = [r for r in annotations if _tag(r) not in rebuilt]  # the rebuilt val records
    inside = [r for r in annotations if _tag(r) in rebuilt]
    test = outside[:2] + inside[::-1][:5]  # 2 records not in the rebuilt split, 5 of its 9, another order
    _cub(pre, "_test").write_text(json.dumps(test))
    docs = data.column_docs("attribute_cub", "test")
    assert _doc_tags(docs) == [_tag(r) for r in test]
    assert [d["answer"] for d in docs] == [r["answer"] for r in test]
    assert [d["uid"] for d in docs] == [f"attribute_cub:{i}" for i in range(7)]
    (warning,) = [m for m in warnings if "rebuilt" in m]
    assert (
        "attribute_cub" in warning
        and f"{CUB}_test.json in 6 record(s): 2 of the test file's 7 are not in the rebuilt split, 4 of the "
        "rebuilt split's 9 are not in the test file"
        in warning
    )


def test_test_records_are_matched_to_the_annotation_records(pre, warnings):
    """Matched on the authors' key (images, question, answer): the record read is the annotation
    file's; a test record with no match is scored as the test file gives it, and counted."""
    test = json.loads(_cub(pre, "_test").read_text())
    stranger = dict(test[0], question="Which one is bluer? #cu-99", answer="Left")
    _cub(pre, "_test").write_text(json.dumps([stranger] + test[1:]))
    records = data.column_records(pre, data.COLUMN_BY_TASK["attribute_cub"], "test")
    assert records[0][0] == f"{_cub(pre, '_test')}[0]" and records[0][1]["question"] == stranger["question"]
    assert all(where.startswith(f"{_cub(pre)}[") for where, _ in records[1:])
    assert any(
        f"attribute_cub: 1 of the {len(test)} records of the authors' test file {CUB}_test.json are not in {CUB}.json"
        in m
        for m in warnings
    )


def test_only_the_state_test_file_changes_only_the_state_column(pre, warnings):
    state = pre / "Labeled_data" / "vaw_label" / f"{VAW}_state_test.json"
    records = json.loads(state.read_text())
    state.write_text(json.dumps(records[1:]))
    assert _doc_tags(data.column_docs("state_vaw", "test")) == [_tag(r) for r in records[1:]]
    att = json.loads((pre / "Labeled_data" / "vaw_label" / f"{VAW}_att_test.json").read_text())
    assert _doc_tags(data.column_docs("attribute_vaw", "test")) == [_tag(r) for r in att]
    assert [m.split(":")[1].strip() for m in warnings if "rebuilt" in m] == ["state_vaw"]


def test_the_test_file_alone_is_used(pre, warnings):
    test = json.loads(_cub(pre, "_test").read_text())
    val = json.loads(_cub(pre, "_val").read_text())
    _cub(pre).unlink()
    assert data.source_files(pre, "cub_label").annotation is None
    assert _doc_tags(data.column_docs("attribute_cub", "test")) == [_tag(r) for r in test]
    assert _doc_tags(data.column_docs("attribute_cub", "full")) == [
        _tag(r) for r in test + val
    ]  # the authors' split covers every record
    assert not [m for m in warnings if "rebuilt" in m]


def test_a_release_annotation_file_with_the_test_file_beside_it(tmp_path, monkeypatch):
    root = build_compbench(tmp_path / "cb", per_source=12, split_files=("cub_label",))
    monkeypatch.setenv("COMPBENCH_ROOT", str(root))
    test_path = root / "annotations" / "cub_label_test.json"
    test = json.loads(test_path.read_text())
    test_path.write_text(json.dumps(test[:3]))
    assert _doc_tags(data.column_docs("attribute_cub", "test")) == [_tag(r) for r in test[:3]]


# ---- the count check -------------------------------------------------------------------------------


def test_a_column_count_other_than_the_authors_warns_naming_the_column(pre, warnings, monkeypatch):
    data.column_docs("attribute_cub", "test")
    (warning,) = [m for m in warnings if "column attribute_cub" in m]
    assert "has 9 records in its test split; the authors' test split has 696" in warning
    data.column_docs("attribute_cub", "full")
    assert any(
        "column attribute_cub has 12 records in its full set (test + val); the authors' full set (test + val) has 870"
        in m
        for m in warnings
    )
    monkeypatch.setitem(data.AUTHORS_COUNTS, "emotion_celeba", (9, 3))
    data.column_docs("emotion_celeba", "test")
    data.column_docs("emotion_celeba", "full")
    assert not [m for m in warnings if "emotion_celeba" in m]


def test_the_authors_counts_sum_to_the_papers_split():
    assert sum(t for t, _ in data.AUTHORS_COUNTS.values()) == 31822  # the paper's 31.8K test split
    assert sum(v for _, v in data.AUTHORS_COUNTS.values()) == 7963  # and 7.9K held out
    assert set(data.AUTHORS_COUNTS) == set(data.COLUMN_BY_TASK)


# ---- through the CLI -------------------------------------------------------------------------------


@pytest.mark.e2e
def test_the_test_file_is_what_the_cli_scores(hf_home, tmp_path):
    root = build_compbench(tmp_path / "cb", per_source=12, layout="prerelease")
    test = json.loads(_cub(root, "_test").read_text())
    _cub(root, "_test").write_text(json.dumps(test[:6]))
    out = tmp_path / "o"
    proc = run_cli(
        eval_args("random_choice", "compbench_attribute_cub", out),
        env=base_env(hf_home, COMPBENCH_ROOT=str(root)),
    )
    results, samples = read_run(out, proc)
    assert results["results"]["compbench_attribute_cub"]["counts,none"]["n"] == 6
    assert [s["accuracy"]["answer"] for s in sorted(samples["compbench_attribute_cub"], key=lambda s: s["doc_id"])] == [
        r["answer"] for r in test[:6]
    ]
    log = proc.stdout + proc.stderr
    assert (
        "the authors' test file CUB_0_1000_rebalanced_fixed_path_test.json in 3 record(s): 0 of the test "
        "file's 6 are not in the rebuilt split, 3 of the rebuilt split's 9" in log
    )
    assert "column attribute_cub has 6 records in its test split; the authors' test split has 696" in log
