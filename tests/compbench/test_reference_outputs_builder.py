"""tools/reference_outputs.py builds the reference outputs (the authors' published replies joined to
their test split) from a git repository in the authors' layout and checks each file's sha256.

Here on a tiny repository made in the test (no network): the join rule (the key with and without a
question, CUB paths, the later of two records, several result files, API-error objects, Gemini's
summarised SoccerNet replies, options kept with their empty parts), the hash check that names a
changed file and passes an unchanged one, the errors a contributor sees, and the committed manifest
and hash list agreeing with each other.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest
from helpers import load_module

ROOT = Path(__file__).resolve().parents[2]


tool = load_module(ROOT / "tools" / "reference_outputs.py")

CUB = "cub_200_2011/att_cls_images/test"
TEST_SPLITS = {
    "Labeled_data/cub_label/cub_test.json": [
        {
            "image_1": f"{CUB}/1/a.jpg",
            "image_2": f"{CUB}/1/b.jpg",
            "answer": "Right",
            "question": "Which bird is redder?",
        },
        {
            "image_1": f"{CUB}/2/c.jpg",
            "image_2": f"{CUB}/2/d.jpg",
            "answer": "Left",
            "question": "Which bird is bluer?",
        },
        {
            "image_1": f"{CUB}/3/e.jpg",
            "image_2": f"{CUB}/3/f.jpg",
            "answer": "Left",
            "question": "Which bird is larger?",
        },
    ],
    "Labeled_data/car_label/car_test.json": [{"image_1": "cars/1.jpg", "image_2": "cars/2.jpg", "answer": "Right"}],
    "Labeled_data/mb_label/mb_test.json": [
        {
            "path_input": "mb/1-in.png",
            "path_output": "mb/1-out.png",
            "Modified_option": "cat, dog, ",
            "Answeer": "dog",
            "Quality": "good",
        }
    ],
    "Labeled_data/soccernet_label/soccer_test.json": [
        {"left": "epl/x/1.png", "right": "epl/x/2.png", "answer": "Left", "action": "Goal", "league": "epl"},
        {"left": "liga/y/1.png", "right": "liga/y/2.png", "answer": "Right", "action": "Foul", "league": "liga"},
    ],
}
ERROR = {"error": {"message": "The server had an error processing your request. " * 8, "type": "server_error"}}
RESULTS = {
    # The first record's paths are written with Windows separators, the second's lack the dataset
    # folder; the third test item has two records (the later counts); a string is not a record.
    "results/cub/0_gpt.json": [
        {
            "image_1": f"{CUB}\\1\\a.jpg",
            "image_2": f"{CUB}\\1\\b.jpg",
            "answer": "Right",
            "question": "Which bird is redder?",
            "gpt_answer": "Right.",
        },
        {
            "image_1": "att_cls_images/test/2/c.jpg",
            "image_2": "att_cls_images/test/2/d.jpg",
            "answer": "Left",
            "question": "Which bird is bluer?",
            "gpt_answer": ERROR,
        },
        {
            "image_1": f"{CUB}/3/e.jpg",
            "image_2": f"{CUB}/3/f.jpg",
            "answer": "Left",
            "question": "Which bird is larger?",
            "gpt_answer": "Right",
        },
        "not a record",
        {
            "image_1": f"{CUB}/3/e.jpg",
            "image_2": f"{CUB}/3/f.jpg",
            "answer": "Left",
            "question": "Which bird is larger?",
            "gpt_answer": "First",
        },
        {
            "image_1": f"{CUB}/9/z.jpg",
            "image_2": f"{CUB}/9/y.jpg",
            "answer": "Left",
            "question": "Not in the split?",
            "gpt_answer": "Left",
        },
    ],
    "results/car/0_llava.jsonl": [
        {"image_1": "cars/1.jpg", "image_2": "cars/2.jpg", "answer": "Right", "llava_answer": "Second"}
    ],
    "results/mb/mb_gpt.json": [
        {
            "path_input": "mb/1-in.png",
            "path_output": "mb/1-out.png",
            "Modified_option": "cat, dog, ",
            "Answeer": "dog",
            "gpt_answer": "Dog",
        }
    ],
    "results/soccernet/old/epl_gemini_summary.json": [
        {
            "left": "epl/x/1.png",
            "right": "epl/x/2.png",
            "answer": "Left",
            "gemini_answer": " The left one é",
            "gemini_summary_answer": "Left",
        }
    ],
    "results/soccernet/old/liga_gemini_summary.json": [
        {
            "left": "liga/y/1.png",
            "right": "liga/y/2.png",
            "answer": "Right",
            "gemini_answer": " Second frame",
            "gemini_summary_answer": "Right",
        }
    ],
}
CELLS = [  # (file, model, column, kind, test split, result files)
    (
        "compbench/gpt4v_CU.jsonl",
        "gpt4v",
        "CU",
        "binary",
        "Labeled_data/cub_label/cub_test.json",
        ["results/cub/0_gpt.json"],
    ),
    (
        "compbench/llava1.6-34b_CC.jsonl",
        "llava1.6-34b",
        "CC",
        "cars",
        "Labeled_data/car_label/car_test.json",
        ["results/car/0_llava.jsonl"],
    ),
    (
        "compbench/gpt4v_MB.jsonl",
        "gpt4v",
        "MB",
        "options",
        "Labeled_data/mb_label/mb_test.json",
        ["results/mb/mb_gpt.json"],
    ),
    (
        "compbench/gemini1.0pro_SN.jsonl",
        "gemini1.0pro",
        "SN",
        "soccer",
        "Labeled_data/soccernet_label/soccer_test.json",
        ["results/soccernet/old/epl_gemini_summary.json", "results/soccernet/old/liga_gemini_summary.json"],
    ),
]
# What the rules give, written out by hand.
EXPECTED = {
    "compbench/items/CU.jsonl": [
        {
            "column": "CU",
            "kind": "binary",
            "idx": 0,
            "image_1": f"{CUB}/1/a.jpg",
            "image_2": f"{CUB}/1/b.jpg",
            "question": "Which bird is redder?",
            "gt": "Right",
        },
        {
            "column": "CU",
            "kind": "binary",
            "idx": 1,
            "image_1": f"{CUB}/2/c.jpg",
            "image_2": f"{CUB}/2/d.jpg",
            "question": "Which bird is bluer?",
            "gt": "Left",
        },
        {
            "column": "CU",
            "kind": "binary",
            "idx": 2,
            "image_1": f"{CUB}/3/e.jpg",
            "image_2": f"{CUB}/3/f.jpg",
            "question": "Which bird is larger?",
            "gt": "Left",
        },
    ],
    "compbench/gpt4v_CU.jsonl": [
        {"column": "CU", "idx": 0, "gt": "Right", "reply": "Right."},
        {"column": "CU", "idx": 1, "gt": "Left", "reply": None, "api_error": json.dumps(ERROR)[:300]},
        {"column": "CU", "idx": 2, "gt": "Left", "reply": "First"},
    ],
    "compbench/items/CC.jsonl": [
        {"column": "CC", "kind": "cars", "idx": 0, "image_1": "cars/1.jpg", "image_2": "cars/2.jpg", "gt": "Right"}
    ],
    "compbench/llava1.6-34b_CC.jsonl": [{"column": "CC", "idx": 0, "gt": "Right", "reply": "Second"}],
    "compbench/items/MB.jsonl": [
        {"column": "MB", "kind": "options", "idx": 0, "image_1": "mb/1-in.png", "image_2": "mb/1-out.png", "gt": "dog"}
    ],
    "compbench/gpt4v_MB.jsonl": [
        {"column": "MB", "idx": 0, "options": ["cat", "dog", ""], "gt": "dog", "reply": "Dog"}
    ],
    "compbench/items/SN.jsonl": [
        {
            "column": "SN",
            "kind": "soccer",
            "idx": 0,
            "image_1": "epl/x/1.png",
            "image_2": "epl/x/2.png",
            "action": "Goal",
            "gt": "Left",
        },
        {
            "column": "SN",
            "kind": "soccer",
            "idx": 1,
            "image_1": "liga/y/1.png",
            "image_2": "liga/y/2.png",
            "action": "Foul",
            "gt": "Right",
        },
    ],
    "compbench/gemini1.0pro_SN.jsonl": [
        {"column": "SN", "idx": 0, "gt": "Left", "reply": "Left", "raw_reply": " The left one é"},
        {"column": "SN", "idx": 1, "gt": "Right", "reply": "Right", "raw_reply": " Second frame"},
    ],
}


def _git(repo: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
        "GIT_CONFIG_GLOBAL": os.devnull,
    }
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env
    ).stdout.strip()


def _authors_repo(root: Path, results: dict = RESULTS) -> tuple[Path, str]:
    repo = root / "authors"
    for path, records in {**TEST_SPLITS, **results}.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        text = "".join(json.dumps(r) + "\n" for r in records) if path.endswith(".jsonl") else json.dumps(records)
        (repo / path).write_text(text, encoding="utf-8")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "results")
    return repo, _git(repo, "rev-parse", "HEAD")


def _manifest(root: Path, commit: str) -> Path:
    cells = [
        {
            "file": f,
            "benchmark": "mllm-compbench",
            "model": m,
            "column": c,
            "kind": k,
            "source": {
                "repository": "github.com/example/authors",
                "commit": commit,
                "result_files": r,
                "test_split_file": t,
            },
        }
        for f, m, c, k, t, r in CELLS
    ]
    path = root / "manifest.json"
    path.write_text(json.dumps({"description": "test", "cells": cells}), encoding="utf-8")
    return path


def _bytes(lines: list[dict]) -> bytes:
    return "".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines).encode("utf-8")


def _sums(root: Path, manifest: Path) -> Path:
    files = {name: _bytes(lines) for name, lines in EXPECTED.items()}
    files["manifest.json"] = tool.manifest_bytes(json.loads(manifest.read_text(encoding="utf-8")))
    path = root / "expected.sha256"
    path.write_text(
        "".join(f"{hashlib.sha256(data).hexdigest()}  {name}\n" for name, data in sorted(files.items())),
        encoding="utf-8",
    )
    return path


@pytest.fixture
def authors(tmp_path):
    repo, commit = _authors_repo(tmp_path)
    manifest = _manifest(tmp_path, commit)
    return repo, manifest, _sums(tmp_path, manifest)


def test_the_join_rule_gives_the_files_written_out_by_hand(authors, tmp_path):
    repo, manifest, sums = authors
    out = tmp_path / "out"
    assert tool.build(out, str(repo), manifest, sums) == []
    for name, lines in EXPECTED.items():
        assert [json.loads(line) for line in (out / name).read_text(encoding="utf-8").splitlines()] == lines, name
    assert "é" in (out / "compbench/gemini1.0pro_SN.jsonl").read_text(encoding="utf-8")  # UTF-8, not \\u escapes
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == sorted(
        [*EXPECTED, "manifest.json"]
    )


def test_a_changed_file_is_named_and_an_unchanged_one_is_not(authors, tmp_path):
    repo, manifest, sums = authors
    out = tmp_path / "out"
    assert tool.build(out, str(repo), manifest, sums) == []
    assert tool.differences(out, tool.read_sums(sums)) == []  # the honest twin: the same folder passes
    changed = out / "compbench/gpt4v_CU.jsonl"
    changed.write_bytes(changed.read_bytes().replace(b'"reply":"First"', b'"reply":"Left"'))
    (out / "compbench/items/CC.jsonl").unlink()
    assert tool.differences(out, tool.read_sums(sums)) == [
        f"differs from the committed sha256: {changed}",
        f"missing: {out / 'compbench/items/CC.jsonl'}",
    ]


def test_a_changed_source_is_caught_by_the_hash_of_the_file_it_makes(tmp_path):
    results = {
        **RESULTS,
        "results/car/0_llava.jsonl": [{**RESULTS["results/car/0_llava.jsonl"][0], "llava_answer": "First"}],
    }
    repo, commit = _authors_repo(tmp_path, results)
    manifest = _manifest(tmp_path, commit)
    out = tmp_path / "out"
    assert tool.build(out, str(repo), manifest, _sums(tmp_path, manifest)) == [
        f"differs from the committed sha256: {out / 'compbench/llava1.6-34b_CC.jsonl'}"
    ]


def test_a_url_is_fetched_at_the_commit_and_an_unreachable_one_is_one_clear_error(authors, tmp_path):
    repo, manifest, sums = authors
    assert tool.build(tmp_path / "out", repo.as_uri(), manifest, sums) == []
    with pytest.raises(
        tool.BuildError,
        match=r"could not fetch commit [0-9a-f]{40} of file:///no/such/repository \(is the network "
        r"reachable\?\).*--repo PATH",
    ):
        tool.build(tmp_path / "out2", "file:///no/such/repository", manifest, sums)
    with pytest.raises(tool.BuildError, match="not a git repository holding commit"):
        tool.build(tmp_path / "out3", str(tmp_path), manifest, sums)


def test_a_test_item_without_a_reply_is_an_error_naming_it(tmp_path):
    results = {**RESULTS, "results/cub/0_gpt.json": RESULTS["results/cub/0_gpt.json"][:1]}
    repo, commit = _authors_repo(tmp_path, results)
    manifest = _manifest(tmp_path, commit)
    with pytest.raises(
        tool.BuildError,
        match=r"compbench/gpt4v_CU.jsonl: test item 1 of Labeled_data/cub_label/cub_test.json has no record in "
        r"results/cub/0_gpt.json",
    ):
        tool.build(tmp_path / "out", str(repo), manifest, _sums(tmp_path, manifest))


def test_the_committed_manifest_and_hash_list_agree():
    manifest = json.loads(tool.MANIFEST.read_text(encoding="utf-8"))
    sums = tool.read_sums(tool.SUMS)
    columns = {c["column"] for c in manifest["cells"]}
    assert sorted(sums) == sorted(
        ["manifest.json"] + [c["file"] for c in manifest["cells"]] + [f"compbench/items/{c}.jsonl" for c in columns]
    )
    assert len(sums) == 86 and len(manifest["cells"]) == 69 and len(columns) == 16
    assert hashlib.sha256(tool.manifest_bytes(manifest)).hexdigest() == sums["manifest.json"]
    assert {c["model"] for c in manifest["cells"]} <= set(tool.ANSWER_FIELD)
    assert {(c["source"]["repository"], c["source"]["commit"]) for c in manifest["cells"]} == {
        ("github.com/RaptorMai/CompBenchReview", "54559d3e2b518bd19a942f2707b36faa2a4dca98")
    }
