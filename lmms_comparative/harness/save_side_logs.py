"""Patch: ``lmms_eval.loggers.evaluation_tracker.EvaluationTracker.save_results_samples``, so that
what a task's scoring pass computes per item beyond the samples (CaptionQA's reader answers, one
per question) is written beside the samples log: ``<date>_<name>_<task>.jsonl`` in the same folder.

The samples log holds what ``process_results`` returned per doc. A scoring pass that runs in the
aggregation (the CaptionQA reader) has its own rows; they cannot go into the samples, which on a
multi-process run are copies gathered before the aggregation. So the pass hands them to ``add``
(``tasklib.side_logs.add``, on the rank that aggregates), and the tracker writes them when it writes that task's samples
(``--log_samples``; without it nothing is written, as with the samples).
"""

from __future__ import annotations

import inspect
from pathlib import Path

from lmms_comparative.harness.patch import wrap_method
from lmms_comparative.tasklib.side_logs import pending, write

_MARK = "_lmms_comparative_side_logs"


def check() -> str | None:
    """None if the tracker has ``save_results_samples(self, task_name, samples)`` and the fields it
    builds the samples folder from, else why not."""
    from lmms_eval.loggers.evaluation_tracker import EvaluationTracker

    original = getattr(EvaluationTracker.save_results_samples, "__wrapped__", EvaluationTracker.save_results_samples)
    params = list(inspect.signature(original).parameters)
    if params[:3] != ["self", "task_name", "samples"]:
        return f"EvaluationTracker.save_results_samples takes {params}, not (self, task_name, samples)"
    source = inspect.getsource(original)
    if "model_name_sanitized" not in source or "date_id" not in source:
        return (
            "EvaluationTracker.save_results_samples no longer writes "
            "<output_path>/<model_name_sanitized>/<date_id>_samples_<task>.jsonl"
        )
    return None


def install() -> bool:
    """Wrap ``EvaluationTracker.save_results_samples`` to write a task's pending rows beside its samples log
    (idempotent). Returns whether the wrapper is in place (False where lmms-eval cannot be imported or the check
    fails)."""
    try:
        from lmms_eval.loggers.evaluation_tracker import EvaluationTracker
    except Exception:
        return False

    def make(original):
        def save_results_samples(self, task_name, samples):
            result = original(self, task_name, samples)
            if self.output_path and pending(task_name):
                # The folder the tracker writes the samples to (same rule as the original).
                folder = Path(self.output_path).joinpath(self.general_config_tracker.model_name_sanitized)
                folder.mkdir(parents=True, exist_ok=True)
                write(folder, self.date_id, task_name)
            return result

        return save_results_samples

    return wrap_method("side_logs", EvaluationTracker, "save_results_samples", _MARK, check, make)
