"""ViDi prompts, from the paper's appendix B (granular, global) and E (few-shot), and the judge
prompt of its appendix G (precision; the recall prompt mirrors it, as the paper reports recall
without printing its prompt). The PDF conversion split some guideline lines and interleaved line
numbers; the text below is the prompts' own wording, one guideline per line."""

_GUIDELINES = """Identify the main subject/object of the change;
Describe its location relative to other objects or within the image (e.g., using directional terms and nearby reference points);
State what has specifically changed (e.g., color variation, quantity difference, presence/absence, or text modification);
Describe both versions of what has changed, separated by the word "or" (e.g., "red or blue", "5 or 7", or "facing up or looking down")."""

GRANULAR = f"""Describe one single difference between the two images.
Use one sentence that adheres to the following guidelines:
{_GUIDELINES}
Present the difference on a single individual English sentence, without any additional context. Do not reference explicitly which image shows which version of the change/subject/object."""

GLOBAL = f"""List all the differences between the two images.
For each difference, use one sentence that adheres to the following guidelines:
{_GUIDELINES}
Present each difference as a single individual English sentence, without any additional context. Do not reference explicitly which image shows which version of the change/subject/object."""

FEWSHOT = """Consider the following list of differences between these two images:
{examples}
Describe one missing difference between the two images.
Use one sentence that adheres to the following guidelines:
""" + _GUIDELINES + """
Present the difference as a single individual English sentence, without any additional context.
Do not reference explicitly which image shows which version of the change/subject/object."""

_JUDGE_HEAD = """You are an expert evaluator tasked with assessing the accuracy of a model-generated response that describes differences between two images.
You will compare the model's response against a human-annotated reference and evaluate its {measure}.

Task Input:
1. **Reference Differences (Human Annotation)**: A list of sentences describing the true differences between the two images.
2. **Model-Generated Differences**: A list of sentences produced by the model, describing the differences it identified.

Evaluation Criteria:
"""

JUDGE_PRECISION = _JUDGE_HEAD.format(measure="precision") + """- **Precision:** Does each model-generated sentence describe a real difference found in the references?
- Score: 1 (Correct) / 0 (Incorrect) per sentence
- Final Precision Score: [0-1] float value (Correctly identified differences / Total model-generated differences)

Output Format:
Return your evaluation in the following structured format:
Precision Evaluation Report:
- Total Model-Generated Differences: X
- Correctly Identified Differences: Y
- Precision Score: Y/X
- Final Assessment: [Short summary highlighting strengths and areas for improvement. Appropriate level of detail and no unnecessary repetition?]

YOUR TASK:
Evaluate the following answers based on the criteria above.
1. **Reference Differences (Human Annotation):** {references}
2. **Model-Generated Differences:** {predictions}"""

JUDGE_RECALL = _JUDGE_HEAD.format(measure="recall") + """- **Recall:** Is each reference difference described by at least one model-generated sentence?
- Score: 1 (Found) / 0 (Missed) per reference sentence
- Final Recall Score: [0-1] float value (Reference differences found / Total reference differences)

Output Format:
Return your evaluation in the following structured format:
Recall Evaluation Report:
- Total Reference Differences: X
- Reference Differences Found: Y
- Recall Score: Y/X
- Final Assessment: [Short summary highlighting strengths and areas for improvement.]

YOUR TASK:
Evaluate the following answers based on the criteria above.
1. **Reference Differences (Human Annotation):** {references}
2. **Model-Generated Differences:** {predictions}"""
