"""The papers' own model rows beside the user's runs: rank among them, and the reproduction check.

Each benchmark's ``paper.json`` transcribes its paper's main tables (``tables``: source, caption,
notes citing where each value comes from, columns, the paper's precision, a row per model) and the
names under which those models are run (``aliases``: paper name -> Hugging Face ids or API model
names). Its ``report.py``
says how a run measures each column (``measure(run, table, column) -> (value, interval)`` on the
paper's scale). From those this module builds, per table:

- the paper's rows (all, only those of the models the runs matched, or none: ``--paper-rows``);
- each run's rank among the paper's models by the table's headline (last) column;
- for a run whose model the paper evaluated (matched through the aliases, extended or overridden
  by ``--alias PAPER_NAME=MODEL_ID`` or an aliases JSON file), the reproduction check: per column
  the paper's value, ours, the difference, and whether the paper's value lies inside our 95%
  interval; and one verdict per table ("reproduced in 9 of 11 columns").
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

from lmms_comparative.reportlib.cells import table
from lmms_comparative.reportlib.marks import DAGGER, Marks, code, kind, with_skips
from lmms_comparative.reportlib.runs import (
    ReadRun,
    ReportError,
    Run,
    generated_by,
    model_args,
    overrides,
    parse_model_args,
)
from lmms_comparative.subsets import subset_of_tasks

PAPER_ROWS = ("all", "matched", "none")
_mode: ContextVar[str] = ContextVar("lmms_comparative_paper_rows", default="all")


def shown_paper_rows() -> str:
    """The ``--paper-rows`` of the report being written (all, matched, none)."""
    return _mode.get()


@contextmanager
def paper_rows_shown(mode: str):
    """Within the block, the paper tables show the model rows ``mode`` says (``--paper-rows``: all, matched, none)."""
    token = _mode.set(mode)
    try:
        yield
    finally:
        _mode.reset(token)


@dataclass
class Aliases:
    """Paper model name -> the model ids that are that model (case-insensitive), per benchmark
    plus the user's own; ``forced`` maps a run's name straight to a paper name."""

    extra: dict[str, list[str]] = field(default_factory=dict)
    forced: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_options(cls, alias_args: list[str] | None = None, alias_file: str | None = None) -> "Aliases":
        """The user's aliases from ``--alias PAPER_MODEL=MODEL_ID`` values and an ``--aliases`` JSON file
        ({paper model: id or list of ids}) as ``extra``; ``ReportError`` on an unreadable file or a
        malformed ``--alias``."""
        extra: dict[str, list[str]] = {}
        if alias_file:
            try:
                loaded = json.loads(Path(alias_file).read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise ReportError(f"{alias_file}: not a readable aliases JSON ({exc})") from None
            for name, ids in loaded.items():
                extra.setdefault(str(name), []).extend([ids] if isinstance(ids, str) else [str(i) for i in ids])
        for spec in alias_args or []:
            name, sep, model = spec.partition("=")
            if not sep or not name.strip() or not model.strip():
                raise ReportError(
                    f"--alias {spec!r}: expected PAPER_MODEL=MODEL_ID (e.g. 'Qwen2.5-VL-7B=my-org/qwen-7b-ft')"
                )
            extra.setdefault(name.strip(), []).append(model.strip())
        return cls(extra)


def run_ids(run: Run) -> list[str]:
    """What names a run's model, most specific first: its ``pretrained``, ``model_version`` or
    ``model`` argument (each also without an organisation prefix), else the lmms-eval model name.
    A ``score`` of a --predict_only run's replies is named by the generating run's (its claim)."""
    generating = generated_by(run.results)
    found = _named_ids(model_args(run.results))
    if not found and generating:
        found = _named_ids(parse_model_args(generating.get("model_args"))) or [
            str(generating.get("model") or "").strip()
        ]
    if not found:
        found = [str(run.results.get("config", {}).get("model") or "").strip()]
    return list(dict.fromkeys([f for f in found if f] + [f.split("/")[-1] for f in found if "/" in f]))


def _named_ids(args: dict[str, str]) -> list[str]:
    return [
        f
        for f in (args.get(k, "").strip().rstrip("/") for k in ("pretrained", "model_version", "model", "model_name"))
        if f
    ]


def matched_model(run: Run, tables: dict, aliases: dict[str, list[str]], user: Aliases) -> str | None:
    """The paper's name for the run's model, or None: the run's most specific id first, the
    user's aliases before the bundled ones."""
    models = {m for t in tables.values() for m in t["rows"] if m not in t.get("reference", ())}
    for run_id in (i.lower() for i in run_ids(run)):
        for known in (user.extra, aliases):
            for name in sorted(models):
                if run_id in {t.lower() for t in known.get(name, [])} or (known is aliases and run_id == name.lower()):
                    return name
    return None


