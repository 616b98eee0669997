"""The checks of one results file (``check_file``): every row of ours that a reader reads, re-derived
from the samples logs, or named as what it is not. The package docstring lists them."""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from lmms_comparative.data import gate, untrusted
from lmms_comparative.data.generating import logged_samples
from lmms_comparative.data.replies import logged_keys, sample_key
from lmms_comparative.provenance import KEY, item_set
from lmms_comparative.registry import BENCHMARKS, BY_NAME, of_task, side_log_names
from lmms_comparative.verify import rescore as rs
from lmms_comparative.verify.predict_only import generation_checks

# Fields of a samples line that differ between two runs of the same replies (lmms-eval's hashes of
# the inputs, the media it was given, the model's token usage, which a replayed reply lacks).
_VOLATILE = ("input_media", "doc_hash", "prompt_hash", "target_hash", "token_counts")
# The sections of a results file whose rows ``report`` and ``export`` read, task or group name -> row.
SECTIONS = ("results", "groups")


class BadFile(ValueError):
    """A results file that cannot be read as one: the message says what is wrong in one line."""


@dataclass
class Verdict:
    """The check of one task or group: its problems (any one fails it), why it could not be checked
    (``unverified``), and notes on what passed."""

    task: str
    problems: list[str] = field(default_factory=list)
    unverified: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def status(self) -> str:
        """``FAIL`` with any problem, else ``UNVERIFIED`` with a reason, else ``PASS``."""
        return "FAIL" if self.problems else "UNVERIFIED" if self.unverified else "PASS"

    def line(self) -> str:
        """The printed line: the status padded to 10 columns, the task, then its problems, the reason or the notes."""
        detail = (
            "; ".join(self.problems) if self.problems else self.unverified if self.unverified else "; ".join(self.notes)
        )
        return f"{self.status:10} {self.task}: {detail}"


def read_results(run: gate.Run) -> dict:
    """The results JSON through the gate (bounded, checked against its schema); ``BadFile`` for a
    file that is not one (truncated, not an object, a section of another shape)."""
    try:
        return gate.results_json(run.results)
    except untrusted.Unsafe as exc:
        raise BadFile(str(exc)) from None


def rows_of_ours(results: dict) -> list[str]:
    """Every task or group name of one of our benchmarks with a row in the file's ``results`` or
    ``groups``."""
    return sorted({name for section in SECTIONS for name in results.get(section) or {} if of_task(name) is not None})


def _check_items(verdict: Verdict, rows: list[dict], benchmark, recorded: dict) -> None:
    key = benchmark.item_key
    keys, keyless, twice = logged_keys([sample_key(row, key) for row in rows])
    if keyless:
        verdict.problems.append(f"{keyless} samples line(s) carry no {key.columns[0]!r}: not this benchmark's samples")
    if twice:
        verdict.problems.append(
            f"{len(twice)} item(s) appear more than once ({', '.join(twice[:5])}{', ...' if len(twice) > 5 else ''})"
        )
    found = item_set(set(keys))
    if (found["count"], found["sha256"]) != (recorded.get("count"), recorded.get("sha256")):
        verdict.problems.append(
            f"the samples hold {found['count']} distinct item(s), not the recorded item set ({recorded.get('count')} item(s), sha256 {str(recorded.get('sha256'))[:12]}...; another task's samples, or items dropped or added)"
        )
    else:
        verdict.notes.append(f"{found['count']} item{'' if found['count'] == 1 else 's'}, each once")


