"""Toy Judge: image pairs, "what differs?", a free-text reply that an LLM judges against the gold
answer; the guide's second example (docs/adding-a-benchmark.md: images and an LLM judge). The
contract tests add it to a copy of the package.

The record (its facts, and the loader of its parts, which imports the part modules on first use and
hands each the record); the hooks read the record from here.
"""

from lmms_comparative.record import Benchmark, Parts, ScoringCall

# Its task's scoring asks an LLM: the preflight checks the endpoint before generation, verify
# re-scores from the run's logged answers, export's notes name the judge. The hooks read the
# settings' variable prefix (TOYJUDGE_JUDGE_BASE_URL, ..._API_KEY, ..._MODEL) and the defaults here.
JUDGE = ScoringCall.llm(
    ("toyjudge",),
    "the Toy Judge judge",
    "TOYJUDGE_JUDGE",
    {"model": "toy-judge", "temperature": 0.0, "max_tokens": 8},
)


def _parts(benchmark: Benchmark) -> Parts:
    from lmms_comparative.benchmarks.toyjudge import fixture

    return Parts(fixture=fixture.PART)


BENCHMARK = Benchmark(
    name="toyjudge",
    title="Toy Judge",
    root_variable="TOYJUDGE_ROOT",
    task_families=("toyjudge",),
    smoke_task="toyjudge",
    scoring_calls=(JUDGE,),
    parts=_parts,
)
