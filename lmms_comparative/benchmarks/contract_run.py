"""The benchmark contract's run-time half (``run_problems``): a benchmark's hooks run on a data
root (its fixture) the way lmms-eval runs them, without lmms-eval: each task's ``process_docs``
(and its stop on a missing or damaged root), the doc hooks, ``process_results`` and the
aggregations, with the failure policy. The rules are listed in ``contract.py``."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from lmms_comparative import failures, provenance
from lmms_comparative.benchmarks.contract_yaml import FunctionRef, configs
from lmms_comparative.data import untrusted

# What lmms-eval's API models answer when a request exhausted its retries (metrics/aggregate.py).
FAILED_REPLY = "[LMMS_EVAL_REQUEST_FAILED after 0 retries] contract check"


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
                out += _stop_problems(
                    where,
                    first,
                    condition=f"{variable} {setting}",
                    needle=variable,
                    named=variable,
                    expected="(failures.DataError through tasklib.docs_hook)",
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
                    f"{where}/yaml/{config['_file']}: {name} does not load its docs from the fixture: "
                    f"{type(exc).__name__}: {exc}"
                )
                continue
            if variable and (provenance.source(variable) or {}).get("source") != "local":
                # verify compares the record's data source with the data at hand; a loader that notes none
                # records "source": null.
                out.append(
                    f"{where}: {name}'s process_docs read the fixture in {variable} without noting it as the data "
                    "source (provenance.note_local; data.roots.local_root does it)"
                )
            if variable:
                provenance.reset()  # each task's loader must note its source again
            out += _doc_hook_problems(where, name, config, docs[:HOOK_DOCS], key)
            results = [process_results(doc, [FAILED_REPLY]) for doc in docs]
            lost = [i for i, (doc, result) in enumerate(zip(docs, results)) if not _carries_key(result, doc, key)]
            if lost:
                out.append(
                    f"{where}/hooks.py: {name}'s per-item results do not carry the item key {', '.join(key.columns)} "
                    f"({len(lost)} of {len(docs)} items; the record's item_key; tasklib.item_results adds it)"
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
                    f"{where}/hooks.py: {name}: every model request failed and the run was not flagged (the failure "
                    "policy: an aggregation calls tasklib.check_model_failures, as tasklib.accuracy_aggregation does)"
                )
    return out


def _stop_problems(where: str, config: dict, *, condition: str, needle: str, named: str, expected: str) -> list[str]:
    """A task's ``process_docs`` run under ``condition`` (the environment the caller set) must stop
    the run with a message holding ``needle`` (``named`` in the problem): what it did instead, if
    anything. ``expected`` says how it should stop."""
    try:
        config["process_docs"].resolve()(None)
    except SystemExit as exc:
        if needle in str(exc.code):
            return []
        return [f"{where}: with {condition}, the run stops without naming {named}: {exc.code}"]
    except Exception as exc:  # noqa: BLE001 - the contract names what happened instead
        return [
            f"{where}: with {condition}, process_docs raised {type(exc).__name__} instead of stopping the run "
            f"{expected}: {exc}"
        ]
    return [f"{where}: with {condition}, {config['task']}'s process_docs loaded docs instead of stopping the run"]


# What a release's records file can hold instead of records (tests/failures/test_data_problems.py runs
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
                out += _stop_problems(
                    where,
                    config,
                    condition=f"{path.name} {case}",
                    needle=path.name,
                    named="the file",
                    expected="with one line naming the file (failures.DataError; data.jsonl.json_lines gives it)",
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
                    f"{where}/yaml/{config['_file']}: {name}'s {hook} ({ref.target}) raised {type(exc).__name__}: "
                    f"{exc} on item {item}"
                )
                break
    return out


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