def same(a, b) -> bool:
    """Exact equality that counts two NaNs as equal, through dicts and lists."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b if isinstance(a, bool) or isinstance(b, bool) else a == b


def differences(name: str, original: dict, rescored: dict, where: str = "") -> list[str]:
    """Each key of a row whose value differs between the results file and the re-score (``alias``,
    a display label, aside)."""
    found = []
    for metric in sorted(set(original) | set(rescored)):
        if metric == "alias":
            continue
        if metric not in rescored or metric not in original or not same(original[metric], rescored[metric]):
            shown = lambda v: json.dumps(v)[:60] if v is not None else "absent"  # noqa: E731
            found.append(
                f"{name}{where} {metric}: the results JSON says {shown(original.get(metric))}, its samples give {shown(rescored.get(metric))}"
            )
    return found


def _strip(row: dict) -> dict:
    return {k: v for k, v in row.items() if k not in _VOLATILE}


def _answers_state(run: gate.Run, record: dict) -> tuple[gate.Entry | None, str | None]:
    """The run's LLM answers log (None when absent) and what is wrong with it (None when it is the recorded one)."""
    answers = run.answers
    name = f"{run.date}_{gate.ANSWERS_NAME}"
    if answers is None:
        return None, f"its answers log {name} is not beside the results"
    try:
        content = answers.read_bytes(untrusted.MAX_LOG_BYTES)
    except untrusted.Unsafe as exc:
        return None, f"its answers log {name} is not read: {exc}"
    logged = record.get("llm_answers") or {}
    if hashlib.sha256(content).hexdigest() != logged.get("sha256"):
        return (
            answers,
            f"the answers log {answers.name} is not the one the run wrote (sha256 differs from the record's)",
        )
    return answers, None


def _llm_reason(
    benchmark, task: str, record: dict, answers: Path | None, problem: str | None
) -> tuple[str | None, str | None]:
    """(why the task is UNVERIFIED, why it FAILs) for an LLM-scored task; (None, None) when its
    logged answers can re-score it, or when no LLM scores it."""
    calls = benchmark.llm_calls(task)
    if not calls:
        return None, None
    recorded = record.get("llm") or {}
    for call in calls:
        prefix = call.setting
        if prefix not in recorded:
            return (
                f"item set checked; metrics not re-scored: scored by {call.label} and the record has no llm entry for {prefix} (what answered is unknown; verify calls no endpoint)",
                None,
            )
    if answers is None:
        return f"item set checked; metrics not re-scored: scored by an LLM and {problem}", None
    return None, problem


def _check_skips(verdict: Verdict, recorded: dict, again: dict, source: str | None) -> None:
    """Items the results record as skipped must be skipped in the re-score too: the data at hand
    finds their media unusable (a local copy), or cannot look (``verify`` replays without images)."""
    if not recorded:
        return
    reads = sorted(k for k in recorded if k not in again)
    if reads:
        shown = ", ".join(f"{k} ({recorded[k]})" for k in reads[:5])
        verdict.problems.append(
            f"{len(reads)} item(s) recorded as skipped read here: {shown}{', ...' if len(reads) > 5 else ''}; the run left them out of its score"
        )
    elif source == "local":
        verdict.notes.append(f"{len(recorded)} item(s) skipped, their media unusable here too")
    else:
        verdict.notes.append(
            f"{len(recorded)} item(s) skipped as recorded ({source} data: their media not checked here)"
        )


