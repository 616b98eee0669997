"""VLM-SubtleBench's columns as its paper's tables print them: the ten difference types (Table 2), the
paper's reference rows, and the tasks behind Table 2's cells. Shared by the report and its charts."""

from __future__ import annotations

from lmms_comparative.benchmarks.subtlebench.data import CATEGORIES

# Table 2's columns: the type codes of data.CATEGORIES, as the paper heads them.
SUBTLEBENCH_TYPES = [(code, code.upper()) for code in CATEGORIES]

# VLM-SubtleBench Table 2.
SUBTLEBENCH_REFERENCE = {
    "Random Guess (paper)": [35.9, 50.0, 50.0, 50.0, 36.6, 23.2, 48.9, 50.0, 42.1, 50.0, 43.3],
    "Human Eval (paper)": [92.0, 93.0, 93.0, 93.0, 95.0, 97.0, 97.0, 99.0, 98.0, 98.0, 95.5],
}

# The tasks behind Table 2's cells: the ten types, then the group (AVG).
TABLE2_TASKS = [f"subtlebench_{k}" for k, _ in SUBTLEBENCH_TYPES] + ["subtlebench"]
