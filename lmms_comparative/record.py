"""What a benchmark is, as the rest of the package sees it: its record (``Benchmark``), the parts it
may offer as typed objects, and the shapes of the functions a part holds (``typing.Protocol``s).

A benchmark's folder defines ``BENCHMARK = Benchmark(...)`` in its ``__init__.py``: the fixed facts
(name, title, data variable, task families, ...) and one loader of its parts (``parts=_parts``, a
``def _parts(benchmark: Benchmark) -> Parts`` that imports the part modules and hands each the
record). The drivers (report, verify, export, score, the CLI, the preflight) call
``benchmark.report_part()`` and the other accessors below; a type checker and grep follow every
call from there to the benchmark's code, and reading a record imports neither lmms-eval nor the
benchmark's parts. The hooks read the record from the package; a part module never imports it (the
loader imports the part): what it needs of the record it is given. The names the folder's modules
share, and its task table, are its ``table.py``'s (a leaf: it imports none of them).

This module is the kit's (benchmarks import it; it never imports a benchmark, and it keeps no table
of records: the registry, ``registry.py``, imports each benchmark's package by name in the code).
The contract (``benchmarks/contract.py``) checks each part against the protocols here
(``signature_problems``)."""

from __future__ import annotations

import functools
import inspect
import json
from argparse import ArgumentParser, Namespace
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Protocol

from lmms_comparative.data.replies import ItemKey

if TYPE_CHECKING:
    from lmms_comparative.data.replies import Options, Replies
    from lmms_comparative.reportlib.runs import Run

    Reply = str | Callable[[str], str] | None  # a test server's reply to a scoring call's request

FOLDER = Path(__file__).resolve().parent / "benchmarks"  # a folder per benchmark


# ---- the shapes of the parts' functions ----------------------------------------------------------


class Section(Protocol):
    """The benchmark's part of the report: Markdown, or None when no run has its tasks."""

    def __call__(self, runs: list[Run]) -> str | None: ...


class Summary(Protocol):
    """A run's lines in the run summary (lmms-eval's closing table and the report's first lines)."""

    def __call__(self, run: Run) -> list[str]: ...


class Charts(Protocol):
    """The benchmark's charts of ``runs`` written into ``out``: the PNG files written."""

    def __call__(self, runs: list[Run], out: Path) -> list[Path]: ...


class Measure(Protocol):
    """A run's value in a column of a paper table (``paper.json``): (value, (low, high) or None);
    a value of None where the run lacks it."""

    def __call__(self, run: Run, table_id: str, column: str) -> tuple: ...


class CompareUnits(Protocol):
    """The units ``compare`` pairs for a task (items by default): {unit key: outcome}, or None."""

    def __call__(self, run: Run, task: str) -> dict | None: ...


class ItemImages(Protocol):
    """The images an item browser shows for each key of a task: {key: [image path or PIL image]}."""

    def __call__(self, task: str, keys: list[str]) -> dict[str, list]: ...


class MediaFolders(Protocol):
    """The folders a local copy named by a file (not a folder: a TSV) keeps its media in, computed
    without touching the disk: the item browser reads media only there, never the file's folder."""

    def __call__(self, copy: Path) -> list[Path]: ...


class ItemQuestions(Protocol):
    """An item's questions, where its score is theirs: {item key: [question outcome dicts]}, or None."""

    def __call__(self, run: Run, task: str) -> dict[str, list[dict]] | None: ...


class BuildFixture(Protocol):
    """A small generated copy of the release in its layout under ``root``: the root to set (the
    builder's own size arguments, with defaults, may follow: ``per_source=5``)."""

    def __call__(self, root: str | Path, /) -> Path: ...


class ReadPredictions(Protocol):
    """Replies made elsewhere, in one of the benchmark's file formats (``lmms-comparative score``)."""

    def __call__(self, path: Path, options: Options) -> Replies: ...


class Detect(Protocol):
    """Whether a file is in a format (from its name and first record)."""

    def __call__(self, path: Path) -> bool: ...


class Arguments(Protocol):
    """Adds a command's arguments to its parser."""

    def __call__(self, parser: ArgumentParser) -> None: ...


class RunCommand(Protocol):
    """Runs a command: the exit status."""

    def __call__(self, args: Namespace) -> int: ...