def check_file(run: gate.Run, scratch: Path) -> list[Verdict] | str:
    """The verdicts of one run's results file (every task and group row of ours), or why it is
    passed over (a string: a file with no row of ours and no record). ``BadFile`` for a malformed file."""
    results_file = run.path
    results = read_results(run)
    ours = rows_of_ours(results)
    record = results.get(KEY)
    if not isinstance(record, dict) or not isinstance(record.get("tasks"), dict):
        if not ours and record is None:
            return "no task or group of lmms-comparative in it (lmms-eval's own tasks): nothing of ours to check"
        what = f"rows {', '.join(ours[:6])}{' ...' if len(ours) > 6 else ''}" if ours else "no rows"
        return [
            Verdict(
                results_file.name,
                problems=[
                    f"no {KEY} record ({what}): not written by a run of lmms-comparative's tasks (or by a version before provenance)"
                ],
            )
        ]
    if record.get("predict_only"):
        return [
            Verdict(
                results_file.name,
                unverified="a --predict_only run: replies, no scores to check; score it (lmms-comparative score BENCHMARK <this folder> -o OUT), then verify OUT",
            )
        ]
    sections = {s: results.get(s) or {} for s in SECTIONS}
    answers, answers_problem = _answers_state(run, record)
    verdicts: dict[str, Verdict] = {}
    logged: dict[str, list[dict]] = {}  # each task's samples log, read once
    variants: dict[str, tuple[str, str]] = {}  # a team's variant task -> (benchmark, the task of ours it builds on)
    by_benchmark: dict[str, list[str]] = {}
    for task, entry in sorted(record["tasks"].items()):
        verdict = verdicts[task] = Verdict(task)
        entry = entry if isinstance(entry, dict) else {}
        benchmark = BY_NAME.get(entry.get("benchmark"))
        base = variant_base_of(task, entry, benchmark)
        if benchmark is None or not (benchmark.has_task(task) or base):
            verdict.problems.append(f"the record names benchmark {entry.get('benchmark')!r}, which does not own {task}")
            continue
        samples_file = run.samples.get(task)  # found by its name in the listing, never a path built from the record
        if samples_file is None:
            # Nothing to re-derive the row from: not shown to be wrong, not shown to be right.
            hint = (
                "the run logged samples (--log_samples), so this log is missing: the run was interrupted or the file removed"
                if logged_samples(results)
                else "run with --log_samples"
            )
            verdict.unverified = (
                f"no samples log {run.date}_samples_{task}.jsonl: its numbers cannot be re-derived ({hint})"
            )
            continue
        try:
            logged[task] = rs.read_lines(samples_file)
            _check_items(verdict, logged[task], benchmark, entry.get("items") or {})
        except rs.BadLine as exc:
            verdict.problems.append(f"malformed samples log: {exc}")
            continue
        if task not in sections["results"]:
            verdict.problems.append("the results JSON has no row for this task")
        unverified, problem = _llm_reason(benchmark, base or task, record, answers, answers_problem)
        if problem:
            verdict.problems.append(problem)
        if unverified or problem:
            verdict.unverified = unverified
            continue
        if base:
            variants[task] = (benchmark.name, base)
        else:
            by_benchmark.setdefault(benchmark.name, []).append(task)
    # A samples log of one of our tasks that no record entry names: the report would read it (its
    # item browser, SubtleBench's image-order table), so it is a row of ours nothing backs.
    for task, entry in sorted(run.samples.items()):
        if task not in record["tasks"] and of_task(task) is not None:
            verdicts[task] = Verdict(
                task,
                problems=[
                    f"a samples log {entry.name} that no record entry backs: the run did not write it for this task (the report would read it)"
                ],
            )
    jobs = {
        name: ready for name, tasks in by_benchmark.items() if (ready := [t for t in tasks if not verdicts[t].problems])
    }
    not_rescored: dict[str, str] = {}
    for name in list(jobs):
        absent = rs.local_data_absent(BY_NAME[name], [record["tasks"][t] for t in jobs[name]])
        if absent:  # known before any run: re-scoring would only stop on the missing data
            for task in jobs.pop(name):
                verdicts[task].unverified = absent
            not_rescored[name] = absent
    outcomes = rs.rescore_all(jobs, run, results, scratch, answers)
    try:
        side = rs.side_logs(run) if outcomes or variants else {}
    except rs.BadLine as exc:  # a malformed or linked side log: every task it could belong to fails on it
        side = {name: {t: [{"malformed": str(exc)}] for t in record["tasks"]} for name in side_log_names()}
    for name, ready in jobs.items():
        rescored, rescored_samples, failure = outcomes[name]
        if rescored is None:
            reason = f"could not be re-scored (is the data at hand? set {BY_NAME[name].root_variable}): {failure}"
            for task in ready:
                verdicts[task].unverified = reason
            not_rescored[name] = reason
            continue
        _compare_tasks(verdicts, ready, results, record, rescored, rescored_samples, logged, side)
    for number, (task, (name, base)) in enumerate(sorted(variants.items())):
        _check_variant(
            verdicts[task], task, name, base, run, scratch / f"variant_{number}", answers, results, record, logged, side
        )
    for name in _lookalikes(results, record):
        verdicts.setdefault(
            name,
            Verdict(
                name,
                problems=[
                    "not a task or group of the installed package, though named like one (no name from a folder is passed to lmms-eval unless it is one exactly)"
                ],
            ),
        )
    for name in ours:  # the rows no record entry backs: groups, or rows that should not be there
        if name in record["tasks"]:
            continue
        found = _check_other_row(name, sections, record, outcomes, not_rescored, results)
        if name in verdicts:  # its samples log was named above: one verdict with both problems
            verdicts[name].problems += found.problems
        else:
            verdicts[name] = found
    return list(verdicts.values())


