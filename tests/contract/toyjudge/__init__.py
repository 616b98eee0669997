"""Toy Judge: image pairs, "what differs?", a free-text reply that an LLM judges against the gold
answer; the guide's second example (docs/adding-a-benchmark.md: images and an LLM judge). The
contract tests add it to a copy of the package."""

from lmms_comparative.registry import Benchmark, ScoringCall

BENCHMARK = Benchmark(
    name="toyjudge",
    title="Toy Judge",
    root_variable="TOYJUDGE_ROOT",
    task_families=("toyjudge",),
    smoke_task="toyjudge",
    # Its task's scoring asks an LLM: the preflight checks the endpoint before generation, verify
    # re-scores from the run's logged answers, export's notes name the judge. The two names are
    # attributes of hooks.py: the settings' variable prefix (TOYJUDGE_JUDGE_BASE_URL, ..._API_KEY,
    # ..._MODEL) and the defaults.
    scoring_calls=(ScoringCall(("toyjudge",), "llm", "the Toy Judge judge", ("JUDGE_PREFIX", "JUDGE_DEFAULTS")),),
)
