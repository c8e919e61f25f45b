# Layout "link_reference": the submitted yahtzee.py is a symbolic link to the kit's reference
# solution (in the Gradescope bundle: /autograder/source/solution/yahtzee.py).  This file's text
# is never read: the link is the whole submission.
