"""Extra lmms-eval models (baselines), registered through the ``lmms_eval.models`` entry point."""

# What lmms-eval's CLI hands every model besides its model_args (create_from_arg_string's
# additional_config: --batch_size, 1 by default, --max_batch_size, --device).
HARNESS_SETTINGS = ("batch_size", "max_batch_size", "device")
