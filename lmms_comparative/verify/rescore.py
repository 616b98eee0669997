"""Re-scoring a results file's samples logs for ``verify``: one lmms-eval run with the ``replay``
model (as ``lmms-comparative score`` does), in a scratch folder, that calls no endpoint and checks
the recorded skips against the data at hand."""

from __future__ import annotations

import json
import os
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from lmms_comparative.data.jsonl import json_lines
from lmms_comparative.data.replies import PredictionsError
from lmms_comparative.provenance import ANSWERS_ENV, KEY
from lmms_comparative.registry import BY_NAME, side_log_names
from lmms_comparative.switches import CHECK_SKIPS_ENV  # recorded skips checked at hand


def date_id(results_file: Path) -> str:
    """``<date>`` of ``<date>_results.json``."""
    return results_file.name[: -len("_results.json")]


def samples_of(results_file: Path, task: str) -> Path:
    """The samples log of ``task`` beside ``results_file``."""
    return results_file.parent / f"{date_id(results_file)}_samples_{task}.jsonl"


def answers_file(results_file: Path) -> Path:
    """The LLM answers log beside ``results_file``."""
    return results_file.parent / f"{date_id(results_file)}_llm_answers.jsonl"


class BadLine(ValueError):
    """A samples line that is not a JSON object: the message names the file and the line."""


def read_lines(path: Path) -> list[dict]:
    """The JSON objects of a samples log, one per line; ``BadLine`` names the first line that is not one."""
    return json_lines(path, BadLine, "samples log")


def _env(answers: Path | None, scratch: Path) -> dict:
    """The re-scoring run's environment: every judge and reader answers from ``answers`` (an empty
    log when the run has none, so that no endpoint is ever called, whatever the shell has set),
    no answer cache, recorded skips checked."""
    if answers is None:
        answers = scratch / "no_llm_answers.jsonl"
        answers.parent.mkdir(parents=True, exist_ok=True)
        answers.write_text("")
    env = dict(os.environ)
    env.update({ANSWERS_ENV: str(answers), "LMMS_COMPARATIVE_LLM_CACHE": "off", CHECK_SKIPS_ENV: "1"})
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


def rescore(names: list[str], results_file: Path, tasks: list[str], scratch: Path, answers: Path | None, renames: dict[str, str] | None = None) -> tuple[dict | None, dict[str, list[dict]], str]:
    """Score this run's samples logs of ``tasks`` (of the benchmarks ``names``) again, in one
    lmms-eval run with the ``replay`` model; judges and readers answer from the run's ``answers``
    log only. The re-scored results, samples, and the run's last output lines when it wrote no
    results. ``renames``: a team's variant task -> the task of ours it builds on; the variant's
    samples are re-scored as that task (the maintainer has no copy of the team's YAML, and the
    scoring hooks are that task's), and the outcome is named after the variant again."""
    from lmms_comparative.rescoring.run import read_run, replay

    renames = renames or {}
    folder = scratch / "run"
    folder.mkdir(parents=True)
    if renames:
        document = json.loads(results_file.read_text(encoding="utf-8"))
        (folder / results_file.name).write_text(json.dumps(_renamed(document, renames)), encoding="utf-8")
    else:
        shutil.copy2(results_file, folder / results_file.name)  # its groups are re-scored too
    for task in tasks:
        shutil.copy2(samples_of(results_file, task), folder / samples_of(results_file, renames.get(task, task)).name)
    back = {base: variant for variant, base in renames.items()}
    out = scratch / "rescored"
    try:
        replies = read_run([BY_NAME[name] for name in names], folder)
        files = [{"path": str(results_file.parent), "format": "samples", "sha256": None}]
        proc = replay(replies, "+".join(names), replies.tasks, out, files, replies.repeats(), env=_env(answers, scratch), quiet=True)
    except PredictionsError as exc:
        return None, {}, str(exc)
    found = sorted(out.glob("**/*_results.json"))
    if not found:  # a flagged run (exit 1) still writes its results: those are compared
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
        return None, {}, tail or f"exit status {proc.returncode}"
    rescored = json.loads(found[-1].read_text(encoding="utf-8"))
    samples = {}
    for file in found[-1].parent.glob(f"{date_id(found[-1])}_samples_*.jsonl"):
        task = file.stem.split("_samples_", 1)[1]
        samples[back.get(task, task)] = read_lines(file)
    rescored[SIDE_KEY] = side_logs(found[-1])
    return (_renamed(rescored, back) if back else rescored), samples, ""


