"""What a restructuring must not change: every benchmark's task families and smoke task, run
through the real lmms-eval CLI on the fixtures, publish the results JSON recorded in
``tests/suite/results_before/`` (scores, groups and their members, versions, each task's loaded
configuration, a digest of every item's prompt, target and reply), and ``lmms-eval --tasks list``
lists the same tasks and groups.

The recorded files were written by the layout before the task YAMLs were generated (the issue
"One source per benchmark"); a change that means to alter what a run publishes rewrites them with
``LMMS_COMPARATIVE_RECORD_RESULTS=1`` and says so in its commit.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from pathlib import Path

import pytest
import yaml
from helpers import FULL_INDEX, MINILM, base_env, build_roots, eval_args, read_run, run_cli
from helpers.fake_openai import FakeOpenAI, any_scorer

from lmms_comparative.registry import BENCHMARKS

RECORDED = Path(__file__).with_name("results_before")
RECORD = os.environ.get("LMMS_COMPARATIVE_RECORD_RESULTS") == "1"
PACKAGE = str(Path(__import__("lmms_comparative").__file__).resolve().parent)
ADDRESS = re.compile(r" at 0x[0-9a-f]+>")
# The parts of a results JSON that say what was computed (not when, where or how fast).
KEPT = ("results", "groups", "group_subtasks", "configs", "versions", "n-shot", "higher_is_better", "n-samples")


def _normal(value, roots: dict[str, str]):
    """``value`` with this machine's paths and object addresses replaced by names."""
    if isinstance(value, dict):
        return {k: _normal(v, roots) for k, v in value.items()}
    if isinstance(value, list):
        return [_normal(v, roots) for v in value]
    if isinstance(value, str):
        value = ADDRESS.sub(">", value.replace(PACKAGE, "<package>"))
        for name, path in roots.items():
            value = value.replace(path, f"<{name}>")
    return value


def _digest(samples: list[dict], roots: dict[str, str]) -> str:
    """One hash of a task's items: each doc's id, target, prompt and filtered reply, in doc order."""
    rows = [
        [s["doc_id"], s.get("target"), _normal(s.get("arguments"), roots), s.get("filtered_resps")]
        for s in sorted(samples, key=lambda s: s["doc_id"])
    ]
    return hashlib.sha256(json.dumps(rows, sort_keys=True, default=str).encode()).hexdigest()


def _published(results: dict, samples: dict[str, list[dict]], roots: dict[str, str]) -> dict:
    kept = {key: _normal(results.get(key), roots) for key in KEPT}
    kept["items"] = {task: _digest(rows, roots) for task, rows in sorted(samples.items())}
    return kept


