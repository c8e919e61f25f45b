# unseen_notes_read, then unseen_notes_leave (joined before this file: see expected.toml), in ONE
# program: in every request it looks for the notes (state the fresh runner's clean-state check
# does not see), then leaves them; a request that finds one an earlier request of its OWN life
# left breaks every function.  The documented cost of several fresh requests per process: a
# program can make its own later requests depend on its earlier ones (as it could through its
# work folder's files); it changes only its own grade, the same alone, in a batch after any
# classmates and through Gradescope.  Its score pins which of its requests share a process.
