"""Pure scoring functions: parsers, accuracies, breakdowns. Nothing here imports lmms-eval."""
