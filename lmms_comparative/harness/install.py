"""Putting the patches in place: each when the lmms-eval module it patches is first imported
(``install_on_import``, what the entry point does), or all at once (``install_all``, what the
``task_path`` patch does when a run starts; it is handed the function, so that it imports nothing
above it)."""

from __future__ import annotations

from lmms_comparative.harness import (
    exit_status,
    fewshot,
    item_order,
    on_import,
    response_cache,
    save_side_logs,
    stamp_results,
    table,
    task_path,
)
from lmms_comparative.tasklib import capabilities

PATCHES = (
    "task_path",
    "fewshot",
    "exit_status",
    "table",
    "side_logs",
    "provenance",
    "item_order",
    "response_cache",
    "capabilities",
)
# The lmms-eval module whose first import installs each patch (exit_status and capabilities need
# none: the first wraps sys.exit at once, the second patches nothing).
PATCHED_MODULES = {
    "task_path": ("lmms_eval.tasks",),
    "fewshot": ("lmms_eval.api.task",),
    "table": ("lmms_eval.utils", "lmms_eval.evaluator_utils"),
    "side_logs": ("lmms_eval.loggers.evaluation_tracker",),
    "provenance": ("lmms_eval.loggers.evaluation_tracker",),
    "item_order": ("lmms_eval.evaluator_utils",),
    "response_cache": ("lmms_eval.caching.response_cache",),
}


MODULES = {
    "task_path": task_path,
    "fewshot": fewshot,
    "exit_status": exit_status,
    "table": table,
    "side_logs": save_side_logs,
    "provenance": stamp_results,
    "item_order": item_order,
    "response_cache": response_cache,
    "capabilities": capabilities,
}


def checks() -> dict[str, str | None]:
    """Each patch's check against the installed lmms-eval: None where it holds, else the reason."""
    return {name: MODULES[name].check() for name in PATCHES}


def _installer(name: str):
    module = MODULES[name]
    if name == "table":
        return lambda: module.install(load=False)  # only the halves whose module is imported
    return module.install


def install_all() -> None:
    """Install every patch now (idempotent), importing the lmms-eval modules they patch. Each
    installs itself only where its check holds."""
    task_path.when_run_starts(install_all)
    for name in PATCHED_MODULES:
        MODULES[name].install()
    exit_status.install_exit_status()


def install_on_import() -> None:
    """What the entry point does: wrap ``sys.exit`` (an lmms-eval CLI process only), and install
    each other patch when its lmms-eval module is first imported (at once where it already is)."""
    task_path.when_run_starts(install_all)
    exit_status.install_exit_status()
    for name, modules in PATCHED_MODULES.items():
        for module in modules:
            on_import.when_imported(module, name, _installer(name))
