"""Patch: ``sys.exit`` of an lmms-eval CLI process (and a loguru sink), so that a failed run ends
with exit status 1, for runs that include our tasks.

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

Which runs: ``LMMS_COMPARATIVE_EXIT_STATUS`` (``MODE_ENV``) chooses

- ``ours`` (default): a run that includes one of our tasks ends with status 1 when it had a problem
  (our flags, or an evaluation error lmms-eval caught); a run of upstream tasks only keeps
  lmms-eval's exit status and output, whatever happened in it;
- ``all``: that rule for every run, upstream-only runs included;
- ``off``: never change lmms-eval's exit status (the problems are still logged, and the settings a
  run cannot work with still stop it at once, with status 1).

A run includes our tasks when its ``--tasks`` names one of them, or one of our groups, tags or
YAML files (``task_path.run_includes_ours``), or when lmms-eval has loaded one of our task configs.
"""

from __future__ import annotations

import atexit
import os
import re
import sys
from typing import Callable

from loguru import logger

from lmms_comparative.failures import ProtocolError, add_flag, flags
from lmms_comparative.harness.patch import unpatched

_installed = False
MODE_ENV = "LMMS_COMPARATIVE_EXIT_STATUS"
MODES = ("ours", "all", "off")


def mode() -> str:
    """The exit-status rule in force (``ours``, ``all`` or ``off``); a value outside ``MODES``
    raises ProtocolError naming the variable and the choices."""
    raw = os.environ.get(MODE_ENV, "").strip().lower()
    if not raw:
        return "ours"
    if raw not in MODES:
        raise ProtocolError(
            f"{MODE_ENV}={os.environ[MODE_ENV]!r} is not one of {', '.join(MODES)} (ours: exit status 1 for a failed "
            "run that includes our tasks; all: for every failed run; off: never change lmms-eval's exit status)."
        )
    return raw


# Whether the current run includes our tasks: task_path, which reads --tasks and the task index,
# hands its check over when it is imported (this module imports nothing of the harness).
_includes_ours: Callable[[], bool] = lambda: False


def set_includes_ours(check: Callable[[], bool]) -> None:
    """The check ``fails_run`` asks whether the run includes our tasks (``task_path.run_includes_ours``)."""
    global _includes_ours
    _includes_ours = check


def _run_includes_ours() -> bool:
    return _includes_ours()


def fails_run() -> bool:
    """Whether this process's exit status becomes 1: flags were raised, and the mode applies them
    to this run (``off``: never; ``ours``: only a run that includes our tasks; ``all``: always)."""
    if not flags():
        return False
    try:
        chosen = mode()
    except ProtocolError:
        chosen = "ours"  # already reported when the run started
    return chosen == "all" or (chosen == "ours" and _run_includes_ours())


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
        if code in (None, 0) and fails_run():
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
    if _exit_seen or not fails_run():
        return
    _report()
    import logging
    import multiprocessing.util

    multiprocessing.util._exit_function()  # type: ignore[attr-defined]  # private: not in the stubs
    logging.shutdown()
    sys.stdout.flush()
    os._exit(1)


_LMMS_EVAL_ERROR = "Error during evaluation"
_sink_id: int | None = None
_checked = False


def watch_evaluation_errors() -> None:
    """lmms-eval's CLI catches an evaluation that crashed (a model or task error), logs "Error
    during evaluation: ..." and exits 0: count that as a failed run too. Called when a TaskManager
    is built, after lmms-eval has reset its log sinks (it removes every sink at start-up)."""
    global _sink_id, _checked
    if not _installed:
        return
    if not _checked:
        _checked = True
        problem = check()
        if problem:
            unpatched("exit_status", problem)
            return
    handlers = getattr(getattr(logger, "_core", None), "handlers", {})
    if _sink_id is not None and _sink_id in handlers:
        return
    _sink_id = logger.add(
        _evaluation_error_sink,
        level="ERROR",
        filter=lambda record: record["message"].startswith(_LMMS_EVAL_ERROR),
        format="{message}",
    )


def _evaluation_error_sink(message) -> None:
    text = str(message).strip()
    add_flag(f"lmms-eval: {text}{import_hint(text)}")


_FAILED_IMPORT = re.compile(r"No module named '([\w.]+)'|cannot import name '(\w+)' from '([\w.]+)'")


def import_hint(text: str) -> str:
    """For an error that is a failed import (``No module named 'filelock._api'``, ``cannot import
    name 'X' from 'y.z'``): which installed distribution the module comes from, and its version,
    so that a dependency released after our last test is named; "" for any other error."""
    import importlib.metadata as metadata

    found = _FAILED_IMPORT.search(text)
    if not found:
        return ""
    module = found.group(1) or found.group(3)
    top = module.split(".")[0]
    dists = sorted(set(metadata.packages_distributions().get(top, [])))
    if not dists:
        return f" [the import of {module!r} failed: no installed distribution provides {top!r}]"
    installed = ", ".join(f"{d} {metadata.version(d)}" for d in dists)
    tested = _tested_versions()
    pins = ", ".join(f"{d} {tested[_canonical(d)]}" for d in dists if _canonical(d) in tested)
    return (
        f" [the import of {module!r} failed; it comes from {installed}, as installed here"
        + (f"; this package was tested with {pins}" if pins else "")
        + ". Install the tested versions: pip install -c constraints.txt -e . (constraints.txt in the repository)]"
    )


def _canonical(name: str) -> str:
    """A distribution name as PEP 503 compares them (``Sentence_Transformers`` = ``sentence-transformers``)."""
    return re.sub(r"[-_.]+", "-", name.strip()).lower()


def _tested_versions() -> dict[str, str]:
    """{lowercased name: version} from the repository's constraints.txt beside an editable or
    source install, {} where there is none (a wheel)."""
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "constraints.txt"
    if not path.is_file():
        return {}
    pins = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        name, sep, version = line.strip().partition("==")
        if sep and not name.startswith("#"):
            pins[_canonical(name)] = version.strip()
    return pins


def check() -> str | None:
    """None if lmms-eval's CLI still logs a caught evaluation error as "Error during evaluation"
    (what ``watch_evaluation_errors`` listens for), else why not."""
    import importlib.util

    spec = importlib.util.find_spec("lmms_eval.__main__")
    source = open(spec.origin, encoding="utf-8").read() if spec and spec.origin else ""
    return (
        None if f"{_LMMS_EVAL_ERROR}: " in source else f'lmms_eval/__main__.py no longer logs "{_LMMS_EVAL_ERROR}: ..."'
    )
