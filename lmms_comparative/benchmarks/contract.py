"""The benchmark contract: what a folder under ``benchmarks/`` holds and does, checked.

``problems(benchmark)`` reads the folder: the record, the task YAMLs and every hook they name, and
the parts the record implies. ``run_problems(benchmark, root)`` then runs the hooks on a data root
(the benchmark's fixture) the way lmms-eval does, without lmms-eval: each task's ``process_docs``
and ``process_results`` and its aggregations. Each problem is one line that names the part. The
tests run both for every entry of ``BENCHMARKS`` and for the toy benchmark of
docs/adding-a-benchmark.md (tests/contract/), where removing any required part fails them.

The rules, each checked here:

- the folder is the record's ``name``: lowercase letters and digits, the prefix of every task and
  group it defines (``<name>`` or ``<name>_...``), and no other benchmark's prefix;
- every ``!function`` a YAML names imports;
- every folder under ``benchmarks/`` with task YAMLs has a registry line (``unregistered``);
- the doc hooks lmms-eval calls (``doc_to_visual``, ``doc_to_text``, ``doc_to_target``,
  ``doc_to_messages``) work on the fixture's first docs of every task;
- every part the record offers loads, is of its type (``record.ReportPart``, ...), and each function in
  it takes what its caller gives (the protocols of ``record.py``); a fixture part exists when the data
  is not bundled (``root_variable`` is set);
- ``task_families`` name tasks or groups of the folder, ``smoke_task`` one of its tasks; ``exports`` name tables of ``paper.json``,
  which with tables needs the report part's ``measure``; each ``scoring_calls`` entry names its setting;
- with the root unset or missing, ``process_docs`` stops the run (``SystemExit``) with a message
  that names ``root_variable``;
- every per-item result (what ``process_results`` returns, per metric) carries the item key
  (the record's ``item_key``, default ``item_id``): ``score`` and ``verify`` find items by it;
- loading from the fixture notes the local copy as the data source (``provenance.note_local``;
  ``data.roots.local_root`` does it), which the record and ``verify`` compare;
- the failure policy: when every model request failed, the task's aggregations flag the run
  (``tasklib.check_model_failures``, exit status 1).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from lmms_comparative import failures, provenance
from lmms_comparative.benchmarks.contract_parts import part_problems
from lmms_comparative.data import untrusted

# What lmms-eval's API models answer when a request exhausted its retries (metrics/aggregate.py).
FAILED_REPLY = "[LMMS_EVAL_REQUEST_FAILED after 0 retries] contract check"
_NAME = re.compile(r"^[a-z][a-z0-9]*$")
_VARIABLE = re.compile(r"^[A-Z][A-Z0-9_]*$")


@dataclass(frozen=True)
class FunctionRef:
    """A YAML ``!function module.attr`` reference, unresolved."""

    target: str

    def resolve(self):
        """The object the reference names (its module imported)."""
        module, _, attr = self.target.rpartition(".")
        return getattr(importlib.import_module(module), attr)


class _Loader(yaml.SafeLoader):
    pass


_Loader.add_constructor("!function", lambda loader, node: FunctionRef(loader.construct_scalar(node)))


def _read(path: Path) -> dict:
    config = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader) or {}
    include = config.pop("include", None)
    if include:  # lmms-eval's include: the included file's keys, overridden by this file's
        config = {**_read(path.parent / include), **config}
    return config


def configs(benchmark) -> dict[str, dict]:
    """The benchmark's task and group configs by name, includes merged (``yaml/*.yaml``)."""
    found = {}
    for path in sorted((folder(benchmark) / "yaml").glob("*.yaml")):
        config = _read(path)
        name = config.get("task") if isinstance(config.get("task"), str) else config.get("group")
        found[str(name)] = {**config, "_file": path.name}
    return found


def folder(benchmark) -> Path:
    """The benchmark's folder in the installed package."""
    return Path(__file__).resolve().parent / benchmark.name


def _refs(value) -> list[FunctionRef]:
    if isinstance(value, FunctionRef):
        return [value]
    if isinstance(value, dict):
        return [r for v in value.values() for r in _refs(v)]
    if isinstance(value, list):
        return [r for v in value for r in _refs(v)]
    return []


