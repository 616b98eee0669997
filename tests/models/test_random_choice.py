"""random_choice answers each benchmark's own answer space, and lands at each task's chance level."""

from __future__ import annotations

import math
import os
import random
from types import SimpleNamespace

import pytest
from helpers import base_env, eval_args, read_run, run_cli

from lmms_comparative.benchmarks.compbench import hooks as cb_task
from lmms_comparative.benchmarks.compbench.fixture import build as build_compbench
from lmms_comparative.benchmarks.vidi.prompts import GLOBAL, GRANULAR
from lmms_comparative.benchmarks.vlm2bench import hooks as v2_task
from lmms_comparative.benchmarks.vlm2bench import scoring as rules
from lmms_comparative.benchmarks.vlm2bench.fixture import build as build_vlm2bench
from lmms_comparative.benchmarks.vlm2bench.report import VLM2_REFERENCE, VLM2_SUBTASKS
from lmms_comparative.metrics import aggregate
from lmms_comparative.models.random_choice import CAPTION_SENTENCES, RandomChoice, answer_space

# VLM²-Bench question templates, paper Tables 9, 12-14 and 17-19 (the release's questions).
TF_RULE = (
    "Answer the following question according to this rule: You only need to provide *ONE* correct answer with "
    "'T' (True) or 'F' (False). Only reply with 'T' or 'F'. The Question is: "
)
OC_CPR = TF_RULE + "Given the images, the claim 'The {obj}s in these images are {neg}the same {obj}.' is right."
PC_CPR = TF_RULE + "The individuals in these images are {neg}the same person."
GC = (
    "Is the answer '{answer}' correct for the given question: 'What new element can be observed in the second "
    "image that was not present in the first?'"
)
CNT = (
    "Answer the following question according to this rule: You only need to provide *ONE* correct numerical "
    "answer. For example, if you think the answer is '1', your response should only be '1'. The Question is: "
    "How many different {obj}s are there in the input images?"
)
GRP = (
    "Answer the following question according to this rule: You only need to provide *ONE* correct answer with "
    "the corresponding letter. For example, if you think the correct answer is 'B) 1 and 2', your response "
    "should only be 'B) 1 and 2'. The Question is: Which images show the same {obj} in the input images? "
    "Choices: A) 1 and 3; B) None; C) 2 and 3; D) 1 and 2."
)


@pytest.mark.parametrize(
    "prompt, doc, n_images, kind, answers",
    [
        (GRP.format(obj="cup"), {}, 3, "choices", ["A) 1 and 3", "B) None", "C) 2 and 3", "D) 1 and 2"]),
        (PC_CPR.format(neg="not "), {}, 2, "tf", ["T", "F"]),
        (CNT.format(obj="cup"), {}, 4, "count", ["1", "2", "3", "4"]),
        (
            cb_task.doc_to_text({"kind": "options", "options": ["a red car, parked", "a door"]}),
            {"options": ["a red car, parked", "a door"]},
            2,
            "options",
            ["None", "a red car, parked", "a door"],
        ),
        (
            cb_task.doc_to_text({"kind": "quantity", "question": "Which image has more dogs?"}),
            {},
            2,
            "words",
            ["Right", "Left", "Same"],
        ),
        (
            cb_task.doc_to_text({"kind": "binary", "question": "Which is older?"}, {"answer_words": "first_second"}),
            {},
            2,
            "words",
            ["First", "Second"],
        ),
        (cb_task.doc_to_text({"kind": "soccer", "action": "a corner kick"}), {}, 2, "which", ["First", "Second"]),
        ("Question:\nWhat is it?\n\nOptions:\nA. x\nB. y\nC. z\n\nAnswer:", {}, 1, "letters", ["A", "B", "C"]),
        # ViDi asks for free text, and its "which image shows which version" is no question.
        (GRANULAR, {}, 2, "caption", []),
        (GLOBAL, {}, 2, "caption", []),
    ],
)
def test_answer_space_of_each_benchmark_prompt(prompt, doc, n_images, kind, answers):
    assert answer_space(prompt, doc, n_images) == (kind, answers)


def _generate(docs_by_task: dict[str, list[dict]], to_text, seed: int = 0) -> dict[str, list[str]]:
    """Every doc through RandomChoice.generate_until, as lmms-eval calls it (no images)."""
    model = RandomChoice(seed=seed, load_visuals=False)
    model.task_dict = {task: {"test": docs} for task, docs in docs_by_task.items()}
    requests = [
        SimpleNamespace(args=(to_text(doc), {}, None, i, task, "test"))
        for task, docs in docs_by_task.items()
        for i, doc in enumerate(docs)
    ]
    answers = iter(model.generate_until(requests))
    return {task: [next(answers) for _ in docs] for task, docs in docs_by_task.items()}


