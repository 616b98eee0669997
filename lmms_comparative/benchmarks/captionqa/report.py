"""CaptionQA in the report: the run summary, radar charts, the paper's measures, the item browser's
images and questions; the section's tables (Table 3 per prompt, the caption-vs-image gap, the reader
checks) are in ``score_tables.py``."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from lmms_comparative.benchmarks.captionqa.score_tables import CAPTIONQA_DOMAINS, section
from lmms_comparative.benchmarks.captionqa.table import PROMPTS
from lmms_comparative.data import untrusted
from lmms_comparative.failures import DataError
from lmms_comparative.record import Benchmark, Headline, ReportPart
from lmms_comparative.reportlib.cells import cell, text_table
from lmms_comparative.reportlib.charts import model_colours
from lmms_comparative.reportlib.marks import CHART_NOTE, chart_label
from lmms_comparative.reportlib.runs import ReportError, Run
from lmms_comparative.tasklib.report_part import report_part


def summary(run: Run) -> list[str]:
    rows = []
    for prompt in PROMPTS:
        group = f"captionqa_{prompt}"
        if any(run.row(f"{group}_{d}") for d, _ in CAPTIONQA_DOMAINS):
            rows.append(
                [group + " score", cell(run.value(group, "score"))]
                + [cell(run.value(f"{group}_{d}", "score")) for d, _ in CAPTIONQA_DOMAINS]
            )
    if any(run.row(f"captionqa_image_{d}") for d, _ in CAPTIONQA_DOMAINS):
        rows.append(
            ["captionqa_image accuracy", cell(run.value("captionqa_image", "accuracy"))]
            + [cell(run.value(f"captionqa_image_{d}", "accuracy")) for d, _ in CAPTIONQA_DOMAINS]
        )
    if not rows:
        return []
    return ["CaptionQA: Overall and per domain (%) (paper Table 3)"] + text_table(
        ["task", "Overall"] + [label for _, label in CAPTIONQA_DOMAINS], rows
    )


def captionqa_radar(benchmark: Benchmark, runs: list[Run], prompt: str, domain: str, path: Path) -> Path | None:
    """Radar chart of each run's score (%) per question category of one prompt and domain, saved at ``path``; None
    (nothing written) when the runs have fewer than three categories between them."""
    task = f"captionqa_{prompt}_{domain}"
    runs = [r for r in runs if r.mapping(task, "by_category")]
    categories = sorted({c for r in runs for c in r.mapping(task, "by_category")})
    if len(categories) < 3:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    angles = np.linspace(0, 2 * np.pi, len(categories), endpoint=False).tolist()
    fig, ax = plt.subplots(figsize=(8.5, 6.5), dpi=110, subplot_kw={"polar": True})
    for run, colour in zip(runs, model_colours(len(runs))):
        cats = run.mapping(task, "by_category")
        values = [(cats.get(c, {}).get("score") or 0) * 100 for c in categories]
        ax.plot(
            angles + angles[:1],
            values + values[:1],
            linewidth=2,
            label=chart_label(run, benchmark, [task]),
            color=colour,
        )
        ax.fill(angles + angles[:1], values + values[:1], alpha=0.15, color=colour)
    ax.set_xticks(angles, [c.replace(" ", "\n", 1) for c in categories], fontsize=7)
    ax.set_ylim(0, 100)
    marked = any(chart_label(run, benchmark, [task]) != run.name for run in runs)
    ax.set_title(f"CaptionQA {domain} ({prompt} prompt): score by category" + (f"\n{CHART_NOTE}" if marked else ""))
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.08, 1.0))  # beside the plot, over no line
    fig.tight_layout()
    try:  # never through a link or into a pipe: anything but a regular file there is one line
        untrusted.write_figure(path, fig, bbox_inches="tight")  # tight_layout leaves a legend outside the axes cut off
    except untrusted.Unsafe as exc:
        raise ReportError(f"{path}: {exc}") from None
    finally:
        plt.close(fig)
    return path


def charts(benchmark: Benchmark, runs: list[Run], out: Path) -> list[Path]:
    found = [
        captionqa_radar(benchmark, runs, prompt, domain, out / f"captionqa_{prompt}_{domain}_radar.png")
        for prompt in PROMPTS
        for domain, _ in CAPTIONQA_DOMAINS
    ]
    return [p for p in found if p]


def _prompt_of(table_id: str, spec_source: str = "") -> str | None:
    text = f"{table_id} {spec_source}".lower()
    return next((p for p in PROMPTS if p in text), None)


def measure(run: Run, table_id: str, column: str):
    """(value, 95% interval) of a run in a column of the paper's score table of one caption prompt
    (the table's id or source names the prompt), x100: a domain's score or the Overall."""
    prompt = _prompt_of(table_id)
    if prompt is None:
        return None, None
    task = f"captionqa_{prompt}" if column == "overall" else f"captionqa_{prompt}_{column}"
    value, ci = run.value(task, "score"), run.ci(task, "score")
    if not isinstance(value, (int, float)) or value != value:
        return None, None
    return value * 100, (ci[0] * 100, ci[1] * 100) if ci else None


def compare_units(run, task: str) -> dict | None:
    """The scoring units of a caption task in one run: an image, scored by the mean of its
    questions' scores (1, 0, or 1/K + 0.05 for "cannot answer") and weighted by how many it has,
    since the task's score is over questions; read from the reader's answers beside the samples.
    None where the run has no reader log (a run scored before the log, or no reader)."""
    rows = run.side.get("reader", {}).get(task)
    if not rows:
        return None
    sums: dict[str, float] = {}
    counts: dict[str, float] = {}
    for row in rows:
        key = str(row["id"])
        sums[key] = sums.get(key, 0.0) + float(row.get("score") or 0.0)
        counts[key] = counts.get(key, 0.0) + 1
    return {"values": {k: sums[k] / counts[k] for k in sums}, "weights": counts, "binary": False, "metric": "score"}


def item_images(task: str, keys: list[str]) -> dict[str, list]:
    """The report's item browser: an image set's images, which CaptionQA's release embeds in its
    parquet files (the samples name no file), read from the data at hand (``CAPTIONQA_ROOT`` or the
    hub cache); {} where the data is not at hand."""
    from lmms_comparative.benchmarks.captionqa import data

    domain = task.rsplit("_", 1)[-1]
    try:
        split = data.load_split(data.root(), domain)
    except (DataError, OSError, ValueError, SystemExit):
        return {}
    where = {str(item): row for row, item in enumerate(split.ids)}
    return {key: [image.convert("RGB") for image in split.images(where[key])] for key in keys if key in where}


def item_questions(run: Run, task: str) -> dict[str, list[dict]] | None:
    """The reader's answers of a task, by image id (its questions' outcomes): the item browser
    scores an image by its questions' mean and lists them; None without the reader's side log."""
    rows = run.side.get("reader", {}).get(task)
    if not rows:
        return None
    out: dict[str, list[dict]] = {}
    for row in rows:
        out.setdefault(str(row.get("id")), []).append(
            {
                k: row.get(k)
                for k in ("question", "category", "letter", "answer", "score", "correct", "cannot", "failed")
                if k in row
            }
        )
    return out


def _headline(prompt: str) -> Headline:
    return Headline(
        f"table3_{prompt}",
        "overall",
        f"Overall, {prompt} prompt",
        lambda run: f"captionqa_{prompt}",
        lambda run, column: f"captionqa_{prompt}_{column}",
    )


# The first page's values: Table 3's Overall per caption prompt; a run without one shows its domains.
HEADLINES = tuple(_headline(prompt) for prompt in PROMPTS)


def part(benchmark: Benchmark) -> ReportPart:
    """The report part, made for the record (``__init__.py``'s loader hands it over), with what ``compare``
    and the item browser read of a run."""
    core = report_part(benchmark, section, summary, measure, HEADLINES, charts)
    return replace(core, compare_units=compare_units, item_images=item_images, item_questions=item_questions)
