"""``lmms-comparative export RESULTS_DIR -o OUT``: a run's scores as the hub's ``.eval_results/``
files, where leaderboards now live (a model repository's ``.eval_results/*.yaml``, shown on the
model page and on the benchmark dataset's leaderboard; https://huggingface.co/docs/hub/eval-results).

One YAML file per benchmark and protocol variant (``<benchmark>[_<variant>].yaml``, the variants a
benchmark record's ``exports`` lists: SubtleBench's multiple choice and captioning, CaptionQA's
four caption prompts, ...), each a list of entries written with ``huggingface_hub``'s own
``EvalResultEntry`` serializer:

- ``dataset.id``: the release's hub repository (the record's ``hub_repo``); for a benchmark without
  one (ViDi, MLLM-CompBench) the user names it with ``--dataset-id NAME=OWNER/REPO``, else the
  benchmark is left out and the command says so;
- ``dataset.task_id``: the lmms-comparative task or group the value is of (``subtlebench_at``,
  ``captionqa_simple``, ...): the hub repositories define no task ids of their own that we could
  read;
- ``dataset.revision``: the commit the run's loader pinned (a hub run); a run on a local copy has
  none, and its notes give the data fingerprint instead;
- ``value``: at the paper's scale (as the report's paper tables print it: accuracies in %);
- ``date``: when the run ran (ISO-8601, from the results file);
- ``notes``: the protocol variant and the reader or judge model that scored it;
- ``source``: ``--source-url`` (with ``--source-name``, ``--source-user``) where the user gives one.

``--push MODEL_REPO`` opens one pull request on the model repository with every file under
``.eval_results/``, through ``huggingface_hub`` (``HF_TOKEN``, ``HF_ENDPOINT`` apply).
"""

from __future__ import annotations

import datetime
import sys
from dataclasses import dataclass
from pathlib import Path

from lmms_comparative.benchmarks import BENCHMARKS, BY_NAME
from lmms_comparative.provenance import KEY
from lmms_comparative.verify import LLM_BENCHMARKS

FOLDER = ".eval_results"


class ExportError(ValueError):
    """Bad input to export: one message."""


@dataclass
class ExportFile:
    """One ``.eval_results`` YAML file to write: its file name, the benchmark it is of and its hub entries."""

    name: str  # <benchmark>[_<variant>].yaml
    benchmark: str
    entries: list  # huggingface_hub.EvalResultEntry


def _iso_date(results: dict) -> str | None:
    raw = str(results.get("date") or "")
    try:
        return datetime.datetime.strptime(raw, "%Y%m%d_%H%M%S").isoformat()
    except ValueError:
        return None


def _data(record: dict, benchmark) -> dict:
    """The data record of the run's tasks of ``benchmark`` (one source for all of them)."""
    found = [t.get("data") or {} for t in (record.get("tasks") or {}).values() if t.get("benchmark") == benchmark.name]
    distinct = {(d.get("source"), d.get("repo"), d.get("commit"), d.get("fingerprint")) for d in found}
    return found[0] if len(distinct) == 1 else {}


def _notes(run, benchmark, variant: str, data: dict) -> str:
    record = run.results.get(KEY) or {}
    parts = [f"lmms-comparative {record.get('package', {}).get('version', '?')}, {benchmark.title} protocol" + (f" ({variant})" if variant else "")]
    for prefix, settings in sorted((record.get("llm") or {}).items()):
        if LLM_BENCHMARKS.get(prefix) == benchmark.name:
            role = "reader" if prefix.endswith("READER") else "judge"
            parts.append(f"{role} {settings.get('model')}")
    if data.get("source") == "local":
        parts.append(f"local copy of the data, fingerprint {str(data.get('fingerprint'))[:16]}")
    return "; ".join(parts)