def _fmt(value, digits: int) -> str:
    return "-" if value is None or value != value else f"{value:.{digits}f}"


@dataclass
class Placement:
    """A run in a paper table: its values, the tasks read for each, why they are not the release's
    items (None: they are), its rank and (when matched) reproduction rows."""

    run: Run
    values: list
    intervals: list
    matched: str | None
    tasks: list = field(default_factory=list)  # per column, the tasks and groups its value was read from
    subset: str | None = None


def _place(run: Run, table_id: str, columns: list[str], measure) -> tuple[list, list]:
    """``measure`` of each column, and the tasks each value was read from."""
    reading = ReadRun.of(run)
    measured, tasks = [], []
    for column in columns:
        reading.read = set()
        measured.append(measure(reading, table_id, column))
        tasks.append(sorted(reading.read))
    return measured, tasks


def paper_block(
    benchmark,
    table_id: str,
    spec: dict,
    runs: list[Run],
    measure,
    aliases: dict[str, list[str]],
    user: Aliases,
    mode: str = "all",
) -> list[str]:
    """Markdown lines for one paper table: the paper's rows with the runs ranked among them, and
    the reproduction check of every matched run. A run whose values are not the release's items
    (``subsets``) is marked in every one of them, and is not ranked as if comparable."""
    title = benchmark.title
    columns = spec["columns"]
    digits = spec.get("column_digits") or [spec.get("digits", 1)] * len(columns)
    reference = set(spec.get("reference", ()))
    placements = []
    for run in runs:
        measured, tasks = _place(run, table_id, columns, measure)
        if all(v is None or v != v for v, _ in measured):
            continue
        matched = matched_model(run, {table_id: spec}, aliases, user)
        # A strategy table (``run_strategy``): the run's strategy tasks are the paper's "<model> / <strategy>" row.
        strategy = spec.get("run_strategy")
        if strategy and matched and f"{matched} / {strategy}" in spec["rows"]:
            matched = f"{matched} / {strategy}"
        behind = [t for read in tasks for t in read]
        placements.append(
            Placement(
                run,
                [v for v, _ in measured],
                [ci for _, ci in measured],
                matched,
                tasks,
                subset_of_tasks(run, benchmark, behind),
            )
        )
    if not placements:
        return []
    matched_models = {p.matched for p in placements if p.matched}
    shown = {m: v for m, v in spec["rows"].items() if mode == "all" or (mode == "matched" and m in matched_models)}
    models = {m: v for m, v in spec["rows"].items() if m not in reference}
    marks = Marks(benchmark)
    # Reference rows (chance, human) first, then the paper's models and the runs in rank order by
    # the headline (last) column; a row without it goes last.
    ranked = [
        (v[-1], [f"{m} (paper)"] + [_fmt(x, d) for x, d in zip(v, digits)])
        for m, v in shown.items()
        if m not in reference
    ]
    for p in placements:
        marks.mark(p.run, p.subset)
        name = f"**{p.run.name}**" + (f" {DAGGER}" if p.subset else "")
        ranked.append(
            (
                p.values[-1],
                [name] + [with_skips(_fmt(v, d), p.run, read) for v, d, read in zip(p.values, digits, p.tasks)],
            )
        )
    ranked.sort(key=lambda item: -item[0] if isinstance(item[0], (int, float)) and item[0] == item[0] else float("inf"))
    rows = [[f"{m} (paper)"] + [_fmt(x, d) for x, d in zip(v, digits)] for m, v in shown.items() if m in reference] + [
        row for _, row in ranked
    ]
    rank_rows = []
    rank_marks = Marks(benchmark)
    for p in placements:
        headline = p.values[-1]
        scored = [v[-1] for v in models.values() if v[-1] is not None]
        if headline is not None and headline == headline and scored:
            rank = 1 + sum(1 for v in scored if v > headline)
            rank_marks.mark(p.run, p.subset)
            name = p.run.name + (f" {DAGGER}" if p.subset else "")
            # Not the release's items: no rank among the paper's models, only where the value would fall.
            place = (
                f"not comparable: {kind(p.subset)} (its value would place {rank} of {len(scored) + 1})"
                if p.subset
                else f"{rank} of {len(scored) + 1}"
            )
            rank_rows.append([name, columns[-1], with_skips(_fmt(headline, digits[-1]), p.run, p.tasks[-1]), place])
    out = [f"### {title}: your runs among the paper's models ({spec['source']})", "", spec.get("caption", ""), ""]
    out += [table(["Model"] + columns, rows, key=f"paper_{table_id}", title=f"{title}: {spec['source']}", marks=marks)]
    if rank_rows:
        out += [
            "",
            table(
                ["Run", "Headline column", "Value", "Rank among the paper's models"],
                rank_rows,
                key=f"rank_{table_id}",
                title=f"{title}: rank ({spec['source']})",
                marks=rank_marks,
            ),
        ]
    for p in placements:
        if p.matched:
            out += ["", *reproduction(benchmark, table_id, spec, p)]
    return out


