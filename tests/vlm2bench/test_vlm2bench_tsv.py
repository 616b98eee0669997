"""VLM2-Bench from VLMEvalKit's VLM2Bench_img.tsv: the same items give the same docs and the same
scores as the unpacked zip; the TSV is found by folder and by file; pc_vid stops naming the zip."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import re
import sys
import types
from pathlib import Path

import pytest
from helpers import base_env, eval_args, read_run, run_cli
from PIL import Image

from lmms_comparative.benchmarks.vlm2bench import data, hooks, tsv
from lmms_comparative.benchmarks.vlm2bench.fixture import build as build_vlm2bench
from lmms_comparative.benchmarks.vlm2bench.fixture import write_tsv
from lmms_comparative.data import items
from lmms_comparative.failures import DataError

IMAGE_SUBTASKS = [s for s in data.SUBTASKS if s != "pc_vid"]
FAILED = "[LMMS_EVAL_REQUEST_FAILED after 3 retries] boom"


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    """One generated item set, as the unpacked zip and as VLMEvalKit's TSV (alone in its folder)."""
    base = tmp_path_factory.mktemp("v2tsv")
    zip_root = build_vlm2bench(base / "zip")
    return types.SimpleNamespace(zip=zip_root, tsv=write_tsv(zip_root, base / "tsv"))


def _docs(monkeypatch, root, subtask):
    monkeypatch.setenv("VLM2BENCH_ROOT", str(root))
    with items.collecting(items.Skips()) as skips:
        docs = data.subtask_docs(subtask)
    return docs, skips


def _without_images(docs):
    return [{k: v for k, v in d.items() if k != "images"} for d in docs]


def _log_lines():
    from loguru import logger

    lines: list[str] = []
    sink = logger.add(lambda message: lines.append(str(message)), level="INFO")
    return lines, lambda: logger.remove(sink)


@pytest.mark.parametrize("subtask", IMAGE_SUBTASKS)
def test_same_items_give_the_same_docs_from_both_sources(sources, monkeypatch, subtask):
    zip_docs, zip_skips = _docs(monkeypatch, sources.zip, subtask)
    tsv_docs, tsv_skips = _docs(monkeypatch, sources.tsv.parent, subtask)
    assert zip_docs and not zip_skips and not tsv_skips
    assert _without_images(tsv_docs) == _without_images(zip_docs)  # uid, pair_id, half, gt, n_images ...
    for z, t in zip(zip_docs, tsv_docs):
        assert len(t["images"]) == len(z["images"])
        assert [Path(p).read_bytes() for p in t["images"]] == [Path(p).read_bytes() for p in z["images"]]
        assert all(Path(p).parent == sources.tsv.parent / "VLM2Bench_img_images" for p in t["images"])


def _answer(doc, mode):
    gt = doc["gt"]
    if mode == "failed":
        return FAILED
    if doc["kind"] == "tf_gc":
        return {"right": gt, "wrong": {"T": "F", "F": "T"}[gt], "verbose": f"{gt}."}[mode]  # "T." is wrong for GC
    if doc["kind"] == "tf":
        return {
            "right": gt,
            "wrong": {"T": "F", "F": "T"}[gt],
            "verbose": f"The answer is {'True' if gt == 'T' else 'False'}.",
        }[mode]
    if doc["kind"] == "cnt":
        return {"right": gt, "wrong": str(int(gt) % doc["n_images"] + 1), "verbose": "seven"}[mode]
    return {"right": gt.split(")")[0] + ") yes", "wrong": "(A) or (B)", "verbose": gt}[mode]


def _mode(doc):
    tag = re.search(r"\[([^\]]+)\]", doc["question"]).group(1)
    return ["right", "wrong", "verbose", "right", "failed"][int(hashlib.md5(tag.encode()).hexdigest(), 16) % 5]


def _scores(docs, mode=_mode):
    samples = [hooks.process_results(doc, [_answer(doc, mode(doc))])["score"] for doc in docs]
    return samples, hooks.summarize(samples)


