"""The runs a report reads: every lmms-eval results JSON under the given folders, with its samples logs."""

from __future__ import annotations

import os
from pathlib import Path

from lmms_comparative.data import gate, untrusted
from lmms_comparative.registry import side_log_names
from lmms_comparative.reportlib.runs import ReportError, Run, generated_by, model_args, parse_model_args


def write_file(path: Path, data: str | bytes) -> None:
    """A report file written anew, never through a link (``untrusted.write_file``); a link or
    another kind of file in its place is a ``ReportError``."""
    try:
        untrusted.write_file(path, data)
    except untrusted.Unsafe as exc:
        raise ReportError(f"{path}: {exc}") from None


def folder(path: Path) -> Path:
    """A folder of the report, made where missing; a link in its place is a ``ReportError``."""
    try:
        return untrusted.make_folder(path)
    except untrusted.Unsafe as exc:
        raise ReportError(f"{path}: {exc}") from None


def verify_state(run: Run) -> str:
    """What ``verify`` said of a run, in a word: its verdict (PASS, FAIL, UNVERIFIED) while every
    file of the run is the one it checked, STALE after, "not verified", or "no provenance" (not a
    run of our tasks). A verdict file that ``verify`` did not write on this machine (no valid MAC
    under its key: one that came with the folder) is the submitter's claim, ``claimed PASS, not
    checked here``, never a plain PASS. For display: it decides nothing that a forger could want
    (``compare`` refuses only a FAIL made here; ``export`` checks for itself)."""
    if "lmms_comparative" not in run.results:
        return "no provenance"
    if run.verified is None:
        return "not verified"
    if not run.verified.get("current"):
        return "STALE"
    verdict = run.verified.get("verdict")
    if verdict not in ("PASS", "FAIL", "UNVERIFIED"):
        return "not verified"
    return verdict if run.verified.get("made_here") is True else f"claimed {verdict}, not checked here"


def _run_name(results: dict, path: Path) -> str:
    """The run's name as the submitter gave it (``pretrained=`` and the like): a claim, shown as
    text; control characters, bidi controls and line breaks (``untrusted.CONTROL``: they would break
    a table row or act on a terminal) become spaces, and a name past 200 characters is cut."""
    # A score of a --predict_only run's replies given no --model-name: the generating run's model.
    generating = generated_by(results)
    name = (
        _named_by(model_args(results))
        or _named_by(parse_model_args(generating.get("model_args")))
        or (str(generating["model"]) if generating.get("model") else None)
    )
    name = name or _scored_name(results) or str((results.get("config") or {}).get("model") or path.parent.name)
    return shown_name(name)


def shown_name(name: str) -> str:
    """A run's name as every table, chart and terminal line shows it: control and bidi characters
    and line breaks (``untrusted.CONTROL``) become spaces, and past 200 characters it is cut."""
    name = " ".join(untrusted.CONTROL.sub(" ", name).split()) or "?"
    return name if len(name) <= 200 else name[:199] + "…"


def _named_by(args: dict[str, str]) -> str | None:
    return next(
        (args[key] for key in ("pretrained", "model_version", "inner", "model") if args.get(key)), None
    )  # inner: the model a multiround run wraps


def _scored_name(results: dict) -> str | None:
    """A ``score`` run given no ``--model-name``: named by the prediction files it scored
    (``scored: replies.json``), not by lmms-eval's model, which is ``replay`` for every one."""
    if (results.get("config") or {}).get("model") != "replay":
        return None
    files = ((results.get("lmms_comparative") or {}).get("predictions") or {}).get("files") or []
    names = [os.path.basename(str(f.get("path") or "").rstrip("/\\")) for f in files if isinstance(f, dict)]
    names = [n for n in names if n]
    if not names:
        return "scored predictions"
    return f"scored: {names[0]}" + (f" and {len(names) - 1} more" if len(names) > 1 else "")


def _distinct_names(runs: list[Run], origins: list[tuple[str, Path]]) -> None:
    """Runs sharing a model name are named by what differs: their model_args, else the results
    folder given on the command line, else the results file."""
    by_name: dict[str, list[int]] = {}
    for i, run in enumerate(runs):
        by_name.setdefault(run.name, []).append(i)
    for name, idx in by_name.items():
        if len(idx) < 2:
            continue
        args = [model_args(runs[i].results) for i in idx]
        keys = sorted({k for a in args for k in a})
        # The replay file of a scored run is a path inside its own results folder: the folder names it better.
        differing = [k for k in keys if len({a.get(k) for a in args}) > 1 and k != "predictions"]
        labels = [", ".join(f"{k}={a[k]}" for k in differing if k in a) for a in args] if differing else [""] * len(idx)
        for attempt in (lambda i: origins[i][0], lambda i: str(origins[i][1])):
            if len(set(labels)) == len(labels):
                break
            labels = [f"{label}, {attempt(i)}" if label else attempt(i) for label, i in zip(labels, idx)]
        if len(set(labels)) < len(labels):  # the same file given twice
            labels = [f"{label}, #{n + 1}" for n, label in enumerate(labels)]
        for label, i in zip(labels, idx):
            runs[i].name = shown_name(f"{name} ({label})")  # the label is folder text too (model_args, folder names)