def _within_band(observed: float, expected: float, sd: float, z: float = 3.5) -> bool:
    return abs(observed - expected) <= z * sd


@pytest.fixture(scope="module")
def compbench_docs(tmp_path_factory):
    root = build_compbench(tmp_path_factory.mktemp("cb"), per_source=300)
    from lmms_comparative.benchmarks.compbench import data

    old = os.environ.get("COMPBENCH_ROOT")
    os.environ["COMPBENCH_ROOT"] = str(root)
    try:
        return {f"compbench_{t}": data.column_docs(t) for t in data.COLUMN_BY_TASK}
    finally:
        os.environ.pop("COMPBENCH_ROOT") if old is None else os.environ.__setitem__("COMPBENCH_ROOT", old)


def test_compbench_columns_land_at_their_chance_level(compbench_docs):
    answers = _generate(compbench_docs, cb_task.doc_to_text)
    pooled_hits = pooled_chance = pooled_var = n_all = 0.0
    for task, docs in compbench_docs.items():
        items = [cb_task.process_results(doc, [a])["accuracy"] for doc, a in zip(docs, answers[task])]
        assert aggregate.counts(items)["unparsed"] == 0, task  # every guess is an answer the task reads
        accuracy, chance = cb_task.aggregate_accuracy(items), cb_task.aggregate_chance(items)
        sd = math.sqrt(sum(1 / it["n_options"] * (1 - 1 / it["n_options"]) for it in items)) / len(items)
        assert len(items) >= 90 and _within_band(accuracy, chance, sd), (task, accuracy, chance, sd)
        pooled_hits += accuracy * len(items)
        pooled_chance += chance * len(items)
        pooled_var += (sd * len(items)) ** 2
        n_all += len(items)
    # All columns together: a tight band (about +-2.5 points).
    assert _within_band(pooled_hits / n_all, pooled_chance / n_all, math.sqrt(pooled_var) / n_all, z=3)
    # The Left/Right answers are not biased to one side.
    sided = [
        a for task, docs in compbench_docs.items() for doc, a in zip(docs, answers[task]) if doc["kind"] == "binary"
    ]
    assert abs(sided.count("Left") / len(sided) - 0.5) < 3 * 0.5 / math.sqrt(len(sided))


def _vlm2_docs(n: int = 160) -> dict[str, list[dict]]:
    """VLM²-Bench docs as benchmarks/vlm2bench/data.py builds them, with the release's question templates."""
    rng = random.Random(3)
    docs: dict[str, list[dict]] = {}
    for subtask in ("gc_mat", "gc_trk"):
        docs[subtask] = [
            {
                "uid": f"{i}",
                "kind": "tf_gc",
                "question": GC.format(answer=f"{half} element {i}"),
                "gt": gt,
                "pair_id": f"{i}",
                "half": half,
                "n_images": 0,
            }
            for i in range(n)
            for half, gt in (("p", "T"), ("n", "F"))
        ]
    for subtask, template in (("oc_cpr", OC_CPR), ("pc_cpr", PC_CPR)):
        docs[subtask] = [
            {
                "uid": f"{i}_{half}",
                "kind": "tf",
                "question": template.format(obj="cup", neg="not " if half == "n" else ""),
                "gt": gt,
                "pair_id": f"{i}",
                "half": half,
                "n_images": 0,
            }
            for i in range(n)
            for half, gt in rng.sample([("p", "T"), ("n", "F")], 2)  # either half may come first
        ]
    # Counting: every answer position of 2-, 3- and 4-image sequences, equally often (the paper's mix).
    positions = [(gt, k) for k in (2, 3, 4) for gt in range(1, k + 1)]
    for subtask in ("oc_cnt", "pc_cnt"):
        docs[subtask] = [
            {
                "uid": f"c{i}",
                "kind": "cnt",
                "question": CNT.format(obj="cup"),
                "gt": str(gt),
                "n_images": k,
                "images": ["x.png"] * k,
            }
            for i in range(len(positions) * 36)
            for gt, k in [positions[i % len(positions)]]
        ]
    for subtask in ("oc_grp", "pc_grp"):
        docs[subtask] = [
            {
                "uid": f"g{i}",
                "kind": "grp",
                "question": GRP.format(obj="cup"),
                "gt": "ABCD"[i % 4] + ") x",
                "n_images": 3,
            }
            for i in range(2 * n)
        ]
    return docs


