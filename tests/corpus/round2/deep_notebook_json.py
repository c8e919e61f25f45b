# Layout "notebook_deep_json": a notebook whose metadata is JSON nested 100000 levels deep (Python's
# json module raises RecursionError on it).  A clear message and 0, never a crash of the grader.
