"""VLM²-Bench: link matching cues across images or a video (T/F, counting, grouping, description)."""

from lmms_comparative.registry import Benchmark, ScoringCall

BENCHMARK = Benchmark(
    name="vlm2bench",
    title="VLM2-Bench",
    root_variable="VLM2BENCH_ROOT",
    hub_repo="Sterzhang/vlm2-bench",
    task_families=("vlm2bench", "vlm2bench_image", "vlm2bench_gc", "vlm2bench_oc", "vlm2bench_pc", "vlm2bench_pc_vid", "vlm2bench_cot", "vlm2bench_cotspecial", "vlm2bench_vpgrid"),
    answer_spaces=("choices", "tf", "count"),
    scoring_calls=(ScoringCall(("vlm2bench_pc_vid",), "llm", "the VLM2-Bench video description judge", ("JUDGE_PREFIX", "JUDGE_DEFAULTS")),),
    exports=(("", "table1", tuple((c, "vlm2bench" if c == "overall" else f"vlm2bench_{c}") for c in ("gc_mat", "gc_trk", "oc_cpr", "oc_cnt", "oc_grp", "pc_cpr", "pc_cnt", "pc_grp", "pc_vid", "overall"))),),
    smoke_task="vlm2bench_oc_cnt",  # one small task: what the tests that touch every benchmark run
)
