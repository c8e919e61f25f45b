# Layout "fifo": the submitted yahtzee.py is a named pipe (a FIFO): opening it to read would block
# the grader forever, and reading one could hang a whole batch.
