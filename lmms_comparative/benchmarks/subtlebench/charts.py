"""VLM-SubtleBench's charts: accuracy per type beside the paper's models (Figure-style bars), and the
synthetic pairs' accuracy over their difficulty factors (heatmaps)."""

from __future__ import annotations

from pathlib import Path

from lmms_comparative.benchmarks.subtlebench.columns import SUBTLEBENCH_REFERENCE, SUBTLEBENCH_TYPES, TABLE2_TASKS
from lmms_comparative.data import untrusted
from lmms_comparative.record import Benchmark
from lmms_comparative.reportlib.charts import CHANCE_COLOUR, HUMAN_COLOUR, model_colours
from lmms_comparative.reportlib.marks import CHART_NOTE, chart_label
from lmms_comparative.reportlib.runs import ReportError, Run


def subtlebench_chart(benchmark: Benchmark, runs: list[Run], path: Path) -> Path | None:
    """Saves ``subtlebench_figure`` of the runs as a picture at ``path`` and returns it; None (nothing
    written) when no run has a difference type's row."""
    fig = subtlebench_figure(benchmark, runs)
    if fig is None:
        return None
    _save(fig, path, bbox_inches="tight")  # the legend beside the axes is part of the picture
    return path


def _save(fig, path: Path, **options) -> None:
    """The figure as the PNG at ``path``, never through a link or into a pipe (``untrusted.write_figure``):
    anything but a regular file there is a ``ReportError`` naming it."""
    import matplotlib.pyplot as plt

    try:
        untrusted.write_figure(path, fig, **options)
    except untrusted.Unsafe as exc:
        raise ReportError(f"{path}: {exc}") from None
    finally:
        plt.close(fig)


def subtlebench_figure(benchmark: Benchmark, runs: list[Run]):
    """Accuracy per difference type and AVG (the paper's Table 2 columns; AVG only where a run has
    it), one bar per model, the paper's human and chance marks; the legend sits beside the axes, over
    no bar. A run not on the release's items is labelled so (``†`` and what its items are), and the
    title says that its bars are not comparable with the paper's marks."""
    runs = [r for r in runs if any(r.row(f"subtlebench_{k}") for k, _ in SUBTLEBENCH_TYPES)]
    if not runs:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    with_avg = any(isinstance(r.value("subtlebench", "accuracy"), (int, float)) for r in runs)
    labels = [label for _, label in SUBTLEBENCH_TYPES] + (["AVG"] if with_avg else [])
    x = np.arange(len(labels), dtype=float)
    if with_avg:
        x[-1] += 0.5  # AVG set apart from the ten types
    width = 0.8 / len(runs)
    fig, ax = plt.subplots(figsize=(12 + 0.1 * max(0, len(runs) - 4), 4.8), dpi=110)
    names = [chart_label(run, benchmark, TABLE2_TASKS) for run in runs]
    for i, (run, name, colour) in enumerate(zip(runs, names, model_colours(len(runs)))):
        values = [run.value(f"subtlebench_{k}", "accuracy") for k, _ in SUBTLEBENCH_TYPES] + (
            [run.value("subtlebench", "accuracy")] if with_avg else []
        )
        ax.bar(
            x - 0.4 + width * (i + 0.5),
            [v * 100 if isinstance(v, (int, float)) else np.nan for v in values],
            width,
            label=name,
            color=colour,
        )
    for name, colour in (("Human Eval (paper)", HUMAN_COLOUR), ("Random Guess (paper)", CHANCE_COLOUR)):
        ax.scatter(
            x,
            SUBTLEBENCH_REFERENCE[name][: len(labels)],
            label=name,
            zorder=3,
            color=colour,
            marker="_",
            s=420,
            linewidths=2.5,
        )
    # The runs' own chance (their items' option counts): the paper's Random Guess is over the
    # paper's items, and a run on other items (the synthetic ones) has its own level.
    drawn: list[list] = []
    for run in runs:
        chance = [run.value(f"subtlebench_{k}", "chance") for k, _ in SUBTLEBENCH_TYPES] + (
            [run.value("subtlebench", "chance")] if with_avg else []
        )
        if any(c is not None for c in chance) and chance not in drawn:
            label = "chance on the run's items" if len(runs) == 1 or not drawn else f"chance on {run.name}'s items"
            # The chance colour, as a triangle: a line of its own would read as the human mark.
            ax.scatter(
                x,
                [c * 100 if c is not None else np.nan for c in chance],
                label=label,
                zorder=4,
                color=CHANCE_COLOUR,
                marker="v",
                s=55,
                edgecolors="white",
                linewidths=0.6,
            )
            drawn.append(chance)
    if with_avg:
        ax.axvline((x[-2] + x[-1]) / 2, color="0.6", linewidth=0.8)
    ax.set_xticks(x, labels)
    ax.set_ylim(0, 100)
    ax.set_ylabel("accuracy (%)")
    title = "VLM-SubtleBench accuracy by difference type" + (" (AVG: all items)" if with_avg else "")
    if any(name != run.name for name, run in zip(names, runs)):
        title += f"\n{CHART_NOTE}"
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    return fig


# The two difficulty factors each synthetic type is drawn over (paper §4.4 / Figure 5: object size
# and the size of the change), as the generator records them in generation_info.
HEATMAP_FACTORS = {
    "attribute": ("amount", "object_size"),
    "existence": ("n_shapes", "object_size"),
    "quantity": ("n_shapes", "object_size"),
    "viewpoint": ("amount", "n_shapes"),
    "spatial": ("amount", "object_size"),
}


