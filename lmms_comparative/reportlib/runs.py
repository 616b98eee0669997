"""A run as a benchmark's report section reads it: the ``Run`` (its results JSON, samples and side
logs by task, its verify verdict), and what a results JSON says of its settings. Reading runs from
a folder is the report's (``report/run_folders.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, TypeVar

from lmms_comparative.data.generating import PROTOCOL_OVERRIDES, command_settings, generation_of
from lmms_comparative.data.untrusted import printable

T = TypeVar("T")


@dataclass
class Run:
    """One lmms-eval run as the report reads it: its name, its results JSON, its samples logs by task,
    its side logs and its verify verdict."""

    name: str
    results: dict
    samples: dict[str, list[dict]] = field(default_factory=dict)
    # Per-item rows a scoring pass wrote beside the samples (harness/save_side_logs.py), by log name
    # and task: ``side["reader"]["captionqa_simple_natural"]``, CaptionQA's reader answers.
    side: dict[str, dict[str, list[dict]]] = field(default_factory=dict)
    # What ``lmms-comparative verify`` found (``<date>_verify.json``), None if never verified:
    # shown, never trusted for a decision (``export`` checks for itself).
    verified: dict | None = None
    path: Path | None = None  # the results JSON
    # What is read of the run once and asked for again by every pair it is compared in (compare's
    # units and item counts per task) and by every table a value stands in (its per-item scores):
    # kept here, by kind and task, for the run's lifetime.
    memo: dict[tuple[str, ...], Any] = field(default_factory=dict, repr=False, compare=False)

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
        """The per-item values of a metric's ``key`` field from the samples log (``correct`` of
        ``accuracy`` by default), or None without samples."""
        rows = self.samples.get(task)
        if not rows:
            return None
        values = remembered(
            self,
            ("per_item", task, metric, key),
            lambda: [float(v) for s in rows if isinstance(v := s.get(metric, {}).get(key), (int, float))],
        )
        return list(values) or None


def remembered(run, kind: tuple[str, ...], read: Callable[[], T]) -> T:
    """``read()``, kept on the run (``Run.memo``) for every later ask of the same kind (its name and
    task, ...); a run without a memo (a test's stand-in) reads each time."""
    memo = getattr(run, "memo", None)
    if memo is None:
        return read()
    if kind not in memo:
        memo[kind] = read()
    return memo[kind]


@dataclass
class ReadRun(Run):
    """A run that notes which of its tasks and groups were read (``row``, ``per_item``, and so every
    lookup built on them): the tasks behind a value a benchmark's ``measure`` returned."""

    read: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, run: Run) -> "ReadRun":
        return cls(run.name, run.results, run.samples, run.side, run.verified, run.path, run.memo)

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


def overrides(results: dict) -> dict[str, str]:
    """The protocol overrides a run was given (``--gen_kwargs temperature=0.7``, ...), as its
    results' ``config`` says: {} for a run with the tasks' own decoding. A ``score`` of a
    --predict_only run adds the generating run's, as its results gave them (``generated_by``):
    that run decoded the replies."""
    found = {}
    for source in (results.get("config"), generated_by(results)):
        for name, value in command_settings(source, PROTOCOL_OVERRIDES).items():
            text = (
                ",".join(f"{k}={v}" for k, v in value.items()) if isinstance(value, dict) else str(value)
            )  # lmms-eval keeps --gen_kwargs parsed
            found[name] = " ".join(text.split())[:200]
    return found


def generated_by(results: dict) -> dict:
    """For a ``score`` run of a --predict_only run's replies (the ``replay`` model, a record with
    the generating run's ``predictions.generation``): that run's model and command-line settings
    as its results JSON gave them (``predictions.generated_by``), a claim; {} for any other run."""
    if (results.get("config") or {}).get("model") != "replay":
        return {}
    record = results.get("lmms_comparative")
    if not isinstance(record, dict) or generation_of(record) is None:
        return {}
    found = record["predictions"].get("generated_by")
    return found if isinstance(found, dict) else {}


def claimed_version(record: dict) -> str:
    """The package version a record names, in one line of at most 40 characters (a stranger's text)."""
    package = record.get("package")
    return " ".join(printable(str(package.get("version", "?") if isinstance(package, dict) else "?")).split())[:40]


def model_args(results: dict) -> dict[str, str]:
    """The run's ``--model_args`` as a dict (``config.model_args`` of the results JSON)."""
    return parse_model_args(results.get("config", {}).get("model_args"))


def parse_model_args(text) -> dict[str, str]:
    """``pretrained=X,device=cuda`` as a dict."""
    pairs = (part.partition("=") for part in str(text or "").split(",") if part.strip())
    return {key: value for key, _, value in pairs}
