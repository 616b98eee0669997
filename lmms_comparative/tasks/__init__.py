"""lmms-eval hooks (doc_to_*, process_results, aggregations), one module per benchmark."""