# ---- the parts -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Headline:
    """A benchmark's headline value on the report's first page: the paper table and column it stands
    in (the report part's ``measure`` reads it), its label, the task or group whose value it is in a
    run (``group``), and, for a run without that group, the task behind each other column of the
    table (``part``; None: no such column), labelled by ``column_label`` (default: the column)."""

    table: str
    column: str
    label: str
    group: Callable[[Run], str]
    part: Callable[[Run, str], str] | None = None
    column_label: Callable[[str], str] | None = None


@dataclass(frozen=True)
class ReportPart:
    """What the report, ``compare`` and ``export`` call of a benchmark (``report.py``). A benchmark
    without one gets a table of each task's accuracy (or first metric) and n (``report/generic.py``)."""

    section: Section | None = None
    summary: Summary | None = None
    charts: Charts | None = None
    measure: Measure | None = None  # required when paper.json has tables
    compare_units: CompareUnits | None = None
    compare_group: str = "micro"  # how compare pools a group: "micro" (items) or "macro" (tasks' means)
    item_images: ItemImages | None = None
    item_questions: ItemQuestions | None = None
    media_folders: MediaFolders | None = None  # where a copy given as a file keeps its media
    headlines: tuple[Headline, ...] = ()  # the first page's values (report/overview.py); none: not shown there


@dataclass(frozen=True)
class FixturePart:
    """A small generated copy in the release's layout (``fixture.py``): required when the data is
    not bundled. ``smoke_records``: the records file under the root the smoke task reads (the
    contract damages it to see the run stop naming it); None where no such file exists."""

    build: BuildFixture
    smoke_records: str | None = None


@dataclass(frozen=True)
class PredictionsPart:
    """The files ``lmms-comparative score`` reads beside samples logs and {key: reply} mappings
    (``predictions.py``): readers by format name, how each format is recognised, and the formats
    whose look names this benchmark when another benchmark is scored."""

    formats: Mapping[str, ReadPredictions] = field(default_factory=dict)
    detect: Mapping[str, Detect] = field(default_factory=dict)
    signatures: Mapping[str, Detect] = field(default_factory=dict)


@dataclass(frozen=True)
class Command:
    """A command of the benchmark's own: ``lmms-comparative NAME ...`` (the CLI adds it)."""

    name: str
    help: str
    arguments: Arguments
    run: RunCommand
    synopsis: str = ""  # its arguments as the usage shows them: "RESULTS_DIR -o captions.json"
    usage: str = ""  # what it does, for the usage text (default: ``help``)


@dataclass(frozen=True)
class Demo:
    """The data ``lmms-comparative demo`` runs offline: what it is (``label``), the folder it is
    generated into (under the demo's output), the generator ``generate(root, per_type, seed) ->
    root`` and the tasks to run on it."""

    label: str
    folder: str
    generate: Callable[[Path, int, int], Path]
    tasks: Callable[[], tuple[str, ...]]


@dataclass(frozen=True)
class AnswerSpace:
    """A kind of answer a benchmark's prompts ask for, which the ``random_choice`` baseline draws
    from: its name, the candidates a prompt offers (``candidates(prompt, doc, n_images)``: [] or
    one when it offers none of this kind), and whether its list counts when it comes from no prompt
    (T/F, a count: ``fixed``; a list read off a prompt counts from two entries)."""

    kind: str
    candidates: Callable[[str, dict, int | None], list[str]] = field(compare=False)
    fixed: bool = False


@dataclass(frozen=True)
class ScoringCall:
    """Something a task's scoring calls besides the model under test, which the preflight checks
    before generation (the hooks read it from here): an LLM or an SBERT model (``llm``, ``sbert``)."""

    tasks: tuple[str, ...]  # the task names it serves, as fnmatch patterns
    kind: str  # "llm" or "sbert"
    label: str  # what messages call it: "the CaptionQA reader"
    setting: str
    default: Any = field(hash=False)
    # A reply its parser reads (an LLM's), which a test server gives a request of this call; a
    # function: the reply to the prompt's text. None: the server's own default ("Yes", or a letter
    # where the prompt lists lettered options).
    test_reply: Reply = field(default=None, hash=False, compare=False)

    @classmethod
    def llm(
        cls, tasks: tuple[str, ...], label: str, setting: str, default: dict, test_reply: Reply = None
    ) -> ScoringCall:
        """An LLM (a reader or judge) asked through the engine, ``setting`` its variable prefix."""
        return cls(tasks, "llm", label, setting, default, test_reply)

    @classmethod
    def sbert(cls, tasks: tuple[str, ...], label: str, setting: str, model: str) -> ScoringCall:
        """An SBERT model: ``setting`` is the variable naming the model, ``model`` the default one."""
        return cls(tasks, "sbert", label, setting, model)


