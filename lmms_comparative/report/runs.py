"""The runs a report reads: every lmms-eval results JSON under the given folders, with its samples logs."""

from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from lmms_comparative.data import untrusted
from lmms_comparative.data.jsonl import json_file, json_lines
from lmms_comparative.provenance import SIDE_LOGS


@dataclass
class Run:
    """One lmms-eval run as the report reads it: its name, its results JSON, its samples logs by task, its side logs and its verify verdict."""

    name: str
    results: dict
    samples: dict[str, list[dict]] = field(default_factory=dict)
    # Per-item rows a scoring pass wrote beside the samples (harness/side_logs.py), by log name
    # and task: ``side["reader"]["captionqa_simple_natural"]``, CaptionQA's reader answers.
    side: dict[str, dict[str, list[dict]]] = field(default_factory=dict)
    # What ``lmms-comparative verify`` found (``<date>_verify.json``), None if never verified:
    # shown, never trusted for a decision (``export`` checks for itself).
    verified: dict | None = None
    path: Path | None = None  # the results JSON

    def row(self, task: str) -> dict:
        """A task's or group's row of the results JSON (metric,filter -> value), or {}."""
        return self.results.get("results", {}).get(task) or self.results.get("groups", {}).get(task) or {}

    def value(self, task: str, metric: str):
        """A metric of a task or group (its ``none`` filter), or None."""
        return self.row(task).get(f"{metric},none")

    def mapping(self, task: str, metric: str) -> dict:
        """A dict-valued metric (``counts``, ``ci95``, a breakdown), or {} where the task has none
        or was not scored (an unscored task writes NaN in place of every metric but ``counts``)."""
        found = self.value(task, metric)
        return found if isinstance(found, dict) else {}

    def ci(self, task: str, metric: str) -> tuple[float, float] | None:
        """The (low, high) a task published in its ``ci95`` metric (benchmarks scored after
        generation: CaptionQA, VLM2-Bench, ViDi), or None."""
        found = self.mapping(task, "ci95").get(metric)
        return (found["low"], found["high"]) if isinstance(found, dict) else None

    def per_item(self, task: str, metric: str = "accuracy", key: str = "correct") -> list[float] | None:
        """The per-item values of a metric's ``key`` field from the samples log (``correct`` of ``accuracy`` by default), or None without samples."""
        rows = self.samples.get(task)
        if not rows:
            return None
        values = [s.get(metric, {}).get(key) for s in rows]
        return [float(v) for v in values if isinstance(v, (int, float))] or None


@dataclass
class ReadRun(Run):
    """A run that notes which of its tasks and groups were read (``row``, ``per_item``, and so every
    lookup built on them): the tasks behind a value a benchmark's ``measure`` returned."""

    read: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, run: Run) -> "ReadRun":
        return cls(run.name, run.results, run.samples, run.side, run.verified, run.path)

    def row(self, task: str) -> dict:
        found = super().row(task)
        if found:
            self.read.add(task)
        return found

    def per_item(self, task: str, metric: str = "accuracy", key: str = "correct") -> list[float] | None:
        if self.samples.get(task):
            self.read.add(task)
        return super().per_item(task, metric, key)


class ReportError(Exception):
    """Bad input to the report (a missing folder, no results, an unreadable file): one message."""


def write_file(path: Path, data: str | bytes) -> None:
    """A report file written anew, never through a link (``untrusted.write_file``); a link or
    another kind of file in its place is a ``ReportError``."""
    try:
        untrusted.write_file(path, data)
    except untrusted.Unsafe as exc:
        raise ReportError(f"{path}: {exc}") from None


def folder(path: Path) -> Path:
    """A folder of the report, made where missing; a link in its place is a ``ReportError``."""
    try:
        return untrusted.make_folder(path)
    except untrusted.Unsafe as exc:
        raise ReportError(f"{path}: {exc}") from None


def verify_state(run: Run) -> str:
    """What ``verify`` said of a run, in a word: its verdict (PASS, FAIL, UNVERIFIED) while every
    file of the run is the one it checked, STALE after, "not verified", or "no provenance" (not a
    run of our tasks). Read from the verdict file, for display: it decides nothing that a forger
    could want (``compare`` refuses only a FAIL; ``export`` checks for itself)."""
    if "lmms_comparative" not in run.results:
        return "no provenance"
    if run.verified is None:
        return "not verified"
    if not run.verified.get("current"):
        return "STALE"
    verdict = run.verified.get("verdict")
    return verdict if verdict in ("PASS", "FAIL", "UNVERIFIED") else "not verified"


# lmms-eval's command-line settings that change what the tasks ask the model, away from the
# papers' protocol (each task's YAML sets its decoding; these override it for every task).
PROTOCOL_OVERRIDES = ("gen_kwargs", "system_instruction", "num_fewshot", "apply_chat_template", "fewshot_as_multiturn")


def overrides(results: dict) -> dict[str, str]:
    """The protocol overrides a run was given (``--gen_kwargs temperature=0.7``, ...), as its
    results' ``config`` says: {} for a run with the tasks' own decoding."""
    config = results.get("config") or {}
    cli = config.get("resolved_cli_args") if isinstance(config.get("resolved_cli_args"), dict) else {}
    found = {}
    for name in PROTOCOL_OVERRIDES:
        value = config.get(name, cli.get(name))
        if value not in (None, "", False, [], {}):
            text = ",".join(f"{k}={v}" for k, v in value.items()) if isinstance(value, dict) else str(value)  # lmms-eval keeps --gen_kwargs parsed
            found[name] = " ".join(text.split())[:200]
    return found


