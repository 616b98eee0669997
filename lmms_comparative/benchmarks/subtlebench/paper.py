"""VLM-SubtleBench: the published model rows of the paper's result tables, as printed.

Pure data. Each entry of TABLES is one table (or one setting of a table):
  source     the paper's table number (and the setting, where needed)
  caption    what the numbers are
  columns    our column keys, in the order of the values
  digits     the paper's precision (the finest of the table where its columns differ)
  column_digits  (only where the columns differ) the paper's precision per column
  rows       row name as the paper prints it -> values in column order (None: no value printed)
  reference  the rows that are not models (chance, humans); they are in rows too
ALIASES maps a paper model name to the Hugging Face ids / API model names that are that model,
only where the paper (or the model's vendor naming) leaves no doubt.
Column keys of the ten difference types: at attribute, st state, em emotion, tm temporal,
sp spatial, ex existence, qn quantity, ql quality, vp viewpoint, ac action (the paper's AT..AC).
"""

from __future__ import annotations

TYPES = ["at", "st", "em", "tm", "sp", "ex", "qn", "ql", "vp", "ac"]

TABLES: dict[str, dict] = {
    # Table 2 (main results, multiple-choice questions). AVG is over all items (the Random Guess
    # row's AVG 43.3 is not the mean of its ten type columns). Human Eval is on a random 10% of the items.
    "table2": {
        "source": "VLM-SubtleBench, Table 2",
        "caption": "Accuracy (%) by difference type; AVG over all items. Human Eval on a random 10% of the samples.",
        "columns": TYPES + ["avg"],
        "digits": 1,
        "rows": {
            "Random Guess": [35.9, 50.0, 50.0, 50.0, 36.6, 23.2, 48.9, 50.0, 42.1, 50.0, 43.3],
            "Human Eval": [92.0, 93.0, 93.0, 93.0, 95.0, 97.0, 97.0, 99.0, 98.0, 98.0, 95.5],
            # Open-source
            "LLaVA-NeXT-7B": [37.0, 51.3, 51.8, 47.4, 37.3, 25.6, 49.5, 48.0, 43.7, 46.9, 43.6],
            "LLaVA-OneVision-7B": [41.6, 56.8, 73.9, 48.7, 35.5, 44.2, 54.9, 62.7, 49.1, 60.5, 52.0],
            "Qwen2.5-VL-7B": [46.5, 63.7, 87.8, 50.2, 39.5, 73.8, 58.0, 70.9, 47.5, 69.3, 59.4],
            "Qwen2.5-VL-32B": [48.3, 64.0, 85.3, 50.4, 43.6, 84.2, 67.5, 72.5, 47.4, 72.0, 62.2],
            "Qwen2.5-VL-72B": [53.9, 68.9, 85.9, 49.9, 47.8, 81.7, 67.7, 78.4, 56.2, 74.1, 65.4],
            # Proprietary
            "GPT-4o": [51.5, 73.6, 89.5, 52.7, 42.4, 60.6, 58.2, 72.4, 51.4, 76.7, 61.6],
            "o3": [78.0, 79.5, 92.9, 60.4, 55.1, 82.2, 78.2, 87.6, 64.6, 84.8, 75.7],
            "GPT-5-main": [72.9, 78.4, 92.7, 53.6, 50.1, 75.4, 72.6, 84.5, 57.5, 83.6, 71.3],
            "GPT-5-thinking": [83.6, 80.7, 93.1, 60.2, 59.9, 85.4, 79.9, 84.8, 68.5, 84.9, 77.8],
            "Claude-sonnet-4": [48.9, 64.7, 83.3, 49.3, 48.7, 87.5, 63.1, 70.8, 53.5, 66.3, 62.6],
            "Gemini-2.5-flash": [49.3, 72.5, 88.4, 53.9, 40.7, 73.2, 60.0, 77.1, 51.8, 72.3, 62.5],
            "Gemini-2.5-pro": [55.3, 76.4, 89.8, 57.6, 44.8, 79.9, 68.0, 84.8, 60.3, 76.8, 68.2],
        },
        "reference": ["Random Guess", "Human Eval"],
    },
    # Table 3 (captioning): the paper's columns are CSS (cosine similarity score, 0-1, two decimals)
    # and LLM-Judge (judge accuracy, %, one decimal). The table has no other columns.
    "table3": {
        "source": "VLM-SubtleBench, Table 3",
        "caption": "Difference captioning: CSS (cosine similarity, 0-1) and LLM-as-a-judge accuracy (%).",
        "columns": ["css", "judge_accuracy"],
        "digits": 2,
        "column_digits": [2, 1],
        "rows": {
            # Open-source
            "Qwen2.5-VL-7B": [0.42, 12.7],
            "Qwen2.5-VL-32B": [0.52, 22.7],
            "Qwen2.5-VL-72B": [0.54, 24.3],
            # Proprietary
            "GPT-4o": [0.54, 25.2],
            "o3": [0.56, 38.1],
            "GPT-5-main": [0.57, 37.2],
            "GPT-5-thinking": [0.57, 43.0],
            "Claude-sonnet-4": [0.54, 24.8],
            "Gemini-2.5-flash": [0.50, 25.9],
            "Gemini-2.5-pro": [0.52, 29.4],
        },
        "reference": [],
    },
    # Table 4 (prompting strategies on GPT-5-main, fine-tuning of Qwen2.5-VL-7B). The paper prints a
    # strategy row as "+ Reasoning" under its model; here it is "<model> / <strategy>". The base rows
    # repeat Table 2 (the paper spells the fine-tuning base "Qwen-2.5-VL-7B" here).
    "table4": {
        "source": "VLM-SubtleBench, Table 4",
        "caption": "Accuracy (%) by difference type under prompting strategies (GPT-5-main) and after fine-tuning (Qwen2.5-VL-7B on the validation split); AVG over all items.",
        "columns": TYPES + ["avg"],
        "digits": 1,
        "rows": {
            "Random Guess": [35.9, 50.0, 50.0, 50.0, 36.6, 23.2, 48.9, 50.0, 42.1, 50.0, 43.3],
            # Prompting Strategies
            "GPT-5-main": [72.9, 78.4, 92.7, 53.6, 50.1, 75.4, 72.6, 84.5, 57.5, 83.6, 71.3],
            "GPT-5-main / Reasoning": [76.5, 79.1, 91.2, 56.1, 51.6, 80.2, 75.8, 86.1, 57.0, 85.4, 73.1],
            "GPT-5-main / Two-Step Reasoning": [70.8, 79.1, 93.4, 56.9, 47.4, 81.3, 66.4, 83.5, 58.0, 83.6, 71.0],
            "GPT-5-main / Grid": [71.6, 77.5, 89.1, 52.8, 51.0, 75.8, 72.5, 82.6, 57.2, 84.2, 70.6],
            "GPT-5-main / Concat": [70.3, 77.9, 92.2, 51.6, 44.6, 75.5, 64.8, 81.2, 52.3, 82.4, 68.2],
            "GPT-5-main / Overlap": [69.5, 76.7, 91.8, 52.4, 53.6, 76.1, 69.1, 79.0, 58.8, 83.0, 70.2],
            "GPT-5-main / Subtract": [73.8, 76.4, 91.8, 50.9, 55.4, 78.0, 69.8, 80.1, 60.0, 82.0, 71.2],
            "GPT-5-main / Highlight": [71.1, 75.2, 92.0, 51.1, 54.9, 86.5, 74.3, 77.8, 57.3, 82.9, 71.5],
            # Fine-Tuning
            "Qwen-2.5-VL-7B": [46.5, 63.7, 87.8, 50.2, 39.5, 73.8, 58.0, 70.9, 47.5, 69.3, 59.4],
            "Qwen-2.5-VL-7B / Fine-tuned": [62.0, 69.1, 92.2, 52.5, 47.0, 85.3, 77.0, 85.9, 57.5, 75.4, 69.5],
        },
        "reference": ["Random Guess"],
    },
    # Table 10 (appendix C.3): accuracy by image domain.
    "table10": {
        "source": "VLM-SubtleBench, Table 10",
        "caption": "Domain-wise accuracy (%).",
        "columns": ["natural", "game", "industry", "aerial", "synthetic", "medical"],
        "digits": 1,
        "rows": {
            "Random Guess": [49.2, 50.0, 50.0, 26.9, 29.3, 50.0],
            # Open-source
            "LLaVA-NeXT-7B": [48.6, 47.9, 53.8, 35.4, 30.0, 41.5],
            "LLaVA-OneVision-7B": [59.3, 56.0, 54.7, 62.2, 32.4, 50.9],
            "Qwen2.5-VL-7B": [65.2, 61.8, 66.3, 62.8, 43.8, 50.3],
            "Qwen2.5-VL-32B": [66.1, 63.4, 64.4, 64.6, 53.0, 54.5],
            "Qwen2.5-VL-72B": [69.6, 65.1, 69.6, 64.1, 54.8, 65.2],
            # Proprietary
            "GPT-4o": [68.4, 65.8, 71.5, 46.9, 45.0, 62.4],
            "o3": [77.3, 76.4, 79.3, 71.4, 72.5, 68.5],
            "GPT-5-main": [74.1, 72.1, 77.9, 60.8, 63.6, 78.8],
            "GPT-5-thinking": [77.2, 75.5, 81.2, 70.7, 78.8, 82.4],
            "Claude-sonnet-4": [64.2, 60.3, 66.3, 74.1, 56.3, 54.8],
            "Gemini-2.5-flash": [68.1, 66.5, 73.7, 73.4, 43.3, 62.4],
            "Gemini-2.5-pro": [73.2, 71.8, 79.7, 75.7, 50.6, 68.8],
        },
        "reference": ["Random Guess"],
    },
    # Table 12 (appendix C.6): prompting strategies on Qwen2.5-VL-72B. The table has no AVG column
    # and no Two-Step Reasoning or Highlight rows.
    "table12": {
        "source": "VLM-SubtleBench, Table 12",
        "caption": "Accuracy (%) by difference type under prompting strategies (Qwen2.5-VL-72B).",
        "columns": list(TYPES),
        "digits": 1,
        "rows": {
            "Random Guess": [35.9, 50.0, 50.0, 50.0, 36.6, 23.2, 48.9, 50.0, 42.1, 50.0],
            "Qwen2.5-VL-72B": [53.9, 68.9, 85.9, 49.9, 47.8, 81.7, 67.7, 78.4, 56.2, 74.1],
            "Qwen2.5-VL-72B / Reasoning": [50.6, 68.0, 87.5, 51.0, 44.4, 81.7, 65.0, 77.1, 54.7, 75.0],
            "Qwen2.5-VL-72B / Grid": [54.9, 67.6, 85.6, 49.8, 46.3, 83.4, 70.1, 75.7, 54.4, 71.1],
            "Qwen2.5-VL-72B / Concat": [55.7, 68.0, 86.4, 50.0, 39.6, 67.5, 61.0, 65.4, 47.0, 73.7],
            "Qwen2.5-VL-72B / Overlap": [46.3, 63.2, 85.3, 49.7, 48.8, 78.7, 63.1, 72.5, 49.7, 71.6],
            "Qwen2.5-VL-72B / Subtract": [55.7, 64.4, 85.6, 49.5, 51.1, 79.8, 63.4, 63.0, 49.9, 71.2],
        },
        "reference": ["Random Guess"],
    },
}

