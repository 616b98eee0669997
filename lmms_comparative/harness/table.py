"""Patch: lmms-eval's printed table and its aggregation, for a readable table and a closing summary.

- ``lmms_eval.utils.make_table`` (and where the CLI and evaluator bound it by name): our tasks'
  dict-valued cells are printed as one-line summaries (``presentation.readable_results``); the
  values lmms-eval saves are not touched.
- ``lmms_eval.evaluator_utils.consolidate_group_results``: after its outermost call (once per run,
  rank 0), each benchmark present logs its short summary (``presentation.log_summary``).

Installed from the model entry point and again when a TaskManager starts (lmms-eval's CLI binds
``make_table`` by name). A wrapper is installed only over lmms-eval's own function, once; a failure
inside it never breaks the run.
"""

from __future__ import annotations

import functools
import inspect
import sys
from typing import Any, Callable

from lmms_comparative.harness.patch import unpatched
from lmms_comparative.presentation import log_summary, readable_results

_MARK = "_lmms_comparative_wrapped"
_originals: dict[str, Callable[..., Any] | None] = {}
_checked: list[str | None] = []  # the check's verdict, once made


def _readable_table(make_table):
    @functools.wraps(make_table)
    def wrapper(result_dict, column: str = "results", *args, **kwargs):
        try:
            shown = readable_results(result_dict, column)
        except Exception:  # never lose the table over its presentation
            shown = result_dict
        return make_table(shown, column, *args, **kwargs)

    setattr(wrapper, _MARK, True)
    return wrapper


def _with_summary(consolidate):
    @functools.wraps(consolidate)
    def wrapper(results, versions, task_dict, task_root=None, *args, **kwargs):
        out = consolidate(results, versions, task_dict, task_root, *args, **kwargs)
        if task_root is None:  # the evaluator's call; lmms-eval's recursion passes the group
            log_summary(out[0])
        return out

    setattr(wrapper, _MARK, True)
    return wrapper


def _wrap(module, attr: str, wrap) -> None:
    current = getattr(module, attr, None)
    if current is None or getattr(current, _MARK, False):
        return
    original = _originals.setdefault(attr, current)
    if current is original:  # only lmms-eval's own function, never something else of that name
        setattr(module, attr, wrap(current))


def install(load: bool = True) -> bool:
    """Wrap lmms-eval's ``make_table`` and ``consolidate_group_results`` where they are bound
    (idempotent). ``load=False`` wraps only in modules already imported (``lmms_eval.utils`` is
    light, ``lmms_eval.evaluator_utils`` pulls torch: each half waits for its own import). Returns
    whether both are in place."""
    if load:
        try:
            import lmms_eval.evaluator_utils  # noqa: F401
            import lmms_eval.utils  # noqa: F401
        except Exception:  # lmms-eval not importable: nothing to present
            return False
    utils, evaluator_utils = sys.modules.get("lmms_eval.utils"), sys.modules.get("lmms_eval.evaluator_utils")
    if utils is not None:
        _originals.setdefault("make_table", getattr(utils, "make_table", None))
    if evaluator_utils is not None:
        _originals.setdefault("consolidate_group_results", getattr(evaluator_utils, "consolidate_group_results", None))
    if utils is not None and evaluator_utils is not None and not _checked:
        _checked.append(check())  # once both halves can be checked
        if _checked[0]:
            unpatched("table", _checked[0])
    if _checked and _checked[0]:
        return False
    modules = [m for m in (utils, evaluator_utils) if m is not None] + [
        sys.modules[name] for name in ("lmms_eval.evaluator", "lmms_eval.__main__", "__main__") if name in sys.modules
    ]
    for module in modules:
        _wrap(module, "make_table", _readable_table)
        _wrap(module, "consolidate_group_results", _with_summary)
    return all(
        getattr(getattr(m, a, None), _MARK, False)
        for m, a in ((utils, "make_table"), (evaluator_utils, "consolidate_group_results"))
    )


def check() -> str | None:
    """None if lmms-eval's ``make_table`` and ``consolidate_group_results`` take what the wrappers
    pass (``result_dict, column``; ``results, versions, task_dict, task_root``), else why not."""
    import lmms_eval.evaluator_utils as evaluator_utils
    import lmms_eval.utils as utils

    table = list(inspect.signature(_originals.get("make_table") or utils.make_table).parameters)[:2]
    consolidate = list(
        inspect.signature(
            _originals.get("consolidate_group_results") or evaluator_utils.consolidate_group_results
        ).parameters
    )[:4]
    if table != ["result_dict", "column"]:
        return f"make_table takes {table}, not (result_dict, column)"
    if consolidate != ["results", "versions", "task_dict", "task_root"]:
        return f"consolidate_group_results takes {consolidate}, not (results, versions, task_dict, task_root)"
    return None
