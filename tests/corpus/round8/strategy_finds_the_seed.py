# strategy_sees_the_dice without reading the kit: it searches the seeds from 0 for the one whose
# first five rolls are the first game's (about one seed in 7,776 matches; the next two games'
# first rolls pick the one), which on main took ~2 s of its 60 s contest budget.
SEARCH_FROM = 0
