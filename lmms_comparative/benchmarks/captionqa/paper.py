"""CaptionQA: the published model rows of the paper's result tables, as printed.

Pure data. Each entry of TABLES is one table (or one caption prompt of a table):
  source     the paper's table number(s) and the caption prompt
  caption    what the numbers are
  setting    the caption prompt: "long", "short", "simple" or "taxonomy" (Taxonomy-Hinted)
  columns    our column keys, in the order of the values
  digits     the paper's precision
  rows       row name as the paper prints it -> values in column order (None: no value printed)
  reference  the rows that are not models (the tables have none)
ALIASES maps a paper model name to the Hugging Face ids / API model names that are that model,
only where the name leaves no doubt.

Row names: the tables print the model and its size in two cells ("Qwen3-VL [38]" | "30B-A3B");
a row here is the two joined with a hyphen, as the paper's text names the models
("Qwen3-VL-30B-A3B", "GLM-4.1V-9B"; the citation marks dropped), and the proprietary models,
whose size cell is "-", by their name alone ("GPT-5", "Gemini 2.5 Pro").
Columns: the CaptionQA score (%) per domain (natural, document, ecommerce for E-commerce,
embodiedai for Embodied AI); overall is their unweighted mean, as printed in Table 3.
"""

from __future__ import annotations

DOMAINS = ["natural", "document", "ecommerce", "embodiedai"]

