"""MLLM-CompBench predictions made elsewhere (``lmms-comparative score compbench``).

Items are found by ``uid``: ``<column task>:<place in the authors' split>`` (``data.column_docs``),
e.g. ``attribute_mitstates:12``, ``full_attribute_mitstates:12`` on the full set.

Format ``authors``: the authors' per-item replies as published with their paper's cells (one JSON
line per test item of one column, in the authors' test-split order), e.g.::

    {"column": "MB", "idx": 3, "gt": "white rabbit", "reply": "brown rabbit", "options": ["window", ...]}

``column`` is the paper's column code (``ST_attr``, ``FA``, ``VA_attr``, ``CU``, ``WF``, ``MB``, ``SD``,
``ST_state``, ``VA_state``, ``CE``, ``FE``, ``SN``, ``CC``, ``ND``, ``VQ``, ``QB``), ``idx`` the item's place in
the authors' ``*_test.json`` (CompBenchReview ``val_test_split.py``), ``gt`` the answer (checked
against the data: a file joined to another split stops the run), ``reply`` the model's reply. A
reply stored as an API error object has ``reply: null`` and the error's text in ``api_error``: the
authors count such an item wrong (``get_acc`` in ``val_test_split.py`` appends it to ``error``), so
the error text is scored as the reply (it parses to nothing: wrong, not a failed request).

The authors' two-stage replies (Table 3 left) keep only the final answer (``gpt_decompose_answer``:
an option, or Left/Right/Error from comparing the two numbers): scored with ``--family
compbench_twostage``, each is its item's final answer.
"""

from __future__ import annotations

from pathlib import Path

from lmms_comparative.benchmarks.compbench import table
from lmms_comparative.data.replies import Options, PredictionsError, Replies, read_jsonl
from lmms_comparative.record import PredictionsPart
from lmms_comparative.tasklib.file_opening import text_opening

# The paper's column codes (Table 2) -> the column task (``files.COLUMN_BY_TASK``).
COLUMN_CODES = {
    "ST_attr": "attribute_mitstates", "FA": "attribute_fashionpedia", "VA_attr": "attribute_vaw",
    "CU": "attribute_cub", "WF": "attribute_wildfish", "MB": "existence_magicbrush", "SD": "existence_spotdiff",
    "ST_state": "state_mitstates", "VA_state": "state_vaw", "CE": "emotion_celeba", "FE": "emotion_fer2013",
    "SN": "temporality_soccernet", "CC": "temporality_compcars", "ND": "spatiality_nyudepth",
    "VQ": "quantity_vqav2", "QB": "quality_qbench2",
}  # fmt: skip
# The families whose docs are the authors' test split (compbench_full is every record);
# compbench_twostage has three columns (Table 3 left), here by their codes (MB, CE, ND).
TEST_FAMILIES = tuple(table.task(f) for f in table.FAMILIES if f != "full")
TWO_STAGE_COLUMNS = tuple(code for code, column in COLUMN_CODES.items() if column in table.TWO_STAGE_COLUMNS)


def read_authors(path: Path, options: Options) -> Replies:
    """Format ``authors`` (module docstring): the authors' per-item replies of the ``--family`` given,
    keyed by ``uid``."""
    family = options.family or "compbench"
    if family not in TEST_FAMILIES:
        raise PredictionsError(
            f"{path}: the authors' replies are for their test split; --family must be one of "
            f"{', '.join(TEST_FAMILIES)}, not {family!r}"
        )
    out = Replies(sources=[str(path)])
    for number, row in enumerate(read_jsonl(path), 1):
        where = f"{path}, line {number}"
        column = row.get("column")
        if column not in COLUMN_CODES:
            raise PredictionsError(f"{where}: 'column' must be one of {', '.join(COLUMN_CODES)}, got {column!r}")
        if not isinstance(row.get("idx"), int) or row["idx"] < 0:
            raise PredictionsError(
                f"{where}: 'idx' (the item's place in the authors' test split) must be a non-negative integer, got "
                f"{row.get('idx')!r}"
            )
        reply = row.get("reply")
        if reply is None:
            reply = row.get("api_error")
        if not isinstance(reply, str):
            raise PredictionsError(
                f"{where}: 'reply' must be a string (or null with the error text in 'api_error'), got {reply!r:.80}"
            )
        if family == "compbench_twostage" and column not in TWO_STAGE_COLUMNS:
            raise PredictionsError(
                f"{where}: compbench_twostage has the columns {', '.join(TWO_STAGE_COLUMNS)} (Table 3 left), not "
                f"{column}"
            )
        base = COLUMN_CODES[column]
        task = f"{family}_{base}"
        key = f"{base}:{row['idx']}"
        out.add(task, key, reply, where)
        if "gt" in row:
            out.expected.setdefault(task, {})[key] = {"answer": str(row["gt"])}
        if task not in out.tasks:
            out.tasks.append(task)
    return out


def _looks_like_authors(path: Path) -> bool:
    first = text_opening(path, ".jsonl") or ""
    return '"column"' in first and '"idx"' in first


FORMATS = {"authors": read_authors}
DETECT = {"authors": _looks_like_authors}
SIGNATURES = DETECT  # the first record's fields are the authors' own: another benchmark's score names it


PART = PredictionsPart(formats=FORMATS, detect=DETECT, signatures=SIGNATURES)
