"""A COMPBENCH_ROOT holding the authors' test split as published with their replies
(``compbench/items`` of the reference outputs folder), in the release's record fields, one
``<source>_test.json`` per source (``<source>_att_test.json`` / ``_state_test.json`` for MIT-States
and VAW, the names the authors' ``val_test_split.py`` writes). No image files: a scoring run never
opens them. The MagicBrush, Spot-the-diff and Q-Bench2 options are not in the items files; they
come from a reply file's ``options`` (the authors' records' own, split on ",")."""

from __future__ import annotations

import json
import os
from pathlib import Path

from lmms_comparative.benchmarks.compbench.files import COLUMN_BY_TASK
from lmms_comparative.benchmarks.compbench.predictions import COLUMN_CODES

# Why these tests skip in a clone alone. The replies (19 MB) come from the authors' working
# repository github.com/RaptorMai/CompBenchReview (commit 54559d3), which has no license file:
# nothing grants redistribution, so they are never copied into this one. tools/reference_outputs.py
# builds them from that repository (and checks their sha256); the variable names the folder, by
# default the shared folder beside the clone.
VARIABLE = "LMMS_COMPARATIVE_REFERENCE_OUTPUTS"
BUILD = "python tools/reference_outputs.py build DIR"
REFERENCE = (
    Path(os.environ.get(VARIABLE) or Path(__file__).resolve().parents[2].parent / "shared" / "reference_outputs")
    .expanduser()
    .resolve()
)
COMPBENCH = REFERENCE / "compbench"
SKIP_REASON = (
    f"the authors' published MLLM-CompBench replies are not in {REFERENCE}: build them with `{BUILD}` (from "
    f"their repository, which has no license, so they are not part of this one) and set {VARIABLE}=DIR"
)


def jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _record(item: dict, kind: str, options: list[str] | None) -> dict:
    if kind == "qbench":
        return {"image": item["image"], "question": item["question"], "options": options, "answer": item["gt"]}
    record = {"image_1": item["image_1"], "image_2": item["image_2"], "answer": item["gt"]}
    record.update({field: item[field] for field in ("question", "action", "type") if field in item})
    if kind == "options":
        record["options"] = options
    return record


def build_root(root: Path, options_from: str = "gpt4v") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for code, task in COLUMN_CODES.items():
        column = COLUMN_BY_TASK[task]
        options = {}
        if column.kind in ("options", "qbench"):
            options = {row["idx"]: row["options"] for row in jsonl(COMPBENCH / f"{options_from}_{code}.jsonl")}
        records = [
            _record(item, column.kind, options.get(item["idx"]))
            for item in jsonl(COMPBENCH / "items" / f"{code}.jsonl")
        ]
        infix = {"attribute": "_att", "state": "_state"}.get(column.type_filter or "", "")
        (root / f"{column.label}{infix}_test.json").write_text(json.dumps(records), encoding="utf-8")
    return root
