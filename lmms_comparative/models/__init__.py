"""Extra lmms-eval models (baselines), registered through the ``lmms_eval.models`` entry point."""
