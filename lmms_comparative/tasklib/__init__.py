"""What every benchmark's hooks share, in three parts: ``docs`` (the ``process_docs`` side),
``results`` (``process_results``, aggregations and the failure policy) and ``rounds`` (multi-round
tasks). Everything public is importable from here: ``from lmms_comparative.tasklib import docs_hook``.

At run time the names are read from their module on first use (PEP 562): the harness imports the
light modules of the kit (``capabilities``, ``host``, ``side_logs``) in every lmms-eval process, and
importing them must not load ``results`` (``datasets``, about a second) through this file. A type
checker reads them from their modules (the ``TYPE_CHECKING`` imports), so each call is checked.
"""

# ruff: noqa: F401 - the TYPE_CHECKING imports are this face's names, for a type checker

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what a type checker reads: the names as their modules define them
    from lmms_comparative.tasklib.docs import (
        RECORDED_SKIPS_ENV,
        column_of,
        docs_dataset,
        docs_hook,
        load_image_paths,
        load_images,
        recorded_skips,
        report_skips,
        rows_of,
        rows_to_columns,
        stops_run_on_bad_input,
    )
    from lmms_comparative.tasklib.results import (
        KeepAllResponses,
        Share,
        Unscored,
        accuracy_aggregation,
        check_model_failures,
        counts_aggregation,
        group_ci95,
        group_ci95_same_items,
        group_share,
        group_sum_counts,
        guard_scoring,
        item_results,
        metric_of,
        once_per_run,
        response_text,
        skip_counts,
    )
    from lmms_comparative.tasklib.rounds import (
        END_OF_ROUNDS,
        flatten,
        next_round,
        round_replies,
    )

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


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        value = getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
