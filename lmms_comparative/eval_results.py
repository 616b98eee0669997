"""The hub's ``.eval_results/`` files (https://huggingface.co/docs/hub/eval-results): what one holds
(``ExportFile``), writing them into a folder, and the pull request that adds them to a model
repository (``lmms-comparative export``, export.py, builds them from verified runs)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from lmms_comparative.data import untrusted

FOLDER = ".eval_results"


class ExportError(ValueError):
    """Bad input to export: one message."""


@dataclass
class ExportFile:
    """One ``.eval_results`` YAML file to write: its file name, the benchmark it is of and its hub entries."""

    name: str  # <benchmark>[_<variant>].yaml
    benchmark: str
    entries: list  # huggingface_hub.EvalResultEntry


def write(files: list[ExportFile], out_dir: Path) -> list[Path]:
    """Writes each file as YAML into ``out_dir``'s ``.eval_results/`` (made if missing; a file of the same name is
    replaced); the paths written."""
    import yaml
    from huggingface_hub import eval_result_entries_to_yaml

    path = Path(out_dir) / FOLDER
    try:
        folder = untrusted.make_folder(path)
        written = []
        for file in files:
            path = folder / file.name
            untrusted.write_file(
                path, yaml.safe_dump(eval_result_entries_to_yaml(file.entries), sort_keys=False, allow_unicode=True)
            )
            written.append(path)
    except untrusted.Unsafe as exc:  # a link where a file goes: never written through
        raise ExportError(f"{path}: {exc}") from None
    return written


def hub_token() -> str | None:
    """The token ``huggingface_hub`` would send (``HF_TOKEN``, or a stored login), or None."""
    from huggingface_hub import get_token

    return get_token()


def push(paths: list[Path], model_repo: str, out=sys.stderr) -> str:
    """One pull request on ``model_repo`` adding every file under ``.eval_results/``; its URL."""
    from huggingface_hub import CommitOperationAdd, HfApi

    operations = [CommitOperationAdd(path_in_repo=f"{FOLDER}/{p.name}", path_or_fileobj=str(p)) for p in paths]
    info = HfApi().create_commit(
        repo_id=model_repo,
        repo_type="model",
        operations=operations,
        commit_message="Add evaluation results (lmms-comparative)",
        commit_description="Scores written by `lmms-comparative export` from a verified lmms-eval results folder: "
        + ", ".join(p.name for p in paths),
        create_pr=True,
    )
    return info.pr_url or info.commit_url
