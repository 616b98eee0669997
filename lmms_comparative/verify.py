"""``lmms-comparative verify RESULTS_DIR``: do a results folder's metrics follow from its samples?

For every results JSON under the folder written by a run with our tasks (it carries the
``lmms_comparative`` provenance key, docs/provenance.md), and for each of our tasks in it:

1. **Item set.** The task's samples log holds every item of the recorded item set exactly once:
   its keys (the keys ``score`` matches replies by) are counted; a duplicate, a missing or a foreign
   item, or samples of another task, make the key set differ from the record's count and sha256.
2. **Re-scored.** The samples logs are scored again through the tasks' own hooks, as
   ``lmms-comparative score`` does (a real lmms-eval run with the ``replay`` model, into a scratch
   folder; one run for all the file's benchmarks, or one per benchmark when that run fails), and
   every metric of every task and group is compared with the results JSON, and every sample's
   logged scores with the re-scored sample's. An edited metric, or a reply changed after
   scoring, shows here.
3. **Data.** The re-scoring run reads the data at hand (the ``*_ROOT`` variable the record names, or
   the hub): its source must be the recorded one, the same commit for the hub, the same fingerprint
   for a local copy.

A task scored by an LLM judge or reader is re-scored from the answers the run logged beside its
results (``<date>_llm_answers.jsonl``, its sha256 in the record): every engine answers from that
log and no endpoint is called; an answer the log lacks fails as an unanswered call would.

It prints one verdict per task, writes them beside each results file (``<date>_verify.json``, which
``lmms-comparative report`` shows), (``PASS``, ``FAIL`` with each
problem, or ``UNVERIFIED`` with the reason: the data not at hand, or an LLM-scored run without its
answers log), and exits 0 only
when every task of every results file passes.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import sys
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from lmms_comparative.benchmarks import BY_NAME
from lmms_comparative.provenance import KEY, item_set

# Which benchmarks an engine prefix scores (docs/engine.md).
LLM_BENCHMARKS = {"CAPTIONQA_READER": "captionqa", "SUBTLEBENCH_JUDGE": "subtlebench", "VIDI_JUDGE": "vidi", "VLM2BENCH_JUDGE": "vlm2bench"}
# Fields of a samples line that differ between two runs of the same replies (lmms-eval's hashes of
# the inputs, the media it was given, the model's token usage, which a replayed reply lacks).
_VOLATILE = ("input_media", "doc_hash", "prompt_hash", "target_hash", "token_counts")


@dataclass
class Verdict:
    """The check of one task or group: its problems (any one fails it), why it could not be checked (``unverified``), and
    notes on what passed."""

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
        detail = "; ".join(self.problems) if self.problems else self.unverified if self.unverified else "; ".join(self.notes)
        return f"{self.status:10} {self.task}: {detail}"


def _date_id(results_file: Path) -> str:
    return results_file.name[: -len("_results.json")]


def _samples_of(results_file: Path, task: str) -> Path:
    return results_file.parent / f"{_date_id(results_file)}_samples_{task}.jsonl"


def _read_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _check_items(verdict: Verdict, rows: list[dict], benchmark, recorded: dict) -> None:
    from lmms_comparative.rescoring.replies import ItemKey, _sample_key

    key = ItemKey.of(benchmark)
    keys = [_sample_key(row, key) for row in rows]
    if any(k is None for k in keys):
        verdict.problems.append(f"{sum(k is None for k in keys)} samples line(s) carry no {key.columns[0]!r}: not this benchmark's samples")
        keys = [k for k in keys if k is not None]
    twice = sorted(k for k, n in Counter(keys).items() if n > 1)
    if twice:
        verdict.problems.append(f"{len(twice)} item(s) appear more than once ({', '.join(twice[:5])}{', ...' if len(twice) > 5 else ''})")
    found = item_set(set(keys))
    if (found["count"], found["sha256"]) != (recorded.get("count"), recorded.get("sha256")):
        verdict.problems.append(
            f"the samples hold {found['count']} distinct item(s), not the recorded item set ({recorded.get('count')} item(s), sha256 {str(recorded.get('sha256'))[:12]}...; another task's samples, or items dropped or added)"
        )
    else:
        verdict.notes.append(f"{found['count']} items, each once")


def _same(a, b) -> bool:
    """Equality that counts two NaNs as equal, through dicts and lists."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _differences(name: str, original: dict, rescored: dict) -> list[str]:
    found = []
    for metric in sorted(set(original) | set(rescored)):
        if metric == "alias":
            continue
        if metric not in rescored or metric not in original or not _same(original[metric], rescored[metric]):
            shown = lambda v: json.dumps(v)[:60] if v is not None else "absent"  # noqa: E731
            found.append(f"{name} {metric}: the results JSON says {shown(original.get(metric))}, its samples give {shown(rescored.get(metric))}")
    return found


