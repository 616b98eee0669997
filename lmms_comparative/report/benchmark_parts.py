"""A benchmark's report parts, where it has them (``report.section``, ``report.summary``,
``reportlib.charts``), else the defaults, which live here with the report that applies them; and
its paper tables with the runs placed among the paper's models."""

from __future__ import annotations

from pathlib import Path

from lmms_comparative.report import generic
from lmms_comparative.reportlib.paper import Aliases, paper_block
from lmms_comparative.reportlib.runs import Run


def section_of(benchmark, runs: list) -> str | None:
    """The benchmark's Markdown section (``report.section``; default: a table of the runs' tasks,
    ``generic.section``)."""
    own = benchmark.report_part().section
    return own(runs) if own is not None else generic.section(benchmark, runs)


def summary_of(benchmark, run) -> list[str]:
    """The lines a run's log ends with (``report.summary``; default: the run's tasks, ``generic.summary``)."""
    own = benchmark.report_part().summary
    return own(run) if own is not None else generic.summary(benchmark, run)


def charts_of(benchmark, runs: list, out_dir: Path) -> list[Path]:
    """The benchmark's PNG charts (``reportlib.charts``; default: none), with matplotlib's mathtext and
    TeX off: a model name is the submitter's text (``my$\\model$v2`` would be parsed as math and fail)."""
    own = benchmark.report_part().charts
    if own is None:
        return []
    import matplotlib

    with matplotlib.rc_context({"text.parse_math": False, "text.usetex": False}):
        return own(runs, out_dir)


def paper_section(benchmark, runs: list[Run], mode: str, aliases: Aliases) -> list[str]:
    """The benchmark's paper tables with the runs among the paper's models (``benchmarks/<name>/
    paper.json``, measured by its report part's ``measure``); [] for a benchmark without transcribed rows."""
    paper = benchmark.paper()
    if not paper["tables"]:
        return []
    measure = benchmark.report_part().measure
    out: list[str] = []
    for table_id, spec in paper["tables"].items():
        block = paper_block(benchmark, table_id, spec, runs, measure, paper["aliases"], aliases, mode)
        if block:
            out += ["", *block]
    return out
