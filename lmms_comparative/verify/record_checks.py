"""The checks of a results file's ``lmms_comparative`` record against the file, before and beside
the re-score: a task's item set (``check_items``), its answers log and judges (``answers_state``,
``llm_reason``), a team's variant (``variant_base_of``), the names made to look like ours
(``lookalikes``) and a row of ours that no record entry backs (``check_other_row``)."""

from __future__ import annotations

import hashlib

from lmms_comparative.data import gate, untrusted
from lmms_comparative.data.replies import logged_keys, sample_key
from lmms_comparative.provenance import item_set
from lmms_comparative.record import Benchmark
from lmms_comparative.registry import BENCHMARKS, of_task
from lmms_comparative.verify.comparisons import label_problems, row_problems
from lmms_comparative.verify.verdicts import SECTIONS, Verdict


def check_items(verdict: Verdict, rows: list[dict], benchmark: Benchmark, recorded: dict) -> None:
    """A task's samples log holds every item of the recorded item set exactly once."""
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
            f"the samples hold {found['count']} distinct item(s), not the recorded item set"
            f" ({recorded.get('count')} item(s), sha256 {str(recorded.get('sha256'))[:12]}...;"
            " another task's samples, or items dropped or added)"
        )
    else:
        verdict.notes.append(f"{found['count']} item{'' if found['count'] == 1 else 's'}, each once")


def answers_state(run: gate.Run, record: dict) -> tuple[gate.Entry | None, str | None]:
    """The run's LLM answers log (None when absent) and what is wrong with it (None when it is the
    recorded one)."""
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


def llm_reason(
    benchmark: Benchmark, task: str, record: dict, answers: gate.Entry | None, problem: str | None
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
                f"item set checked; metrics not re-scored: scored by {call.label} and the record has no llm entry"
                f" for {prefix} (what answered is unknown; verify calls no endpoint)",
                None,
            )
    if answers is None:
        return f"item set checked; metrics not re-scored: scored by an LLM and {problem}", None
    return None, problem


def variant_base_of(task: str, entry: dict, benchmark: Benchmark | None) -> str | None:
    """The task of ours a team's variant builds on (the record's ``variant_of``), when the task is
    one: not a name of ours (``of_task``), built on a task the recorded benchmark owns. None otherwise."""
    base = entry.get("variant_of")
    if benchmark is None or not isinstance(base, str) or not benchmark.has_task(base) or of_task(task) is not None:
        return None
    return base


def lookalikes(results: dict, record: dict) -> list[str]:
    """The names in the rows, the groups' members and the record that start like one of our
    benchmarks' (``subtlebench_...``) but are none of the installed tasks and groups, a team's
    recorded variant aside: what a forger would slip into a re-score's ``--tasks``."""
    names = {n for section in SECTIONS for n in results.get(section) or {}}
    for group, members in (results.get("group_subtasks") or {}).items():
        names |= {group, *members}
    names |= set(record.get("tasks") or {})
    variants = {t for t, e in (record.get("tasks") or {}).items() if isinstance(e, dict) and e.get("variant_of")}
    return sorted(n for n in names - variants if of_task(n) is None and any(b.owns_task(n) for b in BENCHMARKS))


def check_other_row(
    name: str, sections: dict, record: dict, outcomes: dict, not_rescored: dict, results: dict
) -> Verdict:
    """A row of ours whose name has no record entry: a group re-derived from its tasks' samples, or
    a FAIL (a task whose entry was removed, a row added by hand)."""
    verdict = Verdict(name)
    benchmark = of_task(name)
    assert benchmark is not None, name  # a row of ours (``rows_of_ours``)
    outcome = outcomes.get(benchmark.name)
    where = [s for s in SECTIONS if name in sections[s]]
    if outcome is None or outcome[0] is None:
        if benchmark.name in not_rescored:
            verdict.unverified = (
                f"not re-derived: its benchmark's tasks were not re-scored ({not_rescored[benchmark.name]})"
            )
        else:
            verdict.problems.append(
                f"no record entry and no re-scored task back this row (in {', '.join(where)}): a task whose"
                " provenance entry is missing, or a row added to the file"
            )
        return verdict
    verdict.problems += row_problems(
        name,
        sections,
        outcome[0],
        "no record entry backs its row in {section}, and the re-score of the record's tasks does not give it:"
        " a task whose provenance entry is missing, a group with a task left out, or a row added to the file",
    )
    if not verdict.problems:
        verdict.problems += label_problems(name, results, outcome[0])
    if not verdict.problems:
        verdict.notes.append(f"group rows ({', '.join(where)}) re-derived equal from its tasks' samples")
    return verdict