def model_args(results: dict) -> dict[str, str]:
    """The run's ``--model_args`` as a dict (``config.model_args`` of the results JSON)."""
    args = str(results.get("config", {}).get("model_args") or "")
    return dict(part.split("=", 1) if "=" in part else (part, "") for part in args.split(",") if part.strip())


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


def _run_name(results: dict, path: Path) -> str:
    """The run's name as the submitter gave it (``pretrained=`` and the like): a claim, shown as
    text; control characters and line breaks (which would break a table row or a terminal line)
    become spaces, and a name past 200 characters is cut."""
    args = model_args(results)
    name = next((args[key] for key in ("pretrained", "model_version", "inner", "model") if args.get(key)), None)  # inner: the model a multiround run wraps
    name = name or str((results.get("config") or {}).get("model") or path.parent.name)
    name = " ".join(_CONTROL.sub(" ", name).split()) or "?"
    return name if len(name) <= 200 else name[:199] + "…"


def _read_json(path: Path, what: str):
    return json_file(path, ReportError, what)


def _read_samples(path: Path) -> list[dict]:
    return json_lines(path, ReportError, "samples log")


def _distinct_names(runs: list[Run], origins: list[tuple[str, Path]]) -> None:
    """Runs sharing a model name are named by what differs: their model_args, else the results
    folder given on the command line, else the results file."""
    by_name: dict[str, list[int]] = {}
    for i, run in enumerate(runs):
        by_name.setdefault(run.name, []).append(i)
    for name, idx in by_name.items():
        if len(idx) < 2:
            continue
        args = [model_args(runs[i].results) for i in idx]
        keys = sorted({k for a in args for k in a})
        # The replay file of a scored run is a path inside its own results folder: the folder names it better.
        differing = [k for k in keys if len({a.get(k) for a in args}) > 1 and k != "predictions"]
        labels = [", ".join(f"{k}={a[k]}" for k in differing if k in a) for a in args] if differing else [""] * len(idx)
        for attempt in (lambda i: origins[i][0], lambda i: str(origins[i][1])):
            if len(set(labels)) == len(labels):
                break
            labels = [f"{label}, {attempt(i)}" if label else attempt(i) for label, i in zip(labels, idx)]
        if len(set(labels)) < len(labels):  # the same file given twice
            labels = [f"{label}, #{n + 1}" for n, label in enumerate(labels)]
        for label, i in zip(labels, idx):
            runs[i].name = f"{name} ({label})"


def load_runs(paths: list[str], passed: list[tuple[Path, str]] | None = None, links: list[tuple[Path, str]] | None = None) -> list[Run]:
    """Every ``*_results.json`` under the given directories (or the given results file), with the
    samples logs beside it; no link inside a folder is followed (``data/untrusted.py``; ``links``,
    given, gets each link passed over with why). A file that cannot be read stops with
    ``ReportError``, unless ``passed`` is given: then it is added there with why, and the other
    runs are still read."""
    runs: list[Run] = []
    origins: list[tuple[str, Path]] = []
    noted = links if links is not None else []
    for base in paths:
        if not os.path.exists(base):
            raise ReportError(f"{base}: no such results folder")
        if os.path.isfile(base) and base.endswith("_results.json"):  # one run of a folder that holds several
            found, base = [base], os.path.dirname(base) or os.curdir
        elif not os.path.isdir(base):
            raise ReportError(f"{base}: not a folder (give the --output_path folder of an lmms-eval run, or one *_results.json in it)")
        else:
            walked, passed_links = untrusted.results_files(base)
            found = [str(p) for p in walked]
            noted += passed_links
        if not found:
            raise ReportError(f"{base}: no lmms-eval *_results.json under this folder" + (" (links inside it are not followed)" if noted else ""))
        for result_file in found:
            path = Path(result_file)
            try:
                run = _read_run(path)
            except ReportError as exc:
                if passed is None:
                    raise
                passed.append((path, str(exc)))
                continue
            runs.append(run)
            origins.append((Path(base).resolve().name or str(base), path.relative_to(base)))
    if not runs:
        raise ReportError(f"no readable lmms-eval results under {', '.join(paths)}: " + "; ".join(why for _, why in (passed or [])[:3]))
    _distinct_names(runs, origins)
    return runs


def in_doc_order(rows: list[dict]) -> list[dict]:
    """A samples log's rows by doc id (then as written): the order lmms-eval writes them in depends
    on how many processes ran and how their items were gathered, and the report's bootstrap
    intervals, which resample by position, must not (a one- and a two-process run of the same
    replies give the same intervals)."""
    return sorted(rows, key=lambda r: (0, r["doc_id"]) if isinstance(r.get("doc_id"), int) and not isinstance(r.get("doc_id"), bool) else (1, 0))


def _read_run(path: Path) -> Run:
    """One results file with its samples and side logs (``ReportError`` naming a file that cannot be read)."""
    results = _read_json(path, "lmms-eval results JSON")
    if not isinstance(results, dict) or not isinstance(results.get("results"), dict):
        raise ReportError(f'{path}: not an lmms-eval results JSON (no "results" table)')
    prefix = path.name[: -len("_results.json")]
    samples, side = {}, {}
    for sample_file in sorted(path.parent.glob(f"{glob.escape(prefix)}_samples_*.jsonl")):
        task = sample_file.stem.split("_samples_", 1)[1]
        samples[task] = in_doc_order(_read_samples(sample_file))
    for name in SIDE_LOGS:
        for side_file in sorted(path.parent.glob(f"{glob.escape(prefix)}_{name}_*.jsonl")):
            side.setdefault(name, {})[side_file.stem.split(f"_{name}_", 1)[1]] = _read_samples(side_file)
    from lmms_comparative.verify import read_verdicts

    return Run(_run_name(results, path), results, samples, side, read_verdicts(path), path)