def difficulty_grid(items: list[dict], x: str, y: str, bins: int = 3):
    """Accuracy over a grid of two factors, each cut at its quantiles: (x edges, y edges,
    accuracy matrix [y, x] with NaN for empty cells, counts matrix)."""
    import numpy as np

    items = [
        it
        for it in items
        if it.get("correct") is not None
        and isinstance(it["factors"].get(x), (int, float))
        and isinstance(it["factors"].get(y), (int, float))
    ]
    if len(items) < 4:
        return None
    xs = np.array([it["factors"][x] for it in items], dtype=float)
    ys = np.array([it["factors"][y] for it in items], dtype=float)
    correct = np.array([it["correct"] for it in items], dtype=float)

    def edges(values):  # quantile cuts; a factor the sweep held fixed is one bin
        cuts = np.unique(np.quantile(values, np.linspace(0, 1, bins + 1)))
        return cuts if len(cuts) > 1 else np.array([cuts[0], cuts[0]])

    x_edges, y_edges = edges(xs), edges(ys)
    xi = np.clip(np.searchsorted(x_edges, xs, side="right") - 1, 0, len(x_edges) - 2)
    yi = np.clip(np.searchsorted(y_edges, ys, side="right") - 1, 0, len(y_edges) - 2)
    counts = np.zeros((len(y_edges) - 1, len(x_edges) - 1))
    hits = np.zeros_like(counts)
    np.add.at(counts, (yi, xi), 1)
    np.add.at(hits, (yi, xi), correct)
    with np.errstate(invalid="ignore"):
        return x_edges, y_edges, hits / counts, counts


# How a heatmap's axes name the generator's factors (generation_info's keys).
FACTOR_NAMES = {"amount": "size of the change", "object_size": "object size (px)", "n_shapes": "number of shapes"}


def _bins(edges) -> list[str]:
    """A heatmap axis's tick labels: each bin's range, or its one value where the sweep held the factor fixed."""
    return [f"{a:.3g}" if f"{a:.3g}" == f"{b:.3g}" else f"{a:.3g}–{b:.3g}" for a, b in zip(edges[:-1], edges[1:])]


def synthetic_heatmaps(runs: list[Run], path: Path) -> Path | None:
    """Saves ``heatmap_figure`` of the runs at ``path`` and returns it; None (nothing written) without
    synthetic runs."""
    fig = heatmap_figure(runs)
    if fig is None:
        return None
    _save(fig, path)
    return path


def heatmap_figure(runs: list[Run]):
    """Accuracy of each model over two difficulty factors of each synthetic type (runs on data from
    ``lmms-comparative synthetic``, whose samples carry the factors), at a size read at the page's
    width: each cell's accuracy and count, each axis's bins and the factor's name."""
    panels = []
    for run in runs:
        for key, _ in SUBTLEBENCH_TYPES:
            items = [
                s["accuracy"]
                for s in run.samples.get(f"subtlebench_{key}", [])
                if isinstance(s.get("accuracy"), dict) and s["accuracy"].get("factors")
            ]
            by_type: dict[str, list] = {}
            for it in items:
                by_type.setdefault(it["category"], []).append(it)
            for category, group in by_type.items():
                numeric = [k for k, v in group[0]["factors"].items() if isinstance(v, (int, float))]
                x, y = HEATMAP_FACTORS.get(category) or (numeric + [None, None])[:2]
                grid = difficulty_grid(group, x, y) if x and y else None
                if grid:
                    panels.append((run.name, category, x, y, grid))
    if not panels:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    names = list(dict.fromkeys(p[0] for p in panels))
    categories = list(dict.fromkeys(p[1] for p in panels))
    # A row per type, a column per run: as wide as the runs, so that a page shows it at its own size.
    fig, axes = plt.subplots(
        len(categories), len(names), figsize=(4.4 * len(names), 3.6 * len(categories)), dpi=90, squeeze=False
    )
    for ax in axes.flat:
        ax.axis("off")
    cmap = matplotlib.colormaps["RdYlGn"].copy()
    cmap.set_bad("lightgray")
    for name, category, x, y, (x_edges, y_edges, acc, counts) in panels:
        ax = axes[categories.index(category)][names.index(name)]
        ax.axis("on")
        ax.imshow(np.ma.masked_invalid(acc * 100), cmap=cmap, vmin=0, vmax=100, origin="lower", aspect="auto")
        for (row, col), n in np.ndenumerate(counts):
            text = f"{acc[row, col] * 100:.0f}%\nn={int(n)}" if n else "-"
            ax.text(col, row, text, ha="center", va="center", fontsize=11)
        ax.set_xticks(range(len(x_edges) - 1), _bins(x_edges), fontsize=10)
        ax.set_yticks(range(len(y_edges) - 1), _bins(y_edges), fontsize=10)
        ax.set_xlabel(FACTOR_NAMES.get(x, x), fontsize=11)
        ax.set_ylabel(FACTOR_NAMES.get(y, y), fontsize=11)
        ax.set_title(f"{name}: {category}", fontsize=12)
    fig.suptitle("Synthetic SubtleBench: accuracy by difficulty factor\n(each factor cut at its tertiles)", fontsize=13)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.75 / fig.get_figheight()))  # the two title lines above the first row's titles
    return fig