def problems(benchmark) -> list[str]:
    """What the benchmark's folder lacks or gets wrong, one line each (none: it holds)."""
    from lmms_comparative.registry import BENCHMARKS

    out = []
    where = f"benchmarks/{benchmark.name}"
    if not _NAME.match(benchmark.name):
        out.append(
            f"{where}: the name {benchmark.name!r} must be lowercase letters and digits (it is the tasks' prefix, before '_')"
        )
    for other in BENCHMARKS:
        if other.name != benchmark.name and (
            other.name.startswith(benchmark.name + "_") or benchmark.name.startswith(other.name + "_")
        ):
            out.append(f"{where}: its prefix overlaps {other.name}'s")
    try:
        record = importlib.import_module(benchmark.package).BENCHMARK
    except (ImportError, AttributeError) as exc:
        return out + [f"{where}/__init__.py: no BENCHMARK record ({exc})"]
    if record.name != benchmark.name:
        out.append(f"{where}/__init__.py: BENCHMARK.name is {record.name!r}, not the folder's name")
    if benchmark.root_variable is not None and not _VARIABLE.match(benchmark.root_variable):
        out.append(
            f"{where}/__init__.py: root_variable {benchmark.root_variable!r} is not an environment variable name"
        )
    found = configs(benchmark)
    if not found:
        return out + [f"{where}/yaml: no task YAML (*.yaml)"]
    for name, config in found.items():
        if not benchmark.owns_task(name):
            out.append(f"{where}/yaml/{config['_file']}: {name!r} does not start with the prefix {benchmark.name}_")
        for ref in _refs(config):
            try:
                ref.resolve()
            except (ImportError, AttributeError) as exc:
                out.append(
                    f"{where}/yaml/{config['_file']}: !function {ref.target} does not import ({type(exc).__name__}: {exc})"
                )
    out += [
        f"{where}/__init__.py: task_families names {t!r}, which no YAML defines"
        for t in benchmark.task_families
        if t not in found
    ]
    if benchmark.smoke_task not in found or found[benchmark.smoke_task].get("task") != benchmark.smoke_task:
        out.append(f"{where}/__init__.py: smoke_task {benchmark.smoke_task!r} is not a task of the folder's YAMLs")
    out += part_problems(benchmark)
    key = benchmark.item_key.columns
    if not key or not all(isinstance(c, str) and c for c in key):
        out.append(f"{where}/__init__.py: item_key must name a non-empty tuple of column names, not {key!r}")
    tables = benchmark.paper()["tables"]
    if tables and benchmark.report_part().measure is None:
        out.append(
            f"{where}/report.py: no measure(run, table_id, column) in its ReportPart (required: paper.json has tables)"
        )
    out += [
        f"{where}/__init__.py: exports name the table {table!r}, which paper.json lacks"
        for _, table, _ in benchmark.exports
        if table not in tables
    ]
    for call in benchmark.scoring_calls:
        if call.kind not in ("llm", "sbert") or not _VARIABLE.match(call.setting or ""):
            out.append(
                f"{where}/__init__.py: a ScoringCall must be of kind llm or sbert with a variable name as its setting, not {call.kind!r}, {call.setting!r}"
            )
    return out


@contextlib.contextmanager
def _environment(**values: str | None):
    before = {k: os.environ.get(k) for k in values}
    for k, v in values.items():
        os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
    try:
        yield
    finally:
        for k, v in before.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)


def _tasks(found: dict[str, dict]) -> dict[str, dict]:
    return {
        name: c
        for name, c in found.items()
        if isinstance(c.get("task"), str) and isinstance(c.get("process_docs"), FunctionRef)
    }


