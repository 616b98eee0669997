"""The files of a run, found by their names (``runs_of``): a ``<date>_results.json`` and the names
of the same folder that begin with exactly ``<date>_`` followed by one of our fixed forms. Folder
text is compared as strings, never made a pattern or a path (docs/security.md)."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from pathlib import Path

from lmms_comparative.data.gate_entry import Entry

RESULTS_SUFFIX = "_results.json"
SAMPLES_INFIX = "samples_"
ANSWERS_NAME = "llm_answers.jsonl"
VERDICT_NAME = "verify.json"


@dataclass
class Run:
    """The files of one run, found by their names beside ``results`` (``<date>_results.json``).
    ``samples`` and ``side`` are keyed by the task name as the file name spells it: folder text,
    to be matched against the installed task index (``registry.of_task``) or a record's names
    before it means anything."""

    results: Entry
    date: str
    samples: dict[str, Entry] = field(default_factory=dict)
    answers: Entry | None = None
    verdict: Entry | None = None
    side: dict[str, dict[str, Entry]] = field(default_factory=dict)
    files: list[Entry] = field(default_factory=list)  # every regular file named <date>_..., the verdict aside

    @property
    def path(self) -> Path:
        return self.results.path


def runs_of(base: Path, parts: tuple[str, ...], names: list[tuple[str, str]], side_logs: tuple[str, ...]) -> list[Run]:
    """The runs among one folder's entries: each ``<date>_results.json``, with the files whose
    names begin with exactly its ``<date>_`` (compared as strings, never as a pattern). A file
    that begins with two runs' dates (``x_results.json`` beside ``x_y_results.json``) is the run's
    with the longer date. Each run's files are found by a binary search of the sorted names, so a
    folder of many runs is listed in n log n, not n squared."""
    files = sorted(name for name, kind in names if kind == "file")
    runs = [
        Run(Entry(base, (*parts, n)), n[: -len(RESULTS_SUFFIX)])
        for n in files
        if n.endswith(RESULTS_SUFFIX) and len(n) > len(RESULTS_SUFFIX)
    ]
    claimed = {run.results.name for run in runs}  # a results file is its own run's
    for run in sorted(runs, key=lambda r: -len(r.date)):
        prefix = run.date + "_"
        at = bisect.bisect_left(files, prefix)
        while at < len(files) and files[at].startswith(prefix):
            other, at = files[at], at + 1
            if other in claimed:
                continue
            claimed.add(other)
            rest = other[len(prefix) :]
            entry = Entry(base, (*parts, other))
            if rest == VERDICT_NAME:
                run.verdict = entry
                continue
            run.files.append(entry)
            if rest == ANSWERS_NAME:
                run.answers = entry
            elif (
                rest.startswith(SAMPLES_INFIX)
                and rest.endswith(".jsonl")
                and len(rest) > len(SAMPLES_INFIX) + len(".jsonl")
            ):
                run.samples[rest[len(SAMPLES_INFIX) : -len(".jsonl")]] = entry
            else:
                log = next(
                    (
                        g
                        for g in side_logs
                        if rest.startswith(g + "_")
                        and rest.endswith(".jsonl")
                        and len(rest) > len(g) + 1 + len(".jsonl")
                    ),
                    None,
                )
                if log is not None:
                    run.side.setdefault(log, {})[rest[len(log) + 1 : -len(".jsonl")]] = entry
        run.files.insert(0, run.results)
    return runs