TABLES: dict[str, dict] = {
    # Table 3, the Long prompt block (prompt: "Write a very long and detailed caption describing the given image as comprehensively as possible.").
    # Table 3 lists one size per model family in each prompt block, not the same size in every block.
    "table3_long": {
        "source": "CaptionQA, Table 3 (Long prompt)",
        "caption": "CaptionQA score (%) per domain and Overall (their mean), captions from the Long prompt.",
        "setting": "long",
        "columns": ["overall"] + DOMAINS,
        "digits": 2,
        "rows": {
            # Open-Source VLMs
            "Qwen3-VL-30B-A3B": [87.12, 85.62, 86.05, 94.27, 82.55],
            "GLM-4.1V-9B": [85.83, 82.92, 88.34, 93.03, 79.01],
            "Qwen2.5-VL-32B": [81.40, 78.95, 82.14, 90.76, 73.73],
            "InternVL3.5-38B": [80.11, 78.70, 78.78, 87.53, 75.41],
            "InternVL3-14B": [73.81, 72.41, 71.88, 84.05, 66.89],
            "NVLM-D-72B": [71.06, 72.66, 65.39, 79.05, 67.15],
            "LLaVA-OneVision-7B": [68.76, 70.20, 61.93, 77.24, 65.67],
            # Proprietary VLMs
            "Gemini 2.5 Pro": [90.12, 89.44, 88.67, 95.60, 86.78],
            "GPT-5": [89.82, 90.34, 90.01, 96.11, 82.83],
            "Claude Sonnet 4.5": [80.97, 77.78, 85.08, 91.11, 69.90],
        },
        "reference": [],
    },
    # Table 3, the Short prompt block (prompt: "Write a very short caption for the given image.").
    # Table 3 lists one size per model family in each prompt block, not the same size in every block.
    "table3_short": {
        "source": "CaptionQA, Table 3 (Short prompt)",
        "caption": "CaptionQA score (%) per domain and Overall (their mean), captions from the Short prompt.",
        "setting": "short",
        "columns": ["overall"] + DOMAINS,
        "digits": 2,
        "rows": {
            # Open-Source VLMs
            "GLM-4.1V-9B": [60.87, 62.43, 55.69, 64.05, 61.29],
            "Qwen3-VL-4B": [57.49, 60.52, 48.12, 61.69, 59.63],
            "InternVL3.5-38B": [54.27, 56.52, 44.24, 59.16, 57.16],
            "InternVL3-8B": [53.31, 56.50, 44.58, 56.99, 55.17],
            "Qwen2.5-VL-32B": [52.88, 54.74, 45.32, 57.89, 53.58],
            "NVLM-D-72B": [48.67, 51.29, 40.99, 50.88, 51.53],
            "LLaVA-OneVision-7B": [47.13, 51.01, 38.28, 49.80, 49.41],
            # Proprietary VLMs
            "Gemini 2.5 Pro": [54.49, 55.33, 46.25, 58.98, 57.40],
            "GPT-o4-mini": [53.94, 54.76, 46.40, 56.84, 57.76],
            "Claude Sonnet 4.5": [53.82, 56.77, 46.04, 59.31, 53.16],
        },
        "reference": [],
    },
    # Table 3, the Simple prompt block (prompt: "Describe this image in detail."; the paper's recommended default).
    # Table 3 lists one size per model family in each prompt block, not the same size in every block.
    # (The text of §4 quotes Qwen3-VL-30B-A3B 87.1% and GLM-4.1V-9B 85.8% "on the Simple prompt";
    # those are this table's Long values, its Simple values are 87.02 and 84.28.)
    "table3_simple": {
        "source": "CaptionQA, Table 3 (Simple prompt)",
        "caption": "CaptionQA score (%) per domain and Overall (their mean), captions from the Simple prompt.",
        "setting": "simple",
        "columns": ["overall"] + DOMAINS,
        "digits": 2,
        "rows": {
            # Open-Source VLMs
            "Qwen3-VL-30B-A3B": [87.02, 86.14, 85.89, 93.90, 82.15],
            "GLM-4.1V-9B": [84.28, 81.67, 87.86, 92.04, 75.56],
            "Qwen2.5-VL-32B": [81.20, 78.35, 82.67, 90.81, 72.98],
            "InternVL3.5-38B": [79.58, 78.26, 78.91, 86.47, 74.68],
            "InternVL3-8B": [77.84, 76.46, 75.83, 87.01, 72.07],
            "NVLM-D-72B": [71.79, 73.13, 65.25, 78.46, 70.31],
            "LLaVA-OneVision-7B": [66.03, 66.56, 61.45, 75.09, 61.01],
            # Proprietary VLMs
            "GPT-5": [90.29, 88.78, 90.81, 94.73, 86.82],
            "Gemini 2.5 Flash": [89.64, 88.95, 88.97, 95.73, 84.89],
            "Claude Sonnet 4.5": [78.95, 76.56, 83.09, 88.86, 67.27],
        },
        "reference": [],
    },
    # Table 3, the Taxonomy-Hinted prompt block (prompt: the domain taxonomy given as aspect prompts).
    # Table 3 lists one size per model family in each prompt block, not the same size in every block.
    "table3_taxonomy": {
        "source": "CaptionQA, Table 3 (Taxonomy-Hinted prompt)",
        "caption": "CaptionQA score (%) per domain and Overall (their mean), captions from the Taxonomy-Hinted prompt.",
        "setting": "taxonomy",
        "columns": ["overall"] + DOMAINS,
        "digits": 2,
        "rows": {
            # Open-Source VLMs
            "Qwen3-VL-8B": [77.21, 78.99, 70.82, 84.19, 74.85],
            "GLM-4.1V-9B": [76.18, 75.87, 72.40, 83.87, 72.59],
            "Qwen2.5-VL-32B": [74.91, 74.64, 71.44, 83.55, 70.02],
            "NVLM-D-72B": [68.20, 72.63, 59.61, 76.12, 64.42],
            "InternVL3-8B": [67.48, 71.57, 55.05, 75.82, 67.46],
            "InternVL3.5-38B": [65.26, 69.30, 51.94, 73.46, 66.35],
            "LLaVA-OneVision-7B": [62.91, 63.24, 56.57, 69.78, 62.03],
            # Proprietary VLMs
            "Gemini 2.5 Pro": [86.42, 87.47, 81.34, 91.50, 85.35],
            "GPT-5": [83.24, 86.87, 72.36, 88.63, 85.10],
            "Claude Sonnet 4.5": [80.19, 77.36, 83.23, 89.74, 70.44],
        },
        "reference": [],
    },
    # Table 4: QA-on-image minus QA-on-caption per domain, in points (lower is better). The
    # caption prompt is not stated. The caption calls the values "score differences"; Figure 4,
    # on the same comparison, says "CaptionQA Acc.". Model names as this table prints them.
    "table4_gap": {
        "source": "CaptionQA, Table 4",
        "caption": "Caption-vs-image utility gap (points): QA-on-image minus QA-on-caption, per domain (lower is better).",
        "columns": list(DOMAINS),
        "digits": 2,
        "rows": {
            # Open-Source VLMs
            "Qwen3-VL-30B-A3B": [12.09, 10.06, 4.87, 16.96],
            "GLM-4.1V-9B": [17.12, 7.79, 6.62, 24.86],
            "InternVL3.5-38B": [22.41, 18.49, 14.51, 27.49],
            "LLaVA-OV-7B": [34.14, 28.73, 24.97, 41.81],
            # Proprietary VLMs
            "GPT-5": [11.30, 6.72, 4.96, 13.81],
            "Gemini-2.5-Pro": [12.02, 10.11, 5.03, 15.78],
            "Claude-Sonnet-4.5": [19.39, 8.47, 8.80, 29.06],
        },
        "reference": [],
    },
    # Supplementary §18, Tables 11, 15, 19 and 23: all 24 models under the Long prompt, the Score
    # column of the Natural, Document, E-commerce and Embodied AI tables (their Acc and Cannot
    # columns are not transcribed). The paper prints no Overall for these tables.
    "full_long": {
        "source": "CaptionQA, Tables 11, 15, 19, 23 (Long prompt; Score)",
        "caption": "CaptionQA score (%) per domain of all evaluated models, captions from the Long prompt.",
        "setting": "long",
        "columns": list(DOMAINS),
        "digits": 2,
        "rows": {
            # Open-Source VLMs
            "Qwen3-VL-4B": [83.95, 84.63, 93.62, 80.35],
            "Qwen3-VL-8B": [85.69, 86.63, 93.95, 81.06],
            "Qwen3-VL-30B-A3B": [85.62, 86.05, 94.27, 82.55],
            "Qwen2.5-VL-7B": [73.84, 76.35, 87.21, 68.74],
            "Qwen2.5-VL-32B": [78.95, 82.14, 90.76, 73.73],
            "Qwen2.5-VL-72B": [77.29, 80.36, 89.85, 73.77],
            "GLM-4.1V-9B": [82.92, 88.34, 93.03, 79.01],
            "InternVL3.5-1B": [72.22, 67.50, 80.12, 64.68],
            "InternVL3.5-8B": [73.73, 77.29, 85.77, 68.41],
            "InternVL3.5-30B-A3B": [74.33, 76.45, 85.78, 70.02],
            "InternVL3.5-38B": [78.70, 78.78, 87.53, 75.41],
            "InternVL3-8B": [66.39, 72.95, 84.53, 65.05],
            "InternVL3-14B": [72.41, 71.88, 84.05, 66.89],
            "InternVL3-78B": [38.66, 34.29, 38.46, 33.84],
            "NVLM-D-72B": [72.66, 65.39, 79.05, 67.15],
            "LLaVA-OneVision-7B": [70.20, 61.93, 77.24, 65.67],
            "LLaVA-1.5-7B": [53.06, 36.22, 48.39, 50.01],
            "Mistral-Small-24B": [35.81, 30.75, 34.59, 39.24],
            # Proprietary VLMs
            "GPT-5": [90.34, 90.01, 96.11, 82.83],
            "GPT-4o": [84.71, 82.18, 91.14, 83.21],
            "GPT-o4-mini": [85.99, 88.38, 94.22, 83.33],
            "Gemini 2.5 Pro": [89.44, 88.67, 95.60, 86.78],
            "Gemini 2.5 Flash": [89.28, 86.90, 95.55, 86.97],
            "Claude Sonnet 4.5": [77.78, 85.08, 91.11, 69.90],
        },
        "reference": [],
    },
    # Supplementary §18, Tables 13, 17, 21 and 25: all 24 models under the Short prompt, the Score
    # column of the Natural, Document, E-commerce and Embodied AI tables (their Acc and Cannot
    # columns are not transcribed). The paper prints no Overall for these tables.
    # Table 21 prints InternVL3-14B's model cell as "InternVL3-14B" (size "14B").
    "full_short": {
        "source": "CaptionQA, Tables 13, 17, 21, 25 (Short prompt; Score)",
        "caption": "CaptionQA score (%) per domain of all evaluated models, captions from the Short prompt.",
        "setting": "short",
        "columns": list(DOMAINS),
        "digits": 2,
        "rows": {
            # Open-Source VLMs
            "Qwen3-VL-4B": [60.52, 48.12, 61.69, 59.63],
            "Qwen3-VL-8B": [57.38, 43.27, 57.66, 56.24],
            "Qwen3-VL-30B-A3B": [59.48, 48.90, 61.23, 57.56],
            "Qwen2.5-VL-7B": [54.77, 43.32, 56.88, 53.27],
            "Qwen2.5-VL-32B": [54.74, 45.32, 57.89, 53.58],
            "Qwen2.5-VL-72B": [54.70, 42.93, 57.06, 54.83],
            "GLM-4.1V-9B": [62.43, 55.69, 64.05, 61.29],
            "InternVL3.5-1B": [55.28, 43.69, 55.23, 52.66],
            "InternVL3.5-8B": [54.89, 45.26, 56.67, 52.12],
            "InternVL3.5-30B-A3B": [55.16, 44.76, 57.58, 54.61],
            "InternVL3.5-38B": [56.52, 44.24, 59.16, 57.16],
            "InternVL3-8B": [56.50, 44.58, 56.99, 55.17],
            "InternVL3-14B": [55.13, 44.57, 56.27, 53.77],
            "InternVL3-78B": [38.24, 33.70, 35.32, 34.03],
            "NVLM-D-72B": [51.29, 40.99, 50.88, 51.53],
            "LLaVA-OneVision-7B": [51.01, 38.28, 49.80, 49.41],
            "LLaVA-1.5-7B": [49.05, 35.33, 43.91, 46.75],
            "Mistral-Small-24B": [36.21, 30.78, 33.03, 33.95],
            # Proprietary VLMs
            "GPT-5": [55.65, 44.85, 57.36, 57.73],
            "GPT-4o": [54.19, 42.84, 55.48, 54.47],
            "GPT-o4-mini": [54.76, 46.40, 56.84, 57.76],
            "Gemini 2.5 Pro": [55.33, 46.25, 58.98, 57.40],
            "Gemini 2.5 Flash": [55.13, 44.09, 56.77, 55.78],
            "Claude Sonnet 4.5": [56.77, 46.04, 59.31, 53.16],
        },
        "reference": [],
    },
    # Supplementary §18, Tables 12, 16, 20 and 24: all 24 models under the Simple prompt, the Score
    # column of the Natural, Document, E-commerce and Embodied AI tables (their Acc and Cannot
    # columns are not transcribed). The paper prints no Overall for these tables.
    # Table 12 (Natural, Simple) has no InternVL3-8B row, so that cell is None; Table 3 gives 76.46.
    # Table 20 prints InternVL3-14B's model cell as "InternVL3-14B" (size "14B").
    "full_simple": {
        "source": "CaptionQA, Tables 12, 16, 20, 24 (Simple prompt; Score)",
        "caption": "CaptionQA score (%) per domain of all evaluated models, captions from the Simple prompt.",
        "setting": "simple",
        "columns": list(DOMAINS),
        "digits": 2,
        "rows": {
            # Open-Source VLMs
            "Qwen3-VL-4B": [84.73, 84.99, 93.77, 80.56],
            "Qwen3-VL-8B": [85.25, 85.85, 93.35, 80.37],
            "Qwen3-VL-30B-A3B": [86.14, 85.89, 93.90, 82.15],
            "Qwen2.5-VL-7B": [71.64, 75.85, 85.38, 68.36],
            "Qwen2.5-VL-32B": [78.35, 82.67, 90.81, 72.98],
            "Qwen2.5-VL-72B": [75.26, 80.56, 89.07, 71.60],
            "GLM-4.1V-9B": [81.67, 87.86, 92.04, 75.56],
            "InternVL3.5-1B": [70.82, 68.08, 82.69, 64.46],
            "InternVL3.5-8B": [72.97, 78.56, 86.60, 67.24],
            "InternVL3.5-30B-A3B": [74.58, 77.72, 85.79, 69.75],
            "InternVL3.5-38B": [78.26, 78.91, 86.47, 74.68],
            "InternVL3-8B": [None, 75.83, 87.01, 72.07],
            "InternVL3-14B": [74.16, 74.17, 86.17, 69.75],
            "InternVL3-78B": [38.86, 34.19, 38.47, 34.32],
            "NVLM-D-72B": [73.13, 65.25, 78.46, 70.31],
            "LLaVA-OneVision-7B": [66.56, 61.45, 75.09, 61.01],
            "LLaVA-1.5-7B": [52.51, 36.48, 49.00, 49.84],
            "Mistral-Small-24B": [35.91, 30.81, 34.52, 33.78],
            # Proprietary VLMs
            "GPT-5": [88.78, 90.81, 94.73, 86.82],
            "GPT-4o": [82.69, 82.55, 91.40, 81.61],
            "GPT-o4-mini": [84.66, 88.14, 93.18, 82.94],
            "Gemini 2.5 Pro": [87.89, 88.66, 93.91, 85.45],
            "Gemini 2.5 Flash": [88.95, 88.97, 95.73, 84.89],
            "Claude Sonnet 4.5": [76.56, 83.09, 88.86, 67.27],
        },
        "reference": [],
    },
    # Supplementary §18, Tables 14, 18, 22 and 26: all 24 models under the Taxonomy-Hinted prompt, the Score
    # column of the Natural, Document, E-commerce and Embodied AI tables (their Acc and Cannot
    # columns are not transcribed). The paper prints no Overall for these tables.
    "full_taxonomy": {
        "source": "CaptionQA, Tables 14, 18, 22, 26 (Taxonomy-Hinted prompt; Score)",
        "caption": "CaptionQA score (%) per domain of all evaluated models, captions from the Taxonomy-Hinted prompt.",
        "setting": "taxonomy",
        "columns": list(DOMAINS),
        "digits": 2,
        "rows": {
            # Open-Source VLMs
            "Qwen3-VL-4B": [76.30, 66.63, 82.98, 69.55],
            "Qwen3-VL-8B": [78.99, 70.82, 84.19, 74.85],
            "Qwen3-VL-30B-A3B": [74.46, 62.49, 76.27, 70.70],
            "Qwen2.5-VL-7B": [68.46, 57.05, 75.21, 63.44],
            "Qwen2.5-VL-32B": [74.64, 71.44, 83.55, 70.02],
            "Qwen2.5-VL-72B": [72.93, 62.48, 83.80, 69.66],
            "GLM-4.1V-9B": [75.87, 72.40, 83.87, 72.59],
            "InternVL3.5-1B": [65.58, 56.37, 68.54, 60.61],
            "InternVL3.5-8B": [65.77, 52.60, 71.70, 61.62],
            "InternVL3.5-30B-A3B": [65.66, 51.83, 73.27, 65.15],
            "InternVL3.5-38B": [69.30, 51.94, 73.46, 66.35],
            "InternVL3-8B": [71.57, 55.05, 75.82, 67.46],
            "InternVL3-14B": [68.27, 54.52, 74.83, 62.86],
            "InternVL3-78B": [38.39, 33.41, 39.11, 34.40],
            "NVLM-D-72B": [72.63, 59.61, 76.12, 64.42],
            "LLaVA-OneVision-7B": [63.24, 56.57, 69.78, 62.03],
            "LLaVA-1.5-7B": [51.24, 35.65, 47.99, 46.92],
            "Mistral-Small-24B": [35.95, 30.60, 35.87, 34.17],
            # Proprietary VLMs
            "GPT-5": [86.87, 72.36, 88.63, 85.10],
            "GPT-4o": [78.30, 63.48, 81.51, 76.27],
            "GPT-o4-mini": [82.50, 75.08, 86.89, 80.08],
            "Gemini 2.5 Pro": [87.47, 81.34, 91.50, 85.35],
            "Gemini 2.5 Flash": [87.55, 81.89, 93.41, 82.81],
            "Claude Sonnet 4.5": [77.36, 83.23, 89.74, 70.44],
        },
        "reference": [],
    },
}