def _lookalikes(results: dict, record: dict) -> list[str]:
    """The names in the rows, the groups' members and the record that start like one of our
    benchmarks' (``subtlebench_...``) but are none of the installed tasks and groups, a team's
    recorded variant aside: what a forger would slip into a re-score's ``--tasks``."""
    names = {n for section in SECTIONS for n in results.get(section) or {}}
    for group, members in (results.get("group_subtasks") or {}).items():
        names |= {group, *members}
    names |= set(record.get("tasks") or {})
    variants = {t for t, e in (record.get("tasks") or {}).items() if isinstance(e, dict) and e.get("variant_of")}
    return sorted(n for n in names - variants if of_task(n) is None and any(b.owns_task(n) for b in BENCHMARKS))


def _row_problems(name: str, original: dict, rescored: dict, missing: str) -> list[str]:
    """What differs between ``name``'s rows in the results file's sections (``original``: section ->
    rows) and the re-score's; ``missing`` (given the section) where the re-score has no such row."""
    found = []
    for section in SECTIONS:
        if name in (original.get(section) or {}):
            again = (rescored.get(section) or {}).get(name)
            if again is None:
                found.append(missing.format(section=repr(section)))
            else:
                found += differences(
                    name, original[section][name], again, "" if section == "results" else f" (in {section!r})"
                )
    return found


def variant_base_of(task: str, entry: dict, benchmark) -> str | None:
    """The task of ours a team's variant builds on (the record's ``variant_of``), when the task is
    one: not a name of ours (``of_task``), built on a task the recorded benchmark owns. None otherwise."""
    base = entry.get("variant_of")
    if benchmark is None or not isinstance(base, str) or not benchmark.has_task(base) or of_task(task) is not None:
        return None
    return base


def _check_variant(
    verdict: Verdict,
    task: str,
    name: str,
    base: str,
    run: gate.Run,
    scratch: Path,
    answers,
    results: dict,
    record: dict,
    logged: dict,
    side: dict,
) -> None:
    """A team's variant of one of our tasks (``task: team_sp_greedy``, ``include: subtlebench_sp.yaml``):
    its samples re-scored through ``base``'s hooks in a run of their own, compared as any task's,
    but for its prompt hash and version, which are the team's (said in the verdict)."""
    if local := rs.local_data_absent(BY_NAME[name], [record["tasks"][task]]):
        verdict.unverified = local
        return
    rescored, rescored_samples, failure = rs.rescore(
        [name], run, results, [task], scratch, answers, renames={task: base}
    )
    if rescored is None:
        verdict.unverified = f"could not be re-scored as a variant of {base} (is the data at hand? set {BY_NAME[name].root_variable}): {failure}"
        return
    _compare_tasks({task: verdict}, [task], results, record, rescored, rescored_samples, logged, side, variant=True)
    verdict.notes.insert(
        0, f"variant of {base}: re-scored through {base}'s hooks; its prompts and decoding are its own, not the paper's"
    )


def _side_log_problems(task: str, original: dict, again: dict) -> list[str]:
    """A task's side logs (CaptionQA's reader answers, which its compare and item browser read)
    against the re-score's, row by row in a fixed order; a log the run has and the re-score does
    not give (or the other way round) is a problem too."""
    found = []
    for name in sorted(set(original) | set(again)):
        mine, theirs = (original.get(name) or {}).get(task), (again.get(name) or {}).get(task)
        if mine is None and theirs is None:
            continue
        key = lambda r: json.dumps(r, sort_keys=True)  # noqa: E731
        if mine is None or theirs is None or not same(sorted(mine, key=key), sorted(theirs, key=key)):
            found.append(
                f"its {name} log ({len(mine or [])} rows) is not the one the re-score writes ({len(theirs or [])} rows): edited after the run, or not this run's"
            )
    return found


