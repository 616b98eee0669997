"""Every adaptation of lmms-eval, in one place.

lmms-eval gives plugins one entry point, the ``lmms_eval.models`` group; ``register`` below is
ours. It returns our baseline models and installs the patches in this table. Each was checked
against lmms-eval 0.7.3 (``CHECKED_AGAINST``); each has a ``check()`` that looks at the installed
lmms-eval for what the patch relies on, and a contract test in ``tests/harness/`` that runs it, so
that a new lmms-eval breaks one named test rather than an end-to-end run.

=================  =============================================  ==============================================  ===========================================
patch (module)     what it patches                                its check                                       if the check fails
=================  =============================================  ==============================================  ===========================================
task_path          ``TaskManager.initialize_tasks``: our YAML     ``initialize_tasks`` takes ``include_path``     not installed; a warning says to pass
                   folder joins ``include_path``; records the                                                     ``--include_path $(lmms-comparative
                   run's ``--model`` (``run_model()``)                                                            include-path)``
fewshot            ``ConfigurableTask.set_config``:               ``set_config(self, key, value, update)``        not installed; ``--num_fewshot`` reaches
                   ``--num_fewshot`` on our tasks stops with                                                      lmms-eval, which fails on our tasks
                   ``ProtocolError``
exit_status        ``sys.exit`` of an lmms-eval CLI process, an   ``lmms_eval/__main__.py`` logs "Error during    the sink hears nothing: a crash lmms-eval
                   atexit fallback (console script), a loguru     evaluation: ..."                                catches exits 0 again (our own flags still
                   sink on "Error during evaluation"                                                              give status 1)
table              ``make_table``, ``consolidate_group_results``  ``make_table(result_dict, column)``,            the wrapper falls back to lmms-eval's own
                   (where bound): one-line dict cells, the run    ``consolidate_group_results(results, versions,  table; no closing summary
                   summary                                        task_dict, task_root)``
side_logs          ``EvaluationTracker.save_results_samples``:    ``save_results_samples(self, task_name,         the side logs are not written (the scores
                   writes a task's side logs (CaptionQA reader    samples)`` writing ``<model_name_sanitized>/     are unaffected)
                   answers) beside its samples log                <date_id>_samples_...``
capabilities       nothing patched; reads lmms-eval's model       ``MODEL_REGISTRY_V2.get_model_class`` takes     the decoder and video checks cannot tell
                   registry and a model module's source to tell   ``force_simple``                                the class: they let the run go on
                   video input and a missing decoder
=================  =============================================  ==============================================  ===========================================

Tasks that need the run's model ask ``run_model()`` (and ``run_model_args()``).
"""

from __future__ import annotations

import importlib

from lmms_comparative.harness.task_path import run_model, run_model_args

CHECKED_AGAINST = "0.7.3"
PATCHES = ("task_path", "fewshot", "exit_status", "table", "side_logs", "capabilities")


def checks() -> dict[str, str | None]:
    """Each patch's check against the installed lmms-eval: None where it holds, else the reason."""
    return {name: importlib.import_module(f"{__name__}.{name}").check() for name in PATCHES}


def install_all() -> None:
    """Install every patch (idempotent). Each installs itself only where its check holds."""
    from lmms_comparative.harness import exit_status, fewshot, side_logs, table, task_path

    task_path.install()
    table.install()
    side_logs.install()
    fewshot.install()
    exit_status.install_exit_status()


def model_manifests():
    from lmms_eval.models.registry_v2 import ModelManifest

    return [
        ModelManifest(model_id="random_choice", simple_class_path="lmms_comparative.models.random_choice.RandomChoice"),
        ModelManifest(model_id="pixel_diff", simple_class_path="lmms_comparative.models.pixel_diff.PixelDiff"),
        ModelManifest(model_id="replay", simple_class_path="lmms_comparative.models.replay.Replay"),
        ModelManifest(model_id="multiround", chat_class_path="lmms_comparative.models.multiround.MultiRound"),
    ]


def register():
    """The ``lmms_eval.models`` entry point: our model manifests, after installing the patches."""
    install_all()
    return model_manifests()


__all__ = ["CHECKED_AGAINST", "PATCHES", "checks", "install_all", "register", "run_model", "run_model_args"]
