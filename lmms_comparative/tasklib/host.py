"""What a task's hooks may ask of the lmms-eval run they are part of: the run's ``--model`` and its
``--model_args``. The harness (``harness/task_path.py``) records the model when lmms-eval hands it
to its TaskManager; the hooks only read it here, so a benchmark never imports the harness."""

from __future__ import annotations

from lmms_comparative.switches import cli_value


class RunModel:
    """The ``--model`` of the current run, as the evaluator hands it to its TaskManager."""

    value: object = None


def run_model():
    """The model name (or lmms object) of the current lmms-eval run, or None if unknown."""
    return RunModel.value


def run_model_args() -> dict[str, str]:
    """The ``--model_args`` of the current lmms-eval CLI process (under torchrun too: each rank has
    the same command line), parsed as lmms-eval parses them; {} outside the CLI or without them."""
    value = cli_value("--model_args")
    if value is None:
        return {}
    try:
        from lmms_eval.utils import simple_parse_args_string

        return {str(k): v for k, v in simple_parse_args_string(value).items()}
    except Exception:  # noqa: BLE001 - lmms-eval reports malformed model_args itself
        return {}