def _answers_file(results_file: Path) -> Path:
    return results_file.parent / f"{_date_id(results_file)}_llm_answers.jsonl"


def _rescore(names: list[str], results_file: Path, tasks: list[str], scratch: Path, answers: Path | None) -> tuple[dict | None, dict[str, list[dict]], str]:
    """Score this run's samples logs of ``tasks`` (of the benchmarks ``names``) again, in one
    lmms-eval run with the ``replay`` model, as ``lmms-comparative score`` does; judges and readers
    answer from the run's ``answers`` log. The re-scored results, samples, and the run's last
    output lines when it wrote no results."""
    from lmms_comparative.provenance import ANSWERS_ENV
    from lmms_comparative.rescoring.replies import PredictionsError
    from lmms_comparative.rescoring.run import read_run, replay

    folder = scratch / "run"
    folder.mkdir(parents=True)
    shutil.copy2(results_file, folder / results_file.name)  # its groups are re-scored too
    for task in tasks:
        shutil.copy2(_samples_of(results_file, task), folder / _samples_of(results_file, task).name)
    out = scratch / "rescored"
    env = dict(os.environ)
    if answers is not None:
        env.update({ANSWERS_ENV: str(answers), "LMMS_COMPARATIVE_LLM_CACHE": "off"})
    try:
        replies = read_run([BY_NAME[name] for name in names], folder)
        files = [{"path": str(results_file.parent), "format": "samples", "sha256": None}]
        proc = replay(replies, "+".join(names), replies.tasks, out, files, replies.repeats(), env=env, quiet=True)
    except PredictionsError as exc:
        return None, {}, str(exc)
    found = sorted(out.glob("**/*_results.json"))
    if not found:  # a flagged run (exit 1) still writes its results: those are compared
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
        return None, {}, tail or f"exit status {proc.returncode}"
    rescored = json.loads(found[-1].read_text(encoding="utf-8"))
    samples = {}
    for file in found[-1].parent.glob(f"{_date_id(found[-1])}_samples_*.jsonl"):
        samples[file.stem.split("_samples_", 1)[1]] = _read_lines(file)
    return rescored, samples, ""


def _local_data_absent(benchmark, entries: list[dict]) -> str | None:
    """Why the benchmark's tasks cannot be re-scored here, when the run read a local copy of the
    data and the root variable names no folder now; None otherwise."""
    variable = benchmark.root_variable
    if not variable or {(e.get("data") or {}).get("source") for e in entries} != {"local"}:
        return None
    root = os.environ.get(variable, "")
    if root and os.path.isdir(root):
        return None
    state = "is not set" if not root else f"names no folder ({root})"
    return f"could not be re-scored: the run read a local copy of the data and {variable} {state} here; set {variable} to that copy"


def _rescore_all(jobs: dict[str, list[str]], results_file: Path, scratch: Path, answers: Path | None, llm_benchmarks: set) -> dict[str, tuple]:
    """{benchmark: ``_rescore``'s outcome}. Every benchmark in one lmms-eval run (one start-up,
    which is most of a replay's time); when that run writes no results (one benchmark's data not
    at hand stops it), each benchmark in a run of its own, as many at once as there are cores, so
    that the others are still re-scored."""
    if not jobs:
        return {}
    if len(jobs) > 1:
        names = list(jobs)
        together = _rescore(names, results_file, [t for n in names for t in jobs[n]], scratch / "together", answers if llm_benchmarks & set(names) else None)
        if together[0] is not None:
            return dict.fromkeys(names, together)
    with ThreadPoolExecutor(max_workers=max(1, min(len(jobs), os.cpu_count() or 1))) as pool:
        pending = {name: pool.submit(_rescore, [name], results_file, ready, scratch / name, answers if name in llm_benchmarks else None) for name, ready in jobs.items()}
    return {name: future.result() for name, future in pending.items()}


