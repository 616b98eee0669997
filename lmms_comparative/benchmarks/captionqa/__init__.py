"""CaptionQA: a caption, then a text-only reader answers the image's questions from it alone."""

from lmms_comparative.benchmarks.registry import Benchmark

BENCHMARK = Benchmark(
    name="captionqa",
    title="CaptionQA",
    root_variable="CAPTIONQA_ROOT",
    task_families=("captionqa_simple", "captionqa_short", "captionqa_long", "captionqa_taxonomy", "captionqa_image"),
    answer_spaces=("letters",),  # QA on the image; captions are free-form
)
