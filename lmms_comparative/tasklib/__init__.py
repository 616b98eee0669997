"""What every benchmark's hooks share, in four parts: ``docs`` (the ``process_docs`` side),
``messages`` (what ``doc_to_messages`` returns), ``results`` (``process_results``, aggregations and
the failure policy) and ``rounds`` (multi-round tasks). Everything public of those is importable
from here: ``from lmms_comparative.tasklib import docs_hook``. Beside them, imported from their own
modules: ``in_rounds`` (a multi-round hook's signature, first round and stop), ``kept_reply`` (a
free-text reply kept for a judge), ``file_opening`` (the first text of a replies file),
``report_part`` (a report part bound to its record), ``yamlgen`` (the task files' YAML) and the
harness's light modules (``capabilities``, ``host``, ``side_logs``).

At run time the names are read from their module on first use (PEP 562): the harness imports the
light modules of the kit (``capabilities``, ``host``, ``side_logs``) in every lmms-eval process, and
importing them must not load ``results`` (``datasets``, about a second) through this file. A type
checker reads them from their modules (the ``TYPE_CHECKING`` imports), so each call is checked.
"""

# ruff: noqa: F401 - the TYPE_CHECKING imports are this face's names, for a type checker

from __future__ import annotations

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
    from lmms_comparative.tasklib.messages import chat
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

# The public names, by the module of the kit that defines each.
_DOCS = frozenset(
    {
        "column_of",
        "docs_dataset",
        "docs_hook",
        "load_image_paths",
        "load_images",
        "recorded_skips",
        "RECORDED_SKIPS_ENV",
        "report_skips",
        "rows_of",
        "rows_to_columns",
        "stops_run_on_bad_input",
    }
)
_MESSAGES = frozenset({"chat"})
_RESULTS = frozenset(
    {
        "accuracy_aggregation",
        "check_model_failures",
        "counts_aggregation",
        "group_ci95",
        "group_ci95_same_items",
        "group_share",
        "group_sum_counts",
        "guard_scoring",
        "item_results",
        "KeepAllResponses",
        "metric_of",
        "once_per_run",
        "response_text",
        "Share",
        "skip_counts",
        "Unscored",
    }
)
_ROUNDS = frozenset({"END_OF_ROUNDS", "flatten", "next_round", "round_replies"})

__all__ = sorted(_DOCS | _MESSAGES | _RESULTS | _ROUNDS)


def __getattr__(name: str) -> Any:
    """A public name, read from its module on first use (that module is imported then, not before)."""
    if name in _DOCS:
        from lmms_comparative.tasklib import docs

        value = getattr(docs, name)
    elif name in _MESSAGES:
        from lmms_comparative.tasklib import messages

        value = getattr(messages, name)
    elif name in _RESULTS:
        from lmms_comparative.tasklib import results

        value = getattr(results, name)
    elif name in _ROUNDS:
        from lmms_comparative.tasklib import rounds

        value = getattr(rounds, name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value
