# Layout "deep_source": the reference plus one line nested deeper than Python's parser can go
# (200000 unary minus signs, added by the test: stored here it would crash linters too).  The
# grader's own parsing must not crash; the sandbox reports it and the file gets 0.