def build(paths: list[str], dataset_ids: dict[str, str] | None = None, source: dict | None = None, out=sys.stderr) -> list[ExportFile]:
    """The ``.eval_results`` files of the runs under ``paths`` (one run: the newest per folder is
    what a submission holds; several runs of one benchmark and variant would collide, so they
    are refused)."""
    from huggingface_hub import EvalResultEntry

    from lmms_comparative.report import load_runs

    dataset_ids = dict(dataset_ids or {})
    unknown = sorted(set(dataset_ids) - set(BY_NAME))
    if unknown:
        raise ExportError(f"--dataset-id {', '.join(unknown)}: not a benchmark ({', '.join(BY_NAME)})")
    runs = load_runs(paths)
    files: dict[str, ExportFile] = {}
    for run in runs:
        record = run.results.get(KEY)
        if not isinstance(record, dict):
            print(f"{run.name}: no {KEY} record (not a run of our tasks, or made before provenance): left out", file=out)
            continue
        verified = run.verified or {}
        if verified.get("current") and verified.get("verdict") == "FAIL":
            raise ExportError(f"{run.name}: `lmms-comparative verify` failed on this results file; fix or re-run it before exporting")
        if not (verified.get("current") and verified.get("verdict") == "PASS"):
            print(f"{run.name}: not verified (run `lmms-comparative verify` on its folder before submitting)", file=out)
        present = {t.get("benchmark") for t in (record.get("tasks") or {}).values()}
        for benchmark in BENCHMARKS:
            if benchmark.name not in present:
                continue
            dataset_id = dataset_ids.get(benchmark.name) or benchmark.hub_repo
            if not dataset_id:
                print(f"{benchmark.title}: no hub dataset to attach the scores to (the release is not on the hub); give one with --dataset-id {benchmark.name}=OWNER/REPO: left out", file=out)
                continue
            measure = benchmark.part("report", "measure")
            data = _data(record, benchmark)
            revision = data.get("commit") if data.get("source") == "hub" and dataset_id == data.get("repo") else None
            for variant, table_id, columns in benchmark.exports:
                entries = []
                for column, task_id in columns:
                    value, _interval = measure(run, table_id, column)
                    if value is None or value != value:
                        continue
                    entries.append(
                        EvalResultEntry(
                            dataset_id=dataset_id,
                            task_id=task_id,
                            value=round(float(value), 4),
                            dataset_revision=revision,
                            date=_iso_date(run.results),
                            notes=_notes(run, benchmark, variant, data),
                            **(source or {}),
                        )
                    )
                if not entries:
                    continue
                name = f"{benchmark.name}_{variant}.yaml" if variant else f"{benchmark.name}.yaml"
                if name in files:
                    raise ExportError(f"two runs give {name} ({run.name} and an earlier one): export one run per benchmark and variant")
                files[name] = ExportFile(name, benchmark.name, entries)
    return list(files.values())


def write(files: list[ExportFile], out_dir: Path) -> list[Path]:
    """Writes each file as YAML into ``out_dir``'s ``.eval_results/`` (made if missing; a file of the same name is replaced);
    the paths written."""
    import yaml
    from huggingface_hub import eval_result_entries_to_yaml

    folder = Path(out_dir) / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for file in files:
        path = folder / file.name
        path.write_text(yaml.safe_dump(eval_result_entries_to_yaml(file.entries), sort_keys=False, allow_unicode=True), encoding="utf-8")
        written.append(path)
    return written


def push(paths: list[Path], model_repo: str, out=sys.stderr) -> str:
    """One pull request on ``model_repo`` adding every file under ``.eval_results/``; its URL."""
    from huggingface_hub import CommitOperationAdd, HfApi

    operations = [CommitOperationAdd(path_in_repo=f"{FOLDER}/{p.name}", path_or_fileobj=str(p)) for p in paths]
    info = HfApi().create_commit(
        repo_id=model_repo,
        repo_type="model",
        operations=operations,
        commit_message="Add evaluation results (lmms-comparative)",
        commit_description="Scores written by `lmms-comparative export` from a verified lmms-eval results folder: " + ", ".join(p.name for p in paths),
        create_pr=True,
    )
    return info.pr_url or info.commit_url


def main(paths: list[str], output: str, dataset_id_args: list[str], source_url: str | None, source_name: str | None, source_user: str | None, push_to: str | None) -> int:
    """``lmms-comparative export``: writes the runs' files under ``output`` and, with ``push_to``, opens the pull request; the exit
    status (1: nothing to export or the pull request failed, 2: bad input)."""
    dataset_ids = {}
    for arg in dataset_id_args:
        name, sep, value = arg.partition("=")
        if not sep or "/" not in value:
            print(f"lmms-comparative export: error: --dataset-id {arg!r}: expected NAME=OWNER/REPO (e.g. vidi=someone/ViDi)", file=sys.stderr)
            return 2
        dataset_ids[name] = value
    if (source_name or source_user) and not source_url:
        print("lmms-comparative export: error: --source-name and --source-user need --source-url (the hub's format requires a source's url)", file=sys.stderr)
        return 2
    source = {k: v for k, v in (("source_url", source_url), ("source_name", source_name), ("source_user", source_user)) if v}
    from lmms_comparative.report import ReportError

    try:
        files = build(paths, dataset_ids, source)
    except (ExportError, ReportError) as exc:
        print(f"lmms-comparative export: error: {exc}", file=sys.stderr)
        return 2
    if not files:
        print("lmms-comparative export: nothing to export (no run of a benchmark with a hub dataset; see above)", file=sys.stderr)
        return 1
    written = write(files, Path(output))
    for path in written:
        print(f"wrote {path}")
    if push_to:
        try:
            url = push(written, push_to)
        except Exception as exc:  # noqa: BLE001 - the hub's refusal in one line
            print(f"lmms-comparative export: the pull request on {push_to} failed: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}", file=sys.stderr)
            return 1
        print(f"opened {url}")
    return 0
