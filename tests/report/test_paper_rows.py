"""The papers' published rows (``benchmarks/<name>/paper.json``) against the papers' text.

Every row of every table is located in the paper's text by the name the paper prints, inside
that table's region of the text, and its printed cells must be the transcribed values, in
column order, at the paper's precision; a typo in a transcription fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lmms_comparative.registry import BY_NAME

PAPERS = Path(__file__).resolve().parents[2].parent / "shared" / "papers"

# benchmark -> the prefix of its paper's text file
PAPER_FILES = {"subtlebench": "000", "vidi": "001", "captionqa": "002", "vlm2bench": "003", "compbench": "004"}

COMPBENCH_COLUMNS = [
    "attribute_mitstates", "attribute_fashionpedia", "attribute_vaw", "attribute_cub", "attribute_wildfish",
    "existence_magicbrush", "existence_spotdiff", "state_mitstates", "state_vaw", "emotion_celeba",
    "emotion_fer2013", "temporality_soccernet", "temporality_compcars", "spatiality_nyudepth", "quantity_vqav2",
    "quality_qbench2",
]  # fmt: skip
SUBTLE_TYPES = ["at", "st", "em", "tm", "sp", "ex", "qn", "ql", "vp", "ac"]
CAPTIONQA_DOMAINS = ["natural", "document", "ecommerce", "embodiedai"]

# The column keys the report relies on, per (benchmark, table).
EXPECTED_COLUMNS = {
    ("subtlebench", "table2"): SUBTLE_TYPES + ["avg"],
    ("subtlebench", "table3"): ["css", "judge_accuracy"],
    ("subtlebench", "table4"): SUBTLE_TYPES + ["avg"],
    ("subtlebench", "table10"): ["natural", "game", "industry", "aerial", "synthetic", "medical"],
    ("subtlebench", "table12"): SUBTLE_TYPES,
    ("compbench", "table2"): COMPBENCH_COLUMNS + ["avg"],
    ("compbench", "table5"): COMPBENCH_COLUMNS + ["avg"],
    ("vlm2bench", "table1"): [
        "gc_mat",
        "gc_trk",
        "oc_cpr",
        "oc_cnt",
        "oc_grp",
        "pc_cpr",
        "pc_cnt",
        "pc_grp",
        "pc_vid",
        "overall",
    ],
    ("vidi", "table1_granular"): ["bleu1", "bleu4", "rougeL", "cider"],
    ("vidi", "table1_global"): ["bleu1", "bleu4", "rougeL", "cider"],
    ("vidi", "table4_granular"): ["bleu1", "bleu2", "bleu3", "bleu4", "rougeL", "cider"],
    ("vidi", "table4_global"): ["bleu1", "bleu2", "bleu3", "bleu4", "rougeL", "cider"],
    ("vidi", "table2"): ["precision", "recall", "f1"],
    **{("captionqa", f"table3_{p}"): ["overall"] + CAPTIONQA_DOMAINS for p in ("long", "short", "simple", "taxonomy")},
    **{("captionqa", f"full_{p}"): CAPTIONQA_DOMAINS for p in ("long", "short", "simple", "taxonomy")},
    ("captionqa", "table4_gap"): CAPTIONQA_DOMAINS,
}


def _segment(
    start: str,
    end: str | None,
    occurrence: int = 0,
    columns: list[int] | None = None,
    pick: int | None = None,
    untranscribed: int = 0,
) -> dict:
    """Where a table (or some of its columns) is printed: from the ``occurrence``-th line holding
    ``start`` to the next line holding ``end``. ``columns``: the indices of the table's columns the
    region holds (all by default); ``pick``: the region prints several cells per column and this
    one is ours (CaptionQA's per-domain tables: Score, Acc, Cannot); ``untranscribed``: the number
    of trailing printed columns that are not transcribed (VLM²'s Δ_human)."""
    return {
        "start": start,
        "end": end,
        "occurrence": occurrence,
        "columns": columns,
        "pick": pick,
        "untranscribed": untranscribed,
    }


def _captionqa_full(first: int) -> list[dict]:
    """The four per-domain tables of one prompt (Natural, Document, E-commerce, Embodied AI are
    Tables first, first + 4, first + 8, first + 12), their Score cell."""
    numbers = [first + 4 * i for i in range(4)]
    return [
        _segment(f"Table {n}. Results", f"Table {n + 1}. Results" if n < 26 else None, columns=[i], pick=0)
        for i, n in enumerate(numbers)
    ]


REGIONS: dict[tuple[str, str], list[dict]] = {
    ("subtlebench", "table2"): [_segment("Table 2: Performance", "Table 3: Performance")],
    ("subtlebench", "table3"): [_segment("Table 3: Performance", "Table 4: Effect")],
    ("subtlebench", "table4"): [_segment("Table 4: Effect", "4.4 CONTROLLED")],
    ("subtlebench", "table10"): [_segment("Table 10: Domain-wise", "We then perform VQA")],
    ("subtlebench", "table12"): [_segment("Table 12: Effect", "Table 13:")],
    ("vidi", "table1_granular"): [_segment("Granular Alignment Setting", "Global Alignment Setting")],
    ("vidi", "table1_global"): [_segment("Global Alignment Setting", "Table 1: MLLM")],
    # Table 4's two blocks share a header line; the global block's heading is garbled in the text.
    ("vidi", "table4_granular"): [_segment("Model\t$BLEU_1$\tBLEU_2", "Cilobal", occurrence=0)],
    ("vidi", "table4_global"): [_segment("Model\t$BLEU_1$\tBLEU_2", "Table 4: MLLM", occurrence=1)],
    ("vidi", "table2"): [_segment("Model\tPrecision\tRecall\tF1", "Table 2: LLM-as-a-Judge")],
    ("vlm2bench", "table1"): [_segment("Baselines or Models", "Table 1: Evaluation results", untranscribed=1)],
    ("compbench", "table2"): [_segment("Model\tAttribute", "Table 2: **Overall", occurrence=0)],
    ("compbench", "table5"): [_segment("Model\tAttribute", "Table 5: **Results", occurrence=1)],
    ("compbench", "table3_two_stage"): [_segment("Model\tExist. MB", "Table 3: **Left")],
    ("compbench", "table3_fine_tuning"): [_segment("Model\tExist. MB", "Table 3: **Left")],
    ("captionqa", "table3_long"): [_segment("Long\tOpen-Source VLMs", "Short\tOpen-Source VLMs")],
    ("captionqa", "table3_short"): [_segment("Short\tOpen-Source VLMs", "Simple\tOpen-Source VLMs")],
    ("captionqa", "table3_simple"): [_segment("Simple\tOpen-Source VLMs", "Taxonomy-Hinted\tOpen-Source VLMs")],
    ("captionqa", "table3_taxonomy"): [_segment("Taxonomy-Hinted\tOpen-Source VLMs", "Table 4. Domain-wise")],
    ("captionqa", "table4_gap"): [_segment("Table 4. Domain-wise", "Non-uniform gap")],
    ("captionqa", "full_long"): _captionqa_full(11),
    ("captionqa", "full_simple"): _captionqa_full(12),
    ("captionqa", "full_short"): _captionqa_full(13),
    ("captionqa", "full_taxonomy"): _captionqa_full(14),
}

# Rows whose printed name differs from the row name, as candidate lists of printed cells.
LABELS: dict[tuple[str, str], list[list[str]]] = {
    # The text of VLM²-Bench renders GPT-4o as "GPT-40".
    ("vlm2bench", "GPT-4o"): [["GPT-40"]],
    ("compbench", "GPT-4V / two-stage"): [["GPT-4V _{two-stage}"]],
    ("compbench", "LLaVA-1.6 / fine-tuned"): [["LLaVA-1.6 _{fine-tuned}"]],
    ("captionqa", "Mistral-Small-24B"): [["Mistral Small", "24B"]],
    # Tables 20 and 21 print this model cell with its size.
    ("captionqa", "InternVL3-14B"): [["InternVL3", "14B"], ["InternVL3-14B", "14B"]],
}

NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e-?\d+)?")
DASHES = {"-", "–", "—"}


def _norm(cell: str) -> str:
    """A printed label cell without its citation mark (``Qwen3-VL [38]``), dashes unified."""
    return re.sub(r"\s*\[\d+\]", "", cell).strip().replace("–", "-").replace("—", "-")


def _value_cell(cell: str):
    """The numbers a value cell prints (``37.5 ± 0.2``, ``$\\textbf{53.4} \\pm \\textbf{0.5}$``,
    ``77.9(4.9)``), None for a dash (no value), False for a cell that is not a value."""
    text = cell.strip()
    if text in DASHES:
        return None
    tokens = re.sub(r"\\[a-zA-Z]+|[${}~±()]", " ", text).split()
    return tokens if tokens and all(NUMBER.fullmatch(t) for t in tokens) else False


def _paper_lines(benchmark: str) -> list[str]:
    (path,) = PAPERS.glob(f"{PAPER_FILES[benchmark]}_*.txt")
    return path.read_text(encoding="utf-8").splitlines()


def _region(lines: list[str], segment: dict) -> tuple[int, int]:
    hits = [i for i, line in enumerate(lines) if segment["start"] in line]
    assert len(hits) > segment["occurrence"], (
        f"the paper's text has no {segment['start']!r} (occurrence {segment['occurrence']})"
    )
    lo = hits[segment["occurrence"]]
    hi = next((j for j in range(lo + 1, len(lines)) if segment["end"] and segment["end"] in lines[j]), len(lines))
    return lo, hi


def _candidates(benchmark: str, row: str) -> list[list[str]]:
    if (benchmark, row) in LABELS:
        return LABELS[(benchmark, row)]
    if benchmark == "subtlebench" and " / " in row:
        return [["+ " + row.split(" / ", 1)[1]]]  # printed "+ Reasoning" under its model's row
    if benchmark == "captionqa":
        sized = re.fullmatch(r"(.+)-(\d+(?:\.\d+)?B(?:-A\d+B)?)", row)
        return ([[sized.group(1), sized.group(2)]] if sized else [[row, "-"]]) + [[row]]
    return [[row]]


def _find(lines: list[str], lo: int, hi: int, labels: list[list[str]]):
    """(line index, the value cells after the label) of the first line in [lo, hi) that prints one
    of the labels as consecutive cells; (None, None) if none does."""
    for k in range(lo, hi):
        raw = lines[k].split("\t")
        cells = [_norm(c) for c in raw]
        for label in labels:
            label = [_norm(c) for c in label]
            for i in range(len(cells) - len(label) + 1):
                if cells[i : i + len(label)] != label:
                    continue
                values = []
                for cell in raw[i + len(label) :]:
                    value = _value_cell(cell)
                    if value is False:
                        break
                    values.append(value)
                if values:
                    return k, values
    return None, None


def _tables() -> list[tuple[str, str, dict]]:
    out = []
    for benchmark in PAPER_FILES:
        out += [(benchmark, key, table) for key, table in BY_NAME[benchmark].paper()["tables"].items()]
    return out


TABLES = _tables()
IDS = [f"{b}-{k}" for b, k, _ in TABLES]


def _digits(table: dict) -> list[int]:
    """The paper's precision per column: ``column_digits`` where the columns differ, else ``digits``."""
    return list(table.get("column_digits") or [table["digits"]] * len(table["columns"]))


@pytest.mark.parametrize(("benchmark", "key", "table"), TABLES, ids=IDS)
def test_table_shape(benchmark, key, table):
    assert {"source", "caption", "columns", "digits", "rows", "reference"} <= set(table), key
    columns = table["columns"]
    assert columns and len(set(columns)) == len(columns)
    if (benchmark, key) in EXPECTED_COLUMNS:
        assert columns == EXPECTED_COLUMNS[(benchmark, key)]
    assert isinstance(table["digits"], int) and not isinstance(table["digits"], bool), (
        "digits: one int (the report formats every cell with it)"
    )
    digits = _digits(table)
    assert len(digits) == len(columns) and all(
        isinstance(d, int) and not isinstance(d, bool) and 0 <= d <= table["digits"] for d in digits
    )
    assert table["rows"], key
    for row, values in table["rows"].items():
        assert len(values) == len(columns), f"{key} {row}: {len(values)} values for {len(columns)} columns"
        assert all(v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)) for v in values), (key, row)
        assert any(v is not None for v in values), (key, row)
    assert set(table["reference"]) <= set(table["rows"]), key
    for row, spread in table.get("spread", {}).items():
        assert row in table["rows"] and len(spread) == len(columns), (key, row)