def _compare_tasks(
    verdicts, ready, results, record, rescored, rescored_samples, logged, side=None, variant: bool = False
) -> None:
    side = side or {}
    used = (rescored.get(KEY) or {}).get("tasks") or {}
    for task in ready:
        verdict = verdicts[task]
        verdict.problems += _row_problems(
            task, results, rescored, "its row in {section} is not re-derived from the samples"
        )
        n_original, n_again = (results.get("n-samples") or {}).get(task), (rescored.get("n-samples") or {}).get(task)
        if n_original is not None and not same(n_original, n_again):
            verdict.problems.append(
                f"n-samples: the results JSON says {json.dumps(n_original)}, its samples give {json.dumps(n_again)}"
            )
        entry = record["tasks"][task]
        mismatch = rs.data_matches(
            entry.get("data") or {}, (used.get(task) or {}).get("data") or {}, record.get("schema")
        )
        if mismatch:
            verdict.problems.append(mismatch)
        if not variant:  # a variant's version and prompts are the team's own: not compared with ours
            verdict.problems += _label_problems(task, results, rescored, entry, used.get(task) or {})
        problems, notes = generation_checks(
            task, record, used.get(task) or {}, str(entry.get("prompts")) if variant else None
        )
        verdict.problems += problems
        verdict.notes += notes
        _check_skips(
            verdict,
            entry.get("skipped") or {},
            (used.get(task) or {}).get("skipped") or {},
            (entry.get("data") or {}).get("source"),
        )
        verdict.problems += _side_log_problems(task, side, rescored.get(rs.SIDE_KEY) or {})
        original = sorted((_strip(r) for r in logged[task]), key=lambda r: r.get("doc_id", 0))
        again = sorted((_strip(r) for r in rescored_samples.get(task, [])), key=lambda r: r.get("doc_id", 0))
        changed = [o.get("doc_id") for o, a in zip(original, again) if not same(o, a)]
        if changed or len(original) != len(again):
            verdict.problems.append(
                f"{len(changed) or abs(len(original) - len(again))} sample(s) score differently from their logged scores (doc_id {', '.join(map(str, changed[:5]))}): a reply or a score was changed after the run"
            )
        if not verdict.problems:
            verdict.notes.append("metrics and samples re-scored equal; data matches the record")


# The fields around a row's numbers that the report, compare and export read to say what a
# number means, each re-derived by the re-score: lmms-eval's task and group ``versions`` (ViDi's
# version 2 reports its corpus metrics on the 0-100 scale), a group's ``group_subtasks`` (the
# report's "(n skipped)" notes), and the record entry's prompt hash (compare's same-protocol check).
def _label_problems(
    name: str, results: dict, rescored: dict, entry: dict | None = None, used: dict | None = None
) -> list[str]:
    found = []
    for section in ("versions", "group_subtasks"):
        original = (results.get(section) or {}).get(name)
        again = (rescored.get(section) or {}).get(name)
        if section == "group_subtasks":  # a task is listed with no members, or not at all, as the run was given it
            original, again = sorted(map(str, original or [])) or None, sorted(map(str, again or [])) or None
        if (original is not None or again is not None) and not same(original, again):
            found.append(
                f"{section}: the results JSON says {json.dumps(original)}, the installed package gives {json.dumps(again)}"
            )
    if entry is not None and used is not None and entry.get("prompts") != used.get("prompts"):
        found.append(
            f"prompts: the record's prompt hash {str(entry.get('prompts'))[:12]}... is not the installed package's {str(used.get('prompts'))[:12]}... (the prompts or the task YAML differ from the ones verify re-scores with)"
        )
    return found


def _check_other_row(
    name: str, sections: dict, record: dict, outcomes: dict, not_rescored: dict, results: dict
) -> Verdict:
    """A row of ours whose name has no record entry: a group re-derived from its tasks' samples, or
    a FAIL (a task whose entry was removed, a row added by hand)."""
    verdict = Verdict(name)
    benchmark = of_task(name)
    outcome = outcomes.get(benchmark.name)
    where = [s for s in SECTIONS if name in sections[s]]
    if outcome is None or outcome[0] is None:
        if benchmark.name in not_rescored:
            verdict.unverified = (
                f"not re-derived: its benchmark's tasks were not re-scored ({not_rescored[benchmark.name]})"
            )
        else:
            verdict.problems.append(
                f"no record entry and no re-scored task back this row (in {', '.join(where)}): a task whose provenance entry is missing, or a row added to the file"
            )
        return verdict
    verdict.problems += _row_problems(
        name,
        sections,
        outcome[0],
        "no record entry backs its row in {section}, and the re-score of the record's tasks does not give it: a task whose provenance entry is missing, a group with a task left out, or a row added to the file",
    )
    if not verdict.problems:
        verdict.problems += _label_problems(name, results, outcome[0])
    if not verdict.problems:
        verdict.notes.append(f"group rows ({', '.join(where)}) re-derived equal from its tasks' samples")
    return verdict
