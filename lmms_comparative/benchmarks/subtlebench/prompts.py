"""VLM-SubtleBench prompts, verbatim from the official repository.

Source: github krafton-ai/VLM-SubtleBench, src/vlm_subtlebench/prompts/multiple_choice_evaluator.py
(the paper prints the same text as Figures 8 and 9). The official module names the paper's
"standard prompt" (Figure 8, answer letter only) ``no_reasoning`` and the paper's "reasoning
prompt" (Figure 9) ``standard``; we use the paper's names.
"""

_BASE_GUIDELINES = """Guidelines:
- Unless specified in the options, the difference is described in terms of the second image relative to the first."""

# Official MULTIPLE_CHOICE_NO_REASONING_SYSTEM_PROMPT; paper Figure 8 ("Standard prompt").
STANDARD_SYSTEM = f"""You are a helpful assistant that answers multiple-choice questions about differences between two images.
Your task is to carefully analyze both images and identify the main difference between them.

{_BASE_GUIDELINES}
- Respond **only** with the answer letter (A, B, C, D, etc.). Do not provide any reasoning or explanation."""

# Official MULTIPLE_CHOICE_SYSTEM_PROMPT; paper Figure 9 ("Reasoning prompt").
REASONING_SYSTEM = f"""You are a helpful assistant that answers multiple-choice questions about differences between two images.
Your task is to carefully analyze both images and identify the main difference between them.

{_BASE_GUIDELINES}
- Respond **only** in the following format. The answer should be a single letter.

### Reasoning
[explanation of the key visual difference between the two images]

### Answer
[answer (single letter)]"""

_ANSWER_ONLY = "- Respond **only** with the answer letter (A, B, C, D, etc.). Do not provide any reasoning or explanation."

# Paper Figure 11 ("Grid prompt"), for the paper's variant (subtlebench_grid_paper). The official
# code (create_grid_messages) sends its reasoning prompt with grid images: subtlebench_grid.
GRID_SYSTEM = f"""You are a helpful assistant that answers multiple-choice questions about differences between two images. The grid lines are added to both images to help you compare the objects better. Your task is to carefully analyze both images and identify the main difference between them.

{_BASE_GUIDELINES}
{_ANSWER_ONLY}"""

# Official MULTIPLE_CHOICE_CONCATENATED_SYSTEM_PROMPT; paper Figure 12.
CONCAT_SYSTEM = f"""You are a helpful assistant that answers multiple-choice questions about differences between two images that are concatenated horizontally (first image on the left and second image on the right, separated by a black line).
Your task is to carefully analyze both images and identify the main difference between them.

{_BASE_GUIDELINES}
{_ANSWER_ONLY}"""

# Official MULTIPLE_CHOICE_OVERLAPPED_SYSTEM_PROMPT; paper Figure 14.
OVERLAP_SYSTEM = f"""You are a helpful assistant that answers multiple-choice questions about differences between two images.
Your task is to carefully analyze first and second images and identify the main difference between them. The third image is the overlay of the first and second images. You may use the third image to help you analyze the difference between the first and second images.

{_BASE_GUIDELINES}
{_ANSWER_ONLY}"""

# Official MULTIPLE_CHOICE_SUBSTRACT_SYSTEM_PROMPT; paper Figure 15.
SUBTRACT_SYSTEM = f"""You are a helpful assistant that answers multiple-choice questions about differences between two images.
Your task is to carefully analyze first and second images and identify the main difference between them. The third image is a black-and-white difference map between the first and second images, where brighter areas indicate larger differences. You may use the third image to help you analyze the difference between the first and second images.

{_BASE_GUIDELINES}
{_ANSWER_ONLY}"""

# Paper Figure 13 ("Highlighting prompt"); the official repository has no highlight code.
HIGHLIGHT_SYSTEM = f"""You are a helpful assistant that answers multiple-choice questions about differences between two images. Your task is to carefully analyze the images and identify the main difference between them. I am showing you four images:

1. Original first image
2. Original second image
3. Highlighted first image (with areas of significant change marked with green boxes, and other areas dimmed)
4. Highlighted second image (with the same areas marked)

The highlighted images help you focus on the most significant differences between the two images. Use them to quickly identify where the changes occur, then examine those areas carefully in the original images.

{_BASE_GUIDELINES}
- Focus on the green-boxed regions in the highlighted images to identify where changes occur.
{_ANSWER_ONLY}"""

SYSTEM_PROMPTS = {
    "standard": STANDARD_SYSTEM,
    "reasoning": REASONING_SYSTEM,
    "grid": REASONING_SYSTEM,  # official create_grid_messages: MULTIPLE_CHOICE_SYSTEM_PROMPT
    "grid_paper": GRID_SYSTEM,
    "concat": CONCAT_SYSTEM,
    "overlap": OVERLAP_SYSTEM,
    "subtract": SUBTRACT_SYSTEM,
    "highlight": HIGHLIGHT_SYSTEM,
}

