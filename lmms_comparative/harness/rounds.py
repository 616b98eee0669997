"""Tasks asked in several rounds (lmms-eval's ``generate_until_multi_round``) need a model class
that runs rounds: their ``process_docs`` asks first, before any item is generated."""

from __future__ import annotations

import functools

from lmms_comparative.failures import RunStopped, stop_run
from lmms_comparative.harness.capabilities import require_multi_round
from lmms_comparative.harness.task_path import run_model


def multi_round_docs(process_docs, task: str):
    """A ``process_docs`` that first checks that the run's model can run rounds (``--model
    multiround`` can, with any inner model; lmms-eval's vLLM and SGLang chat classes can)."""

    @functools.wraps(process_docs)
    def wrapper(dataset):
        try:
            require_multi_round(run_model(), task)
        except RunStopped as exc:
            from loguru import logger

            logger.error(str(exc))
            stop_run(exc)
        return process_docs(dataset)

    wrapper.__name__ = f"{getattr(process_docs, '__name__', 'process_docs')}_multi_round"
    return wrapper
