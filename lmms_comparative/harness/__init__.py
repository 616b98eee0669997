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
response_cache     ``ResponseCache.finalize``: keeps the cache's  ``ResponseCache`` has ``finalize`` and          the record does not say how many replies
                   counts (hits, misses, not cacheable) for the   ``get_stats``                                   lmms-eval's response cache (--use_cache)
                   record's ``response_cache`` (--use_cache runs)                                                  served
capabilities       nothing patched; reads lmms-eval's model       ``MODEL_REGISTRY_V2.get_model_class`` takes     the decoder and video checks cannot tell
                   registry and a model module's source to tell   ``force_simple``                                the class: they let the run go on
                   video input and a missing decoder
=================  =============================================  ==============================================  ===========================================

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
