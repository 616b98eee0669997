"""Two GC T/F pairs under one ``q_id``: the release's GC files likely hold such records (the paper
counts 260 GC-Mat pairs, the authors' own runs 259 groups; release.json). The official
``code/gc/eval/eval_tf_batch_pair_3acc.py`` groups by q_id, a group's half right when any of its
records is; each record is still an item of its own here (``<q_id>~2#p``), so a run, ``score`` of
the official answers file and ``verify`` all work, and the score is the authors'. Through the CLI
on the fixture in the official layout, one pair's q_id set to another's."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest
from helpers import base_env, eval_args, read_run, run_cli, run_score
from helpers.verifying import verdicts, verify

from lmms_comparative.benchmarks.vlm2bench.fixture import build as build_vlm2bench

# A reply per record of the fixture's gc_mat.jsonl, in file order, once mat2 is renamed mat0.
REPLIES = ["F", "T", "T", "F", "T", "T", "T"]


def _authors_rule(rows: list[dict]) -> dict:
    """eval_tf_batch_pair_3acc.py's counts: group by q_id; T right in any record of the group, F
    likewise; a pair both (checked against the script itself on this file)."""
    groups = defaultdict(list)
    for row in rows:
        groups[row["q_id"]].append(row)
    p = sum(any(r["gt_answer"] == "T" and r["model_answer"] == "T" for r in g) for g in groups.values())
    n = sum(any(r["gt_answer"] == "F" and r["model_answer"] == "F" for r in g) for g in groups.values())
    both = sum(
        any(r["gt_answer"] == "T" and r["model_answer"] == "T" for r in g)
        and any(r["gt_answer"] == "F" and r["model_answer"] == "F" for r in g)
        for g in groups.values()
    )
    return {"pairs": len(groups), "positive": p / len(groups), "negative": n / len(groups), "pair": both / len(groups)}


@pytest.mark.e2e
def test_two_pairs_under_one_q_id_are_four_items_and_one_group_as_the_authors_score_them(hf_home, tmp_path):
    root = build_vlm2bench(tmp_path / "v")
    path = root / "jsonl/gc/vanilla/gc_mat.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["q_id"] for r in rows] == ["mat0", "mat0", "mat1", "mat1", "mat2", "mat2", "mat3"]
    for row in rows[4:6]:
        row["q_id"] = "mat0"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    env = base_env(hf_home, VLM2BENCH_ROOT=str(root))

    # A run of the task: seven items, each once; verify re-derives it.
    proc = run_cli(
        eval_args("random_choice", "vlm2bench_gc_mat", tmp_path / "run"),
        env=env,
    )
    results, _ = read_run(tmp_path / "run", proc)
    assert "2 record(s) share their q_id and answer with an earlier record" in proc.stdout + proc.stderr
    assert results["lmms_comparative"]["tasks"]["vlm2bench_gc_mat"]["items"]["count"] == 7
    assert results["results"]["vlm2bench_gc_mat"]["counts,none"]["pairs"] == 3
    checked = verify(tmp_path / "run", env)
    assert checked.returncode == 0 and verdicts(checked)["vlm2bench_gc_mat"].startswith("PASS"), checked.stdout[-2000:]

    # The official answers file (one record per question, in the jsonl's order) scores as the authors' script does.
    answers = tmp_path / "code/gc/test/test_res/test_mat/model_answers.jsonl"
    answers.parent.mkdir(parents=True)
    official = [
        {"q_id": r["q_id"], "question": r["question"], "model_answer": reply, "gt_answer": r["gt_answer"]}
        for r, reply in zip(rows, REPLIES)
    ]
    answers.write_text("".join(json.dumps(r) + "\n" for r in official))
    expected = _authors_rule(official)
    assert expected == {"pairs": 3, "positive": 1.0, "negative": pytest.approx(1 / 3), "pair": pytest.approx(1 / 3)}
    proc = run_score("vlm2bench", str(answers), "-o", str(tmp_path / "scored"), env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    results, samples = read_run(tmp_path / "scored", proc)
    row = results["results"]["vlm2bench_gc_mat"]
    assert row["score,none"] == pytest.approx(expected["pair"]) and row["counts,none"]["pairs"] == expected["pairs"], (
        row
    )
    assert len(samples["vlm2bench_gc_mat"]) == 7
    checked = verify(tmp_path / "scored", env)
    assert checked.returncode == 0 and verdicts(checked)["vlm2bench_gc_mat"].startswith("PASS"), checked.stdout[-2000:]


def test_vlmevalkits_prediction_file_keys_a_second_pair_under_one_pair_id_as_the_tsv_loader_does(tmp_path):
    """The TSV's GC pair is its index without the last ``_`` part: rows 7_a..7_d are two pairs of
    pair 7; keyed in row order as ``records.distinct_gc_uids`` keys the TSV's docs."""
    from lmms_comparative.benchmarks.vlm2bench.predictions import read_vlmevalkit
    from lmms_comparative.benchmarks.vlm2bench.records import distinct_gc_uids
    from lmms_comparative.data.replies import Options

    rows = [("gc-mat_7_a", "T"), ("gc-mat_7_b", "F"), ("gc-mat_7_c", "T"), ("gc-mat_7_d", "F"), ("gc-trk_7_a", "T")]
    path = tmp_path / "m_VLM2Bench.csv"
    path.write_text(
        "index,question,answer,category,prediction\n" + "".join(f"{i},q,{a},{i.split('_')[0]},{a}\n" for i, a in rows)
    )
    replies = read_vlmevalkit(path, Options())
    assert list(replies.by_task["vlm2bench_gc_mat"]) == ["7#p", "7#n", "7~2#p", "7~2#n"]
    assert list(replies.by_task["vlm2bench_gc_trk"]) == ["7#p"]  # counted per subtask
    docs = [{"uid": "7", "pair_id": "7", "half": h, "kind": "tf_gc"} for h in "pnpn"]
    assert [d["uid"] for d in distinct_gc_uids(docs, "gc_mat")] == ["7", "7", "7~2", "7~2"] and {
        d["pair_id"] for d in docs
    } == {"7"}


