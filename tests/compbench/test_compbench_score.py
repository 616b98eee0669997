"""``lmms-comparative score compbench``: the authors' published replies (GPT-4V, Gemini1.0-Pro,
LLaVA-1.6-34b, VILA-1.5-40b, and Table 3's two-stage and fine-tuned runs), scored through the real
CLI, the replay model and lmms-eval's own results files, give every paper cell marked
``check: true`` in the reference outputs' ``manifest.json`` (66 cells); files joined to the
wrong split, replies for items the split lacks and missing replies are caught and counted.

The replies are never copied here: ``python tools/reference_outputs.py build DIR`` builds them and
``LMMS_COMPARATIVE_REFERENCE_OUTPUTS=DIR`` points the tests at them (default: the sibling ``shared``
folder); the tests skip without them.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import pytest
from helpers import base_env, read_run, run_report, run_score
from helpers.compbench_reference import COMPBENCH, REFERENCE, SKIP_REASON, build_root, jsonl

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(not (REFERENCE / "manifest.json").is_file(), reason=SKIP_REASON)]

# The protocol each row of the paper was run with (paper §4 and appendix C): the API models got the
# two images, LLaVA-1.6 and VILA-1.5 one concatenated image; Table 3's two-stage replies are the
# final answers of the two-stage tasks.
FAMILY = {"gpt4v": "compbench_pair", "gemini1.0pro": "compbench_pair", "gpt4v-two-stage": "compbench_twostage"}


def _cells() -> list[dict]:
    if not (REFERENCE / "manifest.json").is_file():
        return []
    cells = json.loads((REFERENCE / "manifest.json").read_text())["cells"]
    return [c for c in cells if c["benchmark"] == "mllm-compbench"]


def _by_model() -> dict[str, list[dict]]:
    out = defaultdict(list)
    for cell in _cells():
        out[cell["model"]].append(cell)
    return dict(out)


@pytest.fixture(scope="module")
def reference_root(tmp_path_factory) -> Path:
    return build_root(tmp_path_factory.mktemp("compbench_reference"))


def _score(root: Path, hf_home: Path, out: Path, files: list[Path], *args: str, **env: str):
    proc = run_score(
        "compbench", *map(str, files), "-o", str(out), *args, env=base_env(hf_home, COMPBENCH_ROOT=str(root), **env)
    )
    return proc


def test_the_manifest_has_the_cells_we_expect():
    assert len(_cells()) == 69 and sum(c["check"] for c in _cells()) == 66
    assert sorted(_by_model()) == [
        "gemini1.0pro",
        "gpt4v",
        "gpt4v-two-stage",
        "llava1.6-34b",
        "llava1.6-34b-finetuned",
        "vila1.5-40b",
    ]


@pytest.mark.parametrize("model", sorted(_by_model()))
def test_the_published_replies_give_the_paper_cells(model, reference_root, hf_home, tmp_path):
    cells = _by_model()[model]
    family = FAMILY.get(model, "compbench")
    files = [REFERENCE / c["file"] for c in cells]
    proc = _score(reference_root, hf_home, tmp_path / "out", files, "--family", family, "--model-name", model)
    results, samples = read_run(tmp_path / "out", proc)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert results["config"]["model"] == "replay" and f"model_version={model}" in results["config"]["model_args"]
    for cell in cells:
        task = f"{family}_{cell['project_task']}"
        row = results["results"][task]
        counts = row["counts,none"]
        assert counts["n"] == cell["n_items"] and counts["failed"] == 0 and counts["skipped"] == 0, (
            cell["cell"],
            counts,
        )
        assert len(samples[task]) == cell["n_items"]
        if cell["check"]:
            assert counts["correct"] == cell["authors_rule"]["correct"], cell["cell"]
            assert round(100 * row["accuracy,none"], 1) == pytest.approx(cell["paper"], abs=0.05 + 1e-9), cell["cell"]
    # Files that cover every task of the family's group run as the group: its Avg row is written,
    # and the report sets the run beside the paper's row of the same model, with the check.
    from lmms_comparative.registry import BY_NAME
    from lmms_comparative.rescoring.run import benchmark_groups

    covered = {f"{family}_{c['project_task']}" for c in cells}
    if set(benchmark_groups(BY_NAME["compbench"]).get(family, ["-"])) <= covered:
        assert family in results["groups"], sorted(results.get("groups", {}))
        if model == "gpt4v":
            report = run_report(str(tmp_path / "out"), "-o", str(tmp_path / "report"))
            markdown = (tmp_path / "report" / "report.md").read_text()
            assert report.returncode == 0 and re.search(
                r"`gpt4v`(?: †)? is the paper's \*\*[^*]+\*\* \(MLLM-CompBench, Table \d+\): reproduced in "
                r"\d+ of \d+ columns",
                markdown,
            ), markdown[-3000:]
    # The samples log holds each reply verbatim, in the file's order (lmms-eval leaves out
    # ``resps`` where it equals ``filtered_resps``).
    first = cells[0]
    rows = jsonl(REFERENCE / first["file"])
    logged = sorted(samples[f"{family}_{first['project_task']}"], key=lambda s: s["doc_id"])
    assert [_last(s.get("resps", s["filtered_resps"])) for s in logged] == [
        r["reply"] if r["reply"] is not None else r["api_error"] for r in rows
    ]


def _last(value):
    """A samples line's reply: the string, or the last round of a multi-step task's list."""
    while isinstance(value, list):
        value = value[-1]
    return value


def _rows(code: str = "ST_attr", model: str = "gpt4v") -> list[dict]:
    return jsonl(COMPBENCH / f"{model}_{code}.jsonl")


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_replies_joined_to_another_order_stop_the_run(reference_root, hf_home, tmp_path):
    rows = _rows()
    shifted = [{**r, "idx": (r["idx"] + 1) % len(rows)} for r in rows]
    proc = _score(reference_root, hf_home, tmp_path / "out", [_write(tmp_path / "gpt4v_ST_attr.jsonl", shifted)])
    assert proc.returncode == 1
    assert "disagree with the data" in proc.stderr and "do not belong to this split or order" in proc.stderr


def test_replies_for_items_the_split_lacks_stop_the_run(reference_root, hf_home, tmp_path):
    rows = _rows() + [{"column": "ST_attr", "idx": 5000, "reply": "Left"}]
    proc = _score(reference_root, hf_home, tmp_path / "out", [_write(tmp_path / "extra.jsonl", rows)])
    assert proc.returncode == 1
    assert (
        "1 prediction(s) for items that compbench_attribute_mitstates does not have: 'attribute_mitstates:5000'"
        in proc.stderr
    )


def test_missing_replies_are_counted_as_failed_and_flag_the_run(reference_root, hf_home, tmp_path):
    rows = _rows()
    kept = rows[10:]
    proc = _score(reference_root, hf_home, tmp_path / "out", [_write(tmp_path / "part.jsonl", kept)])
    results, _ = read_run(tmp_path / "out", proc)
    counts = results["results"]["compbench_attribute_mitstates"]["counts,none"]
    assert counts["n"] == len(rows) and counts["failed"] == 10 and counts["scored"] == len(rows) - 10
    assert "10 of 146 request(s) of compbench_attribute_mitstates have no prediction" in proc.stdout + proc.stderr
    assert proc.returncode == 1  # 10 of 146 is past the default 5 % share
    proc = _score(
        reference_root,
        hf_home,
        tmp_path / "out2",
        [_write(tmp_path / "part.jsonl", kept)],
        LMMS_COMPARATIVE_MAX_FAILED="0.1",
    )
    assert proc.returncode == 0, proc.stderr[-2000:]


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([{"column": "XX", "idx": 0, "reply": "Left"}], "'column' must be one of"),
        (
            [{"column": "ST_attr", "idx": "0", "reply": "Left"}],
            "'idx' (the item's place in the authors' test split) must be a non-negative integer",
        ),
        ([{"column": "ST_attr", "idx": 0, "reply": None}], "'reply' must be a string"),
        (
            [{"column": "ST_attr", "idx": 0, "reply": "Left"}, {"column": "ST_attr", "idx": 0, "reply": "Right"}],
            "a second prediction for item 'attribute_mitstates:0'",
        ),
    ],
)
def test_malformed_files_get_one_message_and_status_2(rows, message, reference_root, hf_home, tmp_path):
    path = _write(tmp_path / "bad.jsonl", rows)
    proc = _score(reference_root, hf_home, tmp_path / "out", [path], "--format", "authors")
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr
    assert str(path) in proc.stderr and not (tmp_path / "out").exists()
