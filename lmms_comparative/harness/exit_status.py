"""Patch: ``sys.exit`` of an lmms-eval CLI process (and a loguru sink), so that a failed run ends
with exit status 1.

lmms-eval's CLI exits 0 even when a task could not be scored (it catches evaluation errors and
prints them). Our tasks therefore record what went wrong (``failures.flag``): a judge or reader that
failed past ``LMMS_COMPARATIVE_MAX_FAILED``, model requests that failed past it, items skipped past
it. Each flag is logged as an error when it happens; the task's results are still written (with
its counts and the reason), the other tasks of the run are scored as usual, and when the CLI
process exits its status becomes 1 and the reasons are repeated at the end of the log.

The exit status is set by wrapping ``sys.exit``, which ``python -m lmms_eval`` ends with (also
under ``torchrun``): the process then exits normally, with every clean-up handler run. The
``lmms-eval`` console script bound ``sys.exit`` before the plugin loaded, so there an exit handler
ends a flagged run with status 1 (``_exit_fallback``). Only a process started as the lmms-eval CLI
is touched, so a Python session that imports lmms-eval keeps its own exit status.
"""

from __future__ import annotations

import atexit
import os
import sys

from loguru import logger

from lmms_comparative.failures import add_flag, flags

_installed = False


def _started_as_lmms_eval_cli() -> bool:
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None and (spec.name or "").split(".")[0] == "lmms_eval":
        return True  # python -m lmms_eval (torchrun's children too)
    return os.path.basename(sys.argv[0] if sys.argv else "") in ("lmms-eval", "lmms_eval")


def install_exit_status() -> None:
    """In an lmms-eval CLI process: make its final ``sys.exit`` report a flagged run (status 1)."""
    global _installed
    if _installed or not _started_as_lmms_eval_cli():
        return
    _installed = True
    original = sys.exit

    def exit_with_status(code=None):
        global _exit_seen
        _exit_seen = True
        if flags() and code in (None, 0):
            _report()
            code = 1
        original(code)

    sys.exit = exit_with_status
    atexit.register(_exit_fallback)


_exit_seen = False


def _report() -> None:
    lines = "\n".join(f"  - {r}" for r in flags())
    sys.stderr.write(f"lmms-comparative: this run failed (exit status 1):\n{lines}\n")
    sys.stderr.flush()


def _exit_fallback() -> None:
    """The ``lmms-eval`` console script ends with ``sys.exit(main())``, which looked ``sys.exit``
    up before the plugin was loaded, so the wrapper above never runs there. At interpreter exit,
    a flagged run that did not pass through the wrapper ends here with status 1, after the
    clean-ups that matter (log handlers, multiprocessing children, standard streams)."""
    if _exit_seen or not flags():
        return
    _report()
    import logging
    import multiprocessing.util

    multiprocessing.util._exit_function()
    logging.shutdown()
    sys.stdout.flush()
    os._exit(1)


_LMMS_EVAL_ERROR = "Error during evaluation"
_sink_id: int | None = None


def watch_evaluation_errors() -> None:
    """lmms-eval's CLI catches an evaluation that crashed (a model or task error), logs "Error
    during evaluation: ..." and exits 0: count that as a failed run too. Called when a TaskManager
    is built, after lmms-eval has reset its log sinks (it removes every sink at start-up)."""
    global _sink_id
    if not _installed:
        return
    handlers = getattr(getattr(logger, "_core", None), "handlers", {})
    if _sink_id is not None and _sink_id in handlers:
        return
    _sink_id = logger.add(_evaluation_error_sink, level="ERROR", filter=lambda record: record["message"].startswith(_LMMS_EVAL_ERROR), format="{message}")


def _evaluation_error_sink(message) -> None:
    add_flag(f"lmms-eval: {str(message).strip()}")


def check() -> str | None:
    """None if lmms-eval's CLI still logs a caught evaluation error as "Error during evaluation"
    (what ``watch_evaluation_errors`` listens for), else why not."""
    import importlib.util

    spec = importlib.util.find_spec("lmms_eval.__main__")
    source = open(spec.origin, encoding="utf-8").read() if spec and spec.origin else ""
    return None if f"{_LMMS_EVAL_ERROR}: " in source else f'lmms_eval/__main__.py no longer logs "{_LMMS_EVAL_ERROR}: ..."'