def test_vlm2bench_subtasks_land_at_the_papers_chance_level():
    docs = _vlm2_docs()
    answers = _generate(docs, lambda doc: v2_task.doc_to_text(doc))
    paper = dict(zip([t for t, _ in VLM2_SUBTASKS], VLM2_REFERENCE["Chance-Level (paper)"]))
    for subtask, task_docs in docs.items():
        items = [v2_task.process_results(doc, [a])["score"] for doc, a in zip(task_docs, answers[subtask])]
        assert aggregate.counts(items)["unparsed"] == 0, subtask
        kind = task_docs[0]["kind"]
        if kind in ("tf", "tf_gc"):
            pairs = rules.pair_accuracy(items, drop_incomplete=kind == "tf")
            score, n = pairs["pair"], pairs["pairs"]
            expected = (
                0.5 if kind == "tf" else 0.25
            )  # a claim and its negation answered consistently; two unrelated claims
            sd = math.sqrt(expected * (1 - expected) / n)
            # Each half on its own is a coin flip, whichever the pair.
            assert _within_band(pairs["positive"], 0.5, math.sqrt(0.25 / n)) and _within_band(
                pairs["negative"], 0.5, math.sqrt(0.25 / n)
            ), subtask
        elif kind == "cnt":
            score = rules.acc_num(items)
            assert all(it["valid"] for it in items)  # every guess is a count within 1..N
            expected = rules.chance_acc_num((int(d["gt"]), d["n_images"]) for d in task_docs)
            var = 0.0
            for d in task_docs:
                values = [rules.count_score(k, int(d["gt"]), d["n_images"]) for k in range(1, d["n_images"] + 1)]
                mean = sum(values) / len(values)
                var += sum((v - mean) ** 2 for v in values) / len(values)
            sd = math.sqrt(var) / len(items)
        else:
            score, expected = aggregate.accuracy(items), 0.25
            sd = math.sqrt(expected * (1 - expected) / len(items))
        assert expected == pytest.approx(paper[subtask] / 100, abs=5e-4), subtask  # the paper's chance column
        assert _within_band(score, expected, sd), (subtask, score, expected, sd)


def test_free_form_tasks_get_a_caption_and_the_guess_is_seeded():
    docs = {"vidi_granular": [{"item_id": f"p{i}"} for i in range(5)]}
    first = _generate(docs, lambda doc: GRANULAR)
    assert first == _generate(docs, lambda doc: GRANULAR)  # same seed, task and doc: same answer
    assert first != _generate(docs, lambda doc: GRANULAR, seed=1)
    for caption in first["vidi_granular"]:
        sentences = [s + "." for s in caption.rstrip(".").split(". ")]
        assert len(sentences) == 2 and set(sentences) <= set(CAPTION_SENTENCES)


@pytest.mark.e2e
def test_cli_run_answers_every_compbench_and_vlm2bench_item(hf_home, tmp_path):
    """One real lmms-eval run of the baseline: no item of the two benchmarks goes unanswered."""
    cb_root = build_compbench(tmp_path / "cb", per_source=4)
    v2_root = build_vlm2bench(tmp_path / "v2")
    image_subtasks = [t for t, _ in VLM2_SUBTASKS if t != "pc_vid"]
    tasks = "compbench," + ",".join(f"vlm2bench_{t}" for t in image_subtasks)
    env = base_env(hf_home, COMPBENCH_ROOT=str(cb_root), VLM2BENCH_ROOT=str(v2_root))
    proc = run_cli(
        eval_args("random_choice", tasks, tmp_path / "out", model_args="seed=3"),
        env=env,
    )
    results, samples = read_run(tmp_path / "out", proc)
    compbench_tasks = [t for t in results["results"] if t.startswith("compbench_")]
    assert len(compbench_tasks) == 16
    for task in compbench_tasks:
        counts = results["results"][task]["counts,none"]
        assert counts["unparsed"] == 0 and counts["scored"] == counts["n"], task
    for subtask in image_subtasks:
        counts = results["results"][f"vlm2bench_{subtask}"]["counts,none"]
        assert counts["unparsed"] == 0 and counts["failed"] == 0, subtask
    for sample in samples["vlm2bench_oc_cnt"]:
        assert 1 <= sample["score"]["parsed"] <= sample["score"]["n_images"]
    assert results["groups"]["compbench"]["accuracy,none"] > 0


def test_pixel_diff_falls_back_to_the_same_guess():
    from lmms_comparative.models.pixel_diff import PixelDiff

    docs = {k: v[:12] for k, v in _vlm2_docs(6).items()}
    requests = [
        SimpleNamespace(args=(v2_task.doc_to_text(doc), {}, None, i, task, "test"))
        for task, task_docs in docs.items()
        for i, doc in enumerate(task_docs)
    ]
    pixel = PixelDiff(seed=0)
    pixel.task_dict = {task: {"test": task_docs} for task, task_docs in docs.items()}
    assert pixel.generate_until(requests) == [a for task in docs for a in _generate(docs, v2_task.doc_to_text)[task]]