SIDE_KEY = "_lmms_comparative_side_logs"  # where ``rescore`` puts the re-score's side logs in its results dict


def side_logs(results_file: Path) -> dict[str, dict[str, list[dict]]]:
    """The side logs beside ``results_file`` (``registry.side_log_names``), by log name and task."""
    found: dict[str, dict[str, list[dict]]] = {}
    for name in side_log_names():
        for file in sorted(results_file.parent.glob(f"{date_id(results_file)}_{name}_*.jsonl")):
            found.setdefault(name, {})[file.stem.split(f"_{name}_", 1)[1]] = read_lines(file)
    return found


def rescore_all(jobs: dict[str, list[str]], results_file: Path, scratch: Path, answers: Path | None) -> dict[str, tuple]:
    """{benchmark: ``rescore``'s outcome}. Every benchmark in one lmms-eval run (one start-up,
    which is most of a replay's time); when that run writes no results (one benchmark's data not
    at hand stops it), each benchmark in a run of its own, as many at once as there are cores, so
    that the others are still re-scored."""
    if not jobs:
        return {}
    if len(jobs) > 1:
        names = list(jobs)
        together = rescore(names, results_file, [t for n in names for t in jobs[n]], scratch / "together", answers)
        if together[0] is not None:
            return dict.fromkeys(names, together)
    with ThreadPoolExecutor(max_workers=max(1, min(len(jobs), os.cpu_count() or 1))) as pool:
        pending = {name: pool.submit(rescore, [name], results_file, ready, scratch / name, answers) for name, ready in jobs.items()}
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
    where = f" (the run read {recorded[0]}{f' and {len(recorded) - 1} other folder(s)' if len(recorded) > 1 else ''}: that folder, or a copy of it)" if recorded else ""
    return f"could not be re-scored: the run read a local copy of the data and {variable} {state} here; set {variable} to that copy{where}"


def data_matches(recorded: dict, used: dict, schema: int | None = None) -> str | None:
    """None when the re-scoring run read the recorded data, else what differs (``schema``: the
    record's layout version; before 2 the fingerprint counted images by path and size only)."""
    if recorded.get("source") != used.get("source"):
        return f"the results were scored on {recorded.get('source')} data, the data at hand is {used.get('source')} ({used.get('repo') or used.get('root')})"
    if (schema or 1) >= 2 and (recorded.get("generated") or None) != (used.get("generated") or None):
        # The report and export read it to tell generated items from the release's.
        shown = lambda g: f"generated ({g.get('generated')}, {g.get('benchmark')})" if isinstance(g, dict) else "not generated" if not g else json.dumps(g)[:60]  # noqa: E731
        return f"data.generated: the record says the data was {shown(recorded.get('generated'))}, the data at hand ({used.get('variable') or used.get('repo')}) is {shown(used.get('generated'))}"
    if recorded.get("source") == "hub" and (recorded.get("repo"), recorded.get("commit")) != (used.get("repo"), used.get("commit")):
        return f"the results were scored on {recorded.get('repo')}@{str(recorded.get('commit'))[:12]}, the hub now gives {used.get('repo')}@{str(used.get('commit'))[:12]}: another data revision"
    if recorded.get("source") == "local" and recorded.get("fingerprint") != used.get("fingerprint") and (schema or 1) < 2:
        return (
            f"the results record a data fingerprint of an earlier scheme (record schema {schema or 1}: images counted by path and size), which this version cannot compare; re-run, or verify with the lmms-comparative version that wrote it"
        )
    if recorded.get("source") == "local" and recorded.get("fingerprint") != used.get("fingerprint"):
        return f"the data at {used.get('root')} ({used.get('variable')}) has fingerprint {str(used.get('fingerprint'))[:12]}..., the results record {str(recorded.get('fingerprint'))[:12]}...: another copy or revision of the data"
    return None
