"""Patch: ``lmms_eval.loggers.evaluation_tracker.EvaluationTracker.save_results_aggregated``, so that
the results JSON of a run that includes our tasks says what produced it, under the top-level key
``lmms_comparative`` (what it holds: the ``lmms_comparative.provenance`` package).

The tracker writes the results on the rank that aggregated them, after every task was scored: the
task objects lmms-eval loaded (recorded by the ``task_path`` patch), the data sources the loaders
noted and the judges' settings are all known by then. A run of upstream tasks only gets no key:
its results file stays as lmms-eval writes it.
"""

from __future__ import annotations

import hashlib
import inspect
import math
import os
from functools import cache
from pathlib import Path

from lmms_comparative import provenance
from lmms_comparative.data import untrusted
from lmms_comparative.data.replies import read_replay
from lmms_comparative.harness import response_cache
from lmms_comparative.harness.patch import wrap_method
from lmms_comparative.harness.task_path import loaded_tasks, predict_only, task_index
from lmms_comparative.provenance import KEY
from lmms_comparative.switches import cli_value
from lmms_comparative.tasklib.host import run_model, run_model_args

_MARK = "_lmms_comparative_provenance"
# lmms-eval's ``--timezone`` default, the zone its results' ``date`` is written in
# (``lmms_eval/__main__.py`` and ``utils.get_datetime_str``, 0.7.3): a test holds lmms-eval to it.
DEFAULT_DATE_TIMEZONE = "Asia/Singapore"


def _selected(docs: list, limit, offset: int) -> list:
    """The docs lmms-eval scores under ``--limit`` / ``--offset`` (``evaluator_utils.get_sample_size``
    and ``Task.doc_iterator``: the first ``limit`` docs after ``offset``, a fraction below 1)."""
    if limit is None or limit == -1:
        return docs[offset:]
    count = int(math.ceil(len(docs) * limit)) if 0 < limit < 1 else int(limit)
    return docs[offset : offset + count]


def _task_record(name: str, task, benchmark, index: dict, config: dict) -> dict:
    from lmms_comparative.tasklib.docs import column_of

    record = {"benchmark": benchmark.name, "data": provenance.data_of(benchmark.root_variable)}
    try:
        key = benchmark.item_key
        columns = [column_of(task.eval_docs, name, required=True) for name in key.columns]  # the key's columns only
        rows = [dict(zip(key.columns, values)) for values in zip(*columns)]
        chosen = [key(row) for row in _selected(rows, config.get("limit"), int(config.get("offset") or 0))]
        record["items"] = provenance.item_set(chosen)
        # The keys in doc order: a predict-only run's samples carry only doc ids, and ``score``
        # matches them to items through the docs at hand, which must come in this order.
        record["items"]["order_sha256"] = hashlib.sha256("\n".join(chosen).encode("utf-8")).hexdigest()
        # The items the task's loader skipped (an unusable image): which, and why, so that
        # ``lmms-comparative score`` of the samples keeps them skipped.
        skipped = getattr(getattr(task.config, "process_docs", None), "skipped_items", None)
        if skipped:
            record["skipped"] = dict(sorted(skipped.items()))
    except Exception as exc:  # noqa: BLE001 - a record without items says why, the results are still written
        record["items"] = {"count": None, "sha256": None, "error": f"{type(exc).__name__}: {exc}"}
    yaml_path = (index.get(name) or {}).get("yaml_path")
    record["prompts"] = provenance.prompts_sha256(benchmark.package, yaml_path if isinstance(yaml_path, str) else None)
    if not benchmark.owns_task(name):  # a team's own task built on one of ours: which one
        base = variant_base(yaml_path if isinstance(yaml_path, str) else None, benchmark)
        if base:
            record["variant_of"] = base
    return record


@cache
def _any_tag_loader():
    """A YAML loader that reads lmms-eval's ``!function`` (any tag) as None; built on first use,
    so that the entry point, which imports this module, does not import yaml."""
    import yaml

    class AnyTagLoader(yaml.SafeLoader):
        pass

    AnyTagLoader.add_multi_constructor("!", lambda loader, suffix, node: None)
    return AnyTagLoader


def variant_base(yaml_path: str | None, benchmark, depth: int = 8) -> str | None:
    """The task of ``benchmark`` that a team's task YAML includes (its ``include:`` chain, resolved
    as lmms-eval resolves it: a path, else beside the including file), or None: a team's variant
    (``task: team_sp_greedy`` with ``include: .../subtlebench_sp.yaml``) is verified and labelled
    as a variant of that task."""
    import yaml

    path = yaml_path
    for _ in range(depth):
        if not path or not os.path.isfile(path):
            return None
        try:
            with open(path, encoding="utf-8") as handle:
                config = yaml.load(handle, Loader=_any_tag_loader())  # noqa: S506 - a SafeLoader subclass
        except (OSError, yaml.YAMLError):
            return None
        if not isinstance(config, dict):
            return None
        task = config.get("task")
        if path != yaml_path and isinstance(task, str) and benchmark.owns_task(task):
            return task
        include = config.get("include")
        if not isinstance(include, str):
            return None
        path = include if os.path.isfile(include) else os.path.join(os.path.dirname(path), include)
    return None