@dataclass(frozen=True)
class Parts:
    """A benchmark's parts, made for its record by the loader its ``__init__.py`` names (on first
    use: the part modules import more than the record does). A part left out is the default."""

    report: ReportPart = field(default_factory=ReportPart)
    predictions: PredictionsPart = field(default_factory=PredictionsPart)
    fixture: FixturePart | None = None  # required when the data is not bundled
    commands: tuple[Command, ...] = ()
    demo: Demo | None = None


@functools.cache
def installed_tasks(name: str) -> frozenset[str]:
    """The task and group names of a benchmark's installed YAMLs (each file is named after its task,
    as ``benchmarks/generate.py`` writes them): the index every name from a folder is matched against."""
    folder = FOLDER / name / "yaml"
    names = [p.name for p in folder.iterdir()] if folder.is_dir() else []
    return frozenset(n[: -len(".yaml")] for n in names if n.endswith(".yaml"))


@dataclass(frozen=True)
class Benchmark:
    """One benchmark's fixed facts and its parts (docs/adding-a-benchmark.md)."""

    name: str  # the folder and the task-name prefix: subtlebench, captionqa, ...
    title: str  # as the paper writes it
    root_variable: str  # the environment variable naming a local copy of the release
    task_families: tuple[str, ...]  # the groups and family tasks a user runs (README, docs)
    smoke_task: str = ""  # one small task: what the tests and scripts that touch every benchmark run of it
    # What random_choice draws from (models/random_choice.py), tried in order; a prompt that offers
    # none of them is answered with a short caption.
    answer_spaces: tuple[AnswerSpace, ...] = ()
    fewshot_variant: str | None = None  # the task that defines the paper's few-shot protocol
    hub_repo: str | None = None  # the release's dataset repository on the Hugging Face hub, if any
    # What ``lmms-comparative export`` writes: per protocol variant ("" the default), the paper
    # table (paper.json) whose columns it measures, and the task or group each column's value is of.
    exports: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...] = ()
    scoring_calls: tuple[ScoringCall, ...] = ()  # LLMs and models scoring calls (the preflight checks them)
    # How an item is found again in a samples log or a predictions file: the doc columns of its key
    # and the rule (default: ``item_id``, as it stands). Every per-item result carries the columns.
    item_key: ItemKey = ItemKey(("item_id",))
    # The side logs a task's scoring writes beside its samples (``tasklib.side_logs``): the report
    # reads them, ``verify`` re-derives them.
    side_logs: tuple[str, ...] = ()
    # Named colours of the benchmark's generated images ({name: (r, g, b)}), which the pixel_diff
    # baseline names a difference by; empty where the benchmark generates none.
    colours: Mapping[str, tuple[int, int, int]] = field(default_factory=dict, hash=False)
    parts: Callable[[Benchmark], Parts] | None = None  # imports the part modules, makes them for this record

    @property
    def package(self) -> str:
        """The Python package of the benchmark's folder: ``lmms_comparative.benchmarks.<name>``."""
        return f"lmms_comparative.benchmarks.{self.name}"

    @functools.cached_property
    def _parts(self) -> Parts:
        return self.parts(self) if self.parts else Parts()

    def owns_task(self, task: str) -> bool:
        """Whether a task or group name is this benchmark's (``<name>`` or ``<name>_...``)."""
        return task == self.name or task.startswith(self.name + "_")

    def has_task(self, task: object) -> bool:
        """Whether ``task`` is exactly one of this benchmark's installed tasks or groups (a YAML of its
        folder): how a name read from a submitted folder is matched before it means anything (a
        name that merely starts like ours, ``subtlebench_sp,evil.yaml``, is not one)."""
        return isinstance(task, str) and task in installed_tasks(self.name)

    @property
    def setting_prefixes(self) -> tuple[str, ...]:
        """The prefixes of the environment variables this benchmark reads: its data root's
        (``DIFFSPOT_`` of ``DIFFSPOT_ROOT``) and each scoring call's settings (``DIFFSPOT_JUDGE``)."""
        root = self.root_variable[: -len("ROOT")] if self.root_variable.endswith("_ROOT") else self.root_variable
        return tuple(dict.fromkeys(p for p in (root, *(call.setting for call in self.scoring_calls)) if p))

    # ---- the parts, with the defaults of a benchmark that leaves one out ------------------------

    def report_part(self) -> ReportPart:
        return self._parts.report

    def predictions_part(self) -> PredictionsPart:
        return self._parts.predictions

    def fixture_part(self) -> FixturePart | None:
        return self._parts.fixture

    def command_parts(self) -> tuple[Command, ...]:
        return self._parts.commands

    def demo_part(self) -> Demo | None:
        return self._parts.demo

    def build_fixture(self, directory: str | Path, **kwargs) -> Path:
        """A small generated copy in the official layout, with the marker that says it is one
        (``data/generated.py``: a run on it is not the release, and the report says so)."""
        from lmms_comparative.data.generated import FIXTURE, mark

        part = self.fixture_part()
        if part is None:
            raise ValueError(f"{self.name} has no fixture (its data is bundled)")
        root = part.build(directory, **kwargs)  # the builder's own sizes
        mark(root, FIXTURE, self.name, **{k: v for k, v in kwargs.items() if isinstance(v, (int, str))})
        return root

    def key_columns(self) -> tuple[str, ...]:
        """The doc columns an item's key is made of."""
        return self.item_key.columns

    def llm_calls(self, task: str) -> list[ScoringCall]:
        """The LLM scoring calls (readers, judges) that ``task`` makes: ``verify`` re-scores these
        tasks only from the run's logged answers."""
        return [c for c in self.scoring_calls if c.kind == "llm" and any(fnmatchcase(task, p) for p in c.tasks)]

    def llm_prefixes(self) -> dict[str, str]:
        """{settings prefix: the call's label} of every LLM this benchmark's scoring calls."""
        return {c.setting: c.label for c in self.scoring_calls if c.kind == "llm"}

    def release_items(self) -> dict:
        """The real release's item counts per leaf task (``release.json`` beside the record:
        ``release``, ``split``, ``sources``, ``tasks`` {task: {count, source[, sha256]}},
        ``unknown``); an empty ``tasks`` where none could be established here."""
        path = FOLDER / self.name / "release.json"
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {"tasks": {}}

    def paper(self) -> dict:
        """The paper's transcribed model rows (``paper.json``: ``tables``, each with its source,
        caption, notes, columns, the paper's precision, rows and reference rows; ``aliases``, paper
        model name -> model ids); empty where none are transcribed. With tables, the report part's
        ``measure`` is required."""
        path = FOLDER / self.name / "paper.json"
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {"tables": {}, "aliases": {}}


def signature_problems(function: Callable, shape: type) -> str | None:
    """None if ``function`` can be called as the protocol ``shape``'s ``__call__`` is (the same
    positional parameters, by name; keyword-only ones of the protocol accepted), else what differs."""
    wanted = [p for name, p in inspect.signature(shape.__call__).parameters.items() if name != "self"]
    try:
        found = inspect.signature(function)
    except (TypeError, ValueError):
        return None  # a builtin or C function: nothing to compare
    params = list(found.parameters.values())
    has_var_kw = any(p.kind is p.VAR_KEYWORD for p in params)
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    names = [p.name for p in wanted if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p.name for p in positional if p.default is p.empty]
    if len(positional) < len(names) or len(required) > len(names):
        return f"takes ({', '.join(p.name for p in positional)}), not ({', '.join(names)})"
    if (
        any(p.kind is p.VAR_KEYWORD for p in wanted)
        and not has_var_kw
        and not [p for p in positional[len(names) :] if p.default is not p.empty]
    ):
        return f"takes ({', '.join(p.name for p in positional)}) and no keyword sizes"
    return None
