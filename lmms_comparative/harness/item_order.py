"""Patch: ``lmms_eval.evaluator_utils.TaskOutput.calculate_aggregate_metric`` (and its CLT twin), so
that our aggregations see a task's items in one order whatever the number of processes.

lmms-eval gathers the per-item results rank by rank (``evaluator.py``: ``gather_object``, then
``itertools.chain``): with one process they arrive in doc order, with two as rank 0's docs then
rank 1's. A float sum, a bootstrap's resampling or any fold over items then depends on that order,
and a results file written by ``torchrun --nproc_per_node 2`` differs from its own one-process
re-score in the last bits (``verify`` compares exactly, so an honest run failed it). Before
aggregating one of our tasks, each metric's items are sorted by the benchmark's item key
(``Benchmark.key_columns``: the key ``score`` and ``verify`` match items by), ties and items
without a key by their canonical JSON: every aggregation then folds over the same sequence, one
process or many.
"""

from __future__ import annotations

import json

from lmms_comparative.harness.patch import wrap_method

_MARK = "_lmms_comparative_item_order"


def _named(item, columns: tuple[str, ...]) -> tuple:
    """An item's place by its key columns (items that are not dicts after every dict)."""
    return (0, tuple(str(item.get(c, "")) for c in columns)) if isinstance(item, dict) else (1, ())


def _canonical(item) -> str:
    return json.dumps(item, sort_keys=True, default=str)


def ordered(items: list, columns: tuple[str, ...]) -> list:
    """``items`` sorted by the item key ``columns``, then by their canonical JSON: the same list
    whatever order they were gathered in. The JSON is made only where two items share a key (it
    costs more than the sort itself on a large task)."""
    named = [_named(item, columns) for item in items]
    if len(set(named)) == len(named):
        return [item for _, item in sorted(zip(named, items), key=lambda pair: pair[0])]
    return [
        item
        for _, _, item in sorted(
            ((n, _canonical(item), item) for n, item in zip(named, items)), key=lambda triple: triple[:2]
        )
    ]


def _columns_of(task) -> tuple[str, ...] | None:
    """The item key columns of one of our tasks (``registry.of_loaded_task``: an installed task by
    its exact name, or a variant whose docs hook is ours), None for anyone else's task."""
    from lmms_comparative.registry import of_loaded_task

    config = getattr(task, "config", None)
    found = of_loaded_task(getattr(config, "task", None), config)
    return found.key_columns() if found is not None else None


def sort_items(task_output) -> None:
    """Sort each metric's gathered items of ``task_output`` in place, where the task is ours."""
    columns = _columns_of(getattr(task_output, "task", None))
    if columns is None:
        return
    for metric, items in list(task_output.sample_metrics.items()):
        task_output.sample_metrics[metric] = ordered(items, columns)


def check() -> str | None:
    """None if ``TaskOutput`` has both aggregation methods and its items live in ``sample_metrics``."""
    from lmms_eval.evaluator_utils import TaskOutput

    for name in ("calculate_aggregate_metric", "calculate_clt_aggregate_metric"):
        if not callable(getattr(TaskOutput, name, None)):
            return f"TaskOutput has no {name}"
    import inspect

    source = inspect.getsource(
        getattr(TaskOutput.calculate_aggregate_metric, "__wrapped__", TaskOutput.calculate_aggregate_metric)
    )
    return (
        None
        if "self.sample_metrics" in source
        else "TaskOutput.calculate_aggregate_metric does not read self.sample_metrics"
    )


def install() -> bool:
    """Wrap both of ``TaskOutput``'s aggregation methods (the evaluator calls them on rank 0)."""
    try:
        from lmms_eval.evaluator_utils import TaskOutput
    except Exception:
        return False

    def make(original):
        def aggregate(self, *args, **kwargs):
            sort_items(self)
            return original(self, *args, **kwargs)

        return aggregate

    done = [
        wrap_method("item_order", TaskOutput, name, _MARK, check, make)
        for name in ("calculate_aggregate_metric", "calculate_clt_aggregate_metric")
    ]
    return all(done)
