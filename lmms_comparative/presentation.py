"""What a person reads after a run: lmms-eval's printed table, and a closing summary in the log.

The wrappers that put these into lmms-eval's output are in ``harness/table.py``.

- **The table.** Our dict-valued results (``counts``, breakdowns by source or category, ``ci95``
  intervals, ...) stay whole in the results JSON, and W&B receives them flattened
  (``subtlebench/counts/n``). lmms-eval's ``make_table`` (``lmms_eval/utils.py``) prints a dict
  cell as its full ``repr`` and pads every row of the table to the widest cell, so one breakdown
  over dozens of sources made every line thousands of characters wide. The table printed for our
  tasks shows each dict as a one-line summary of at most ``CELL_WIDTH`` characters instead
  (``compact``); the values that lmms-eval saves are not touched.
- **The summary.** When lmms-eval has aggregated every task and group (its
  ``consolidate_group_results``, once per run, on rank 0), each benchmark present gets a few log
  lines in its paper's layout and a pointer to ``lmms-comparative report`` (``report.run_summary``).

"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping
from pathlib import Path

from lmms_comparative import yaml_dir
from lmms_comparative.switches import cli_value

CELL_WIDTH = 72  # within the ~80 a cell may take; a table line then stays under ~180


# ---- one-line summaries of dict-valued results ----------------------------------------------------


def _number(value) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.4g}"
    return str(value)


def _part(key, value) -> str:
    if value is None:
        return f"{key}=-"
    if isinstance(value, (bool, int, float)):
        return f"{key}={_number(value)}"
    if isinstance(value, str):
        return f"{key}={' '.join(value.split())}"
    if isinstance(value, Mapping):
        if "low" in value and "high" in value:  # a ci95 entry
            return f"{key} [{_number(value['low'])}, {_number(value['high'])}]"
        for headline in ("accuracy", "score", "value"):  # a breakdown cell: its headline number
            if isinstance(value.get(headline), (int, float)):
                return f"{key} {_number(value[headline])}"
        return f"{key}=({', '.join(_part(k, v) for k, v in value.items())})"
    if isinstance(value, (list, tuple)):
        return f"{key}=[{len(value)} items]"
    return f"{key}={value}"


def compact(value: Mapping, width: int = CELL_WIDTH) -> str:
    """``value`` as one line of at most ``width`` characters: ``key=value`` for numbers and
    strings, a breakdown cell as its accuracy or score, an interval as ``[low, high]``; what does
    not fit is counted (``… +12 more``). A ``failure`` reason comes first."""
    items = sorted(value.items(), key=lambda kv: kv[0] != "failure")
    parts = [_part(k, v) for k, v in items]
    text = ", ".join(parts)
    if len(text) <= width:
        return text
    # As many entries as fit with the note on the rest; the first one cut if even it does not fit.
    for keep in range(len(parts) - 1, 0, -1):
        line = ", ".join(parts[:keep]) + f", … +{len(parts) - keep} more"
        if len(line) <= width:
            return line
    rest = f" +{len(parts) - 1} more" if len(parts) > 1 else ""
    return parts[0][: width - len(rest) - 1] + "…" + rest


# ---- which table rows are ours --------------------------------------------------------------------

_NAME = re.compile(r"^(?:task|group):\s*([A-Za-z0-9_]+)\s*$", re.M)


@functools.lru_cache(maxsize=1)
def our_task_names() -> frozenset[str]:
    """Every task and group name that our YAML folder defines."""
    names = set()
    for path in Path(yaml_dir()).rglob("*.yaml"):
        names.update(_NAME.findall(path.read_text(encoding="utf-8")))
    return frozenset(names)


def readable_results(result_dict: dict, column: str = "results") -> dict:
    """A copy of lmms-eval's results whose dict values, in our tasks' rows of ``column``, are
    one-line summaries (``compact``); other rows and every other key are shared, not copied."""
    rows = result_dict.get(column)
    if not isinstance(rows, Mapping):
        return result_dict
    ours = our_task_names()
    readable = {}
    for name, row in rows.items():
        if name in ours and isinstance(row, Mapping):
            row = {metric: compact(value) if isinstance(value, Mapping) else value for metric, value in row.items()}
        readable[name] = row
    return {**result_dict, column: readable}


def output_path_hint() -> str | None:
    """The run's ``--output_path`` as given on the command line, else None (nothing was saved)."""
    return cli_value("--output_path")


def log_summary(results: dict) -> None:
    """Log each benchmark's short summary (``report.run_summary``) for the run's results."""
    from loguru import logger

    try:
        from lmms_comparative.report import run_summary

        blocks = run_summary(results, output_path_hint())
    except Exception as exc:  # a summary must never fail a run
        logger.debug(f"lmms-comparative: no run summary ({exc.__class__.__name__}: {exc})")
        return
    for block in blocks:
        logger.info("\n" + block)
