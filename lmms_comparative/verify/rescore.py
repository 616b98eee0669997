"""Re-scoring a results file's samples logs for ``verify``: one lmms-eval run with the ``replay``
model (as ``lmms-comparative score`` does), in a scratch folder, that calls no endpoint and checks
the recorded skips against the data at hand."""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from lmms_comparative.data import gate, untrusted
from lmms_comparative.data.replies import PredictionsError
from lmms_comparative.provenance import ANSWERS_ENV, KEY
from lmms_comparative.registry import BY_NAME, of_task, side_log_names
from lmms_comparative.rescoring.warm import Runner, cold
from lmms_comparative.switches import CHECK_SKIPS_ENV  # recorded skips checked at hand


def date_id(results_file: Path) -> str:
    """``<date>`` of ``<date>_results.json``."""
    return results_file.name[: -len("_results.json")]


class BadLine(ValueError):
    """A samples line that is not a JSON object: the message names the file and the line."""


def read_lines(entry: gate.Entry) -> list[dict]:
    """The JSON objects of a log read through the gate, one per line; ``BadLine`` names the file
    and the first line that is not one (or why the file is not read at all)."""
    return [row for _, row in gate.rows(entry, BadLine)]


def _copy(entry: gate.Entry, target: Path) -> Path:
    """The bytes of a submitted file, read through the gate, as ``target`` in our scratch folder:
    the re-scoring run reads our copy, never the folder (a link swapped in is never followed)."""
    untrusted.write_file(target, entry.read_bytes(untrusted.MAX_LOG_BYTES))
    return target


def _env(answers: gate.Entry | None, scratch: Path) -> dict:
    """The re-scoring run's environment: every judge and reader answers from ``answers`` (an empty
    log when the run has none, so that no endpoint is ever called, whatever the shell has set),
    no answer cache, recorded skips checked."""
    scratch.mkdir(parents=True, exist_ok=True)
    copied = _copy(answers, scratch / "llm_answers.jsonl") if answers is not None else scratch / "no_llm_answers.jsonl"
    if answers is None:
        untrusted.write_file(copied, "")
    env = dict(os.environ)
    env.update({ANSWERS_ENV: str(copied), "LMMS_COMPARATIVE_LLM_CACHE": "off", CHECK_SKIPS_ENV: "1"})
    return env


def _renamed(document: dict, renames: dict[str, str]) -> dict:
    """A results dict with each task name ``renames`` maps renamed, in every section keyed by task
    and in the record's tasks (a variant re-scored as the task it builds on, and back)."""
    out = dict(document)
    for section in ("results", "versions", "n-samples", "configs", "group_subtasks", "higher_is_better", "n-shot"):
        if isinstance(out.get(section), dict):
            out[section] = {renames.get(k, k): v for k, v in out[section].items()}
    record = out.get(KEY)
    if isinstance(record, dict) and isinstance(record.get("tasks"), dict):
        out[KEY] = {**record, "tasks": {renames.get(k, k): v for k, v in record["tasks"].items()}}
    if isinstance(out.get(SIDE_KEY), dict):
        out[SIDE_KEY] = {name: {renames.get(k, k): v for k, v in logs.items()} for name, logs in out[SIDE_KEY].items()}
    return out


def rescore(
    names: list[str],
    run: gate.Run,
    results: dict,
    tasks: list[str],
    scratch: Path,
    answers: gate.Entry | None,
    renames: dict[str, str] | None = None,
    runner: Runner = cold,
) -> tuple[dict | None, dict[str, list[dict]], str]:
    """Score this run's samples logs of ``tasks`` (of the benchmarks ``names``) again, in one
    lmms-eval run with the ``replay`` model; judges and readers answer from the run's ``answers``
    log only. The re-scored results, samples, and the run's last output lines when it wrote no
    results. ``renames``: a team's variant task -> the task of ours it builds on; the variant's
    samples are re-scored as that task (the maintainer has no copy of the team's YAML, and the
    scoring hooks are that task's), and the outcome is named after the variant again. Every file
    the run reads is our copy of the submitted bytes, under fixed names of our own; ``results``:
    the run's results JSON as the gate read and checked it (``check_file``), written out again.
    ``runner`` starts the lmms-eval run (a fresh process, or a child of verify's fork server)."""
    from lmms_comparative.rescoring.run import read_run, replay

    renames = renames or {}
    folder = scratch / "run"
    folder.mkdir(parents=True)
    date = "20000101_000000"  # our own name for the copies: no folder text becomes a file name
    untrusted.write_file(
        folder / f"{date}_results.json", json.dumps(_renamed(results, renames) if renames else results)
    )
    for task in tasks:
        target = renames.get(task, task)
        if of_task(target) is None:  # only names of the installed index reach a file name or --tasks
            return None, {}, f"{target!r} is not a task of the installed package"
        _copy(run.samples[task], folder / f"{date}_samples_{target}.jsonl")
    back = {base: variant for variant, base in renames.items()}
    out = scratch / "rescored"
    try:
        replies = read_run([BY_NAME[name] for name in names], folder)
        files = [{"path": str(run.results.path.parent), "format": "samples", "sha256": None}]
        proc = replay(
            replies,
            "+".join(names),
            replies.tasks,
            out,
            files,
            replies.repeats(),
            env=_env(answers, scratch),
            quiet=True,
            runner=runner,
        )
    except PredictionsError as exc:
        return None, {}, str(exc)
    found = gate.scan(out, side_log_names()).runs
    if not found:  # a flagged run (exit 1) still writes its results: those are compared
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
        return None, {}, tail or f"exit status {proc.returncode}"
    again = found[-1]
    rescored = gate.results_json(again.results)
    samples = {back.get(task, task): read_lines(entry) for task, entry in again.samples.items()}
    rescored[SIDE_KEY] = side_logs(again)
    return (_renamed(rescored, back) if back else rescored), samples, ""