def load_runs(
    paths: list[str], passed: list[tuple[Path, str]] | None = None, links: list[tuple[Path, str]] | None = None
) -> list[Run]:
    """Every ``*_results.json`` under the given directories (or the given results file), with the
    samples logs beside it; no link inside a folder is followed (``data/untrusted.py``; ``links``,
    given, gets each link passed over with why). A file that cannot be read stops with
    ``ReportError``, unless ``passed`` is given: then it is added there with why, and the other
    runs are still read."""
    runs: list[Run] = []
    origins: list[tuple[str, Path]] = []
    noted = links if links is not None else []
    for base in paths:
        if not os.path.exists(base):
            raise ReportError(f"{base}: no such results folder")
        if os.path.isfile(base) and base.endswith("_results.json"):  # one run of a folder that holds several
            try:
                found = [gate.run_of(base, side_log_names())]
            except untrusted.Unsafe as exc:
                raise ReportError(f"{untrusted.printable(base, lines=False)}: {exc}") from None
            base = os.path.dirname(base) or os.curdir
        elif not os.path.isdir(base):
            raise ReportError(
                f"{base}: not a folder (give the --output_path folder of an lmms-eval run, or one *_results.json in it)"
            )
        else:
            walked = gate.scan(base, side_log_names())
            found = walked.runs
            noted += walked.passed
        if not found:
            why = f"{base}: no lmms-eval *_results.json under this folder" + (
                " (links inside it are not followed)" if noted else ""
            )
            if passed is None or len(paths) == 1:
                raise ReportError(why)
            passed.append((Path(base), why.split(": ", 1)[1]))  # the other folders are still reported
            continue
        for found_run in found:
            path = found_run.path
            try:
                run = _read_run(found_run)
            except ReportError as exc:
                if passed is None:
                    raise
                passed.append((path, str(exc)))
                continue
            runs.append(run)
            origins.append((Path(base).resolve().name or str(base), path.relative_to(base)))
    if not runs:
        raise ReportError(
            f"no readable lmms-eval results under {', '.join(paths)}: "
            + "; ".join(why for _, why in (passed or [])[:3])
        )
    _distinct_names(runs, origins)
    return runs


def load_each(given_paths: list[str], links: list[tuple[Path, str]] | None = None) -> list[Run]:
    """One run from each folder (``compare``'s A, B, ...), named apart as ``load_runs`` names the
    runs of one report where two share a name (``random_choice (seed=1)``); ``ReportError`` for a
    folder that holds other than one run."""
    pair: list[Run] = []
    origins: list[tuple[str, Path]] = []
    for given in given_paths:
        runs = load_runs([given], links=links)  # links: what the gate passed over, for the caller to say
        if len(runs) != 1:
            raise ReportError(f"{given}: {len(runs)} results files under this folder; give the folder of one run")
        base = Path(given if os.path.isdir(given) else os.path.dirname(given) or os.curdir)
        path = runs[0].path
        assert path is not None  # ``load_runs`` reads each run from its results file
        try:
            relative = path.relative_to(base)
        except ValueError:
            relative = Path(path.name)
        pair.append(runs[0])
        origins.append((base.resolve().name or str(base), relative))
    if len({r.name for r in pair}) < len(pair):
        _distinct_names(pair, origins)
    return pair


def in_doc_order(rows: list[dict]) -> list[dict]:
    """A samples log's rows by doc id (then as written): the order lmms-eval writes them in depends
    on how many processes ran and how their items were gathered, and the report's bootstrap
    intervals, which resample by position, must not (a one- and a two-process run of the same
    replies give the same intervals)."""
    return sorted(
        rows,
        key=lambda r: (
            (0, r["doc_id"]) if isinstance(r.get("doc_id"), int) and not isinstance(r.get("doc_id"), bool) else (1, 0)
        ),
    )


def samples_row(row: dict) -> dict:
    """A samples line as the report keeps it: lmms-eval writes an integer ``doc_id`` on every line;
    a line without one is not a samples line (``Unsafe``: the log is passed over, its run named)."""
    doc_id = row.get("doc_id")
    if not isinstance(doc_id, int) or isinstance(doc_id, bool):
        raise untrusted.Unsafe("no integer doc_id: not a samples line lmms-eval writes")
    return row


def _read_log(entry: gate.Entry, reduce=None) -> list[dict]:
    return [row for _, row in gate.rows(entry, ReportError, reduce)]


def _read_run(found: gate.Run) -> Run:
    """One run as the gate found it, with its samples and side logs read line by line
    (``ReportError`` naming a file that cannot be read)."""
    path = found.path
    try:
        results = gate.results_json(found.results)
    except untrusted.Unsafe as exc:
        raise ReportError(f"{found.results.shown()}: {exc}") from None
    samples = {task: in_doc_order(_read_log(entry, samples_row)) for task, entry in sorted(found.samples.items())}
    side = {
        name: {task: _read_log(entry) for task, entry in sorted(logs.items())}
        for name, logs in sorted(found.side.items())
    }
    from lmms_comparative.verify import read_verdicts

    return Run(_run_name(results, path), results, samples, side, read_verdicts(path), path)
