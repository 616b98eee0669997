"""Every adaptation of lmms-eval, in one place.

lmms-eval gives plugins one entry point, the ``lmms_eval.models`` group; ``register`` below is
ours. It returns our baseline models and arranges the patches in this table. lmms-eval loads it in
every process that imports ``lmms_eval.models``, so it imports nothing heavy: each patch installs
when the lmms-eval module it patches is first imported (``on_import``, module names in
``PATCHED_MODULES``), and every patch is put in place when a run starts (the TaskManager). Each
was checked against lmms-eval 0.7.3 (``CHECKED_AGAINST``); each has a ``check()`` that looks at the installed
lmms-eval for what the patch relies on, and a contract test in ``tests/harness/`` that runs it, so
that a new lmms-eval breaks one named test rather than an end-to-end run. Where a check fails at
install, one warning line names the patch, why, and what will not work (``unpatched``).

=================  =============================================  ==============================================  ===========================================
patch (module)     what it patches                                its check                                       if the check fails
=================  =============================================  ==============================================  ===========================================
task_path          ``TaskManager.initialize_tasks``: our YAML     ``initialize_tasks`` takes ``include_path``;    not installed; a warning says to pass
                   folder joins ``include_path``; records the     ``load_task_or_group`` exists                   ``--include_path $(lmms-comparative
                   run's ``--model`` (``run_model()``) and                                                        include-path)``
                   ``--tasks``; ``load_task_or_group`` records    (reader: ``load_yaml_config(yaml_path,          (reader: lmms-eval's own reads our YAMLs,
                   the task objects loaded; ``utils.              yaml_config, yaml_dir, mode)``, its two         about 1.7 s more per run)
                   load_yaml_config`` reads our YAMLs with        ``!function`` constructors)
                   libyaml's parser
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
provenance         ``EvaluationTracker.save_results_aggregated``: ``save_results_aggregated(self, results,        the results JSON has no ``lmms_comparative``
                   the ``lmms_comparative`` key (what produced    samples, ...)``                                 key (the scores are unaffected)
                   the results) in a run with our tasks
item_order         ``TaskOutput.calculate_aggregate_metric`` and   both methods exist and read                     our aggregations see items in the order the
                   ``calculate_clt_aggregate_metric``: our        ``self.sample_metrics``                         ranks gathered them: a several-process run's
                   tasks' items sorted by item key first                                                          floats can differ in the last bits
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
PATCHES = ("task_path", "fewshot", "exit_status", "table", "side_logs", "provenance", "item_order", "capabilities")
# The lmms-eval module whose first import installs each patch (exit_status and capabilities need
# none: the first wraps sys.exit at once, the second patches nothing).
PATCHED_MODULES = {
    "task_path": ("lmms_eval.tasks",),
    "fewshot": ("lmms_eval.api.task",),
    "table": ("lmms_eval.utils", "lmms_eval.evaluator_utils"),
    "side_logs": ("lmms_eval.loggers.evaluation_tracker",),
    "provenance": ("lmms_eval.loggers.evaluation_tracker",),
    "item_order": ("lmms_eval.evaluator_utils",),
}


def checks() -> dict[str, str | None]:
    """Each patch's check against the installed lmms-eval: None where it holds, else the reason."""
    return {name: importlib.import_module(f"{__name__}.{name}").check() for name in PATCHES}


# What will not work when a patch's check fails (the table's last column), for the warning.
WITHOUT = {
    "task_path": 'our tasks are not registered automatically: pass --include_path "$(lmms-comparative include-path)"',
    "fewshot": "--num_fewshot on our tasks reaches lmms-eval, which fails on them instead of stopping with the protocol's reason",
    "exit_status": "a run that lmms-eval's CLI catches failing exits 0 again (our own flags still give status 1)",
    "table": "lmms-eval's own table is printed, without the closing summary",
    "side_logs": "CaptionQA's reader answers are not written beside the samples log (the scores are unaffected)",
    "provenance": "the results JSON does not say what produced it (no lmms_comparative key); the scores are unaffected",
    "item_order": "our aggregations see items in the order the ranks gathered them: a run on several processes can differ from a one-process run (and fail verify) in the last bits",
    "capabilities": "the video-input and decoder checks cannot tell the model class: the run goes on",
}
_warned: set[str] = set()


def unpatched(name: str, problem: str) -> None:
    """One warning line, once per process: patch ``name`` is not installed because ``problem``."""
    if name in _warned:
        return
    _warned.add(name)
    from loguru import logger

    logger.warning(f"lmms-comparative: the {name} patch is not installed ({problem}; checked against lmms-eval {CHECKED_AGAINST}): {WITHOUT[name]}.")


def wrap_method(patch: str, owner: type, attr: str, mark: str, check, make) -> bool:
    """Replace ``owner.attr`` by ``make(original)`` once (idempotent: the wrapper carries ``mark``),
    where the patch's ``check()`` holds; else warn (``unpatched``) and leave it. Returns whether
    the wrapper is in place."""
    if getattr(getattr(owner, attr), mark, False):
        return True
    problem = check()
    if problem:
        unpatched(patch, problem)
        return False
    original = getattr(owner, attr)
    wrapper = make(original)
    wrapper.__wrapped__ = original
    setattr(wrapper, mark, True)
    setattr(owner, attr, wrapper)
    return True


def _installer(name: str):
    module = importlib.import_module(f"{__name__}.{name}")
    if name == "table":
        return lambda: module.install(load=False)  # only the halves whose module is imported
    return module.install


def install_all() -> None:
    """Install every patch now (idempotent), importing the lmms-eval modules they patch. Each
    installs itself only where its check holds."""
    from lmms_comparative.harness import exit_status

    for name in PATCHED_MODULES:
        importlib.import_module(f"{__name__}.{name}").install()
    exit_status.install_exit_status()


def install_on_import() -> None:
    """What the entry point does: wrap ``sys.exit`` (an lmms-eval CLI process only), and install
    each other patch when its lmms-eval module is first imported (at once where it already is)."""
    from lmms_comparative.harness import exit_status, on_import

    exit_status.install_exit_status()
    for name, modules in PATCHED_MODULES.items():
        for module in modules:
            on_import.when_imported(module, name, _installer(name))


def model_manifests():
    """lmms-eval's model manifests of this package's models, which the ``lmms_eval.models`` entry point registers."""
    from lmms_eval.models.registry_v2 import ModelManifest

    return [
        ModelManifest(model_id="random_choice", simple_class_path="lmms_comparative.models.random_choice.RandomChoice"),
        ModelManifest(model_id="pixel_diff", simple_class_path="lmms_comparative.models.pixel_diff.PixelDiff"),
        ModelManifest(model_id="replay", simple_class_path="lmms_comparative.models.replay.Replay"),
        ModelManifest(model_id="multiround", chat_class_path="lmms_comparative.models.multiround.MultiRound"),
    ]


def register():
    """The ``lmms_eval.models`` entry point: our model manifests, the patches arranged to install
    on import (nothing heavy is imported here)."""
    install_on_import()
    return model_manifests()


__all__ = ["CHECKED_AGAINST", "PATCHED_MODULES", "PATCHES", "WITHOUT", "checks", "install_all", "install_on_import", "register", "run_model", "run_model_args", "unpatched"]
