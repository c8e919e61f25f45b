# Layout "zip": the reference in a zip that also holds entries named with terminal escapes
# (clear screen, OSC 52) and a path traversal.  Names are sanitised before they are printed or
# stored; the traversal is skipped; the reference is graded: full marks.
