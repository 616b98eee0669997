"""CaptionQA in the report: Table 3 (Overall and domains per prompt), the caption-vs-image gap, the run summary, radar charts."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from lmms_comparative.benchmarks.captionqa.facts import FACTS as BENCHMARK
from lmms_comparative.benchmarks.captionqa.scoring import difficulty, reader_stability
from lmms_comparative.data import untrusted
from lmms_comparative.failures import DataError
from lmms_comparative.record import Headline, ReportPart
from lmms_comparative.reportlib.cells import NO_CI95, cell, interval_note, table, text_table, unscored_notes
from lmms_comparative.reportlib.charts import model_colours
from lmms_comparative.reportlib.marks import CHART_NOTE, Marks, chart_label, with_skips
from lmms_comparative.reportlib.runs import ReportError, Run

CAPTIONQA_DOMAINS = [
    ("natural", "Natural"),
    ("document", "Document"),
    ("ecommerce", "E-commerce"),
    ("embodiedai", "Embodied AI"),
]


def section(runs: list[Run]) -> str | None:
    prompts = ["simple", "short", "long", "taxonomy"]
    runs = [
        r
        for r in runs
        if any(r.row(f"captionqa_{p}_{d}") for p in prompts for d, _ in CAPTIONQA_DOMAINS)
        or r.row("captionqa_image_natural")
    ]
    if not runs:
        return None
    rows = []
    marks = Marks(BENCHMARK)
    for run in runs:
        for prompt in prompts:
            if not any(run.row(f"captionqa_{prompt}_{d}") for d, _ in CAPTIONQA_DOMAINS):
                continue
            group = f"captionqa_{prompt}"
            tasks = [f"{group}_{d}" for d, _ in CAPTIONQA_DOMAINS]
            domains = [with_skips(cell(run.value(t, "score"), run.ci(t, "score")), run, [t]) for t in tasks]
            rows.append(
                [
                    marks.name(run, [t for t in tasks if run.row(t)]),
                    prompt,
                    with_skips(cell(run.value(group, "score"), run.ci(group, "score")), run, [group]),
                ]
                + domains
            )
    note = interval_note(
        rows,
        "± the half-width of a 95% bootstrap interval (images resampled with their questions; Overall: a normal interval from the domains' standard errors, clipped to 0-100).",
        NO_CI95,
    )
    out = [
        "## CaptionQA",
        "",
        "The public hub set is the authors' validation set; the paper's tables score their private full set.",
        "",
    ]
    if rows:
        out += [
            f"Score (%) per domain and Overall (their unweighted mean), paper Table 3. {note}",
            "",
            table(
                ["Model", "Prompt", "Overall"] + [label for _, label in CAPTIONQA_DOMAINS],
                rows,
                key="captionqa_table3",
                title="CaptionQA: score per prompt and domain (Table 3)",
                marks=marks,
            ),
        ]
    gap_rows = []
    gap_marks = Marks(BENCHMARK)
    for run in runs:
        image = [run.value(f"captionqa_image_{d}", "accuracy") for d, _ in CAPTIONQA_DOMAINS]
        if not any(isinstance(v, float) for v in image):
            continue
        for prompt in prompts:
            caption = [run.value(f"captionqa_{prompt}_{d}", "accuracy") for d, _ in CAPTIONQA_DOMAINS]
            if any(isinstance(v, float) for v in caption):
                gaps = [
                    (i - c) if isinstance(i, float) and isinstance(c, float) else None for i, c in zip(image, caption)
                ]
                tasks = [f"captionqa_{kind}_{d}" for kind in ("image", prompt) for d, _ in CAPTIONQA_DOMAINS]
                gap_rows.append(
                    [gap_marks.name(run, [t for t in tasks if run.row(t)]), prompt] + [cell(g) for g in gaps]
                )
    if gap_rows:
        out += [
            "",
            "Caption-vs-image utility gap: QA-on-image accuracy minus QA-on-caption accuracy (points; paper Table 4).",
            "",
            table(
                ["Model", "Prompt"] + [label for _, label in CAPTIONQA_DOMAINS],
                gap_rows,
                key="captionqa_gap",
                title="CaptionQA: caption-vs-image gap (Table 4)",
                marks=gap_marks,
            ),
        ]
    detail_marks = Marks(BENCHMARK)
    detail = [
        [
            detail_marks.name(run, [f"captionqa_{prompt}_{d}"]),
            prompt,
            label,
            with_skips(cell(run.value(f"captionqa_{prompt}_{d}", "score")), run, [f"captionqa_{prompt}_{d}"]),
            cell(run.value(f"captionqa_{prompt}_{d}", "accuracy")),
            cell(run.value(f"captionqa_{prompt}_{d}", "cannot_rate")),
        ]
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
            table(
                ["Model", "Prompt", "Domain", "Score", "Acc", "Cannot"],
                detail,
                key="captionqa_detail",
                title="CaptionQA: score, accuracy, cannot (Tables 11-26)",
                marks=detail_marks,
            ),
        ]
    image_marks = Marks(BENCHMARK)
    image = [
        [
            image_marks.name(run, [f"captionqa_image_{d}"]),
            label,
            with_skips(cell(run.value(f"captionqa_image_{d}", "accuracy")), run, [f"captionqa_image_{d}"]),
        ]
        for run in runs
        for d, label in CAPTIONQA_DOMAINS
        if run.row(f"captionqa_image_{d}")
    ]
    if image:
        out += [
            "",
            "QA on the image itself (`captionqa_image`): accuracy (%).",
            "",
            table(
                ["Model", "Domain", "Accuracy"],
                image,
                key="captionqa_image",
                title="CaptionQA: QA on the image",
                marks=image_marks,
            ),
        ]
    out += _reader_tables(runs)
    out += unscored_notes(runs, "captionqa")
    return "\n".join(out)


# Paper Table 10 (§17.1): share of questions per difficulty (24 models, the private full set).
PAPER_TABLE10 = {
    "natural": (47.5, 27.2, 25.2, 10445),
    "document": (42.3, 37.6, 20.1, 7417),
    "ecommerce": (63.6, 25.5, 10.9, 5884),
    "embodiedai": (34.7, 33.6, 31.7, 9273),
}


def _caption_pool(run: Run, task: str) -> str:
    """A fingerprint of the captions a task's reader read (from the samples log)."""
    captions = {
        s["score"]["id"]: s["score"].get("caption", "")
        for s in run.samples.get(task, [])
        if isinstance(s.get("score"), dict) and "id" in s["score"]
    }
    return hashlib.sha256(json.dumps(captions, sort_keys=True).encode()).hexdigest()[:12] if captions else ""


