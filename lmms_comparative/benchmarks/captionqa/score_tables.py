"""CaptionQA's score tables in the report: Table 3 (Overall and domains per prompt), the
caption-vs-image gap (Table 4), score / accuracy / cannot per domain (Tables 11-26), QA on the image,
and from the reader's log its stability (§3.5) and the questions' difficulty (Table 10)."""

from __future__ import annotations

import hashlib
import json

from lmms_comparative.benchmarks.captionqa.scoring import difficulty, reader_stability
from lmms_comparative.benchmarks.captionqa.table import PROMPTS  # the caption prompts, Table 3's row groups
from lmms_comparative.record import Benchmark
from lmms_comparative.reportlib.cells import captioned, cell, interval_note, table, unscored_notes
from lmms_comparative.reportlib.marks import Marks, with_skips
from lmms_comparative.reportlib.runs import Run

CAPTIONQA_DOMAINS = [
    ("natural", "Natural"),
    ("document", "Document"),
    ("ecommerce", "E-commerce"),
    ("embodiedai", "Embodied AI"),
]


def section(benchmark: Benchmark, runs: list[Run]) -> str | None:
    runs = [
        r
        for r in runs
        if any(r.row(f"captionqa_{p}_{d}") for p in PROMPTS for d, _ in CAPTIONQA_DOMAINS)
        or r.row("captionqa_image_natural")
    ]
    if not runs:
        return None
    rows = []
    marks = Marks(benchmark)
    for run in runs:
        for prompt in PROMPTS:
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
        "± the half-width of a 95% bootstrap interval (images resampled with their questions; Overall: a normal "
        "interval from the domains' standard errors, clipped to 0-100).",
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
    gap_marks = Marks(benchmark)
    for run in runs:
        image = [run.value(f"captionqa_image_{d}", "accuracy") for d, _ in CAPTIONQA_DOMAINS]
        if not any(isinstance(v, float) for v in image):
            continue
        for prompt in PROMPTS:
            caption = [run.value(f"captionqa_{prompt}_{d}", "accuracy") for d, _ in CAPTIONQA_DOMAINS]
            if any(isinstance(v, float) for v in caption):
                gaps = [
                    (i - c) if isinstance(i, float) and isinstance(c, float) else None for i, c in zip(image, caption)
                ]
                tasks = [f"captionqa_{kind}_{d}" for kind in ("image", prompt) for d, _ in CAPTIONQA_DOMAINS]
                gap_rows.append(
                    [gap_marks.name(run, [t for t in tasks if run.row(t)]), prompt] + [cell(g) for g in gaps]
                )
    out += captioned(
        "Caption-vs-image utility gap: QA-on-image accuracy minus QA-on-caption accuracy (points; paper Table 4).",
        ["Model", "Prompt"] + [label for _, label in CAPTIONQA_DOMAINS],
        gap_rows,
        key="captionqa_gap",
        title="CaptionQA: caption-vs-image gap (Table 4)",
        marks=gap_marks,
    )
    detail_marks, image_marks = Marks(benchmark), Marks(benchmark)
    detail = [
        [
            detail_marks.name(run, [task]),
            prompt,
            label,
            with_skips(cell(run.value(task, "score")), run, [task]),
            cell(run.value(task, "accuracy")),
            cell(run.value(task, "cannot_rate")),
        ]
        for run in runs
        for prompt in PROMPTS
        for d, label in CAPTIONQA_DOMAINS
        if run.row(task := f"captionqa_{prompt}_{d}")
    ]
    out += captioned(
        'Score, accuracy and the share of "cannot answer from the caption" (%), per prompt and domain (the '
        "paper's per-model Tables 11-26).",
        ["Model", "Prompt", "Domain", "Score", "Acc", "Cannot"],
        detail,
        key="captionqa_detail",
        title="CaptionQA: score, accuracy, cannot (Tables 11-26)",
        marks=detail_marks,
    )
    image = [
        [image_marks.name(run, [task]), label, with_skips(cell(run.value(task, "accuracy")), run, [task])]
        for run in runs
        for d, label in CAPTIONQA_DOMAINS
        if run.row(task := f"captionqa_image_{d}")
    ]
    out += captioned(
        "QA on the image itself (`captionqa_image`): accuracy (%).",
        ["Model", "Domain", "Accuracy"],
        image,
        key="captionqa_image",
        title="CaptionQA: QA on the image",
        marks=image_marks,
    )
    out += _reader_tables(runs)
    out += unscored_notes(runs, benchmark.name)
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
            if prompt and domain and rows:
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
    out += captioned(
        "Reader stability (paper §3.5: the same captions read several times; the standard deviation of the "
        "reader's accuracy over the reads, in points, "
        "over the questions every read answered; and the share of those answered with the same letter every time). "
        "Captions and reader as in the run named.",
        ["Captions of", "Prompt", "Domain", "Reader", "Reads", "Questions", "Mean acc", "Std", "Same letter"],
        stable,
        key="captionqa_reader_stability",
        title="CaptionQA: reader stability (§3.5)",
    )
    rows = []
    for prompt in PROMPTS:
        for domain, label in CAPTIONQA_DOMAINS:
            # One read per caption pool: the captions of each model (several reads of one pool are one model).
            pools: dict[str, list[dict]] = {}
            for (p, d, pool, _reader), found in reads.items():
                if p == prompt and d == domain:
                    pools.setdefault(pool, found[0][1])
            if len(pools) > 1:
                shares = difficulty(list(pools.values()))
                rows.append(
                    [
                        prompt,
                        label,
                        cell(shares["easy"]),
                        cell(shares["medium"]),
                        cell(shares["hard"]),
                        str(shares["questions"]),
                        str(shares["models"]),
                    ]
                )
                paper = PAPER_TABLE10[domain]
                rows.append(
                    ["paper", label, f"{paper[0]:.1f}", f"{paper[1]:.1f}", f"{paper[2]:.1f}", str(paper[3]), "24"]
                )
    out += captioned(
        "Question difficulty (paper §17.1, Table 10): the share of the runs' models whose captions let the reader "
        "answer a question correctly; "
        "Easy >= 80%, Medium 50-80%, Hard < 50%; % of questions. The paper's rows: 24 models on the private full "
        "set.",
        ["Prompt", "Domain", "Easy", "Medium", "Hard", "Questions", "Models"],
        rows,
        key="captionqa_difficulty",
        title="CaptionQA: question difficulty (Table 10)",
    )
    return out