def _strip(row: dict) -> dict:
    return {k: v for k, v in row.items() if k not in _VOLATILE}


def _data_matches(recorded: dict, used: dict) -> str | None:
    """None when the re-scoring run read the recorded data, else what differs."""
    if recorded.get("source") != used.get("source"):
        return f"the results were scored on {recorded.get('source')} data, the data at hand is {used.get('source')} ({used.get('repo') or used.get('root')})"
    if recorded.get("source") == "hub" and (recorded.get("repo"), recorded.get("commit")) != (used.get("repo"), used.get("commit")):
        return f"the results were scored on {recorded.get('repo')}@{str(recorded.get('commit'))[:12]}, the hub now gives {used.get('repo')}@{str(used.get('commit'))[:12]}: another data revision"
    if recorded.get("source") == "local" and recorded.get("fingerprint") != used.get("fingerprint"):
        return f"the data at {used.get('root')} ({used.get('variable')}) has fingerprint {str(used.get('fingerprint'))[:12]}..., the results record {str(recorded.get('fingerprint'))[:12]}...: another copy or revision of the data"
    return None


def verify_file(results_file: Path, scratch: Path) -> list[Verdict]:
    """Check one results file against its samples logs (the module docstring's checks, task by task), re-scoring in ``scratch``."""
    results = json.loads(results_file.read_text(encoding="utf-8"))
    record = results.get(KEY)
    if not isinstance(record, dict) or not isinstance(record.get("tasks"), dict):
        return [Verdict(str(results_file.name), problems=[f"no {KEY} record: not written by a run of lmms-comparative's tasks (or by a version before provenance)"])]
    answers, answers_problem = None, None
    if record.get("llm"):
        answers = _answers_file(results_file)
        logged = record.get("llm_answers") or {}
        if not answers.is_file():
            answers, answers_problem = None, f"scored by an LLM and its answers log {answers.name} is not beside the results"
        elif hashlib.sha256(answers.read_bytes()).hexdigest() != logged.get("sha256"):
            answers_problem = f"the answers log {answers.name} is not the one the run wrote (sha256 differs from the record's)"
    llm_benchmarks = {LLM_BENCHMARKS.get(prefix) for prefix in record.get("llm") or {}}
    verdicts: dict[str, Verdict] = {}
    by_benchmark: dict[str, list[str]] = {}
    for task, entry in sorted(record["tasks"].items()):
        verdict = verdicts[task] = Verdict(task)
        benchmark = BY_NAME.get(entry.get("benchmark"))
        if benchmark is None or not benchmark.owns_task(task):
            verdict.problems.append(f"the record names benchmark {entry.get('benchmark')!r}, which does not own {task}")
            continue
        samples_file = _samples_of(results_file, task)
        if not samples_file.is_file():
            verdict.problems.append(f"no samples log {samples_file.name} (run with --log_samples)")
            continue
        _check_items(verdict, _read_lines(samples_file), benchmark, entry.get("items") or {})
        if task not in (results.get("results") or {}):
            verdict.problems.append("the results JSON has no row for this task")
        if benchmark.name in llm_benchmarks and answers_problem:
            if answers is None:
                verdict.unverified = f"item set checked; metrics not re-scored: {answers_problem}"
            else:
                verdict.problems.append(answers_problem)
            continue
        by_benchmark.setdefault(benchmark.name, []).append(task)
    jobs = {name: ready for name, tasks in by_benchmark.items() if (ready := [t for t in tasks if not verdicts[t].problems])}
    for name in list(jobs):
        absent = _local_data_absent(BY_NAME[name], [record["tasks"][t] for t in jobs[name]])
        if absent:  # known before any run: re-scoring would only stop on the missing data
            for task in jobs.pop(name):
                verdicts[task].unverified = absent
    outcomes = _rescore_all(jobs, results_file, scratch, answers, llm_benchmarks)
    for name, ready in jobs.items():
        rescored, rescored_samples, failure = outcomes[name]
        if rescored is None:
            for task in ready:
                verdicts[task].unverified = f"could not be re-scored (is the data at hand? set {BY_NAME[name].root_variable}): {failure}"
            continue
        used = (rescored.get(KEY) or {}).get("tasks") or {}
        rows = {**(rescored.get("results") or {})}
        for task in ready:
            verdict = verdicts[task]
            verdict.problems += _differences(task, results["results"].get(task, {}), rows.get(task, {}))
            mismatch = _data_matches(record["tasks"][task].get("data") or {}, (used.get(task) or {}).get("data") or {})
            if mismatch:
                verdict.problems.append(mismatch)
            original = sorted((_strip(r) for r in _read_lines(_samples_of(results_file, task))), key=lambda r: r.get("doc_id", 0))
            again = sorted((_strip(r) for r in rescored_samples.get(task, [])), key=lambda r: r.get("doc_id", 0))
            changed = [o.get("doc_id") for o, a in zip(original, again) if not _same(o, a)]
            if changed or len(original) != len(again):
                verdict.problems.append(f"{len(changed) or abs(len(original) - len(again))} sample(s) score differently from their logged scores (doc_id {', '.join(map(str, changed[:5]))}): a reply or a score was changed after the run")
            if not verdict.problems:
                verdict.notes.append("metrics and samples re-scored equal; data matches the record")
        for group in sorted(g for g in (results.get("groups") or {}) if BY_NAME[name].owns_task(g) and g in (rescored.get("groups") or {})):
            problems = _differences(group, results["groups"][group], rescored["groups"][group])
            if problems:
                verdicts.setdefault(group, Verdict(group)).problems += problems
    return list(verdicts.values())


