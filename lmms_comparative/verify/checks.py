"""The checks of one results file (``check_file``): every row of ours that a reader reads, re-derived
from the samples logs, or named as what it is not. The package docstring lists them.

``check_file`` goes through the file in steps, each one kind of check, gathering what it finds in a
``Findings``: each record entry (``_check_entry``), the samples logs no entry backs, the re-score of
the tasks that passed (``_rescore``, compared in ``comparisons``), the teams' variants, the names
made to look like ours and the rows no entry backs (``record_checks``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from lmms_comparative.data import gate
from lmms_comparative.data.generating import logged_samples
from lmms_comparative.provenance import KEY
from lmms_comparative.registry import BY_NAME, of_task, side_log_names
from lmms_comparative.rescoring.warm import Runner, cold
from lmms_comparative.verify import rescore as rs
from lmms_comparative.verify.comparisons import compare_tasks
from lmms_comparative.verify.record_checks import (
    answers_state,
    check_items,
    check_other_row,
    llm_reason,
    lookalikes,
    variant_base_of,
)
from lmms_comparative.verify.verdicts import SECTIONS, BadFile, Verdict, read_results, rows_of_ours

__all__ = ["BadFile", "Verdict", "check_file"]


@dataclass
class Findings:
    """What ``check_file`` gathers over one results file: the verdicts by task or group, and what
    one step leaves for the next."""

    run: gate.Run
    results: dict
    record: dict  # the file's ``lmms_comparative`` record, with its ``tasks``
    answers: gate.Entry | None  # the run's LLM answers log, None when absent
    answers_problem: str | None  # what is wrong with it, None when it is the recorded one
    verdicts: dict[str, Verdict] = field(default_factory=dict)
    logged: dict[str, list[dict]] = field(default_factory=dict)  # each task's samples log, read once
    # A team's variant task -> (benchmark, the task of ours it builds on).
    variants: dict[str, tuple[str, str]] = field(default_factory=dict)
    by_benchmark: dict[str, list[str]] = field(default_factory=dict)  # benchmark -> its tasks to re-score
    not_rescored: dict[str, str] = field(default_factory=dict)  # benchmark -> why its tasks were not re-scored
    outcomes: dict[str, tuple] = field(default_factory=dict)  # benchmark -> ``rs.rescore``'s outcome
    side: dict = field(default_factory=dict)  # the run's side logs, by log name and task
    runner: Runner = cold  # starts each re-scoring lmms-eval run (a fresh process, or a fork server's child)
    sections: dict[str, dict] = field(init=False)  # the file's rows that readers read (``SECTIONS``), by section

    def __post_init__(self) -> None:
        self.sections = {s: self.results.get(s) or {} for s in SECTIONS}


def check_file(run: gate.Run, scratch: Path, runner: Runner = cold) -> list[Verdict] | str:
    """The verdicts of one run's results file (every task and group row of ours), or why it is
    passed over (a string: a file with no row of ours and no record). ``BadFile`` for a malformed file.
    ``runner`` starts the re-scoring lmms-eval runs (``rescoring.warm``)."""
    results = read_results(run)
    ours = rows_of_ours(results)
    record = results.get(KEY)
    if not isinstance(record, dict) or not isinstance(record.get("tasks"), dict):
        return _without_record(run, ours, record)
    if record.get("predict_only"):
        return [
            Verdict(
                run.path.name,
                unverified="a --predict_only run: replies, no scores to check; score it"
                " (lmms-comparative score BENCHMARK <this folder> -o OUT), then verify OUT",
            )
        ]
    found = Findings(run, results, record, *answers_state(run, record), runner=runner)
    for task, entry in sorted(record["tasks"].items()):
        found.verdicts[task] = Verdict(task)
        _check_entry(found, task, entry if isinstance(entry, dict) else {})
    _check_unbacked_logs(found)
    _rescore(found, scratch)
    for number, (task, (name, base)) in enumerate(sorted(found.variants.items())):
        _check_variant(found, task, name, base, scratch / f"variant_{number}")
    _check_lookalikes(found)
    _check_other_rows(found, ours)
    return list(found.verdicts.values())


def _without_record(run: gate.Run, ours: list[str], record: object) -> list[Verdict] | str:
    """A file with no ``lmms_comparative`` record (or one without its tasks): passed over when it
    has no row of ours either (lmms-eval's own tasks), a FAIL otherwise."""
    if not ours and record is None:
        return "no task or group of lmms-comparative in it (lmms-eval's own tasks): nothing of ours to check"
    what = f"rows {', '.join(ours[:6])}{' ...' if len(ours) > 6 else ''}" if ours else "no rows"
    return [
        Verdict(
            run.path.name,
            problems=[
                f"no {KEY} record ({what}): not written by a run of lmms-comparative's tasks (or by a version"
                " before provenance)"
            ],
        )
    ]


def _check_entry(found: Findings, task: str, entry: dict) -> None:
    """One record entry: its benchmark owns the task, its samples log is there and holds the recorded
    item set, the file has its row and its judges' answers are logged. A task that passes is queued
    for the re-score (``by_benchmark``, or ``variants`` for a team's variant)."""
    verdict = found.verdicts[task]
    benchmark = BY_NAME.get(cast(str, entry.get("benchmark")))  # any JSON value: one that names none finds none
    base = variant_base_of(task, entry, benchmark)
    if benchmark is None or not (benchmark.has_task(task) or base):
        verdict.problems.append(f"the record names benchmark {entry.get('benchmark')!r}, which does not own {task}")
        return
    samples_file = found.run.samples.get(task)  # found by its name in the listing, never a path built from the record
    if samples_file is None:
        # Nothing to re-derive the row from: not shown to be wrong, not shown to be right.
        hint = (
            "the run logged samples (--log_samples), so this log is missing: the run was interrupted or the file"
            " removed"
            if logged_samples(found.results)
            else "run with --log_samples"
        )
        verdict.unverified = (
            f"no samples log {found.run.date}_samples_{task}.jsonl: its numbers cannot be re-derived ({hint})"
        )
        return
    try:
        found.logged[task] = rs.read_lines(samples_file)
        check_items(verdict, found.logged[task], benchmark, entry.get("items") or {})
    except rs.BadLine as exc:
        verdict.problems.append(f"malformed samples log: {exc}")
        return
    if task not in found.sections["results"]:
        verdict.problems.append("the results JSON has no row for this task")
    unverified, problem = llm_reason(benchmark, base or task, found.record, found.answers, found.answers_problem)
    if problem:
        verdict.problems.append(problem)
    if unverified or problem:
        verdict.unverified = unverified
        return
    if base:
        found.variants[task] = (benchmark.name, base)
    else:
        found.by_benchmark.setdefault(benchmark.name, []).append(task)


def _check_unbacked_logs(found: Findings) -> None:
    """A samples log of one of our tasks that no record entry names: the report would read it (its
    item browser, SubtleBench's image-order table), so it is a row of ours nothing backs."""
    for task, entry in sorted(found.run.samples.items()):
        if task not in found.record["tasks"] and of_task(task) is not None:
            found.verdicts[task] = Verdict(
                task,
                problems=[
                    f"a samples log {entry.name} that no record entry backs: the run did not write it for this task"
                    " (the report would read it)"
                ],
            )


def _rescore(found: Findings, scratch: Path) -> None:
    """The tasks queued for the re-score with no problem yet, re-scored by benchmark (``rs.rescore_all``)
    and compared with the file (``compare_tasks``); a benchmark whose local data is not at hand, or whose
    re-score wrote nothing, leaves its tasks UNVERIFIED with why (``not_rescored``)."""
    verdicts = found.verdicts
    jobs = {
        name: ready
        for name, tasks in found.by_benchmark.items()
        if (ready := [t for t in tasks if not verdicts[t].problems])
    }
    for name in list(jobs):
        absent = rs.local_data_absent(BY_NAME[name], [found.record["tasks"][t] for t in jobs[name]])
        if absent:  # known before any run: re-scoring would only stop on the missing data
            for task in jobs.pop(name):
                verdicts[task].unverified = absent
            found.not_rescored[name] = absent
    found.outcomes = rs.rescore_all(jobs, found.run, found.results, scratch, found.answers, found.runner)
    try:
        found.side = rs.side_logs(found.run) if found.outcomes or found.variants else {}
    except rs.BadLine as exc:  # a malformed or linked side log: every task it could belong to fails on it
        found.side = {name: {t: [{"malformed": str(exc)}] for t in found.record["tasks"]} for name in side_log_names()}
    for name, ready in jobs.items():
        rescored, rescored_samples, failure = found.outcomes[name]
        if rescored is None:
            reason = f"could not be re-scored (is the data at hand? set {BY_NAME[name].root_variable}): {failure}"
            for task in ready:
                verdicts[task].unverified = reason
            found.not_rescored[name] = reason
            continue
        compare_tasks(
            verdicts, ready, found.results, found.record, rescored, rescored_samples, found.logged, found.side
        )


def _check_variant(found: Findings, task: str, name: str, base: str, scratch: Path) -> None:
    """A team's variant of one of our tasks (``task: team_sp_greedy``, ``include: subtlebench_sp.yaml``):
    its samples re-scored through ``base``'s hooks in a run of their own, compared as any task's,
    but for its prompt hash and version, which are the team's (said in the verdict)."""
    verdict = found.verdicts[task]
    if local := rs.local_data_absent(BY_NAME[name], [found.record["tasks"][task]]):
        verdict.unverified = local
        return
    rescored, rescored_samples, failure = rs.rescore(
        [name], found.run, found.results, [task], scratch, found.answers, renames={task: base}, runner=found.runner
    )
    if rescored is None:
        verdict.unverified = (
            f"could not be re-scored as a variant of {base} (is the data at hand?"
            f" set {BY_NAME[name].root_variable}): {failure}"
        )
        return
    compare_tasks(
        {task: verdict},
        [task],
        found.results,
        found.record,
        rescored,
        rescored_samples,
        found.logged,
        found.side,
        variant=True,
    )
    verdict.notes.insert(
        0, f"variant of {base}: re-scored through {base}'s hooks; its prompts and decoding are its own, not the paper's"
    )


def _check_lookalikes(found: Findings) -> None:
    """The names made to look like ours that no installed task or group has (``lookalikes``), each a
    FAIL unless a verdict already names it."""
    for name in lookalikes(found.results, found.record):
        found.verdicts.setdefault(
            name,
            Verdict(
                name,
                problems=[
                    "not a task or group of the installed package, though named like one (no name from a folder"
                    " is passed to lmms-eval unless it is one exactly)"
                ],
            ),
        )


def _check_other_rows(found: Findings, ours: list[str]) -> None:
    """The rows of ours no record entry backs: groups, or rows that should not be there
    (``check_other_row``)."""
    for name in ours:
        if name in found.record["tasks"]:
            continue
        verdict = check_other_row(name, found.sections, found.record, found.outcomes, found.not_rescored, found.results)
        if name in found.verdicts:  # its samples log was named above: one verdict with both problems
            found.verdicts[name].problems += verdict.problems
        else:
            found.verdicts[name] = verdict