@pytest.mark.parametrize("benchmark", list(PAPER_FILES))
def test_aliases_name_paper_models(benchmark):
    paper = BY_NAME[benchmark].paper()
    names = {row for table in paper["tables"].values() for row in table["rows"]}
    references = {row for table in paper["tables"].values() for row in table["reference"]}
    for name, ids in paper["aliases"].items():
        assert name in names and name not in references, (
            f"{benchmark}: alias for {name!r}, which no table prints as a model"
        )
        assert isinstance(ids, list) and ids and all(isinstance(i, str) and i.strip() == i and i for i in ids), name


def test_every_table_has_a_region():
    assert {(b, k) for b, k, _ in TABLES} == set(REGIONS)


@pytest.mark.parametrize(("benchmark", "key", "table"), TABLES, ids=IDS)
def test_rows_match_the_paper(benchmark, key, table):
    if not PAPERS.is_dir():
        pytest.skip(
            f"the papers' text is not here: it is read from {PAPERS} (the project's shared folder beside this clone)"
        )
    lines = _paper_lines(benchmark)
    digits = _digits(table)
    spreads = table.get("spread", {})
    n_columns = len(table["columns"])
    for segment in REGIONS[(benchmark, key)]:
        lo, hi = _region(lines, segment)
        columns = segment["columns"] if segment["columns"] is not None else list(range(n_columns))
        for row, values in table["rows"].items():
            start = lo
            if benchmark == "subtlebench" and " / " in row:  # a strategy row follows its model's row
                base, _ = _find(lines, lo, hi, _candidates(benchmark, row.split(" / ", 1)[0]))
                assert base is not None, f"{key}: no row {row.split(' / ', 1)[0]!r} in the paper's text"
                start = base + 1
            line, cells = _find(lines, start, hi, _candidates(benchmark, row))
            expected = [values[j] for j in columns]
            if line is None:
                # a row the paper's table does not print: only cells recorded as None
                assert all(v is None for v in expected), f"{key}: row {row!r} not found in lines {lo + 1}-{hi}"
                continue
            where = f"{key} {row!r} (line {line + 1})"
            if segment["pick"] is not None:
                cells = [cells[segment["pick"]]]
            if segment["untranscribed"]:
                cells = cells[: -segment["untranscribed"]]
            assert len(cells) == len(columns), (
                f"{where}: the paper prints {len(cells)} values, the table has {len(columns)}"
            )
            for j, value, cell in zip(columns, expected, cells):
                column = table["columns"][j]
                if value is None:
                    assert cell is None, f"{where} {column}: None, the paper prints {cell}"
                    continue
                assert cell is not None, f"{where} {column}: {value}, the paper prints no value"
                assert cell[0] == f"{value:.{digits[j]}f}", (
                    f"{where} {column}: {value} (at {digits[j]} digits), the paper prints {cell[0]}"
                )
                spread = spreads.get(row, [None] * n_columns)[j]
                if spread is None:
                    assert len(cell) == 1, f"{where} {column}: the paper prints {cell}"
                else:
                    assert len(cell) == 2 and float(cell[1]) == spread, (
                        f"{where} {column}: spread {spread}, the paper prints {cell}"
                    )


def test_vlm2bench_delta_human_is_overall_minus_human():
    """Δ_human, the printed column VLM²'s table leaves out, is each row's Overall minus the human
    Overall: the untranscribed column holds nothing the table lacks."""
    if not PAPERS.is_dir():
        pytest.skip(
            f"the papers' text is not here: it is read from {PAPERS} (the project's shared folder beside this clone)"
        )
    VLM2 = BY_NAME["vlm2bench"].paper()["tables"]

    table = VLM2["table1"]
    human = table["rows"]["Human-Level"][-1]
    lines = _paper_lines("vlm2bench")
    lo, hi = _region(lines, REGIONS[("vlm2bench", "table1")][0])
    for row, values in table["rows"].items():
        _, cells = _find(lines, lo, hi, _candidates("vlm2bench", row))
        assert cells is not None and len(cells) == len(values) + 1, row
        assert cells[-1][0] == f"{values[-1] - human:.2f}", (
            f"{row}: delta {cells[-1][0]}, Overall - human {values[-1] - human:.2f}"
        )