# The paper names no snapshot of any API model, so the aliases are the undated API names (Claude
# Sonnet 4.5 has one snapshot). GLM-4.1V-9B was released only as its Thinking model (the paper
# cites GLM-4.1V-Thinking). Qwen3-VL, Qwen2.5-VL: the Instruct releases (the paper does not run
# the Thinking variants). Mistral-Small-24B is left out: the paper does not say which 24B release
# (3.1 or 3.2) it ran.
ALIASES: dict[str, list[str]] = {
    "Qwen3-VL-4B": ["Qwen/Qwen3-VL-4B-Instruct"],
    "Qwen3-VL-8B": ["Qwen/Qwen3-VL-8B-Instruct"],
    "Qwen3-VL-30B-A3B": ["Qwen/Qwen3-VL-30B-A3B-Instruct"],
    "Qwen2.5-VL-7B": ["Qwen/Qwen2.5-VL-7B-Instruct"],
    "Qwen2.5-VL-32B": ["Qwen/Qwen2.5-VL-32B-Instruct"],
    "Qwen2.5-VL-72B": ["Qwen/Qwen2.5-VL-72B-Instruct"],
    "GLM-4.1V-9B": ["zai-org/GLM-4.1V-9B-Thinking", "THUDM/GLM-4.1V-9B-Thinking"],
    "InternVL3.5-1B": ["OpenGVLab/InternVL3_5-1B", "OpenGVLab/InternVL3_5-1B-HF"],
    "InternVL3.5-8B": ["OpenGVLab/InternVL3_5-8B", "OpenGVLab/InternVL3_5-8B-HF"],
    "InternVL3.5-30B-A3B": ["OpenGVLab/InternVL3_5-30B-A3B", "OpenGVLab/InternVL3_5-30B-A3B-HF"],
    "InternVL3.5-38B": ["OpenGVLab/InternVL3_5-38B", "OpenGVLab/InternVL3_5-38B-HF"],
    "InternVL3-8B": ["OpenGVLab/InternVL3-8B", "OpenGVLab/InternVL3-8B-hf"],
    "InternVL3-14B": ["OpenGVLab/InternVL3-14B", "OpenGVLab/InternVL3-14B-hf"],
    "InternVL3-78B": ["OpenGVLab/InternVL3-78B", "OpenGVLab/InternVL3-78B-hf"],
    "NVLM-D-72B": ["nvidia/NVLM-D-72B"],
    "LLaVA-OneVision-7B": ["lmms-lab/llava-onevision-qwen2-7b-ov", "llava-hf/llava-onevision-qwen2-7b-ov-hf"],
    "LLaVA-OV-7B": ["lmms-lab/llava-onevision-qwen2-7b-ov", "llava-hf/llava-onevision-qwen2-7b-ov-hf"],
    "LLaVA-1.5-7B": ["llava-hf/llava-1.5-7b-hf", "liuhaotian/llava-v1.5-7b"],
    "GPT-5": ["gpt-5"],
    "GPT-4o": ["gpt-4o"],
    "GPT-o4-mini": ["o4-mini"],
    "Gemini 2.5 Pro": ["gemini-2.5-pro"],
    "Gemini-2.5-Pro": ["gemini-2.5-pro"],
    "Gemini 2.5 Flash": ["gemini-2.5-flash"],
    "Claude Sonnet 4.5": ["claude-sonnet-4-5", "claude-sonnet-4-5-20250929"],
    "Claude-Sonnet-4.5": ["claude-sonnet-4-5", "claude-sonnet-4-5-20250929"],
}
