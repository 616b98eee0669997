"""One contract test per patch of lmms-eval (lmms_comparative/harness): each patch's check holds
against the installed lmms-eval, and the patch does its job on lmms-eval's own objects, in-process.
A new lmms-eval that breaks a patch fails the test named after it, not an end-to-end run."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from lmms_comparative import harness, yaml_dir


def test_every_patch_is_in_the_table_and_checked():
    assert set(harness.checks()) == set(harness.PATCHES)
    for name in harness.PATCHES:
        assert f"\n{name} " in harness.__doc__, f"{name} missing from the patch table"


def _comparable(value):
    """A read YAML config with its ``!function`` values made comparable: a node (simple mode) by
    its tag and text, a function (full mode) by where it is defined."""
    import yaml

    if isinstance(value, dict):
        return {k: _comparable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_comparable(v) for v in value]
    if isinstance(value, yaml.Node):
        return ("node", value.tag, value.value)
    if callable(value):
        function = getattr(value, "func", value)  # a functools.partial: its function and arguments
        bound = [repr(a) for a in getattr(value, "args", ())]
        return (
            "function",
            function.__module__,
            function.__qualname__,
            getattr(getattr(function, "__code__", None), "co_filename", None),
            bound,
        )
    return value


def test_our_yamls_read_with_libyaml_give_what_lmms_evals_reader_gives():
    from pathlib import Path

    from lmms_eval import utils

    from lmms_comparative.harness import task_path

    assert task_path._yaml_reader_check() is None
    task_path.install()
    assert task_path._read_ours_with_libyaml()
    ours = utils.load_yaml_config
    theirs = ours.__wrapped__
    files = sorted(Path(yaml_dir()).glob("*/yaml/**/*.yaml"))
    assert len(files) > 200
    for path in files:  # the index's reads, every file
        assert _comparable(ours(str(path), mode="simple")) == _comparable(theirs(str(path), mode="simple")), path
    for path in {f.parent.parent.name: f for f in files}.values():  # a task's full read, one per benchmark
        assert _comparable(ours(str(path), mode="full")) == _comparable(theirs(str(path), mode="full")), path
    elsewhere = Path(utils.__file__).parent / "tasks" / "mme" / "mme.yaml"  # lmms-eval's own: its reader
    if elsewhere.exists():
        assert _comparable(ours(str(elsewhere), mode="simple")) == _comparable(theirs(str(elsewhere), mode="simple"))


@pytest.mark.slow  # lmms-eval's whole task index, in-process
def test_task_path_patch_indexes_our_tasks_and_records_the_model():
    from lmms_eval.tasks import TaskManager

    from lmms_comparative.harness import task_path
    from lmms_comparative.tasklib import host

    assert task_path.check() is None
    assert task_path.install()
    manager = TaskManager()
    manager.model_name = "random_choice"
    manager.initialize_tasks()
    assert {"subtlebench_at", "captionqa_simple", "vlm2bench", "compbench", "vidi_granular"} <= set(manager.all_tasks)
    assert host.run_model() == "random_choice"
    assert task_path._with_our_path(["/elsewhere"]) == ["/elsewhere", yaml_dir()]


def test_fewshot_patch_stops_num_fewshot_on_our_tasks_only():
    from lmms_eval.api.task import ConfigurableTask

    from lmms_comparative.benchmarks.subtlebench import hooks as subtlebench
    from lmms_comparative.benchmarks.vidi import hooks as vidi
    from lmms_comparative.harness import fewshot

    assert fewshot.check() is None
    assert fewshot.install()
    task = SimpleNamespace(
        config=SimpleNamespace(
            task="subtlebench_at", doc_to_text=subtlebench.doc_to_text, process_results=subtlebench.process_results
        )
    )
    # A SystemExit (failures.stop_run), which lmms-eval's CLI does not catch: one line, no traceback.
    with pytest.raises(SystemExit, match="^lmms-comparative: subtlebench_at: VLM-SubtleBench's protocol is zero-shot"):
        ConfigurableTask.set_config(task, "num_fewshot", 2)
    task.config = SimpleNamespace(task="vidi_granular", doc_to_text=vidi.doc_to_text, process_results=None)
    with pytest.raises(SystemExit, match="run --tasks vidi_fewshot"):
        ConfigurableTask.set_config(task, "num_fewshot", 1)
    # Not ours: passed to lmms-eval's own set_config.
    other = SimpleNamespace(config=SimpleNamespace(task="mme", doc_to_text=str, process_results=None, num_fewshot=0))
    other._config = other.config
    try:
        ConfigurableTask.set_config(other, "num_fewshot", 1)
    except SystemExit:  # pragma: no cover - the assertion below names the failure
        pytest.fail("an upstream task was stopped by our few-shot guard")
    except Exception:  # lmms-eval's own set_config on a stand-in object: whatever it does is its own
        pass


def test_exit_status_patch_finds_what_it_listens_for_and_leaves_other_processes_alone():
    from lmms_comparative.harness import exit_status

    assert exit_status.check() is None
    assert not exit_status._started_as_lmms_eval_cli()  # pytest keeps its own exit status
    exit_status.install_exit_status()
    assert not exit_status._installed


def test_table_patch_prints_our_dict_cells_on_one_line():
    import lmms_eval.utils as utils

    from lmms_comparative.harness import table

    assert table.check() is None
    assert table.install()
    breakdown = {f"source{i:02d}": {"accuracy": 0.5, "n": 4} for i in range(30)}
    result = {
        "results": {"compbench_attribute_cub": {"alias": "compbench_attribute_cub", "by_source,none": breakdown}},
        "versions": {"compbench_attribute_cub": 1},
        "n-shot": {"compbench_attribute_cub": 0},
        "higher_is_better": {"compbench_attribute_cub": {"by_source": True}},
    }
    printed = utils.make_table(result)
    assert "source00 0.5" in printed and "more" in printed
    assert max(len(line) for line in printed.splitlines()) < 200


def test_capabilities_reads_the_model_registry():
    from lmms_comparative.tasklib import capabilities

    assert capabilities.check() is None
    classes = capabilities._model_classes("random_choice")
    assert [c.__name__ for c in classes] == ["RandomChoice"]
    assert capabilities.class_supports_video(classes[0])
    assert capabilities._model_classes("no-such-model") == []


def test_frames_a_model_samples_and_the_runs_model_args(monkeypatch):
    from lmms_comparative.tasklib import capabilities, host

    assert capabilities.frames_sampled("openai") == 10  # lmms-eval's default max_frames_num
    assert capabilities.frames_sampled("openai", {"max_frames_num": "4"}) == 4
    assert capabilities.frames_sampled("openai", {"video_fps": "1"}) is None  # samples by frame rate
    assert capabilities.frames_sampled("random_choice") is None
    monkeypatch.setattr(
        "sys.argv",
        ["lmms-eval", "--model", "openai", "--model_args", "model_version=x,max_frames_num=6", "--tasks", "t"],
    )
    assert host.run_model_args() == {"model_version": "x", "max_frames_num": 6}
    monkeypatch.setattr("sys.argv", ["lmms-eval", "--model_args=max_frames_num=8"])
    assert host.run_model_args() == {"max_frames_num": 8}
    monkeypatch.setattr("sys.argv", ["pytest"])
    assert host.run_model_args() == {}


def test_side_logs_patch_writes_a_tasks_rows_beside_its_samples_log(tmp_path):
    """What lmms-eval's tracker does after the aggregation: write a task's samples; our rows for
    that task (CaptionQA's reader answers) go beside them, named like them, once."""
    from lmms_eval.loggers.evaluation_tracker import EvaluationTracker

    from lmms_comparative.harness import save_side_logs as side_logs
    from lmms_comparative.tasklib import side_logs as rows

    assert side_logs.check() is None
    assert side_logs.install() and side_logs.install()  # idempotent
    tracker = EvaluationTracker(output_path=str(tmp_path))
    tracker.general_config_tracker.model_name_sanitized = "m"
    tracker.date_id = "20260101_000000"
    rows.add("captionqa_simple_natural", "reader", [{"id": "nat_001", "q_idx": 0, "letter": "B"}])

    def sample():
        return {
            "doc_id": 0,
            "doc": {},
            "target": "x",
            "arguments": [("prompt",)],
            "resps": [["r"]],
            "filtered_resps": ["r"],
        }

    tracker.save_results_samples("captionqa_simple_natural", [sample()])
    folder = tmp_path / "m"
    assert (folder / "20260101_000000_samples_captionqa_simple_natural.jsonl").is_file()
    assert [
        json.loads(line)
        for line in (folder / "20260101_000000_reader_captionqa_simple_natural.jsonl").read_text().splitlines()
    ] == [{"id": "nat_001", "q_idx": 0, "letter": "B"}]
    assert rows.pending("captionqa_simple_natural") == {}
    tracker.save_results_samples("other_task", [sample()])
    assert sorted(p.name for p in folder.iterdir()) == [
        "20260101_000000_reader_captionqa_simple_natural.jsonl",
        "20260101_000000_samples_captionqa_simple_natural.jsonl",
        "20260101_000000_samples_other_task.jsonl",
    ]


def test_a_failed_check_warns_once_naming_the_patch_and_what_will_not_work(monkeypatch):
    from loguru import logger

    from lmms_comparative import harness
    from lmms_comparative.harness import save_side_logs as side_logs

    lines: list[str] = []
    sink = logger.add(lambda message: lines.append(str(message).strip()), level="WARNING", format="{message}")
    try:
        from lmms_eval.loggers.evaluation_tracker import EvaluationTracker

        monkeypatch.setattr(
            EvaluationTracker, "save_results_samples", lambda self, task_name, samples: None
        )  # an lmms-eval whose method changed
        monkeypatch.setattr(side_logs, "check", lambda: "EvaluationTracker.save_results_samples takes ['self', 'name']")
        monkeypatch.setattr(harness.patch, "_warned", set())
        assert side_logs.install() is False and side_logs.install() is False
    finally:
        logger.remove(sink)
    assert lines == [
        "lmms-comparative: the side_logs patch is not installed (EvaluationTracker.save_results_samples "
        "takes ['self', 'name']; checked against lmms-eval 0.7.3): "
        "CaptionQA's reader answers are not written beside the samples log (the scores are unaffected)."
    ]
    assert set(harness.WITHOUT) == set(harness.PATCHES)


def test_item_order_patch_aggregates_our_items_in_one_order_whatever_the_ranks_gave():
    """Rank 0 gathers rank 0's items, then rank 1's; a fold over floats then depends on that order
    unless the patch sorts our task's items by item key first. Someone else's task is untouched."""
    import random

    from lmms_eval.evaluator_utils import TaskOutput

    from lmms_comparative.benchmarks.subtlebench import hooks
    from lmms_comparative.harness import item_order

    assert item_order.check() is None
    assert item_order.install()
    items = [
        {"item_id": f"spatial_{i}", "n_options": n, "correct": i % 3 == 0, "status": "ok"}
        for i, n in enumerate([2, 3, 4, 5, 7] * 20)
    ]
    seen = []

    def fold(values):  # order-sensitive on purpose: a left-to-right float sum
        seen.append([v["item_id"] for v in values])
        total = 0.0
        for v in values:
            total += 1.0 / v["n_options"]
        return total

    def output_of(name, gathered, process_docs=None):
        task = SimpleNamespace(
            config=SimpleNamespace(task=name, process_docs=process_docs),
            aggregation=lambda: {"chance": fold},
            args=None,
        )
        out = TaskOutput(task=task, task_name="t")
        out.sample_metrics[("chance", "none")] = list(gathered)
        out.calculate_aggregate_metric(bootstrap_iters=0)
        return out.agg_metrics["chance,none"]

    one = output_of("subtlebench_sp", items)
    two_ranks = items[0::2] + items[1::2]
    assert output_of("subtlebench_sp", two_ranks) == one
    shuffled = items[:]
    random.Random(0).shuffle(shuffled)
    assert output_of("subtlebench_sp", shuffled) == one
    # A team's variant of our task (its own name, our docs hook) is ours too.
    assert output_of("team_sp_greedy", shuffled, hooks.process_docs_spatial) == one
    assert seen[0] == seen[1] == seen[2] == sorted(seen[0])
    # Items that share a key (a task's repeats) are ordered by their whole content, too.
    twins = [{"item_id": "spatial_0", "correct": c, "n_options": 2, "status": "ok"} for c in (1, 0, 1)] + items[:5]
    assert (
        item_order.ordered(twins, ("item_id",))
        == item_order.ordered(twins[::-1], ("item_id",))
        == item_order.ordered(twins[2:] + twins[:2], ("item_id",))
    )
    # Not ours: lmms-eval's order, as gathered.
    output_of("someone_elses_task", two_ranks, str)
    assert seen[-1] == [v["item_id"] for v in two_ranks]
