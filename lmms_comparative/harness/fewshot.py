"""Patch: ``lmms_eval.api.task.ConfigurableTask.set_config``, so that ``--num_fewshot`` on one of
our tasks stops with a message instead of breaking the protocol.

Every benchmark of ours is evaluated zero-shot in its paper and official scripts. ViDi alone
defines a few-shot setting (paper appendix E), which needs its own prompt built from the other
differences of the same pair: the task ``vidi_fewshot`` (a benchmark record's ``fewshot_variant``).
lmms-eval's generic ``--num_fewshot`` would instead prepend other docs (and crash on our tasks,
which have no few-shot sampler: ``'ConfigurableMessagesTask' object has no attribute 'sampler'``).
So setting ``num_fewshot > 0`` on one of our tasks stops the run before any request, with one
line (``failures.stop_run``: a ``SystemExit``; a ``ProtocolError`` raised here would reach lmms-eval's
CLI, which catches every ``Exception`` of an evaluation and prints its traceback, then the message
with a second full stop).
"""

from __future__ import annotations

import inspect

from lmms_comparative.failures import ProtocolError, stop_run
from lmms_comparative.harness.patch import wrap_method

_MARK = "_lmms_comparative_fewshot"


def benchmark_of(task: object, config: object = None) -> str | None:
    """Our benchmark's name for one of our tasks (``registry.of_loaded_task``: an installed task by
    its exact name, or a variant whose docs hook is ours), else None."""
    from lmms_comparative.registry import of_loaded_task

    found = of_loaded_task(task, config)
    return found.name if found else None


def fewshot_message(task: str, benchmark: str, num_fewshot: int) -> str | None:
    """The message that stops ``--num_fewshot`` on one of our tasks, or None when it may go on."""
    if not num_fewshot:
        return None
    from lmms_comparative.registry import BY_NAME

    record = BY_NAME[benchmark]
    name, variant = record.title, record.fewshot_variant
    if task == variant:
        return (
            f"{task} builds {name}'s few-shot prompt itself (paper appendix E); run it without --num_fewshot (got "
            f"{num_fewshot})."
        )
    tail = (
        f"Its few-shot variant is the task {variant}: run --tasks {variant} without --num_fewshot."
        if variant
        else "It defines no few-shot variant: run without --num_fewshot."
    )
    return f"{task}: {name}'s protocol is zero-shot, so --num_fewshot {num_fewshot} is not supported. {tail}"


def check() -> str | None:
    """None if ``ConfigurableTask.set_config`` takes ``(self, key, value, update)``, else why not."""
    from lmms_eval.api.task import ConfigurableTask

    original = getattr(ConfigurableTask.set_config, "__wrapped__", ConfigurableTask.set_config)
    params = list(inspect.signature(original).parameters)
    return (
        None
        if params[:4] == ["self", "key", "value", "update"]
        else f"ConfigurableTask.set_config takes {params}, not (self, key, value, update)"
    )


def install() -> bool:
    """Wrap ``ConfigurableTask.set_config`` (what the evaluator calls for ``--num_fewshot``)."""
    try:
        from lmms_eval.api.task import ConfigurableTask
    except Exception:
        return False

    def make(original):
        def set_config(self, key, value, update=False):
            if key == "num_fewshot" and isinstance(value, int) and value > 0:
                benchmark = benchmark_of(getattr(self.config, "task", None), self.config)
                message = fewshot_message(self.config.task, benchmark, value) if benchmark else None
                if message:
                    stop_run(ProtocolError(message))
            return original(self, key, value, update)

        return set_config

    return wrap_method("fewshot", ConfigurableTask, "set_config", _MARK, check, make)
