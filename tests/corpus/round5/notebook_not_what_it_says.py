# Layout "built": a .ipynb that only says it is a notebook.  Cells whose source is a list of numbers,
# a dict, null; a markdown cell and a string literal holding a lone surrogate ("\ud800" in the JSON,
# which no UTF-8 has); metadata claiming stage `true`.  On main d3ee52f the list of numbers raised
# TypeError in the grader and the lone surrogate UnicodeEncodeError (no grade at all), and stage
# `true` made `grade` (Gradescope's run_autograder) exit "no suite for stage True".  Now what is not
# text counts as no text, a lone surrogate is U+FFFD, a stage the course has not is ignored: the
# reference's cell is graded, full marks.
import json


def build(reference):
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": "# My Yahtzee \ud800"},
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": [1, 2, 3]},
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": {"x": 1}},
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": None},
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
         "source": reference.splitlines(keepends=True)},
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
         "source": ["HALF_A_DIE = '\ud83c'\n", 7, "\n"]},
    ]
    notebook = {"nbformat": 4, "nbformat_minor": 5, "cells": cells,
                "metadata": {"autograder": {"stage": True, "assignment": "yahtzee"}}}
    return {"yahtzee.ipynb": json.dumps(notebook)}