def reproduction(benchmark, table_id: str, spec: dict, p: Placement) -> list[str]:
    """Per column: the paper's value, ours, the difference, the paper's value inside our interval;
    for a run not on the release's items, said at the head and under the table."""
    digits_of = spec.get("column_digits") or [spec.get("digits", 1)] * len(spec["columns"])
    paper = spec["rows"][p.matched]
    rows, checked, inside = [], 0, 0
    for column, ref, ours, ci, digits, read in zip(spec["columns"], paper, p.values, p.intervals, digits_of, p.tasks):
        if ref is None or ours is None or ours != ours:
            rows.append([column, _fmt(ref, digits), _fmt(ours, digits), "-", "-"])
            continue
        checked += 1
        within = ci is not None and ci[0] - 0.5 * 10**-digits <= ref <= ci[1] + 0.5 * 10**-digits
        inside += within
        band = "-" if ci is None else f"{'yes' if within else 'no'} [{_fmt(ci[0], digits)}, {_fmt(ci[1], digits)}]"
        rows.append(
            [column, _fmt(ref, digits), with_skips(_fmt(ours, digits), p.run, read), f"{ours - ref:+.{digits}f}", band]
        )
    verdict = f"reproduced in {inside} of {checked} columns" if checked else "no column to compare"
    name = code(p.run.name) + (f" {DAGGER}" if p.subset else "")
    head = (
        f"Reproduction check: {name} is the paper's **{p.matched}** ({spec['source']}): {verdict} (the paper's "
        "value inside our 95% interval, at the paper's precision)."
        " The match is by the model the run's `--model_args` name, the submitter's claim: nothing checks which "
        "weights answered."
    )
    if p.subset:
        head += f" Not a reproduction of the paper's setting: the run's items are not the release's ({kind(p.subset)})."
    changed = overrides(p.run.results)
    if changed:
        head += (
            " Not the paper's protocol: the run overrode "
            + ", ".join(code(f"--{k} {v}") for k, v in changed.items())
            + "."
        )
    marks = Marks(benchmark)
    marks.mark(p.run, p.subset)
    text = table(
        ["Column", "Paper", "Ours", "Ours - paper", "Paper inside our 95% interval"],
        rows,
        key=f"reproduction_{table_id}_{p.run.name}",
        title=f"{benchmark.title}: reproduction of {p.matched} ({spec['source']})",
    )
    return [head, "", text, *marks.notes()]
