# Layout "notebook_deep_code": a notebook with the reference in one cell and, in another, code
# nested deeper than Python's parser can go.  That cell is skipped with a note; the rest is
# graded: full marks.
