"""ViDi: the published model rows of the paper's result tables, as printed.

Pure data. Each entry of TABLES is one table (or one setting of a table):
  source     the paper's table number (and the setting, where needed)
  caption    what the numbers are
  setting    "granular" or "global" where the table is of one setting
  columns    our column keys, in the order of the values
  digits     the paper's precision
  rows       row name as the paper prints it -> values in column order (None: no value printed)
  spread     (some tables) row -> the variation the paper prints after each value, column order
  reference  the rows that are not models (humans); they are in rows too
ALIASES maps a paper model name to the Hugging Face ids that are that model (the paper ran the
released Hugging Face versions, appendix B), only where the name leaves no doubt.
All caption metrics are on the paper's x100 scale (CIDEr too).
"""

from __future__ import annotations

TABLES: dict[str, dict] = {
    # Table 1, granular alignment setting (one difference per answer, scored against the closest
    # ground-truth sentence). Table 1 prints BLEU-1, BLEU-4, ROUGE-L and CIDEr only; BLEU-2/3 are in
    # Table 4 below. In the paper's text both blocks stand above the caption "Table 1: MLLM
    # performance metrics on ViDi", under the headings "Granular Alignment Setting" and
    # "Global Alignment Setting".
    "table1_granular": {
        "source": "ViDi, Table 1 (granular alignment setting)",
        "caption": "Caption metrics (x100) of one described difference against the closest ground-truth difference.",
        "setting": "granular",
        "columns": ["bleu1", "bleu4", "rougeL", "cider"],
        "digits": 1,
        "rows": {
            "Phi3.5 Vision": [37.5, 5.1, 29.5, 6.9],
            "MiniCPM-V-2.6": [23.3, 2.1, 23.2, 0.0],
            "LLaVA-CoT": [50.0, 8.0, 32.1, 12.4],
            "NVLM-D-72B": [42.0, 6.4, 32.5, 7.9],
            "LLAVA-OV-72B": [46.0, 9.7, 33.6, 15.7],
            "InternVL2.5-78B": [53.4, 10.2, 37.5, 17.2],
            "Llama-3.2-90B": [34.2, 5.0, 29.9, 3.2],
        },
        "reference": [],
    },
    # Table 1, global alignment setting (all differences listed, scored against the concatenated
    # ground truth). Table 4's global block repeats these values.
    "table1_global": {
        "source": "ViDi, Table 1 (global alignment setting)",
        "caption": "Caption metrics (x100) of the listed differences against all ground-truth differences as one paragraph.",
        "setting": "global",
        "columns": ["bleu1", "bleu4", "rougeL", "cider"],
        "digits": 1,
        "rows": {
            "Phi3.5 Vision": [27.9, 3.3, 22.6, 3.3],
            "MiniCPM-V-2.6": [22.4, 1.7, 19.4, 1.2],
            "LLaVA-CoT": [4.1, 0.5, 13.6, 1.0],
            "NVLM-D-72B": [13.3, 1.6, 19.5, 0.9],
            "LLAVA-OV-72B": [1.5, 0.3, 13.0, 0.0],
            "InternVL2.5-78B": [16.3, 2.6, 18.7, 3.4],
            "Llama-3.2-90B": [23.6, 2.9, 16.3, 1.5],
        },
        "reference": [],
    },
    # Table 4 (appendix D), granular block: all six metrics, the mean of the two image orders
    # "± the corresponding variation" (kept in "spread").
    "table4_granular": {
        "source": "ViDi, Table 4 (granular alignment setting)",
        "caption": "Caption metrics (x100), mean over the two image orders; spread: the variation between the orders.",
        "setting": "granular",
        "columns": ["bleu1", "bleu2", "bleu3", "bleu4", "rougeL", "cider"],
        "digits": 1,
        "rows": {
            "Phi3.5 Vision": [37.5, 21.0, 9.9, 5.1, 29.5, 6.9],
            "MiniCPM-V-2.6": [23.3, 12.3, 4.6, 2.1, 23.2, 0.0],
            "LLaVA-CoT": [50.0, 26.9, 14.4, 8.0, 32.1, 12.4],
            "NVLM-D-72B": [42.0, 23.5, 11.8, 6.4, 32.5, 7.9],
            "LLAVA-OV-72B": [46.0, 27.4, 15.7, 9.7, 33.6, 15.7],
            "InternVL2.5-78B": [53.4, 31.4, 17.5, 10.2, 37.5, 17.2],
            "Llama-3.2-90B": [34.2, 18.4, 9.2, 5.0, 29.9, 3.2],
        },
        "spread": {
            "Phi3.5 Vision": [0.2, 0.4, 0.3, 0.3, 0.3, 0.4],
            "MiniCPM-V-2.6": [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            "LLaVA-CoT": [0.4, 0.5, 0.5, 0.4, 0.3, 0.5],
            "NVLM-D-72B": [0.1, 0.2, 0.2, 0.2, 0.2, 0.1],
            "LLAVA-OV-72B": [0.3, 0.2, 0.3, 0.3, 0.6, 0.8],
            "InternVL2.5-78B": [0.5, 0.1, 0.2, 0.2, 0.0, 0.0],
            "Llama-3.2-90B": [0.1, 0.1, 0.1, 0.0, 0.0, 0.2],
        },
        "reference": [],
    },
    # Table 4 (appendix D), global block. Its heading is garbled in the paper's text
    # ("Cilobal A 110 ment Setting"); the rows are clean and match Table 1's global block.
    "table4_global": {
        "source": "ViDi, Table 4 (global alignment setting)",
        "caption": "Caption metrics (x100), mean over the two image orders; spread: the variation between the orders.",
        "setting": "global",
        "columns": ["bleu1", "bleu2", "bleu3", "bleu4", "rougeL", "cider"],
        "digits": 1,
        "rows": {
            "Phi3.5 Vision": [27.9, 14.4, 6.6, 3.3, 22.6, 3.3],
            "MiniCPM-V-2.6": [22.4, 11.1, 4.2, 1.7, 19.4, 1.2],
            "LLaVA-CoT": [4.1, 2.0, 1.0, 0.5, 13.6, 1.0],
            "NVLM-D-72B": [13.3, 6.9, 3.1, 1.6, 19.5, 0.9],
            "LLAVA-OV-72B": [1.5, 0.9, 0.5, 0.3, 13.0, 0.0],
            "InternVL2.5-78B": [16.3, 8.6, 4.6, 2.6, 18.7, 3.4],
            "Llama-3.2-90B": [23.6, 11.5, 5.5, 2.9, 16.3, 1.5],
        },
        "spread": {
            "Phi3.5 Vision": [0.1, 0.1, 0.0, 0.0, 0.0, 0.1],
            "MiniCPM-V-2.6": [0.1, 0.0, 0.0, 0.0, 0.0, 0.1],
            "LLaVA-CoT": [0.0, 0.0, 0.0, 0.0, 0.1, 0.2],
            "NVLM-D-72B": [0.0, 0.0, 0.0, 0.0, 0.1, 0.0],
            "LLAVA-OV-72B": [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            "InternVL2.5-78B": [0.3, 0.1, 0.0, 0.0, 0.0, 0.0],
            "Llama-3.2-90B": [0.2, 0.1, 0.0, 0.0, 0.2, 0.1],
        },
        "reference": [],
    },
    # Table 2: LLM-as-a-judge (gemini-2.0-flash) precision, recall and F1 in the global setting.
    # The Humans row (7 people, 10 of the 200 pairs) prints mean(std): 77.9(4.9), 63.8(6), 70.1(5.3;
    # the closing parenthesis of the last cell is lost in the text, and the recall std is printed "6").
    "table2": {
        "source": "ViDi, Table 2",
        "caption": "LLM-as-a-judge precision, recall and F1 (%) of the listed differences (global setting). Humans: mean over 7 people on 10 pairs; spread: their standard deviation.",
        "setting": "global",
        "columns": ["precision", "recall", "f1"],
        "digits": 1,
        "rows": {
            "Phi3.5 Vision": [8.2, 6.4, 7.2],
            "MiniCPM-V-2.6": [0.0, 0.2, 0.0],
            "LLaVA-CoT": [1.2, 7.8, 2.1],
            "NVLM-D-72B": [14.4, 4.9, 7.3],
            "LLAVA-OV-72B": [30.6, 8.6, 13.5],
            "InternVL2.5-78B": [16.3, 9.9, 12.3],
            "Llama-3.2-90B": [9.8, 3.7, 5.4],
            "Humans": [77.9, 63.8, 70.1],
        },
        "spread": {"Humans": [4.9, 6, 5.3]},
        "reference": ["Humans"],
    },
}

# Model names as in Table 3 of the paper (vision encoder, size); LLaVA-CoT is the 11B
# Llama-3.2-Vision fine-tune released as Llama-3.2V-11B-cot.
ALIASES: dict[str, list[str]] = {
    "Phi3.5 Vision": ["microsoft/Phi-3.5-vision-instruct"],
    "MiniCPM-V-2.6": ["openbmb/MiniCPM-V-2_6"],
    "LLaVA-CoT": ["Xkev/Llama-3.2V-11B-cot"],
    "NVLM-D-72B": ["nvidia/NVLM-D-72B"],
    "LLAVA-OV-72B": ["lmms-lab/llava-onevision-qwen2-72b-ov", "llava-hf/llava-onevision-qwen2-72b-ov-hf"],
    "InternVL2.5-78B": ["OpenGVLab/InternVL2_5-78B"],
    "Llama-3.2-90B": ["meta-llama/Llama-3.2-90B-Vision-Instruct"],
}
