"""A benchmark's report part as its loader hands it over (``record.ReportPart``): the functions of
its ``report.py`` that read the record (the section, the charts) bound to it, beside the ones that
do not."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any, Callable

from lmms_comparative.record import Benchmark, Headline, Measure, ReportPart, Summary
from lmms_comparative.reportlib.runs import Run


def report_part(
    benchmark: Benchmark,
    section: Callable[[Benchmark, list[Run]], str | None],
    summary: Summary,
    measure: Measure,
    headlines: tuple[Headline, ...] = (),
    charts: Callable[[Benchmark, list[Run], Path], list[Path]] | None = None,
    **more: Any,
) -> ReportPart:
    """The part made for ``benchmark``: ``section`` (and ``charts``, where the benchmark draws any)
    given the record, ``summary``, ``measure`` and ``headlines`` as they are, and the optional
    fields of ``ReportPart`` in ``more`` (``compare_units``, ``item_images``, ...)."""
    return ReportPart(
        section=partial(section, benchmark),
        summary=summary,
        charts=partial(charts, benchmark) if charts is not None else None,
        measure=measure,
        headlines=headlines,
        **more,
    )
