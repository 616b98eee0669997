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
- ``task_families`` name tasks or groups of the folder, ``smoke_task`` one of its tasks; ``exports``
  name tables of ``paper.json``, which with tables needs the report part's ``measure``; each
  ``scoring_calls`` entry names its setting;
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

import re
from pathlib import Path

from lmms_comparative.benchmarks.contract_parts import part_problems
from lmms_comparative.benchmarks.contract_run import run_problems
from lmms_comparative.benchmarks.contract_yaml import _refs, configs

_NAME = re.compile(r"^[a-z][a-z0-9]*$")
_VARIABLE = re.compile(r"^[A-Z][A-Z0-9_]*$")


def problems(benchmark) -> list[str]:
    """What the benchmark's folder lacks or gets wrong, one line each (none: it holds)."""
    from lmms_comparative.registry import BENCHMARKS

    out = []
    where = f"benchmarks/{benchmark.name}"
    if not _NAME.match(benchmark.name):
        out.append(
            f"{where}: the name {benchmark.name!r} must be lowercase letters and digits (it is the tasks' prefix, "
            "before '_')"
        )
    for other in BENCHMARKS:
        if other.name != benchmark.name and (
            other.name.startswith(benchmark.name + "_") or benchmark.name.startswith(other.name + "_")
        ):
            out.append(f"{where}: its prefix overlaps {other.name}'s")
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
                    f"{where}/yaml/{config['_file']}: !function {ref.target} does not import ({type(exc).__name__}: "
                    f"{exc})"
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
                f"{where}/__init__.py: a ScoringCall must be of kind llm or sbert with a variable name as its "
                f"setting, not {call.kind!r}, {call.setting!r}"
            )
    return out


def unregistered() -> list[str]:
    """The folders under ``benchmarks/`` that hold task YAMLs but have no registry line: lmms-eval
    would run their tasks with no provenance record, and nothing else would know them."""
    from lmms_comparative.registry import BY_NAME

    here = Path(__file__).resolve().parent
    return sorted(
        f"benchmarks/{d.name}: a folder with task YAMLs and no line in the registry (BENCHMARKS in "
        "lmms_comparative/registry.py); add its import and entry there"
        for d in here.iterdir()
        if d.is_dir() and (d / "yaml").is_dir() and d.name not in BY_NAME
    )


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