# The paper names no snapshot of any API model, so the aliases are the undated API names.
# LLaVA-NeXT-7B is left out: the paper does not say which 7B LLaVA-NeXT checkpoint it ran.
# GPT-5-main / GPT-5-thinking are the names of OpenAI's GPT-5 system card; in the API the
# thinking model is "gpt-5" and the main (non-reasoning) model is "gpt-5-chat-latest".
ALIASES: dict[str, list[str]] = {
    "LLaVA-OneVision-7B": ["lmms-lab/llava-onevision-qwen2-7b-ov", "llava-hf/llava-onevision-qwen2-7b-ov-hf"],
    "Qwen2.5-VL-7B": ["Qwen/Qwen2.5-VL-7B-Instruct"],
    "Qwen-2.5-VL-7B": ["Qwen/Qwen2.5-VL-7B-Instruct"],
    "Qwen2.5-VL-32B": ["Qwen/Qwen2.5-VL-32B-Instruct"],
    "Qwen2.5-VL-72B": ["Qwen/Qwen2.5-VL-72B-Instruct"],
    "GPT-4o": ["gpt-4o"],
    "o3": ["o3"],
    "GPT-5-main": ["gpt-5-chat-latest"],
    "GPT-5-thinking": ["gpt-5"],
    "Claude-sonnet-4": ["claude-sonnet-4-0", "claude-sonnet-4-20250514"],
    "Gemini-2.5-flash": ["gemini-2.5-flash"],
    "Gemini-2.5-pro": ["gemini-2.5-pro"],
}
