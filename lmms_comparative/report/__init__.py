"""``lmms-comparative report``: lmms-eval results directories as the papers' own tables and charts.

For each benchmark present in the runs it writes the paper's table layout in Markdown, the paper's
reference rows (chance, human) at the paper's precision beside the models, 95% bootstrap intervals
(± half-width; from the samples logs of ``--log_samples`` runs, or the ``ci95`` metric the task
published) for every number that has per-item values, and PNG charts. Each benchmark's section,
run summary and charts are in its folder (``benchmarks/<name>/report.py``); this package reads the
runs, formats cells and puts the sections together, in the registry's order.
"""

from __future__ import annotations

from pathlib import Path

from lmms_comparative.benchmarks import BENCHMARKS
from lmms_comparative.report.charts import model_colours
from lmms_comparative.report.runs import ReportError, Run, load_runs


def run_summary(results: dict, output_path: str) -> list[str]:
    """A few lines per benchmark of one run, in its paper's layout, for the end of the run log:
    ``results`` maps task and group names to lmms-eval's metric values (``"accuracy,none"``)."""
    run = Run("this run", {"results": dict(results)})
    pointer = f"Full tables with 95% intervals, runs side by side: lmms-comparative report {output_path} -o report/"
    blocks = []
    for benchmark in BENCHMARKS:
        lines = benchmark.run_summary(run)
        if lines:
            blocks.append("\n".join(lines + [pointer]))
    return blocks


def write_report(paths: list[str], out_dir: str | Path) -> Path:
    """Write report.md and the charts under ``out_dir``; returns the Markdown file."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ReportError(f"{out}: exists and is not a folder (-o names the folder for report.md and the charts)")
    runs = load_runs(paths)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReportError(f"{out}: cannot create the report folder ({exc.strerror or exc})") from None
    parts = ["# lmms-comparative report", "", "Runs: " + ", ".join(f"`{r.name}`" for r in runs), ""]
    for benchmark in BENCHMARKS:
        text = benchmark.report_section(runs)
        if text:
            parts += [text, ""]
    charts = [chart for benchmark in BENCHMARKS for chart in benchmark.charts(runs, out)]
    if charts:
        parts += ["## Charts", ""] + [f"![{c.stem}]({c.name})" for c in charts] + [""]
    report = out / "report.md"
    report.write_text("\n".join(parts), encoding="utf-8")
    return report


__all__ = ["ReportError", "Run", "load_runs", "model_colours", "run_summary", "write_report"]
