# Control: the reference, graded after every attack by the batch's one grader process.