@pytest.mark.parametrize("subtask", IMAGE_SUBTASKS)
def test_same_answers_give_the_same_scores_from_both_sources(sources, monkeypatch, subtask):
    monkeypatch.setenv("LMMS_COMPARATIVE_MAX_FAILED", "1")  # the failed answers here are meant: no run flag
    zip_docs, _ = _docs(monkeypatch, sources.zip, subtask)
    tsv_docs, _ = _docs(monkeypatch, sources.tsv, subtask)
    zip_samples, zip_summary = _scores(zip_docs)
    tsv_samples, tsv_summary = _scores(tsv_docs)
    assert tsv_samples == zip_samples
    assert json.dumps(tsv_summary, sort_keys=True, default=str) == json.dumps(zip_summary, sort_keys=True, default=str)
    assert (
        len({(s["status"], s.get("correct")) for s in zip_samples}) > 1
    )  # the answers mix right, wrong, unparsed, failed
    # All right: the pairs, counts and options recovered from the TSV score full marks, as from the
    # zip (the GC script counts its incomplete pair as wrong: 3 of 4).
    right_zip, right_tsv = _scores(zip_docs, lambda d: "right")[1], _scores(tsv_docs, lambda d: "right")[1]
    assert right_tsv["score"] == right_zip["score"] == (0.75 if subtask.startswith("gc") else 1.0)
    assert right_tsv["counts"] == right_zip["counts"]


def test_tsv_is_found_by_folder_and_by_file_and_the_source_is_logged(sources, tmp_path, monkeypatch):
    monkeypatch.setattr(data, "_announced", set())  # as in a new process
    lines, stop = _log_lines()
    try:
        by_folder, _ = _docs(monkeypatch, sources.tsv.parent, "oc_cpr")
        by_file, _ = _docs(monkeypatch, sources.tsv, "oc_cpr")
        monkeypatch.setenv("VLM2BENCH_ROOT", str(sources.tsv))
        assert data.source().kind == "tsv" and data.source().path == sources.tsv
        # VLMEvalKit keeps the download as VLM2Bench.tsv: found in a folder under that name too.
        local = tmp_path / "LMUData"
        local.mkdir()
        (local / "VLM2Bench.tsv").write_bytes(sources.tsv.read_bytes())
        by_local_name, _ = _docs(monkeypatch, local, "oc_cpr")
        # A folder with both the zip's jsonl/ and a TSV is the zip (it has the videos).
        monkeypatch.setenv("VLM2BENCH_ROOT", str(sources.zip))
        assert data.source().kind == "zip"
    finally:
        stop()
    assert _without_images(by_folder) == _without_images(by_file) == _without_images(by_local_name)
    told = [line for line in lines if "reading VLMEvalKit's TSV" in line]
    assert any(str(sources.tsv) in line for line in told) and any(str(local / "VLM2Bench.tsv") in line for line in told)
    assert len(told) == 2  # once per source and process, not once per subtask or call


def test_unset_root_takes_the_hub_source(sources, monkeypatch):
    fetch = types.ModuleType("lmms_comparative.benchmarks.vlm2bench.fetch")
    fetch.hub_source = lambda: sources.tsv
    monkeypatch.setitem(sys.modules, fetch.__name__, fetch)
    monkeypatch.delenv("VLM2BENCH_ROOT", raising=False)
    found = data.source()
    assert (found.kind, found.path, found.origin) == ("tsv", sources.tsv, "the hub")
    fetch.hub_source = lambda: sources.zip
    assert data.source().kind == "zip"


def test_pc_vid_from_a_tsv_stops_naming_the_zip(sources, monkeypatch):
    for root in (sources.tsv, sources.tsv.parent):
        monkeypatch.setenv("VLM2BENCH_ROOT", str(root))
        with pytest.raises(DataError, match="pc_vid needs the videos of vlm2-bench_dataset.zip"):
            data.subtask_docs("pc_vid")
        with pytest.raises(SystemExit) as stopped:  # through the task hook: one line, the run ends
            hooks.process_docs_pc_vid(None)
        message = str(stopped.value.code)
        assert message.startswith("lmms-comparative: VLM2-Bench pc_vid needs the videos of vlm2-bench_dataset.zip")
        assert "set VLM2BENCH_ROOT to that folder" in message and "vlm2bench_image" in message


def test_a_path_that_is_neither_stops_with_the_variable(tmp_path, monkeypatch):
    other = tmp_path / "notes.txt"
    other.write_text("x")
    for path, says in (
        (tmp_path / "nowhere", "is not a directory (nor a file)"),
        (other, "is not a directory, and not a .tsv file"),
    ):
        monkeypatch.setenv("VLM2BENCH_ROOT", str(path))
        with pytest.raises(DataError, match=re.escape(f"VLM2BENCH_ROOT={str(path)!r} {says}")):
            data.subtask_docs("oc_cnt")


