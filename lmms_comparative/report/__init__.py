"""``lmms-comparative report``: lmms-eval results directories as the papers' own tables and charts.

For each benchmark present in the runs it writes the paper's table layout in Markdown, the paper's
reference rows (chance, human) at the paper's precision beside the models, 95% bootstrap intervals
(± half-width; from the samples logs of ``--log_samples`` runs, or the ``ci95`` metric the task
published) for every number that has per-item values, and PNG charts. A run whose values are not
the release's full item set (``subsets.py``) is marked wherever they stand (``marks.py``). Each
benchmark's section, run summary and charts are in its folder (``benchmarks/<name>/report.py``);
this package reads the runs, formats cells and puts the sections together, in the registry's order
(``write.py``; the Verification table: ``verification.py``).
"""

from __future__ import annotations

from lmms_comparative.registry import BENCHMARKS, of_task
from lmms_comparative.report.benchmark_parts import charts_of, section_of, summary_of
from lmms_comparative.report.run_folders import load_runs
from lmms_comparative.report.write import write_report
from lmms_comparative.reportlib.charts import model_colours
from lmms_comparative.reportlib.paper import PAPER_ROWS, Aliases
from lmms_comparative.reportlib.runs import ReportError, Run


def run_summary(results: dict, output_path: str | None) -> list[str]:
    """A few lines per benchmark of one run, in its paper's layout, for the end of the run log:
    ``results`` maps task and group names to lmms-eval's metric values (``"accuracy,none"``);
    ``output_path`` is the run's ``--output_path`` (None: nothing was saved)."""
    run = Run("this run", {"results": dict(results)})
    scoreless = _predict_only(results, output_path)
    if scoreless:
        return [scoreless]
    if output_path:
        pointer = f"Full tables with 95% intervals, runs side by side: lmms-comparative report {output_path} -o report/"
    else:
        pointer = (
            "Nothing was saved (no --output_path): run with --output_path DIR --log_samples, then "
            "lmms-comparative report DIR -o report/ for the full tables."
        )
    blocks = []
    for benchmark in BENCHMARKS:
        lines = summary_of(benchmark, run)
        if lines:
            blocks.append("\n".join(lines + [pointer]))
    return blocks


def _predict_only(results: dict, output_path: str | None) -> str | None:
    """For a ``--predict_only`` run (lmms-eval's ``bypass`` metric in place of every score of our
    tasks), the lines that say how to score it; else None."""
    ours = [(task, row) for task, row in results.items() if isinstance(row, dict) and of_task(task) is not None]
    if not ours or not all(any(str(m).startswith("bypass,") for m in row) for _, row in ours):
        return None
    if not output_path:
        return (
            "A --predict_only run keeps its replies only with --output_path DIR --log_samples: nothing was saved, "
            "so there is nothing to score."
        )
    names = [b.name for b in BENCHMARKS if any(b.owns_task(t) for t, _ in ours)]
    scored = [f"  lmms-comparative score {name} {output_path} -o scored/{name}" for name in names]
    return "\n".join(
        [
            "A --predict_only run: replies only, nothing scored, so no table. Score them (docs/scoring.md):",
            *scored,
            "then: lmms-comparative report scored/ -o report/",
        ]
    )


__all__ = [
    "Aliases",
    "PAPER_ROWS",
    "ReportError",
    "Run",
    "charts_of",
    "load_runs",
    "model_colours",
    "run_summary",
    "section_of",
    "summary_of",
    "write_report",
]
