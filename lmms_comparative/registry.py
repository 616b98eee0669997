"""The registry: what a benchmark record is, which benchmarks there are, and the lookups over them.
The ground floor of the package: the harness, report, verify, export, preflight, rescoring and the
benchmarks' own code import it downward, and it imports of the package only ``data.generated``
(the marker a fixture gets; ``tools/import_graph.py`` shows the floors).

A record names a benchmark's fixed facts and where its parts are. It lives in the benchmark's own
folder (``benchmarks/<name>/__init__.py`` defines ``BENCHMARK``), and is read by name, as every
part is: its folder's parts (hooks, report, predictions, fixture, ...) live under fixed module
names and are imported only when used, so that reading the registry imports neither lmms-eval nor a
benchmark's code. Adding a benchmark: its folder, then its name in ``NAMES`` below (the registry
line). docs/adding-a-benchmark.md has the table of parts, which are required and what an optional
one defaults to; the contract (``benchmarks/contract.py``) checks them.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from pathlib import Path

from lmms_comparative.data.generated import FIXTURE, mark

BENCHMARKS_PACKAGE = "lmms_comparative.benchmarks"
FOLDER = Path(__file__).resolve().parent / "benchmarks"  # a folder per benchmark


@dataclass(frozen=True)
class ScoringCall:
    """Something a task's scoring calls besides the model under test, which the preflight
    (``lmms_comparative/preflight.py``) checks before generation: an LLM (a reader or judge, through
    the engine) or an SBERT model. ``settings`` names two attributes of the benchmark's ``hooks``
    module: for an LLM the engine's variable prefix and its defaults (``JUDGE_PREFIX``,
    ``JUDGE_DEFAULTS``); for SBERT the variable naming the model and the default model."""

    tasks: tuple[str, ...]  # the task names it serves, as fnmatch patterns
    kind: str  # "llm" or "sbert"
    label: str  # what messages call it: "the CaptionQA reader"
    settings: tuple[str, str]

    def values(self, benchmark: "Benchmark") -> tuple:
        """The two settings' values (the hooks module is imported)."""
        return tuple(benchmark.part("hooks", name) for name in self.settings)


