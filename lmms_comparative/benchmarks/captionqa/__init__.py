"""CaptionQA: a caption, then a text-only reader answers the image's questions from it alone."""

from lmms_comparative.registry import Benchmark, ScoringCall

BENCHMARK = Benchmark(
    name="captionqa",
    title="CaptionQA",
    root_variable="CAPTIONQA_ROOT",
    hub_repo="Borise/CaptionQA",
    task_families=("captionqa_simple", "captionqa_short", "captionqa_long", "captionqa_taxonomy", "captionqa_image"),
    answer_spaces=("letters",),
    scoring_calls=(
        ScoringCall(tuple(f"captionqa_{p}_*" for p in ("simple", "short", "long", "taxonomy")), "llm", "the CaptionQA reader", ("READER_PREFIX", "READER_DEFAULTS")),
    ),  # not captionqa_image (the model answers)  # QA on the image; captions are free-form
    exports=tuple(
        (prompt, f"table3_{prompt}", tuple((c, f"captionqa_{prompt}" if c == "overall" else f"captionqa_{prompt}_{c}") for c in ("overall", "natural", "document", "ecommerce", "embodiedai")))
        for prompt in ("simple", "short", "long", "taxonomy")
    ),
    smoke_task="captionqa_simple_natural",  # one small task: what the tests that touch every benchmark run
)