# Official create_overlapped_messages / create_substract_messages preambles; paper Figures 13-15.
PREAMBLES = {
    "overlap": "I am showing you three images:\n1. First image\n2. Second image\n3. Overlapped image (50/50 blend of first and second images)",
    "subtract": "I am showing you three images:\n1. First image\n2. Second image\n3. Black-and-white difference map between the first and second images",
    "highlight": (
        "I am showing you four images:\n1. Original first image\n2. Original second image\n"
        "3. Highlighted first image (green boxes mark significant change areas, other areas dimmed)\n"
        "4. Highlighted second image (same areas marked)\n\n"
        "The highlighted images (3 and 4) show you WHERE the main differences are located. The green boxes indicate the top 2-3 most "
        "significant change regions. Use these to guide your attention, then carefully examine those specific areas in the original "
        "images (1 and 2) to determine WHAT the difference is."
    ),
}


def user_prompt(question: str, options_text: str, strategy: str = "standard") -> str:
    """The user turn (official ``_get_user_prompt``): with a preamble for the overlap and subtract
    strategies, whose instruction then says "...of first and second images"; the highlight
    prompt (paper Figure 13) keeps the plain instruction after its preamble."""
    preamble = PREAMBLES.get(strategy)
    parts = [preamble] if preamble else []
    parts += [f"Question: {question}", ""]
    if strategy in ("overlap", "subtract"):
        parts.append("Carefully examine the images and choose the best description of the key visual difference of first and second images.")
    else:
        parts.append("Carefully examine the images and choose the best description of the key visual difference.")
    parts.append(f"\nOptions:\n{options_text}")
    return "\n".join(parts)


# Paper Figure 16 ("Captioning prompt"), the stated protocol: the text of the official
# prompts/free_form_evaluator.py get_image_comparison_system_prompt_simple as the system turn and
# get_image_comparison_user_prompt as the user turn. No official prompt type sends this pair: the
# evaluator's default "standard" sends get_image_comparison_system_prompt with the same user text,
# and its "simple" sends the simple system text with the *standard system text* as the user turn
# (USER_PROMPT_VARIANTS["simple"] names the wrong function).
CAPTION_SYSTEM = """You are an expert at visual analysis and image comparison. Compare the two images and briefly describe what's different between them.

Keep your response concise and direct. Use simple phrases like "In the first image, X, however in the second image, Y" or "X appeared in the second image" or "In the first image, X is relatively Y". Avoid detailed explanations or structured lists."""
CAPTION_USER = "Describe the differences between the two images"

# Paper appendix B.3 (LLM-as-a-judge, after Lin et al., 2025).
CAPTION_JUDGE = 'Reference caption: "{reference}" Candidate caption: "{candidate}" Does the candidate caption match the reference caption? Answer Yes or No.'


# ---- Two-step reasoning (paper §4.3, Table 4; prompts: Figure 10, appendix B.1) -----------------
# The official repository has no code for it (github krafton-ai/VLM-SubtleBench has no two-step
# prompt type), so the text is the paper's Figure 10. Line layout: the paper's figures print a
# blank line after "Guidelines:" and "Options:" where the official code of Figures 8 and 9 has a
# single line break (_BASE_GUIDELINES, _get_user_prompt); we lay Figure 10 out the same way.
TWO_STEP_SYSTEM_1 = "You are an expert image analyst. Your task is to carefully describe the differences between two images. Do not answer any questions about the images yet - only analyze and describe what is different between them."
TWO_STEP_USER_1 = """Please provide a careful and detailed description of the differences between these two images. Focus on what changed, what's different, or what distinguishes the first image from the second image. Using the description of the differences, you will be asked the following question and you will need to choose one correct answer. However, do not answer the question yet - just analyze the differences:

{question_text}

{options_text}"""
TWO_STEP_SYSTEM_2 = """You are a helpful assistant that answers multiple-choice questions about differences between two images. Your task is to carefully analyze both images and identify the main difference between them. You will be provided with a description of the differences to help guide your analysis.

Guidelines:
- Use the provided difference description to understand what has changed between the images.
- Verify the described difference by examining the images.
- Unless specified in the options, the difference is described in terms of the second image relative to the first.
- Respond **only** with the answer letter (A, B, C, D, etc.). Do not provide any reasoning or explanation."""
TWO_STEP_USER_2 = """I am showing you two images (first and second).

Description of the differences: {diff_description}

Question: {question_text}

Based on the images and the description of differences, choose the best answer.

Options:
{options_text}"""


# ---- Language-only comparison (appendix C.2, Table 9) --------------------------------------------
# Each image asked on its own, with the paper's question for its category (verbatim, the en dash in
# "1–10" included); then the multiple-choice question answered from the two descriptions alone.
# Neither the paper nor the official code gives that last prompt: ours is the paper's Standard
# prompt (Figure 8) with the descriptions in place of the images.
LANGUAGE_ONLY_QUESTIONS = {
    "emotion": "Describe the emotion expressed in the image in detail and rate its intensity on a scale of 1–10.",
    "existence": "Carefully list all objects visible in the image, including their approximate locations.",
    "quality": "Analyze the quality of the image and rate it on a scale of 1–10, considering blur, noise, overexposure, compression artifacts, and other quality issues.",
}
LANGUAGE_ONLY_PREAMBLE = "The two images are not shown; here is a description of each.\n\nFirst image: {first}\n\nSecond image: {second}"