def run_problems(benchmark, root: Path | None) -> list[str]:
    """What the hooks get wrong when run on ``root`` (the fixture; None for bundled data): the
    missing-root stop, the item key in every per-item result, the failure policy. Offline: every
    LLM setting points at a closed local port, without retries."""
    from lmms_comparative.tasklib import rows_of

    where = f"benchmarks/{benchmark.name}"
    tasks = _tasks(configs(benchmark))
    if not tasks:
        return [f"{where}/yaml: no task with a process_docs hook"]
    offline = {
        "LMMS_COMPARATIVE_LLM_BASE_URL": "http://127.0.0.1:9/v1",
        "LMMS_COMPARATIVE_LLM_MAX_RETRIES": "0",
        "LMMS_COMPARATIVE_LLM_CACHE": "off",
    }
    out = []
    variable = benchmark.root_variable
    if variable:
        first = next(iter(tasks.values()))
        for setting, value in (("unset", None), ("missing", str(Path(root or ".") / "no such folder"))):
            with _environment(**{variable: value}, **offline):
                try:
                    first["process_docs"].resolve()(None)
                    out.append(
                        f"{where}: with {variable} {setting}, {first['task']}'s process_docs loaded docs instead of stopping the run"
                    )
                except SystemExit as exc:
                    if variable not in str(exc.code):
                        out.append(
                            f"{where}: with {variable} {setting}, the run stops without naming {variable}: {exc.code}"
                        )
                except Exception as exc:  # noqa: BLE001 - the contract names what happened instead
                    out.append(
                        f"{where}: with {variable} {setting}, process_docs raised {type(exc).__name__} instead of stopping the run (failures.DataError through tasklib.docs_hook): {exc}"
                    )
    # Before any load of the intact fixture: a loader may keep what it read for the process.
    fixture = benchmark.fixture_part()
    records = fixture.smoke_records if fixture else None
    if variable and root and records and benchmark.smoke_task in tasks:
        out += _damaged_records_problems(
            where, tasks[benchmark.smoke_task], Path(root), records, {variable: str(root), **offline}
        )
    key = benchmark.item_key
    with _environment(**({variable: str(root)} if variable else {}), **offline):
        for name, config in tasks.items():
            try:
                docs = rows_of(config["process_docs"].resolve()(None))
                process_results = config["process_results"].resolve()
            except BaseException as exc:  # noqa: BLE001 - SystemExit included: the fixture must load
                out.append(
                    f"{where}/yaml/{config['_file']}: {name} does not load its docs from the fixture: {type(exc).__name__}: {exc}"
                )
                continue
            if variable and (provenance.source(variable) or {}).get("source") != "local":
                # verify compares the record's data source with the data at hand; a loader that notes none records "source": null.
                out.append(
                    f"{where}: {name}'s process_docs read the fixture in {variable} without noting it as the data source (provenance.note_local; data.roots.local_root does it)"
                )
            if variable:
                provenance.reset()  # each task's loader must note its source again
            out += _doc_hook_problems(where, name, config, docs[:HOOK_DOCS], key)
            results = [process_results(doc, [FAILED_REPLY]) for doc in docs]
            lost = [i for i, (doc, result) in enumerate(zip(docs, results)) if not _carries_key(result, doc, key)]
            if lost:
                out.append(
                    f"{where}/hooks.py: {name}'s per-item results do not carry the item key {', '.join(key.columns)} ({len(lost)} of {len(docs)} items; the record's item_key; tasklib.item_results adds it)"
                )
            # Scoring passes are memoised on their items (tasklib.once_per_run): tag them with the
            # task, so that a task whose items equal an earlier task's is checked on its own.
            results = [
                {m: {**v, "_contract_task": name} if isinstance(v, dict) else v for m, v in r.items()} for r in results
            ]
            with failures.collecting_flags() as flagged:
                for metric in config.get("metric_list") or []:
                    aggregation = metric.get("aggregation")
                    if isinstance(aggregation, FunctionRef):
                        try:
                            aggregation.resolve()([r[metric["metric"]] for r in results if metric["metric"] in r])
                        except Exception:  # noqa: BLE001 - only whether the run was flagged matters here
                            pass
            if not flagged:
                out.append(
                    f"{where}/hooks.py: {name}: every model request failed and the run was not flagged (the failure policy: an aggregation calls tasklib.check_model_failures, as tasklib.accuracy_aggregation does)"
                )
    return out


# What a release's records file can hold instead of records (tests/failures/test_failures.py runs
# the same cases through the CLI): each must stop the run with one line that names the file.
DAMAGED = {"empty": b"", "malformed": b"\x00\x01 this is not what the release holds {\n"}


def _damaged_records_problems(where: str, config: dict, root: Path, records: str, environment: dict) -> list[str]:
    """The smoke task's ``process_docs`` on the fixture with its records file (the fixture part's ``smoke_records``)
    emptied, then garbled: each must stop the run naming the file (``data.jsonl.json_lines`` and an
    empty check give that); the file is restored after."""
    path = root / records
    if not path.is_file():
        return [f"{where}/fixture.py: smoke_records names {path.name}, which the fixture does not write"]
    out, original = [], path.read_bytes()
    try:
        for case, content in DAMAGED.items():
            untrusted.write_file(path, content)
            with _environment(**environment):
                try:
                    config["process_docs"].resolve()(None)
                    out.append(
                        f"{where}: with {path.name} {case}, {config['task']}'s process_docs loaded docs instead of stopping the run"
                    )
                except SystemExit as exc:
                    if path.name not in str(exc.code):
                        out.append(
                            f"{where}: with {path.name} {case}, the run stops without naming the file: {exc.code}"
                        )
                except Exception as exc:  # noqa: BLE001 - the contract names what happened instead
                    out.append(
                        f"{where}: with {path.name} {case}, process_docs raised {type(exc).__name__} instead of stopping the run with one line naming the file (failures.DataError; data.jsonl.json_lines gives it): {exc}"
                    )
    finally:
        untrusted.write_file(path, original)
    return out


# The doc hooks lmms-eval calls on a task's docs, run on its first docs (what a model's request is
# built from): each must work on the fixture's real docs.
DOC_HOOKS = ("doc_to_visual", "doc_to_text", "doc_to_target", "doc_to_messages")
HOOK_DOCS = 2