def build(results: dict) -> dict | None:
    """The ``lmms_comparative`` record for ``results`` (lmms-eval's results dict), or None when the
    run scored none of our tasks."""
    from lmms_comparative.registry import of_loaded_task, setting_prefixes

    ours = {}
    for name, task in sorted(loaded_tasks().items()):
        if name not in results.get("results", {}):
            continue
        benchmark = of_loaded_task(name, getattr(task, "config", None))
        if benchmark is not None:
            ours[name] = (task, benchmark)
    if not ours:
        return None
    config = results.get("config") or {}
    seeds = {k: config.get(k) for k in ("random_seed", "numpy_seed", "torch_seed", "fewshot_seed") if k in config}
    seeds.update({k: config[k] for k in ("limit", "offset") if config.get(k) not in (None, 0)})
    index = task_index()

    record = {
        "schema": provenance.SCHEMA,
        # The zone of lmms-eval's ``date`` (its ``--timezone``; lmms-eval's default where not given).
        "date_timezone": cli_value("--timezone") or DEFAULT_DATE_TIMEZONE,
        **provenance.environment(),
        "settings": provenance.settings(setting_prefixes()),
        "seeds": seeds,
        "llm": provenance.llm_settings(),
    }
    if config.get("use_cache"):
        # --use_cache: how many requests lmms-eval's response cache served rather than the model
        # (it serves only deterministic ones: harness/response_cache.py). A claim of the run's.
        record["response_cache"] = response_cache.counts()
    if predict_only():
        record["predict_only"] = True  # replies only: ``lmms-comparative score`` scores them
    predictions = _predictions()
    if predictions is not None:
        record["predictions"] = predictions
    record["tasks"] = {
        name: _task_record(name, task, benchmark, index, config) for name, (task, benchmark) in ours.items()
    }
    return record


def _predictions() -> dict | None:
    """For a ``lmms-comparative score`` run (the ``replay`` model): the prediction files it read."""
    if run_model() != "replay":
        return None

    path = run_model_args().get("predictions")
    if not path:
        return None
    replay = read_replay(path)
    found = {
        "benchmark": replay.get("benchmark"),
        "files": replay.get("files", []),
        "replay_sha256": provenance.file_sha256(path),
    }
    if replay.get("generation"):  # a --predict_only run scored here: what generated the replies
        found["generation"] = replay["generation"]
        found["generated_by"] = replay.get("generated_by") or {}
    return found


def _answers_log(record: dict, date_id: str) -> tuple[str, str] | None:
    """The run's LLM answers as the file written beside the results (``<date_id>_llm_answers.jsonl``),
    its count and sha256 in the record; None when no judge or reader answered."""
    import hashlib
    import json

    rows = provenance.logged_answers()
    if not rows:
        return None
    name = f"{date_id}_llm_answers.jsonl"
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    record["llm_answers"] = {"count": len(rows), "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()}
    return name, text


def check() -> str | None:
    """None if the tracker has ``save_results_aggregated(self, results, samples, ...)``, else why not."""
    from lmms_eval.loggers.evaluation_tracker import EvaluationTracker

    original = getattr(
        EvaluationTracker.save_results_aggregated, "__wrapped__", EvaluationTracker.save_results_aggregated
    )
    params = list(inspect.signature(original).parameters)
    return (
        None
        if params[:3] == ["self", "results", "samples"]
        else f"EvaluationTracker.save_results_aggregated takes {params}, not (self, results, samples, ...)"
    )


def install() -> bool:
    """Wrap ``EvaluationTracker.save_results_aggregated`` to add the ``lmms_comparative`` key to the results and write
    the LLM answers log beside them (idempotent). Returns whether the wrapper is in place (False where lmms-eval cannot
    be imported or the check fails)."""
    try:
        from lmms_eval.loggers.evaluation_tracker import EvaluationTracker
    except Exception:
        return False

    def make(original):
        def save_results_aggregated(self, results, samples, *args, **kwargs):
            answers = None
            try:
                record = build(results)
                if record is not None:
                    datetime_str = args[0] if args else kwargs.get("datetime_str", "")
                    answers = _answers_log(record, str(datetime_str).replace(":", "-"))
            except Exception as exc:  # noqa: BLE001 - never lose the results over their provenance
                from loguru import logger

                logger.warning(
                    f"lmms-comparative: the results file's provenance could not be built ({type(exc).__name__}: {exc})."
                )
                record = {"error": f"{type(exc).__name__}: {exc}"}
            if record is not None:
                results[KEY] = record
            try:
                outcome = original(self, results, samples, *args, **kwargs)
                if answers is not None and self.output_path:
                    name, text = answers
                    folder = untrusted.make_folder(
                        Path(self.output_path) / self.general_config_tracker.model_name_sanitized
                    )
                    untrusted.write_file(folder / name, text)
            finally:
                provenance.end_of_run()  # a --config file's next entry starts with none of this run's judges
            return outcome

        return save_results_aggregated

    return wrap_method("provenance", EvaluationTracker, "save_results_aggregated", _MARK, check, make)
