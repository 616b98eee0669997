"""How lmms-eval finds our models and tasks.

lmms-eval 0.7.3 has an entry-point group for models (``lmms_eval.models``) but none for tasks, and
its ``LMMS_EVAL_PLUGINS`` variable adds a plugin's task folder only after the TaskManager has
indexed tasks. The model entry points are loaded when ``lmms_eval.models`` is first imported, which
the evaluator does before any TaskManager exists. So the entry-point payload, besides returning our
model manifests, wraps ``TaskManager.initialize_tasks`` once so that every TaskManager also indexes
our YAML folder. The wrapper is small, idempotent, and checks the signature it relies on; if a
future lmms-eval changes it, we log how to fall back to ``--include_path`` instead of failing.
"""

from __future__ import annotations

import functools
import inspect
import os

from lmms_comparative import yaml_dir

_MARKER = "_lmms_comparative_task_path"

# Opt out with LMMS_COMPARATIVE_NO_TASK_HOOK=1 (then use --include_path, see the README).
_OPT_OUT = "LMMS_COMPARATIVE_NO_TASK_HOOK"

# The ``--model`` of the run, as the evaluator hands it to its TaskManager before loading any task.
# Task hooks cannot see the model; the few that must check a capability (video input) read this.
_run_model: object = None


def run_model():
    """The model name (or lmms object) of the current lmms-eval run, or None if unknown."""
    return _run_model


def _with_our_path(include_path):
    ours = yaml_dir()
    if include_path is None:
        return [ours]
    paths = [include_path] if isinstance(include_path, str) else list(include_path)
    if not any(os.path.realpath(p) == os.path.realpath(ours) for p in paths):
        paths.append(ours)
    return paths


def install_task_path() -> bool:
    """Make every lmms-eval TaskManager index our tasks. Returns whether the hook is in place."""
    if os.environ.get(_OPT_OUT, "").strip() not in ("", "0"):
        return False
    try:
        from lmms_eval.tasks import TaskManager
    except Exception:  # lmms-eval not importable: nothing to hook
        return False
    if getattr(TaskManager, _MARKER, False):
        return True
    original = TaskManager.initialize_tasks
    params = inspect.signature(original).parameters
    if "include_path" not in params:
        from loguru import logger

        logger.warning(
            "lmms-comparative: this lmms-eval's TaskManager.initialize_tasks has no include_path; "
            f"our tasks are not registered automatically. Pass --include_path {yaml_dir()}"
        )
        return False

    @functools.wraps(original)
    def initialize_tasks(self, include_path=None, *args, **kwargs):
        global _run_model
        _run_model = getattr(self, "model_name", None) or _run_model
        from lmms_comparative import presentation
        from lmms_comparative.run_status import watch_evaluation_errors
        from lmms_comparative.tasks.capabilities import ModelCapabilityError, require_model_dependencies

        watch_evaluation_errors()
        presentation.install()  # again: the CLI module has bound make_table by now
        try:
            require_model_dependencies(_run_model)
        except ModelCapabilityError as exc:  # before any data or weights load; not retried
            raise SystemExit(f"lmms-comparative: {exc}") from None
        return original(self, _with_our_path(include_path), *args, **kwargs)

    TaskManager.initialize_tasks = initialize_tasks
    setattr(TaskManager, _MARKER, True)
    return True


def model_manifests():
    from lmms_eval.models.registry_v2 import ModelManifest

    return [
        ModelManifest(
            model_id="random_choice",
            simple_class_path="lmms_comparative.models.random_choice.RandomChoice",
        ),
        ModelManifest(
            model_id="pixel_diff",
            simple_class_path="lmms_comparative.models.pixel_diff.PixelDiff",
        ),
    ]


def register():
    """The ``lmms_eval.models`` entry point: our model manifests, plus the task-path hook, the
    few-shot check (tasks/protocol.py), in a CLI process the exit status that reports a failed
    run (run_status.py), and the readable table and closing summary (presentation.py)."""
    from lmms_comparative import presentation
    from lmms_comparative.run_status import install_exit_status
    from lmms_comparative.tasks.protocol import install_fewshot_check

    install_task_path()
    presentation.install()
    install_fewshot_check()
    install_exit_status()
    return model_manifests()
