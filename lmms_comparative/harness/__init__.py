"""Every adaptation of lmms-eval, in one place.

lmms-eval gives plugins one entry point, the ``lmms_eval.models`` group; ``register`` below is
ours. It returns our baseline models and arranges the patches listed below. lmms-eval loads it in
every process that imports ``lmms_eval.models``, so it imports nothing heavy: each patch installs
when the lmms-eval module it patches is first imported (``on_import``, module names in
``PATCHED_MODULES``), and every patch is put in place when a run starts (the TaskManager). Each
was checked against lmms-eval 0.7.3 (``CHECKED_AGAINST``); each has a ``check()`` that looks at the
installed lmms-eval for what the patch relies on, and a contract test in ``tests/harness/`` that runs it,
so that a new lmms-eval breaks one named test rather than an end-to-end run. Where a check fails at
install, one warning line names the patch, why, and what will not work (``unpatched``).

The patches, by module: what each patches, what its check looks for, and what happens if the check fails.

task_path       ``TaskManager.initialize_tasks``: our YAML folder joins ``include_path``; records the run's
                ``--model`` (``run_model()``) and ``--tasks``; ``load_task_or_group`` records the task objects
                loaded; ``utils.load_yaml_config`` reads our YAMLs with libyaml's parser.
                Check: ``initialize_tasks`` takes ``include_path``; ``load_task_or_group`` exists (reader:
                ``load_yaml_config(yaml_path, yaml_config, yaml_dir, mode)``, its two ``!function`` constructors).
                If it fails: not installed; a warning says to pass ``--include_path $(lmms-comparative
                include-path)`` (reader: lmms-eval's own reads our YAMLs, about 1.7 s more per run).
fewshot         ``ConfigurableTask.set_config``: ``--num_fewshot`` on our tasks stops with ``ProtocolError``.
                Check: ``set_config(self, key, value, update)``.
                If it fails: not installed; ``--num_fewshot`` reaches lmms-eval, which fails on our tasks.
exit_status     ``sys.exit`` of an lmms-eval CLI process, an atexit fallback (console script), a loguru sink on
                "Error during evaluation".
                Check: ``lmms_eval/__main__.py`` logs "Error during evaluation: ...".
                If it fails: the sink hears nothing: a crash lmms-eval catches exits 0 again (our own flags still
                give status 1).
table           ``make_table``, ``consolidate_group_results`` (where bound): one-line dict cells, the run summary.
                Check: ``make_table(result_dict, column)``, ``consolidate_group_results(results, versions,
                task_dict, task_root)``.
                If it fails: the wrapper falls back to lmms-eval's own table; no closing summary.
side_logs       ``EvaluationTracker.save_results_samples``: writes a task's side logs (CaptionQA reader answers)
                beside its samples log.
                Check: ``save_results_samples(self, task_name, samples)`` writing
                ``<model_name_sanitized>/<date_id>_samples_...``.
                If it fails: the side logs are not written (the scores are unaffected).
provenance      ``EvaluationTracker.save_results_aggregated``: the ``lmms_comparative`` key (what produced the
                results) in a run with our tasks.
                Check: ``save_results_aggregated(self, results, samples, ...)``.
                If it fails: the results JSON has no ``lmms_comparative`` key (the scores are unaffected).
item_order      ``TaskOutput.calculate_aggregate_metric`` and ``calculate_clt_aggregate_metric``: our tasks' items
                sorted by item key first.
                Check: both methods exist and read ``self.sample_metrics``.
                If it fails: our aggregations see items in the order the ranks gathered them: a several-process
                run's floats can differ in the last bits.
response_cache  ``ResponseCache.finalize``: keeps the cache's counts (hits, misses, not cacheable) for the record's
                ``response_cache`` (--use_cache runs).
                Check: ``ResponseCache`` has ``finalize`` and ``get_stats``.
                If it fails: the record does not say how many replies lmms-eval's response cache (--use_cache)
                served.
capabilities    nothing patched; reads lmms-eval's model registry and a model module's source to tell video input
                and a missing decoder.
                Check: ``MODEL_REGISTRY_V2.get_model_class`` takes ``force_simple``.
                If it fails: the decoder and video checks cannot tell the class: they let the run go on.

Tasks that need the run's model ask ``tasklib.host.run_model()`` (and ``run_model_args()``).
"""

from __future__ import annotations

from lmms_comparative.harness.install import PATCHED_MODULES, PATCHES, checks, install_all, install_on_import
from lmms_comparative.harness.patch import CHECKED_AGAINST, WITHOUT, unpatched, wrap_method


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


__all__ = [
    "CHECKED_AGAINST",
    "PATCHED_MODULES",
    "PATCHES",
    "WITHOUT",
    "checks",
    "install_all",
    "install_on_import",
    "register",
    "unpatched",
    "wrap_method",
]
