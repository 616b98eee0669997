"""MLLM-CompBench: the published model rows of the paper's result tables, as printed.

Pure data. Each entry of TABLES is one table (or one half of a table):
  source     the paper's table number (and the part, where needed)
  caption    what the numbers are
  columns    our column keys, in the order of the values
  digits     the paper's precision
  rows       row name as the paper prints it -> values in column order (None: no value printed)
  reference  the rows that are not models (chance); they are in rows too
ALIASES maps a paper model name to the Hugging Face ids / API model names that are that model:
the versions named in the paper's appendix B.3 (gpt-4-turbo, Gemini 1.0 Pro Vision,
LLaVA-1.6-34b, VILA-1.5-40b).
"""

from __future__ import annotations

# The paper's sixteen columns: attribute ST FA VA CU WF, existence MB SD, state ST VA,
# emotion CE FE, temporality SN CC, spatiality ND, quantity VQ, quality QB.
COLUMNS = [
    "attribute_mitstates", "attribute_fashionpedia", "attribute_vaw", "attribute_cub", "attribute_wildfish",
    "existence_magicbrush", "existence_spotdiff", "state_mitstates", "state_vaw", "emotion_celeba",
    "emotion_fer2013", "temporality_soccernet", "temporality_compcars", "spatiality_nyudepth", "quantity_vqav2", "quality_qbench2",
]  # fmt: skip

TABLES: dict[str, dict] = {
    # Table 2 (main results, test split). Avg is the mean of the sixteen columns.
    "table2": {
        "source": "MLLM-CompBench, Table 2",
        "caption": "Accuracy (%) per task on the test split (image pairs concatenated left/right); Avg over the sixteen tasks.",
        "columns": COLUMNS + ["avg"],
        "digits": 1,
        "rows": {
            "GPT-4V": [91.8, 89.0, 76.9, 71.4, 72.1, 58.3, 41.9, 92.2, 87.8, 91.8, 83.4, 71.4, 73.7, 56.1, 63.8, 73.0, 74.7],
            "Gemini1.0-Pro": [71.9, 76.3, 69.3, 59.9, 54.9, 53.7, 53.0, 81.8, 70.7, 60.6, 71.2, 55.1, 58.2, 56.6, 54.6, 59.5, 63.0],
            "LLaVA-1.6": [84.9, 72.1, 77.7, 72.6, 68.7, 26.5, 20.7, 89.7, 79.3, 96.2, 83.5, 51.0, 50.2, 67.2, 50.1, 64.8, 66.0],
            "VILA-1.5": [69.9, 66.2, 70.9, 55.9, 52.0, 49.5, 36.8, 71.9, 74.5, 57.1, 55.6, 51.1, 52.9, 51.8, 47.7, 64.8, 58.0],
            "Chance level": [50.0, 50.0, 50.0, 50.0, 50.0, 8.6, 9.7, 50.0, 50.0, 50.0, 50.0, 50.0, 50.0, 50.0, 33.3, 37.4, 43.1],
        },
        "reference": ["Chance level"],
    },
    # Table 5 (§5.4, models released after the submission). The two "Improvement" rows (the newer
    # model minus the older one) are differences, not models, and are left out; GPT-4V and
    # Gemini1.0-Pro repeat Table 2.
    "table5": {
        "source": "MLLM-CompBench, Table 5",
        "caption": "Accuracy (%) per task of GPT-4o and Gemini1.5-Pro next to their predecessors; Avg over the sixteen tasks.",
        "columns": COLUMNS + ["avg"],
        "digits": 1,
        "rows": {
            "GPT-4V": [91.8, 89.0, 76.9, 71.4, 72.1, 58.3, 41.9, 92.2, 87.8, 91.8, 83.4, 71.4, 73.7, 56.1, 63.8, 73.0, 74.7],
            "GPT-4o": [92.3, 97.0, 86.3, 74.7, 84.5, 81.2, 67.2, 95.8, 89.6, 96.6, 91.1, 72.0, 83.3, 68.2, 67.8, 81.2, 83.1],
            "Gemini1.0-Pro": [71.9, 76.3, 69.3, 59.9, 54.9, 53.7, 53.0, 81.8, 70.7, 60.6, 71.2, 55.1, 58.2, 56.6, 54.6, 59.5, 63.0],
            "Gemini1.5-Pro": [79.2, 91.8, 77.7, 71.4, 72.8, 55.4, 58.7, 91.0, 84.0, 93.0, 87.3, 50.3, 70.3, 68.3, 64.8, 70.5, 74.2],
        },
        "reference": [],
    },
    # Table 3, left: two-stage reasoning (each image described alone, then a text-only comparison).
    # The paper prints the strategy row as "GPT-4V _{two-stage}".
    "table3_two_stage": {
        "source": "MLLM-CompBench, Table 3 (left: two-stage reasoning)",
        "caption": "Accuracy (%) of GPT-4V answering directly and with two-stage reasoning.",
        "columns": ["existence_magicbrush", "emotion_celeba", "spatiality_nyudepth"],
        "digits": 1,
        "rows": {
            "GPT-4V": [58.3, 91.8, 56.1],
            "GPT-4V / two-stage": [45.9, 90.3, 36.3],
        },
        "reference": [],
    },
    # Table 3, right: LLaVA-1.6 fine-tuned with LoRA on SoccerNet / VQAv2 training pairs
    # (printed "LLaVA-1.6 _{fine-tuned}").
    "table3_fine_tuning": {
        "source": "MLLM-CompBench, Table 3 (right: fine-tuning)",
        "caption": "Accuracy (%) of LLaVA-1.6 before and after fine-tuning on each task's training pairs.",
        "columns": ["temporality_soccernet", "quantity_vqav2"],
        "digits": 1,
        "rows": {
            "LLaVA-1.6": [51.0, 50.1],
            "LLaVA-1.6 / fine-tuned": [93.9, 56.6],
        },
        "reference": [],
    },
}

# Appendix B.3: "For GPT-4V, we use the version of gpt-4-turbo", Gemini 1.0 Pro Vision,
# LLaVA-1.6-34b and VILA-1.5-40b. No snapshot is named for GPT-4o or Gemini1.5-Pro.
ALIASES: dict[str, list[str]] = {
    "GPT-4V": ["gpt-4-vision-preview", "gpt-4-1106-vision-preview"],
    "Gemini1.0-Pro": ["gemini-1.0-pro-vision", "gemini-1.0-pro-vision-latest", "gemini-pro-vision"],
    "LLaVA-1.6": ["liuhaotian/llava-v1.6-34b", "llava-hf/llava-v1.6-34b-hf"],
    "VILA-1.5": ["Efficient-Large-Model/VILA1.5-40b"],
    "GPT-4o": ["gpt-4o"],
    "Gemini1.5-Pro": ["gemini-1.5-pro"],
}
