"""What every benchmark's hooks share, in three parts: ``docs`` (the ``process_docs`` side),
``results`` (``process_results``, aggregations and the failure policy) and ``rounds`` (multi-round
tasks). Everything public is importable from here: ``from lmms_comparative.tasklib import docs_hook``.

The names are read from their module on first use (PEP 562): the harness imports the light modules
of the kit (``capabilities``, ``host``, ``side_logs``) in every lmms-eval process, and importing
them must not load ``results`` (``datasets``, about a second) through this file.
"""

from __future__ import annotations

import importlib

# Each public name and the module of the kit that defines it.
_WHERE = {
    "accuracy_aggregation": "results",
    "check_model_failures": "results",
    "column_of": "docs",
    "counts_aggregation": "results",
    "docs_dataset": "docs",
    "docs_hook": "docs",
    "END_OF_ROUNDS": "rounds",
    "flatten": "rounds",
    "group_ci95": "results",
    "group_ci95_same_items": "results",
    "group_share": "results",
    "group_sum_counts": "results",
    "guard_scoring": "results",
    "item_results": "results",
    "KeepAllResponses": "results",
    "load_image_paths": "docs",
    "load_images": "docs",
    "metric_of": "results",
    "next_round": "rounds",
    "once_per_run": "results",
    "recorded_skips": "docs",
    "RECORDED_SKIPS_ENV": "docs",
    "report_skips": "docs",
    "response_text": "results",
    "round_replies": "rounds",
    "rows_of": "docs",
    "rows_to_columns": "docs",
    "Share": "results",
    "skip_counts": "results",
    "stops_run_on_bad_input": "docs",
    "Unscored": "results",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str):
    if name in _WHERE:
        value = getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
