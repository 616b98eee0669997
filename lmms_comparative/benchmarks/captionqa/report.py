"""CaptionQA in the report: Table 3 (Overall and domains per prompt), the caption-vs-image gap, the run summary, radar charts."""

from __future__ import annotations

from pathlib import Path

from lmms_comparative.report.cells import NO_CI95, cell, interval_note, table, text_table, unscored_notes
from lmms_comparative.report.charts import model_colours
from lmms_comparative.report.runs import Run

CAPTIONQA_DOMAINS = [("natural", "Natural"), ("document", "Document"), ("ecommerce", "E-commerce"), ("embodiedai", "Embodied AI")]


def section(runs: list[Run]) -> str | None:
    prompts = ["simple", "short", "long", "taxonomy"]
    runs = [r for r in runs if any(r.row(f"captionqa_{p}_{d}") for p in prompts for d, _ in CAPTIONQA_DOMAINS) or r.row("captionqa_image_natural")]
    if not runs:
        return None
    rows = []
    for run in runs:
        for prompt in prompts:
            if not any(run.row(f"captionqa_{prompt}_{d}") for d, _ in CAPTIONQA_DOMAINS):
                continue
            group = f"captionqa_{prompt}"
            domains = [cell(run.value(f"{group}_{d}", "score"), run.ci(f"{group}_{d}", "score")) for d, _ in CAPTIONQA_DOMAINS]
            rows.append([run.name, prompt, cell(run.value(group, "score"), run.ci(group, "score"))] + domains)
    note = interval_note(rows, "± the half-width of a 95% bootstrap interval (images resampled with their questions; Overall: a normal interval from the domains' standard errors, clipped to 0-100).", NO_CI95)
    out = ["## CaptionQA", "", "The public hub set is the authors' validation set; the paper's tables score their private full set.", ""]
    if rows:
        out += [
            f"Score (%) per domain and Overall (their unweighted mean), paper Table 3. {note}",
            "",
            table(["Model", "Prompt", "Overall"] + [label for _, label in CAPTIONQA_DOMAINS], rows, key="captionqa_table3", title="CaptionQA: score per prompt and domain (Table 3)"),
        ]
    gap_rows = []
    for run in runs:
        image = [run.value(f"captionqa_image_{d}", "accuracy") for d, _ in CAPTIONQA_DOMAINS]
        if not any(isinstance(v, float) for v in image):
            continue
        for prompt in prompts:
            caption = [run.value(f"captionqa_{prompt}_{d}", "accuracy") for d, _ in CAPTIONQA_DOMAINS]
            if any(isinstance(v, float) for v in caption):
                gaps = [(i - c) if isinstance(i, float) and isinstance(c, float) else None for i, c in zip(image, caption)]
                gap_rows.append([run.name, prompt] + [cell(g) for g in gaps])
    if gap_rows:
        out += [
            "",
            "Caption-vs-image utility gap: QA-on-image accuracy minus QA-on-caption accuracy (points; paper Table 4).",
            "",
            table(["Model", "Prompt"] + [label for _, label in CAPTIONQA_DOMAINS], gap_rows, key="captionqa_gap", title="CaptionQA: caption-vs-image gap (Table 4)"),
        ]
    detail = [
        [run.name, prompt, label, cell(run.value(f"captionqa_{prompt}_{d}", "score")), cell(run.value(f"captionqa_{prompt}_{d}", "accuracy")), cell(run.value(f"captionqa_{prompt}_{d}", "cannot_rate"))]
        for run in runs
        for prompt in prompts
        for d, label in CAPTIONQA_DOMAINS
        if run.row(f"captionqa_{prompt}_{d}")
    ]
    if detail:
        out += [
            "",
            'Score, accuracy and the share of "cannot answer from the caption" (%), per prompt and domain (the paper\'s per-model Tables 11-26).',
            "",
            table(["Model", "Prompt", "Domain", "Score", "Acc", "Cannot"], detail, key="captionqa_detail", title="CaptionQA: score, accuracy, cannot (Tables 11-26)"),
        ]
    image = [[run.name, label, cell(run.value(f"captionqa_image_{d}", "accuracy"))] for run in runs for d, label in CAPTIONQA_DOMAINS if run.row(f"captionqa_image_{d}")]
    if image:
        out += ["", "QA on the image itself (`captionqa_image`): accuracy (%).", "", table(["Model", "Domain", "Accuracy"], image, key="captionqa_image", title="CaptionQA: QA on the image")]
    out += unscored_notes(runs, "captionqa")
    return "\n".join(out)


def summary(run: Run) -> list[str]:
    rows = []
    for prompt in ("simple", "short", "long", "taxonomy"):
        group = f"captionqa_{prompt}"
        if any(run.row(f"{group}_{d}") for d, _ in CAPTIONQA_DOMAINS):
            rows.append([group + " score", cell(run.value(group, "score"))] + [cell(run.value(f"{group}_{d}", "score")) for d, _ in CAPTIONQA_DOMAINS])
    if any(run.row(f"captionqa_image_{d}") for d, _ in CAPTIONQA_DOMAINS):
        rows.append(["captionqa_image accuracy", cell(run.value("captionqa_image", "accuracy"))] + [cell(run.value(f"captionqa_image_{d}", "accuracy")) for d, _ in CAPTIONQA_DOMAINS])
    if not rows:
        return []
    return ["CaptionQA: Overall and per domain (%) (paper Table 3)"] + text_table(["task", "Overall"] + [label for _, label in CAPTIONQA_DOMAINS], rows)


def captionqa_radar(runs: list[Run], prompt: str, domain: str, path: Path) -> Path | None:
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
        ax.plot(angles + angles[:1], values + values[:1], linewidth=2, label=run.name, color=colour)
        ax.fill(angles + angles[:1], values + values[:1], alpha=0.15, color=colour)
    ax.set_xticks(angles, [c.replace(" ", "\n", 1) for c in categories], fontsize=7)
    ax.set_ylim(0, 100)
    ax.set_title(f"CaptionQA {domain} ({prompt} prompt): score by category")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.08, 1.0))  # beside the plot, over no line
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


PROMPTS = ("simple", "short", "long", "taxonomy")


def charts(runs: list[Run], out: Path) -> list[Path]:
    found = [captionqa_radar(runs, prompt, domain, out / f"captionqa_{prompt}_{domain}_radar.png") for prompt in PROMPTS for domain, _ in CAPTIONQA_DOMAINS]
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
