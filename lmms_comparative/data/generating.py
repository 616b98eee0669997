"""What a results JSON says of the run that generated its replies, read in one place: the
lmms-eval command-line settings a results ``config`` has set (``command_settings``: the report's
protocol overrides, and what ``score`` carries on from a --predict_only run as
``predictions.generated_by``), and the generating run's record a scored record carries
(``generation_of``). Every value is a stranger's text: types are checked, never trusted."""

from __future__ import annotations

import json

# lmms-eval's command-line settings that change what the tasks ask the model, away from the
# papers' protocol (each task's YAML sets its decoding; these override it for every task).
PROTOCOL_OVERRIDES = ("gen_kwargs", "system_instruction", "num_fewshot", "apply_chat_template", "fewshot_as_multiturn")
# What a --predict_only run's ``config`` says that its scored record carries on: the model it
# names, and the protocol overrides.
GENERATING_CONFIG = ("model", "model_args", *PROTOCOL_OVERRIDES)


def command_settings(config, names) -> dict:
    """The settings among ``names`` that a results ``config`` has set (its own field, else its
    ``resolved_cli_args``); unset: None, empty, False."""
    config = config if isinstance(config, dict) else {}
    cli = config.get("resolved_cli_args") if isinstance(config.get("resolved_cli_args"), dict) else {}
    return {
        name: value for name in names if (value := config.get(name, cli.get(name))) not in (None, "", False, [], {})
    }


def logged_samples(results: dict) -> bool | None:
    """Whether the run's command line asked for samples logs (``--log_samples``, as its results'
    ``config.resolved_cli_args`` record it), None where the results do not say."""
    config = results.get("config")
    cli = config.get("resolved_cli_args") if isinstance(config, dict) else None
    found = cli.get("log_samples") if isinstance(cli, dict) else None
    return found if isinstance(found, bool) else None


def generating_config(results: dict) -> dict:
    """The ``GENERATING_CONFIG`` settings of a --predict_only run's results JSON; text cut to 500
    characters."""
    found = command_settings(results.get("config"), GENERATING_CONFIG)
    return {
        name: value
        if isinstance(value, (bool, int, float)) or (isinstance(value, dict) and len(json.dumps(value)) <= 500)
        else str(value)[:500]
        for name, value in found.items()
    }


def generation_of(record) -> dict | None:
    """The generating run's record that a scored record carries (``predictions.generation``, a
    ``score`` of a --predict_only run's replies), or None."""
    predictions = record.get("predictions") if isinstance(record, dict) else None
    found = predictions.get("generation") if isinstance(predictions, dict) else None
    return found if isinstance(found, dict) else None