def _sbert_rounded(value):
    """``value`` with SBERT's caption similarity (``css...`` keys) kept to 6 decimals: it differs in
    its last bits from one CPU's matrix kernels to another's (0.331447622... against 0.331447613...
    on two machines of the same kind, the package unchanged), where no change of ours could hide."""
    if isinstance(value, dict):
        return {
            k: round(v, 6) if k.startswith("css") and isinstance(v, float) else _sbert_rounded(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_sbert_rounded(v) for v in value]
    return value


def _compare(name: str, found) -> None:
    path = RECORDED / f"{name}.json"
    if RECORD:
        RECORDED.mkdir(exist_ok=True)
        path.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    recorded = _sbert_rounded(json.loads(path.read_text(encoding="utf-8")))
    found = _sbert_rounded(json.loads(json.dumps(found)))  # tuples as lists, keys as strings, as the file holds them
    if isinstance(found, dict):
        assert sorted(found) == sorted(recorded), name
        for key in recorded:
            if isinstance(recorded[key], dict):
                assert sorted(found[key]) == sorted(recorded[key]), f"{name}: {key}"
                for entry in recorded[key]:
                    assert found[key][entry] == recorded[key][entry], f"{name}: {key} / {entry}"
            assert found[key] == recorded[key], f"{name}: {key}"
    assert found == recorded, name


class _Tags(yaml.SafeLoader):
    """Reads a task YAML's keys, whatever its tags (``!function``) say."""


_Tags.add_multi_constructor("!", lambda loader, suffix, node: None)


def _leaves(benchmark) -> dict[str, set[str]]:
    """{group: the leaf tasks under it} of the benchmark's group YAMLs."""
    members = {}
    for path in sorted((Path(PACKAGE) / "benchmarks" / benchmark.name / "yaml").glob("*.yaml")):
        config = yaml.load(path.read_text(encoding="utf-8"), Loader=_Tags) or {}
        if "group" in config:
            members[config["group"]] = [m["task"] if isinstance(m, dict) else m for m in config.get("task", [])]

    def under(name: str) -> set[str]:
        return set().union(*(under(m) for m in members[name])) if name in members else {name}

    return {group: under(group) for group in members}


def _runs(benchmark) -> list[list[str]]:
    """The benchmark's families and smoke task in as few lmms-eval runs as allow (lmms-eval refuses
    two groups that share a task in one run)."""
    leaves = _leaves(benchmark)
    runs: list[tuple[list[str], set[str]]] = []
    for task in dict.fromkeys((*benchmark.task_families, benchmark.smoke_task)):
        mine = leaves.get(task, {task})
        for names, taken in runs:
            if not taken & mine:
                names.append(task)
                taken |= mine
                break
        else:
            runs.append(([task], set(mine)))
    return [names for names, _ in runs]


@pytest.fixture(scope="module")
def roots(tmp_path_factory) -> dict[str, Path]:
    return build_roots(
        tmp_path_factory.mktemp("unchanged"),
        subtlebench={"per_category": 2},
        vidi={"pairs": 3},
        captionqa={"per_domain": 2},
        compbench={"per_source": 2},
    )


@pytest.mark.e2e
@pytest.mark.parametrize("benchmark", BENCHMARKS, ids=lambda b: b.name)
def test_every_family_publishes_what_it_did(benchmark, roots, hf_home, tmp_path):
    if benchmark.name in ("subtlebench", "vidi") and (MINILM is None or shutil.which("java") is None):
        pytest.skip("the caption metrics need the packaged MiniLM and Java (the test extra and a JRE)")
    published = {}
    for number, tasks in enumerate(_runs(benchmark)):
        with FakeOpenAI(any_scorer) as server:
            env = base_env(
                hf_home,
                **roots,
                **server.every_llm_env(),
                LMMS_COMPARATIVE_LLM_CACHE="off",
                LMMS_COMPARATIVE_ASSUME_VIDEO="1",
                SUBTLEBENCH_SBERT_MODEL=MINILM or "",
            )
            out = tmp_path / str(number)
            proc = run_cli(
                eval_args("multiround", ",".join(tasks), out, model_args="inner=random_choice,seed=3"),
                env=env,
                timeout=1200,
            )
        results, samples = read_run(out, proc)
        assert proc.returncode == 0, proc.stderr[-3000:]
        published[",".join(tasks)] = _published(
            results, samples, {**{k: str(v) for k, v in roots.items()}, "minilm": MINILM or "<none>"}
        )
    _compare(benchmark.name, published)


@pytest.mark.e2e
def test_the_task_list_is_what_it_was(hf_home):
    """``lmms-eval --tasks list`` (lmms-eval's own tasks too): our rows, in its order and layout."""
    proc = run_cli(["--tasks", "list"], env=base_env(hf_home, **FULL_INDEX))
    assert proc.returncode == 0, proc.stderr[-3000:]
    ours = [
        _normal(line.rstrip(), {})
        for line in (proc.stdout + proc.stderr).splitlines()
        if any(b.name in line for b in BENCHMARKS)
    ]
    assert len(ours) > 200
    _compare("tasks_list", ours)


def test_every_tasks_prompt_hash_is_what_it_was():
    """The prompt hash a run records (``provenance.prompts_sha256``: the benchmark's prompts.py and
    the task's files) is the hand-written files' hash, recorded before the files were generated: the
    generator's first line says where a file comes from and is left out, so ``verify`` and
    ``compare`` set a run made before beside one made after. Any other byte changes it."""
    from lmms_comparative import provenance

    recorded = json.loads((RECORDED / "prompt_hashes.json").read_text(encoding="utf-8"))
    found = {}
    for benchmark in BENCHMARKS:
        for path in sorted((Path(PACKAGE) / "benchmarks" / benchmark.name / "yaml").glob("*.yaml")):
            found[path.stem] = provenance.prompts_sha256(benchmark.package, str(path))
    assert {
        task: found.get(task) for task in recorded
    } == recorded  # the five benchmarks of then; a later one's tasks are its own
    assert len(recorded) == 229 and (
        Path(PACKAGE) / "benchmarks" / "subtlebench" / "yaml" / "subtlebench_sp.yaml"
    ).read_text(encoding="utf-8").startswith("# Generated from ")


def test_the_generators_line_alone_is_left_out(tmp_path):
    from lmms_comparative import provenance

    body = "task: t\nprocess_docs: x\n"
    plain, generated, edited = (tmp_path / n for n in ("a.yaml", "b.yaml", "c.yaml"))
    plain.write_text(body)
    generated.write_text("# Generated from somewhere/tasks.py: edit that\n" + body)
    edited.write_text("# Generated from somewhere/tasks.py: edit that\n" + body.replace("x", "y"))
    hashes = [
        provenance.prompts_sha256("lmms_comparative.benchmarks.subtlebench", str(p)) for p in (plain, generated, edited)
    ]
    assert hashes[0] == hashes[1] != hashes[2]
    other = tmp_path / "d.yaml"
    other.write_text("# A comment of someone's own\n" + body)  # any other first line is the file's own text
    assert provenance.prompts_sha256("lmms_comparative.benchmarks.subtlebench", str(other)) != hashes[0]