SIDE_KEY = "_lmms_comparative_side_logs"  # where ``rescore`` puts the re-score's side logs in its results dict


def side_logs(run: gate.Run) -> dict[str, dict[str, list[dict]]]:
    """The run's side logs (``registry.side_log_names``), by log name and task; ``BadLine`` for one
    that cannot be read."""
    return {name: {task: read_lines(entry) for task, entry in sorted(logs.items())} for name, logs in run.side.items()}


def rescore_all(
    jobs: dict[str, list[str]],
    run: gate.Run,
    results: dict,
    scratch: Path,
    answers: gate.Entry | None,
    runner: Runner = cold,
) -> dict[str, tuple]:
    """{benchmark: ``rescore``'s outcome}. Every benchmark in one lmms-eval run (one start-up,
    which is most of a replay's time); when that run writes no results (one benchmark's data not
    at hand stops it), each benchmark in a run of its own, as many at once as there are cores, so
    that the others are still re-scored."""
    if not jobs:
        return {}
    if len(jobs) > 1:
        names = list(jobs)
        every = [t for n in names for t in jobs[n]]
        together = rescore(names, run, results, every, scratch / "together", answers, runner=runner)
        if together[0] is not None:
            return dict.fromkeys(names, together)
    with ThreadPoolExecutor(max_workers=max(1, min(len(jobs), os.cpu_count() or 1))) as pool:
        pending = {
            name: pool.submit(rescore, [name], run, results, ready, scratch / name, answers, None, runner)
            for name, ready in jobs.items()
        }
    return {name: future.result() for name, future in pending.items()}


def local_data_absent(benchmark, entries: list[dict]) -> str | None:
    """Why the benchmark's tasks cannot be re-scored here, when the run read a local copy of the
    data and the root variable names no folder now; None otherwise."""
    variable = benchmark.root_variable
    if not variable or {(e.get("data") or {}).get("source") for e in entries} != {"local"}:
        return None
    root = os.environ.get(variable, "")
    if root and os.path.isdir(root):
        return None
    state = "is not set" if not root else f"names no folder ({root})"
    recorded = sorted({str((e.get("data") or {}).get("root")) for e in entries if (e.get("data") or {}).get("root")})
    where = (
        f" (the run read {recorded[0]}{f' and {len(recorded) - 1} other folder(s)' if len(recorded) > 1 else ''}:"
        " that folder, or a copy of it)"
        if recorded
        else ""
    )
    return (
        f"could not be re-scored: the run read a local copy of the data and {variable} {state} here;"
        f" set {variable} to that copy{where}"
    )


def data_matches(recorded: dict, used: dict, schema: int | None = None) -> str | None:
    """None when the re-scoring run read the recorded data, else what differs (``schema``: the
    record's layout version; before 2 the fingerprint counted images by path and size only)."""
    if recorded.get("source") != used.get("source"):
        return (
            f"the results were scored on {recorded.get('source')} data, the data at hand is {used.get('source')}"
            f" ({used.get('repo') or used.get('root')})"
        )
    if (schema or 1) >= 2 and (recorded.get("generated") or None) != (used.get("generated") or None):
        # The report and export read it to tell generated items from the release's.
        shown = lambda g: (
            f"generated ({g.get('generated')}, {g.get('benchmark')})"
            if isinstance(g, dict)
            else "not generated"
            if not g
            else json.dumps(g)[:60]
        )  # noqa: E731
        return (
            f"data.generated: the record says the data was {shown(recorded.get('generated'))}, the data at hand"
            f" ({used.get('variable') or used.get('repo')}) is {shown(used.get('generated'))}"
        )
    if recorded.get("source") == "hub" and (recorded.get("repo"), recorded.get("commit")) != (
        used.get("repo"),
        used.get("commit"),
    ):
        return (
            f"the results were scored on {recorded.get('repo')}@{str(recorded.get('commit'))[:12]},"
            f" the hub now gives {used.get('repo')}@{str(used.get('commit'))[:12]}: another data revision"
        )
    if (
        recorded.get("source") == "local"
        and recorded.get("fingerprint") != used.get("fingerprint")
        and (schema or 1) < 2
    ):
        return (
            f"the results record a data fingerprint of an earlier scheme (record schema {schema or 1}: images"
            " counted by path and size), which this version cannot compare; re-run, or verify with the"
            " lmms-comparative version that wrote it"
        )
    if recorded.get("source") == "local" and recorded.get("fingerprint") != used.get("fingerprint"):
        return (
            f"the data at {used.get('root')} ({used.get('variable')}) has fingerprint"
            f" {str(used.get('fingerprint'))[:12]}..., the results record {str(recorded.get('fingerprint'))[:12]}...:"
            " another copy or revision of the data"
        )
    return None