def verdict_file(results_file: Path) -> Path:
    """Where the verdicts of ``results_file`` are kept: ``<date>_verify.json`` beside it."""
    return results_file.parent / f"{_date_id(results_file)}_verify.json"


def write_verdicts(results_file: Path, verdicts: list[Verdict]) -> Path | None:
    """``<date>_verify.json`` beside the results: the overall verdict and each task's, with the
    sha256 of the results file they were made on (``report`` shows them while it still matches)."""
    from lmms_comparative import __version__

    statuses = {v.status for v in verdicts}
    document = {
        "verified_with": __version__,
        "results_sha256": hashlib.sha256(results_file.read_bytes()).hexdigest(),
        "verdict": "FAIL" if "FAIL" in statuses else "UNVERIFIED" if "UNVERIFIED" in statuses else "PASS",
        "tasks": {v.task: {"status": v.status, "detail": v.line().split(": ", 1)[-1]} for v in verdicts},
    }
    path = verdict_file(results_file)
    try:
        path.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError:
        return None
    return path


def read_verdicts(results_file: Path) -> dict | None:
    """The verdicts ``verify`` wrote beside ``results_file``: their document with ``current``
    (whether the results file is still the one verified), or None when it was never verified."""
    path = verdict_file(results_file)
    if not path.is_file():
        return None
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    document["current"] = document.get("results_sha256") == hashlib.sha256(results_file.read_bytes()).hexdigest()
    return document


def verify(results_dir: str | Path, out=sys.stdout) -> int:
    """Print a verdict per task for every results JSON under ``results_dir``; 0 only if all pass."""
    root = Path(results_dir)
    files = sorted(root.glob("**/*_results.json")) if root.is_dir() else [root] if root.is_file() else []
    files = [f for f in files if f.parent.name != "rescored"]
    if not files:
        print(f"lmms-comparative verify: no *_results.json under {results_dir}", file=sys.stderr)
        return 2
    failed = False
    with tempfile.TemporaryDirectory(prefix="lmms-comparative-verify-") as scratch:
        for number, results_file in enumerate(files):
            print(f"{results_file}:", file=out)
            verdicts = verify_file(results_file, Path(scratch) / str(number))
            for verdict in verdicts:
                print(f"  {verdict.line()}", file=out)
                failed |= verdict.status != "PASS"
            written = write_verdicts(results_file, verdicts)
            if written is None:
                print(f"  (the verdicts could not be written beside {results_file.name}: the folder is read-only)", file=out)
    print(f"verify: {'every task holds' if not failed else 'NOT every task holds'}", file=out)
    return 1 if failed else 0
