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
  ``captionqa_simple``, ...): the hub requires it to be a task of the benchmark dataset's
  ``eval.yaml``, which none of the releases has yet (docs/submitting.md says what stands in the way);
- ``dataset.revision``: the commit the run's loader pinned (a hub run); a run on a local copy has
  none, and its notes give the data fingerprint instead;
- ``value``: at the paper's scale (as the report's paper tables print it: accuracies in %);
- ``date``: when the run ran, in UTC with its zone (lmms-eval writes UTC+8 without one);
- ``notes``: the protocol variant and the reader or judge model that scored it (never a local path),
  the decoding settings the run's command line overrode (or the generating run's, for replies made
  by a separate --predict_only run);
  for a subset (``--allow-subset``), "subset: N of M items" and where the data came from; items this
  package generated (a fixture, synthetic pairs) are no subset of the release and never go out
  under its id: only under a ``--dataset-id`` of the user's own, with ``--allow-subset``;
- ``source``: ``--source-url`` (with ``--source-name``, ``--source-user``) where the user gives one.

Nothing is exported that is not PASS under ``verify``'s checks, made here; and a value whose items
are not the release's (``subsets.py``) is left out unless ``--allow-subset``.

``--push MODEL_REPO`` opens one pull request on the model repository with every file under
``.eval_results/``, through ``huggingface_hub`` (``HF_TOKEN``, ``HF_ENDPOINT`` apply).
"""

from __future__ import annotations

import datetime
import os
import sys
from pathlib import Path

from lmms_comparative.data import untrusted
from lmms_comparative.data.generating import generation_of
from lmms_comparative.eval_results import ExportError, ExportFile, hub_token, push, write
from lmms_comparative.provenance import KEY
from lmms_comparative.registry import BENCHMARKS, BY_NAME
from lmms_comparative.reportlib.runs import claimed_version, overrides
from lmms_comparative.subsets import GENERATED, by_count_only, subset_of

# The notes of a value that stands for the release by its item count alone (``subsets.by_count_only``).
COUNT_ONLY = (
    "the release's item count; its item keys are not checked (the release's key list is not known here, and the run "
    "read a local copy)"
)


class ExportRefused(ExportError):
    """A run that is not exported as it stands (not PASS under ``verify``'s checks): one message."""


def _iso_date(results: dict) -> str | None:
    """When the run ran, in UTC with its zone (``2026-11-26T21:18:23Z``), from lmms-eval's ``date``:
    written in the run's ``--timezone`` (the record's ``date_timezone``; lmms-eval's default,
    Asia/Singapore, UTC+8, whatever the machine's zone), without a zone."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    from lmms_comparative.harness.stamp_results import DEFAULT_DATE_TIMEZONE

    raw = str(results.get("date") or "")
    name = (results.get(KEY) or {}).get("date_timezone") or DEFAULT_DATE_TIMEZONE
    try:
        when = datetime.datetime.strptime(raw, "%Y%m%d_%H%M%S").replace(tzinfo=ZoneInfo(str(name)))
    except (ValueError, ZoneInfoNotFoundError):
        return None
    return when.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _data(record: dict, benchmark) -> dict:
    """The data record of the run's tasks of ``benchmark`` (one source for all of them)."""
    found = [t.get("data") or {} for t in (record.get("tasks") or {}).values() if t.get("benchmark") == benchmark.name]
    distinct = {(d.get("source"), d.get("repo"), d.get("commit"), d.get("fingerprint")) for d in found}
    return found[0] if len(distinct) == 1 else {}


def _model_name(settings: dict) -> str:
    """A judge's or reader's model as the notes name it: a model id, never a local path."""
    model = str(settings.get("model") or "?")
    if os.sep in model or model.startswith((".", "~")) or settings.get("gguf_file"):
        gguf = ", " + os.path.basename(str(settings["gguf_file"])) if settings.get("gguf_file") else ""
        return f"a local model ({os.path.basename(model.rstrip(os.sep)) or model}{gguf})"
    return model


def _notes(run, benchmark, variant: str, data: dict, items: str | None) -> str:
    """The entry's notes; ``items``: why its items are not the release's, or that they are by count only."""
    record = run.results.get(KEY) or {}
    # The version and the date are the run's own claims (its record and results file), as the model's name is.
    parts = [
        f"lmms-comparative {claimed_version(record)} (as the run's record names it), {benchmark.title} protocol"
        + (f" ({variant})" if variant else ""),
        "date as the run's results file gives it",
    ]
    generation = generation_of(record)
    if generation is not None:  # a score of a --predict_only run's replies: who decoded them is that run's claim
        parts.append(
            f"replies from a separate --predict_only run (lmms-comparative {claimed_version(generation)} as its "
            "record names it)"
        )
    changed = overrides(run.results)  # the run's own decoding settings, or the generating run's
    if changed:
        parts.append(
            "not the paper's decoding, as the run's settings give it: "
            + ", ".join(f"--{k} {v}" for k, v in changed.items())
        )
    if items:
        parts.append(items)
    labels = benchmark.llm_prefixes() if benchmark.scoring_calls else {}
    for prefix, settings in sorted((record.get("llm") or {}).items()):
        if prefix in labels:
            parts.append(f"{labels[prefix]}: {_model_name(settings)} (as the run's settings name it)")
    if data.get("source") == "local":
        parts.append(f"local copy of the data, fingerprint {str(data.get('fingerprint'))[:16]}")
    return "; ".join(parts)


def _data_source(data: dict) -> str:
    """Where a subset's data came from, for its notes (a local copy's fingerprint ``_notes`` gives)."""
    if data.get("source") == "hub":
        return f"data from the hub, {data.get('repo')}@{str(data.get('commit'))[:12]}"
    return "data source not recorded"


def _own_dataset_flags(benchmark, allow_subset: bool) -> str:
    """The flags that export generated items under a dataset of the user's own: its id, and
    ``--allow-subset`` unless given (generated items are never the release's item set)."""
    return f"--dataset-id {benchmark.name}=OWNER/REPO" + ("" if allow_subset else " --allow-subset")


def _has_subset(run, benchmark) -> bool:
    """Whether a value the run has for one of the benchmark's exports stands on items that are not
    the release's (``subset_of``): exporting it needs ``--allow-subset`` as well as a dataset id."""
    measure = benchmark.report_part().measure
    for _variant, table_id, columns in benchmark.exports:
        for column, task_id in columns:
            value, _interval = measure(run, table_id, column)
            if value is not None and value == value and subset_of(run, benchmark, task_id):
                return True
    return False


def _checked(run) -> None:
    """``verify``'s checks on the run's results file, made here (no verdict file is trusted):
    ``ExportRefused`` unless every task and group of ours passes."""
    from lmms_comparative import verify

    if run.path is None:
        raise ExportRefused(f"{run.name}: no results file to check")
    found, passed = verify.find_runs(run.path)
    if not found:
        raise ExportRefused(f"{run.path}: {passed[0][1] if passed else 'not a results file'}")
    try:
        verdicts = verify.check(found[0])
    except verify.BadFile as exc:
        raise ExportRefused(f"{run.path}: {exc}") from None
    if isinstance(verdicts, str):
        return
    status = verify.overall(verdicts)
    if status != "PASS":
        lines = [v.line() for v in verdicts if v.status != "PASS"]
        shown = "\n  ".join(lines[:5]) + (f"\n  ... and {len(lines) - 5} more" if len(lines) > 5 else "")
        raise ExportRefused(f"{run.name}: not exported: verify's checks give {status}:\n  {shown}")


def build(
    paths: list[str],
    dataset_ids: dict[str, str] | None = None,
    source: dict | None = None,
    out=sys.stderr,
    allow_subset: bool = False,
) -> list[ExportFile]:
    """The ``.eval_results`` files of the runs under ``paths`` (one run: the newest per folder is
    what a submission holds; several runs of one benchmark and variant would collide, so they
    are refused). Every run is checked here as ``verify`` checks it (``ExportRefused`` unless it
    passes); a value whose items are not the release's is left out, or with ``allow_subset``
    exported with notes saying so."""
    from huggingface_hub import EvalResultEntry

    from lmms_comparative.report import load_runs

    out = untrusted.PrintableStream(out)  # run names, tasks and subsets: text of the folder
    dataset_ids = dict(dataset_ids or {})
    unknown = sorted(set(dataset_ids) - set(BY_NAME))
    if unknown:
        raise ExportError(f"--dataset-id {', '.join(unknown)}: not a benchmark ({', '.join(BY_NAME)})")
    runs = load_runs(paths)
    files: dict[str, ExportFile] = {}
    for run in runs:
        record = run.results.get(KEY)
        if not isinstance(record, dict):
            print(
                f"{run.name}: no {KEY} record (not a run of our tasks, or made before provenance): left out", file=out
            )
            continue
        print(f"{run.name}: checking as verify does (re-scoring its samples) ...", file=out, flush=True)
        _checked(run)
        present = {t.get("benchmark") for t in (record.get("tasks") or {}).values()}
        for benchmark in BENCHMARKS:
            if benchmark.name not in present:
                continue
            dataset_id = dataset_ids.get(benchmark.name) or benchmark.hub_repo
            if not dataset_id:
                # Every flag that following the hint needs: a run whose items are not the release's also needs
                # --allow-subset.
                flags = f"--dataset-id {benchmark.name}=OWNER/REPO" + (
                    " --allow-subset" if not allow_subset and _has_subset(run, benchmark) else ""
                )
                print(
                    f"{benchmark.title}: no hub dataset to attach the scores to (the release is not on the hub); give "
                    f"one with {flags}: left out",
                    file=out,
                )
                continue
            # A dataset the user named that is not the release's: it may hold generated items.
            own_id = benchmark.name in dataset_ids and dataset_ids[benchmark.name] != benchmark.hub_repo
            measure = benchmark.report_part().measure
            data = _data(record, benchmark)
            revision = data.get("commit") if data.get("source") == "hub" and dataset_id == data.get("repo") else None
            for variant, table_id, columns in benchmark.exports:
                # Exports name tables of paper.json, and a benchmark with tables has a measure.
                assert measure is not None, f"{benchmark.name}: exports without the report part's measure"
                entries = []
                for column, task_id in columns:
                    value, _interval = measure(run, table_id, column)
                    if value is None or value != value:
                        continue
                    subset = subset_of(run, benchmark, task_id)
                    if subset and subset.startswith(GENERATED) and not own_id:
                        # Items this package made are no subset of the release: never under its id.
                        print(
                            f"{run.name}: {task_id} left out of {dataset_id}: {subset}; generated items are never "
                            "exported under a release's id, with or without --allow-subset (to export them under a "
                            f"dataset of your own: {_own_dataset_flags(benchmark, allow_subset)})",
                            file=out,
                        )
                        continue
                    if subset and not allow_subset:
                        print(
                            f"{run.name}: {task_id} left out of {dataset_id}: {subset} (--allow-subset exports it "
                            "with that note)",
                            file=out,
                        )
                        continue
                    if subset and data.get("source") != "local":  # a local copy's fingerprint is in the notes already
                        subset = f"{subset}; {_data_source(data)}"
                    items_note = subset or (COUNT_ONLY if by_count_only(run, benchmark, [task_id]) else None)
                    entries.append(
                        EvalResultEntry(
                            dataset_id=dataset_id,
                            task_id=task_id,
                            value=round(float(value), 4),
                            dataset_revision=revision,
                            date=_iso_date(run.results),
                            notes=_notes(run, benchmark, variant, data, items_note),
                            **(source or {}),
                        )
                    )
                if not entries:
                    continue
                name = f"{benchmark.name}_{variant}.yaml" if variant else f"{benchmark.name}.yaml"
                if name in files:
                    raise ExportError(
                        f"two runs give {name} ({run.name} and an earlier one): export one run per benchmark and "
                        "variant"
                    )
                files[name] = ExportFile(name, benchmark.name, entries)
    return list(files.values())


def main(
    paths: list[str],
    output: str,
    dataset_id_args: list[str],
    source_url: str | None,
    source_name: str | None,
    source_user: str | None,
    push_to: str | None,
    allow_subset: bool = False,
) -> int:
    """``lmms-comparative export``: writes the runs' files under ``output`` and, with ``push_to``, opens the pull
    request; the exit status (1: a run refused, nothing to export or the pull request failed, 2: bad input)."""
    dataset_ids = {}
    for arg in dataset_id_args:
        name, sep, value = arg.partition("=")
        if not sep or "/" not in value:
            print(
                f"lmms-comparative export: error: --dataset-id {arg!r}: expected NAME=OWNER/REPO (e.g. "
                "vidi=someone/ViDi)",
                file=sys.stderr,
            )
            return 2
        dataset_ids[name] = value
    if (source_name or source_user) and not source_url:
        print(
            "lmms-comparative export: error: --source-name and --source-user need --source-url (the hub's format "
            "requires a source's url)",
            file=sys.stderr,
        )
        return 2
    source = {
        k: v for k, v in (("source_url", source_url), ("source_name", source_name), ("source_user", source_user)) if v
    }
    from lmms_comparative.report import ReportError

    if push_to and not hub_token():
        print(
            "lmms-comparative export: error: --push needs a Hugging Face token: set HF_TOKEN (or run `hf auth "
            "login`); nothing was checked or written",
            file=sys.stderr,
        )
        return 2
    try:
        files = build(paths, dataset_ids, source, allow_subset=allow_subset)
    except ExportRefused as exc:  # folder text in the message: escaped for the terminal
        print(f"lmms-comparative export: {untrusted.printable(str(exc))}\nnothing exported", file=sys.stderr)
        return 1
    except (ExportError, ReportError) as exc:
        print(f"lmms-comparative export: error: {untrusted.printable(str(exc))}", file=sys.stderr)
        return 2
    if not files:
        print(
            "lmms-comparative export: nothing to export (no value of the release's item set on a benchmark with a hub "
            "dataset; see above)",
            file=sys.stderr,
        )
        return 1
    try:
        written = write(files, Path(output))
    except ExportError as exc:
        print(f"lmms-comparative export: error: {exc}", file=sys.stderr)
        return 1
    for path in written:
        print(f"wrote {path}")
    if push_to:
        try:
            url = push(written, push_to)
        except Exception as exc:  # noqa: BLE001 - the hub's refusal in one line
            print(
                f"lmms-comparative export: the pull request on {push_to} failed: {type(exc).__name__}: "
                f"{str(exc).splitlines()[0] if str(exc) else ''}",
                file=sys.stderr,
            )
            return 1
        print(f"opened {url}")
    return 0