@dataclass(frozen=True)
class Benchmark:
    """One benchmark's fixed facts and where its parts are (docs/adding-a-benchmark.md)."""

    name: str  # the folder and the task-name prefix: subtlebench, captionqa, ...
    title: str  # as the paper writes it
    root_variable: str  # the environment variable naming a local copy of the release
    task_families: tuple[str, ...]  # the groups and family tasks a user runs (README, docs)
    # One small task: what the tests and scripts that touch every benchmark run of it (two processes,
    # readable tables, the contract's CLI checks).
    smoke_task: str = ""
    # What random_choice draws from, by kind (models/random_choice.py: letters, choices, options,
    # words, tf, count, which); anything else is answered with a short caption.
    answer_spaces: tuple[str, ...] = ()
    fewshot_variant: str | None = None  # the task that defines the paper's few-shot protocol
    hub_repo: str | None = None  # the release's dataset repository on the Hugging Face hub, if any
    # What ``lmms-comparative export`` writes: per protocol variant ("" the default), the paper
    # table (paper.json) whose columns it measures, and the task or group each column's value is
    # of (the entry's task_id).
    exports: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...] = ()
    scoring_calls: tuple[ScoringCall, ...] = ()  # LLMs and models scoring calls (the preflight checks them)

    @property
    def package(self) -> str:
        """The Python package of the benchmark's folder: ``lmms_comparative.benchmarks.<name>``."""
        return f"{BENCHMARKS_PACKAGE}.{self.name}"

    def owns_task(self, task: str) -> bool:
        """Whether a task or group name is this benchmark's (``<name>`` or ``<name>_...``)."""
        return task == self.name or task.startswith(self.name + "_")

    def owns_module(self, module: str) -> bool:
        """Whether a Python module lives in this benchmark's folder."""
        return module == self.package or module.startswith(self.package + ".")

    def part(self, module: str, attr: str):
        """``attr`` of the benchmark's module ``module`` (a part every benchmark has)."""
        return getattr(importlib.import_module(f"{self.package}.{module}"), attr)

    def optional(self, module: str, attr: str, default=None):
        """``attr`` of the module ``module``, or ``default`` when the benchmark has no such module
        or the module no such name (an import error inside the module is raised)."""
        name = f"{self.package}.{module}"
        try:
            found = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            return default
        return getattr(found, attr, default)

    # ---- the parts, with the defaults of a benchmark that leaves one out ------------------------

    def build_fixture(self, directory: str | Path, **kwargs) -> Path:
        """A small generated copy in the official layout (``fixture.build``; required when the data
        is not bundled, that is when ``root_variable`` is set), with the marker that says it is one
        (``data/generated.py``: a run on it is not the release, and the report says so)."""
        root = self.part("fixture", "build")(directory, **kwargs)
        mark(root, FIXTURE, self.name, **{k: v for k, v in kwargs.items() if isinstance(v, (int, str))})
        return root

    def key_columns(self) -> tuple[str, ...]:
        """The doc columns an item's key is made of (``predictions.KEY_COLUMNS``; default
        ``("item_id",)``). Every per-item result carries them (``tasklib.item_results``)."""
        return tuple(self.optional("predictions", "KEY_COLUMNS", ("item_id",)))

    def llm_calls(self, task: str) -> list[ScoringCall]:
        """The LLM scoring calls (readers, judges) that ``task`` makes: the ``scoring_calls`` of
        kind "llm" whose patterns match it. ``verify`` re-scores these tasks only from the run's
        logged answers."""
        from fnmatch import fnmatchcase

        return [c for c in self.scoring_calls if c.kind == "llm" and any(fnmatchcase(task, p) for p in c.tasks)]

    def llm_prefixes(self) -> dict[str, str]:
        """{settings prefix: the call's label} of every LLM this benchmark's scoring calls (the
        hooks module is imported): which engine settings, answers and ``llm`` record entries are
        this benchmark's."""
        return {c.values(self)[0]: c.label for c in self.scoring_calls if c.kind == "llm"}

    def release_items(self) -> dict:
        """The real release's item counts per leaf task (``release.json`` beside the record:
        ``release``, ``split``, ``sources``, ``tasks`` {task: {count, source[, sha256]}},
        ``unknown``); an empty ``tasks`` where none could be established here."""
        import json

        path = FOLDER / self.name / "release.json"
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {"tasks": {}}

    def paper(self) -> dict:
        """The paper's transcribed model rows (``paper.json``: ``tables``, each with its source,
        caption, notes, columns, the paper's precision, rows and reference rows; ``aliases``, paper
        model name -> model ids); empty where none are transcribed. With tables, ``report.measure``
        is required: it reads a run's value in a table's column."""
        import json

        path = FOLDER / self.name / "paper.json"
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {"tables": {}, "aliases": {}}


# The registry line: every benchmark, in the order the report and the run summary show them.
NAMES: tuple[str, ...] = ("subtlebench", "captionqa", "vlm2bench", "compbench", "vidi")


class RegistryError(Exception):
    """A name in ``NAMES`` whose folder holds no record: one line naming both."""


@functools.cache
def _records() -> tuple[Benchmark, ...]:
    """Each name's record (``benchmarks/<name>/__init__.py``'s ``BENCHMARK``), read once."""
    records = []
    for name in NAMES:
        record = getattr(importlib.import_module(f"{BENCHMARKS_PACKAGE}.{name}"), "BENCHMARK", None)
        if not isinstance(record, Benchmark) or record.name != name:
            raise RegistryError(f"the registry lists {name!r} (NAMES in lmms_comparative/registry.py), but benchmarks/{name}/__init__.py defines no BENCHMARK = Benchmark(name={name!r}, ...)")
        records.append(record)
    return tuple(records)


@functools.cache
def _by_name() -> dict[str, Benchmark]:
    return {b.name: b for b in _records()}


def __getattr__(name: str):
    """``BENCHMARKS`` (the records in order) and ``BY_NAME`` ({name: record}), read on first use:
    a record imports this module for ``Benchmark``, so the records cannot be read while it loads."""
    if name == "BENCHMARKS":
        return _records()
    if name == "BY_NAME":
        return _by_name()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def of_task(task: str) -> Benchmark | None:
    """The benchmark a task or group name belongs to (the longest matching prefix), or None."""
    found = [b for b in _records() if b.owns_task(task)]
    return max(found, key=lambda b: len(b.name)) if found else None


def of_module(module: str) -> Benchmark | None:
    """The benchmark whose folder holds the Python module ``module``, or None."""
    return next((b for b in _records() if b.owns_module(module)), None)