def test_images_are_decoded_once_atomically_and_again_when_the_tsv_changes(sources, tmp_path, monkeypatch):
    path = tmp_path / "VLM2Bench_img.tsv"
    path.write_bytes(sources.tsv.read_bytes())
    writes: list[str] = []
    real = tsv.tsv_images.write_atomic
    monkeypatch.setattr(tsv.tsv_images, "write_atomic", lambda p, blob: writes.append(Path(p).name) or real(p, blob))
    cache, first = tsv.load(path)
    n_images = sum(len(d["images"]) for docs in first["docs"].values() for d in docs)
    assert cache == tmp_path / "VLM2Bench_img_images" and len(writes) == n_images + 1 and writes[-1] == tsv.MANIFEST
    assert not list(cache.glob(".*.tmp"))  # every file renamed into place
    tsv._memo.clear()  # a new process: the manifest is read, nothing decoded
    assert tsv.load(path) == (cache, first) and len(writes) == n_images + 1
    tsv._memo.clear()  # an image gone from the cache: decoded again
    next(cache.glob("*.png")).unlink()
    tsv.load(path)
    assert len(writes) == 2 * (n_images + 1)
    tsv._memo.clear()  # a changed TSV (new size and mtime): decoded again, its own docs
    rows = path.read_text().splitlines()
    path.write_text("\n".join(r for r in rows if not r.startswith("oc-grp_grp0\t")) + "\n")
    _, changed = tsv.load(path)
    assert [d["uid"] for d in changed["docs"]["oc_grp"]] == ["grp1", "grp2", "grp3"]


def _png(colour) -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), colour).save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode()


def _write(path: Path, header: list[str], rows: list[list], quoting=csv.QUOTE_ALL) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, delimiter="\t", quoting=quoting, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
    return path


def test_vlmevalkit_variants_shared_images_quoting_and_optional_columns(tmp_path, monkeypatch):
    """Rows VLMEvalKit reads: every field quoted (its own dumps), a question with a tab and a
    newline, a row whose image field is another row's index (image_base.py), an image_seq_len
    column, a q_id column (the zip's rules then apply as they are), indexes without a category."""
    red, blue = _png("red"), _png("blue")
    header = ["index", "question", "answer", "category", "image", "image_seq_len", "q_id"]
    rows = [
        ["oc-cnt_a", "How many?\tCount\nthem.", "2", "oc-cnt", str([red, blue, red]), "3.0", ""],
        ["oc-cnt_b", "How many now?", "1", "oc-cnt", "oc-cnt_a", "", ""],  # shares a's three images
        ["x1", "Same? T or F", "T", "gc-mat", str([red, blue]), "", "g7"],
        ["x2", "Same? T or F", "F", "gc-mat", str([blue, red]), "", "g7"],
        ["7_p", "Same? T or F", "T", "PC-CPR", str([red, red]), "", ""],
        ["7_n", "Not same? T or F", "F", "pc_cpr", str([red, blue]), "", ""],
    ]
    path = _write(tmp_path / "VLM2Bench_img.tsv", header, rows)
    cnt, _ = _docs(monkeypatch, path, "oc_cnt")
    assert [(d["uid"], d["question"], d["gt"], d["n_images"]) for d in cnt] == [
        ("a", "How many?\tCount\nthem.", "2", 3),
        ("b", "How many now?", "1", 3),
    ]
    assert cnt[1]["images"] == cnt[0]["images"]
    assert Image.open(cnt[0]["images"][1]).getpixel((0, 0)) == (0, 0, 255)
    gc, _ = _docs(monkeypatch, path, "gc_mat")
    assert [(d["uid"], d["pair_id"], d["half"]) for d in gc] == [("g7", "g7", "p"), ("g7", "g7", "n")]
    pc, _ = _docs(monkeypatch, path, "pc_cpr")
    assert [(d["uid"], d["pair_id"], d["half"]) for d in pc] == [("7_p", "7", "p"), ("7_n", "7", "n")]


def test_a_localized_tsv_reads_its_image_files_and_a_hub_tsv_decodes_beside_the_snapshots(
    sources, tmp_path, monkeypatch
):
    """VLMEvalKit's ``*_local.tsv`` (vlmeval/smp/file.py localize_df) has image_path, no image."""
    pictures = tmp_path / "images" / "VLM2Bench"
    pictures.mkdir(parents=True)
    for name, colour in (("a_0.jpg", "red"), ("a_1.jpg", "blue")):
        Image.new("RGB", (8, 8), colour).save(pictures / name)
    header = ["index", "question", "answer", "category", "image_path"]
    path = _write(
        tmp_path / "VLM2Bench_local.tsv",
        header,
        [["oc-cnt_a", "How many?", "2", "oc-cnt", str([str(pictures / "a_0.jpg"), str(pictures / "a_1.jpg")])]],
    )
    docs, _ = _docs(monkeypatch, path, "oc_cnt")
    assert docs[0]["images"] == [str(pictures / "a_0.jpg"), str(pictures / "a_1.jpg")] and docs[0]["n_images"] == 2
    snapshot = tmp_path / "datasets--Sterzhang--vlm2-bench" / "snapshots" / "abc123"
    snapshot.mkdir(parents=True)
    (snapshot / "VLM2Bench_img.tsv").symlink_to(sources.tsv)
    assert (
        tsv.image_cache(snapshot / "VLM2Bench_img.tsv")
        == tmp_path / "datasets--Sterzhang--vlm2-bench" / "decoded" / "abc123" / "VLM2Bench_img_images"
    )
    docs, _ = _docs(monkeypatch, snapshot / "VLM2Bench_img.tsv", "pc_cnt")
    assert docs and all("/decoded/abc123/" in p for d in docs for p in d["images"])
    assert sorted(p.name for p in snapshot.iterdir()) == ["VLM2Bench_img.tsv"]