def _hook_kwargs(config: dict) -> dict:
    """``lmms_eval_specific_kwargs`` as lmms-eval hands them to a model without its own entry: the
    ``default`` entry."""
    found = config.get("lmms_eval_specific_kwargs") or {}
    return dict(found.get("default") or {}) if isinstance(found, dict) else {}


def _doc_hook_problems(where: str, name: str, config: dict, docs: list[dict], key) -> list[str]:
    """Each doc hook the task's YAML names, called on its first docs as lmms-eval calls it (with the
    task's ``lmms_eval_specific_kwargs`` where it takes them); one line per hook that raises."""
    import inspect

    out = []
    multi_round = config.get("output_type") == "generate_until_multi_round"
    for hook in DOC_HOOKS:
        ref = config.get(hook)
        if not isinstance(ref, FunctionRef):
            continue
        function = ref.resolve()
        params = list(inspect.signature(function).parameters)
        for doc in docs:
            args = [doc] + ([_hook_kwargs(config)] if len(params) > 1 else [])
            extra = {"round_idx": 0} if multi_round and "round_idx" in params else {}
            try:
                function(*args, **extra)
            except Exception as exc:  # noqa: BLE001 - the contract names the hook and what it raised
                try:
                    item = key(doc)
                except (KeyError, TypeError, ValueError):
                    item = "?"
                out.append(
                    f"{where}/yaml/{config['_file']}: {name}'s {hook} ({ref.target}) raised {type(exc).__name__}: {exc} on item {item}"
                )
                break
    return out


def unregistered() -> list[str]:
    """The folders under ``benchmarks/`` that hold task YAMLs but have no registry line: lmms-eval
    would run their tasks with no provenance record, and nothing else would know them."""
    from lmms_comparative.registry import BY_NAME

    here = Path(__file__).resolve().parent
    return sorted(
        f"benchmarks/{d.name}: a folder with task YAMLs and no line in the registry (BENCHMARKS in lmms_comparative/registry.py); add its import and entry there"
        for d in here.iterdir()
        if d.is_dir() and (d / "yaml").is_dir() and d.name not in BY_NAME
    )


def _carries_key(result: dict, doc: dict, key) -> bool:
    """Whether one of the item's per-metric results gives the doc's own item key (how
    ``lmms-comparative score`` and ``verify`` find the item in a samples log)."""
    try:
        want = key(doc)
    except (KeyError, TypeError, ValueError):
        return False
    for value in result.values():
        if isinstance(value, dict) and value.get(key.columns[0]) is not None:
            try:
                if key(value) == want:
                    return True
            except (KeyError, TypeError, ValueError):
                continue
    return False


def check(benchmark) -> list[str]:
    """Both checks: the folder, then its hooks run on a freshly built fixture (bundled data: none)."""
    import tempfile

    found = problems(benchmark)
    if found:  # the hooks cannot be run on a folder that fails the reading
        return found
    with tempfile.TemporaryDirectory(prefix=f"{benchmark.name}_fixture_") as scratch:
        root = benchmark.build_fixture(Path(scratch) / benchmark.name) if benchmark.root_variable else None
        return run_problems(benchmark, root)


def main(argv: list[str] | None = None) -> int:
    """``python -m lmms_comparative.benchmarks.contract [NAME ...]``: check the named benchmarks
    (default: every registered one); exit status 1 when one fails."""
    import argparse

    from lmms_comparative.registry import BENCHMARKS, BY_NAME

    parser = argparse.ArgumentParser(
        prog="python -m lmms_comparative.benchmarks.contract",
        description="Check that benchmark folders hold the contract (docs/adding-a-benchmark.md).",
    )
    parser.add_argument("names", nargs="*", help=f"benchmarks to check (default: all of {', '.join(BY_NAME)})")
    args = parser.parse_args(argv)
    from loguru import logger

    logger.disable("lmms_comparative")  # the checks provoke the errors the hooks log: the verdicts say it
    unknown = [n for n in args.names if n not in BY_NAME]
    if unknown:
        parser.error(f"not registered in lmms_comparative/registry.py (BENCHMARKS): {', '.join(unknown)}")
    failed = 0
    for line in unregistered():  # whichever benchmarks are named: the package has a stray folder
        failed += 1
        print(line, flush=True)
    for benchmark in [BY_NAME[n] for n in args.names] or list(BENCHMARKS):
        found = check(benchmark)
        failed += bool(found)
        print(f"{benchmark.name}: " + ("the contract holds" if not found else f"{len(found)} problem(s)"), flush=True)
        for line in found:
            print(f"  {line}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
