"""VLM²-Bench: the published model rows of the paper's main table, as printed.

Pure data. Each entry of TABLES is one table:
  source     the paper's table number
  caption    what the numbers are
  columns    our column keys, in the order of the values
  digits     the paper's precision
  rows       row name as the paper prints it -> values in column order (None: no value printed)
  reference  the rows that are not models (chance, humans); they are in rows too
ALIASES maps a paper model name to the Hugging Face ids / API model names that are that model,
only where the name leaves no doubt.
"""

from __future__ import annotations

TABLES: dict[str, dict] = {
    # Table 1. Columns: GC Mat, Trk; OC Cpr, Cnt, Grp; PC Cpr, Cnt, Grp, VID; Overall* Avg. The
    # table's last column, Overall Δ_human, is Avg minus the Human-Level Avg 95.16 in every row and
    # is not transcribed, so that Overall stays the last (headline) column.
    # The caption's footnote says Overall excludes VID (no chance level for the open-ended task),
    # but the printed Avg of every model row and of Human-Level is the mean of all nine subtasks
    # (e.g. GPT-4o 543.26 / 9 = 60.36); only the Chance-Level Avg, whose VID is "-", is the mean of eight.
    # The text of the paper renders GPT-4o as "GPT-40" throughout (a conversion error; the paper
    # names GPT-4o); the row is the one the text prints as "GPT-40" (about line 257).
    "table1": {
        "source": "VLM²-Bench, Table 1",
        "caption": "Accuracy (%) per subtask; Overall: the mean of the nine subtasks (of the eight other than VID for Chance-Level).",
        "columns": ["gc_mat", "gc_trk", "oc_cpr", "oc_cnt", "oc_grp", "pc_cpr", "pc_cnt", "pc_grp", "pc_vid", "overall"],
        "digits": 2,
        "rows": {
            "Chance-Level": [25.00, 25.00, 50.00, 34.88, 25.00, 50.00, 34.87, 25.00, None, 33.72],
            "Human-Level": [95.06, 98.11, 96.02, 94.23, 91.92, 97.08, 92.87, 91.17, 100.00, 95.16],
            "LLaVA-OneVision-7B": [16.60, 13.70, 47.22, 56.17, 27.50, 62.00, 46.67, 37.00, 47.25, 39.35],
            "LLaVA-Video-7B": [18.53, 12.79, 54.72, 62.47, 28.50, 62.00, 66.91, 25.00, 59.00, 43.32],
            "LongVA-7B": [14.29, 19.18, 26.67, 42.53, 18.50, 21.50, 38.90, 18.00, 3.75, 22.59],
            "mPLUG-Owl3-7B": [17.37, 18.26, 49.17, 62.97, 31.00, 63.50, 58.86, 26.00, 13.50, 37.85],
            "Qwen2-VL-7B": [27.80, 19.18, 68.06, 45.99, 35.00, 61.50, 58.59, 49.00, 16.25, 42.37],
            "Qwen2.5-VL-7B": [35.91, 43.38, 71.39, 41.72, 47.50, 80.00, 57.98, 69.00, 46.50, 54.82],
            "InternVL2.5-8B": [21.24, 26.03, 53.33, 55.23, 46.50, 51.50, 60.00, 52.00, 5.25, 41.23],
            "InternVL2.5-26B": [30.50, 30.59, 43.33, 51.48, 52.50, 59.50, 59.70, 61.00, 21.75, 45.59],
            "GPT-4o": [37.45, 39.27, 74.17, 80.62, 57.50, 50.00, 90.50, 47.00, 66.75, 60.36],
        },
        "reference": ["Chance-Level", "Human-Level"],
    },
}

# The paper names no snapshot of GPT-4o. mPLUG-Owl3-7B is left out: two 7B checkpoints were
# released (240728 and 241101) and the paper does not say which it ran.
ALIASES: dict[str, list[str]] = {
    "LLaVA-OneVision-7B": ["lmms-lab/llava-onevision-qwen2-7b-ov", "llava-hf/llava-onevision-qwen2-7b-ov-hf"],
    "LLaVA-Video-7B": ["lmms-lab/LLaVA-Video-7B-Qwen2"],
    "LongVA-7B": ["lmms-lab/LongVA-7B"],
    "Qwen2-VL-7B": ["Qwen/Qwen2-VL-7B-Instruct"],
    "Qwen2.5-VL-7B": ["Qwen/Qwen2.5-VL-7B-Instruct"],
    "InternVL2.5-8B": ["OpenGVLab/InternVL2_5-8B"],
    "InternVL2.5-26B": ["OpenGVLab/InternVL2_5-26B"],
    "GPT-4o": ["gpt-4o"],
}