def test_the_zip_loader_counts_an_unusable_record_as_the_answers_readers_do(tmp_path):
    """The official answers file lists every record; a GC record the loader skips (no images) still
    counts towards the next record's number, so the loader and the reader key it alike."""
    from lmms_comparative.benchmarks.vlm2bench import data
    from lmms_comparative.benchmarks.vlm2bench.predictions import read_official
    from lmms_comparative.data.replies import Options

    root = build_vlm2bench(tmp_path / "v")
    path = root / "jsonl/gc/vanilla/gc_mat.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    for row in rows[4:6]:
        row["q_id"] = "mat0"
    rows[0]["images"] = []  # the first mat0 T record: unusable, skipped
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    docs = data._zip_docs(root, "gc_mat")
    keys = [f"{d['uid']}#{d['half']}" for d in docs]
    assert keys == ["mat0#n", "mat1#p", "mat1#n", "mat0~2#p", "mat0~2#n", "mat3#p"]
    answers = tmp_path / "code/gc/test/test_res/test_mat/model_answers.jsonl"
    answers.parent.mkdir(parents=True)
    answers.write_text(
        "".join(json.dumps({"q_id": r["q_id"], "model_answer": "T", "gt_answer": r["gt_answer"]}) + "\n" for r in rows)
    )
    read = list(read_official(answers, Options()).by_task["vlm2bench_gc_mat"])
    assert (
        set(keys) <= set(read) and read[0] == "mat0#p"
    )  # the skipped record's key is the reader's first: never scored


def test_a_q_id_that_is_literally_another_pairs_numbered_uid_stops_the_load_and_its_honest_twin_loads(tmp_path):
    """``<q_id>~2`` numbers a second pair under one q_id; a file whose own q_id is literally that
    name would make two records one item (one overwriting the other in a score). The load stops
    with the clashing key named; the same file with that q_id renamed loads as four items."""
    from lmms_comparative.benchmarks.vlm2bench import data
    from lmms_comparative.failures import DataError

    root = build_vlm2bench(tmp_path / "v")
    path = root / "jsonl/gc/vanilla/gc_mat.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    for row, q_id in zip(rows[:6], ["mat0", "mat0", "mat0", "mat0", "mat0~2", "mat0~2"]):
        row["q_id"] = q_id
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(DataError, match=r"gc_mat: item key\(s\) mat0~2#n, mat0~2#p name two records"):
        data._zip_docs(root, "gc_mat")
    for row in rows[4:6]:
        row["q_id"] = "mat0x"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert [f"{d['uid']}#{d['half']}" for d in data._zip_docs(root, "gc_mat")] == [
        "mat0#p",
        "mat0#n",
        "mat0~2#p",
        "mat0~2#n",
        "mat0x#p",
        "mat0x#n",
        "mat3#p",
    ]
