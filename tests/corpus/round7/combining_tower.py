# 1000 combining marks on one letter (a "Zalgo" tower): drawn over the lines above and below it,
# and one unbreakable character as wide as the page (seen in chromium on main).


def score_chance(dice):
    raise ValueError("no chance Z" + "\u0336\u0489\u0337\u0338" * 250)
