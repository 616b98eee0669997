"""Toy Judge: image pairs, "what differs?", a free-text reply that an LLM judges against the gold
answer; the guide's second example (docs/adding-a-benchmark.md: images and an LLM judge). The
contract tests add it to a copy of the package.

The facts of the record (``__init__.py`` adds the parts): what the parts themselves read.
"""

from lmms_comparative.record import Benchmark, ScoringCall

# Its task's scoring asks an LLM: the preflight checks the endpoint before generation, verify
# re-scores from the run's logged answers, export's notes name the judge. The hooks read the
# settings' variable prefix (TOYJUDGE_JUDGE_BASE_URL, ..._API_KEY, ..._MODEL) and the defaults here.
JUDGE = ScoringCall(
    ("toyjudge",),
    "llm",
    "the Toy Judge judge",
    "TOYJUDGE_JUDGE",
    {"model": "toy-judge", "temperature": 0.0, "max_tokens": 8},
)


FACTS = Benchmark(
    name="toyjudge",
    title="Toy Judge",
    root_variable="TOYJUDGE_ROOT",
    task_families=("toyjudge",),
    smoke_task="toyjudge",
    scoring_calls=(JUDGE,),
)