def test_unusable_rows_are_skipped_and_named_and_a_wrong_file_stops(tmp_path, monkeypatch):
    red = _png("red")
    header = ["index", "question", "answer", "category", "image"]
    rows = [
        ["oc-cpr_1_p", "q", "T", "oc-cpr", str([red, red])],
        ["oc-cpr_1_n", "q", "F", "oc-cpr", str([red, red])],
        [
            "oc-cpr_2_p",
            "q",
            "T",
            "oc-cpr",
            "not base64 at all, and long enough not to be an index: ~~~~~~~~~~~~~~~~~~~~~~~~",
        ],
        ["oc-cpr_1_p", "q", "T", "oc-cpr", str([red, red])],  # a repeated index
        ["oc-cpr_3", "q", "T", "oc-cpr", str([red, red])],  # no half
        ["oc-cpr_4_p", "q", "T", "oc-cpr", "oc-cpr_missing"],  # refers to no row
        ["pc-vid_1", "q", "", "pc-vid", red],  # not an image subtask: left out
    ]
    path = _write(tmp_path / "VLM2Bench_img.tsv", header, rows, quoting=csv.QUOTE_MINIMAL)
    docs, skips = _docs(monkeypatch, path, "oc_cpr")
    assert [d["uid"] for d in docs] == ["1_p", "1_n"]
    named = skips.by_reason[items.RECORD]
    assert len(named) == 4
    assert "line 4 (index 'oc-cpr_2_p'): image 1 is not base64" in named[0]
    assert "line 5 (index 'oc-cpr_1_p'): index repeats line 2" in named[1]
    assert "'oc-cpr_3' must end in <pair>_p or <pair>_n" in named[2]
    assert "names row 'oc-cpr_missing', which has no images of its own" in named[3]
    with pytest.raises(DataError, match=r"no row of category 'oc-cnt' \(oc_cnt\)"):
        data.subtask_docs("oc_cnt")
    bad = _write(tmp_path / "other.tsv", ["index", "question", "image"], [["1", "q", red]])
    monkeypatch.setenv("VLM2BENCH_ROOT", str(bad))
    with pytest.raises(DataError, match=r"not VLMEvalKit's VLM2Bench TSV: no column \['answer', 'category'\]"):
        data.subtask_docs("oc_cpr")


@pytest.mark.e2e
def test_the_cli_scores_the_tsv_as_the_zip(sources, hf_home, tmp_path):
    """``lmms-eval --model random_choice --tasks vlm2bench_image`` on the TSV and on the zip of the
    same items: the same results, subtask by subtask and for the group."""
    runs = {}
    for name, root in (("zip", sources.zip), ("tsv", sources.tsv)):
        proc = run_cli(
            eval_args("random_choice", "vlm2bench_image", tmp_path / name, log_samples=False),
            env=base_env(hf_home, VLM2BENCH_ROOT=str(root)),
        )
        assert proc.returncode == 0, proc.stderr[-4000:]
        runs[name] = (read_run(tmp_path / name, proc)[0], proc.stdout + proc.stderr)
    (zip_results, _), (tsv_results, tsv_log) = runs["zip"], runs["tsv"]
    assert f"reading VLMEvalKit's TSV {sources.tsv}" in tsv_log
    tasks = [f"vlm2bench_{s}" for s in IMAGE_SUBTASKS]
    assert set(tasks) <= set(tsv_results["results"])
    for task in tasks:
        assert json.dumps(tsv_results["results"][task], sort_keys=True) == json.dumps(
            zip_results["results"][task], sort_keys=True
        ), task
    assert tsv_results["results"]["vlm2bench_pc_cpr"]["counts,none"]["pairs"] == 3
    assert tsv_results["groups"]["vlm2bench_image"]["score,none"] == pytest.approx(
        zip_results["groups"]["vlm2bench_image"]["score,none"]
    )