def _reads(runs: list[Run]) -> dict[tuple[str, str, str, str], list[tuple[Run, list[dict]]]]:
    """Reader logs by (prompt, domain, caption pool, reader): the reads of one caption pool."""
    out: dict[tuple[str, str, str, str], list[tuple[Run, list[dict]]]] = {}
    for run in runs:
        for task, rows in run.side.get("reader", {}).items():
            prompt, domain = next(
                ((p, d) for p in PROMPTS for d, _ in CAPTIONQA_DOMAINS if task == f"captionqa_{p}_{d}"), (None, None)
            )
            if prompt and rows:
                out.setdefault((prompt, domain, _caption_pool(run, task), str(rows[0].get("reader", ""))), []).append(
                    (run, rows)
                )
    return out


def _reader_tables(runs: list[Run]) -> list[str]:
    reads = _reads(runs)
    out = []
    labels = dict(CAPTIONQA_DOMAINS)
    stable = []
    for (prompt, domain, _pool, reader), found in reads.items():
        if len(found) > 1:
            check = reader_stability([rows for _, rows in found])
            stable.append(
                [
                    found[0][0].name,
                    prompt,
                    labels[domain],
                    reader,
                    str(check["reads"]),
                    str(check["questions"]),
                    cell(check["mean"]),
                    cell(check["std"], digits=2),
                    cell(check["identical"]),
                ]
            )
    if stable:
        out += [
            "",
            "Reader stability (paper §3.5: the same captions read several times; the standard deviation of the reader's accuracy over the reads, in points, "
            "over the questions every read answered; and the share of those answered with the same letter every time). Captions and reader as in the run named.",
            "",
            table(
                ["Captions of", "Prompt", "Domain", "Reader", "Reads", "Questions", "Mean acc", "Std", "Same letter"],
                stable,
                key="captionqa_reader_stability",
                title="CaptionQA: reader stability (§3.5)",
            ),
        ]
    rows = []
    for prompt in PROMPTS:
        for domain, label in CAPTIONQA_DOMAINS:
            # One read per caption pool: the captions of each model (several reads of one pool are one model).
            pools = {}
            for (p, d, pool, _reader), found in reads.items():
                if p == prompt and d == domain:
                    pools.setdefault(pool, found[0][1])
            if len(pools) > 1:
                found = difficulty(list(pools.values()))
                rows.append(
                    [
                        prompt,
                        label,
                        cell(found["easy"]),
                        cell(found["medium"]),
                        cell(found["hard"]),
                        str(found["questions"]),
                        str(found["models"]),
                    ]
                )
                paper = PAPER_TABLE10[domain]
                rows.append(
                    ["paper", label, f"{paper[0]:.1f}", f"{paper[1]:.1f}", f"{paper[2]:.1f}", str(paper[3]), "24"]
                )
    if rows:
        out += [
            "",
            "Question difficulty (paper §17.1, Table 10): the share of the runs' models whose captions let the reader answer a question correctly; "
            "Easy >= 80%, Medium 50-80%, Hard < 50%; % of questions. The paper's rows: 24 models on the private full set.",
            "",
            table(
                ["Prompt", "Domain", "Easy", "Medium", "Hard", "Questions", "Models"],
                rows,
                key="captionqa_difficulty",
                title="CaptionQA: question difficulty (Table 10)",
            ),
        ]
    return out


def summary(run: Run) -> list[str]:
    rows = []
    for prompt in ("simple", "short", "long", "taxonomy"):
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


def captionqa_radar(runs: list[Run], prompt: str, domain: str, path: Path) -> Path | None:
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
            label=chart_label(run, BENCHMARK, [task]),
            color=colour,
        )
        ax.fill(angles + angles[:1], values + values[:1], alpha=0.15, color=colour)
    ax.set_xticks(angles, [c.replace(" ", "\n", 1) for c in categories], fontsize=7)
    ax.set_ylim(0, 100)
    marked = any(chart_label(run, BENCHMARK, [task]) != run.name for run in runs)
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


PROMPTS = ("simple", "short", "long", "taxonomy")


def charts(runs: list[Run], out: Path) -> list[Path]:
    found = [
        captionqa_radar(runs, prompt, domain, out / f"captionqa_{prompt}_{domain}_radar.png")
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
HEADLINES = tuple(_headline(prompt) for prompt in ("simple", "short", "long", "taxonomy"))

PART = ReportPart(
    headlines=HEADLINES,
    item_questions=item_questions,
    section=section,
    summary=summary,
    charts=charts,
    measure=measure,
    compare_units=compare_units,
    item_images=item_images,
)
