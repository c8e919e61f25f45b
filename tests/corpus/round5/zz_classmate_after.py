# The honest classmate graded after every attack of the round by the same grader process (its name
# sorts last; the round's batch has one worker): the solution as it is.  Full marks, which it gets
# only if no attack before it stopped the batch (lone_surrogates and undecodable_names did on
# main d3ee52f).
