# Honest control for forge_protocol: the starter with every function returning 25.
for _name in ("score_upper", "score_of_a_kind", "score_full_house", "score_small_straight",
              "score_large_straight", "score_yahtzee", "score_chance", "check_dice", "score",
              "format_dice", "parse_keep", "reroll", "ask_keep", "find_category", "ask_category",
              "play_round", "new_scorecard", "final_score", "format_scorecard", "play_game",
              "upper_bonus", "is_joker", "yahtzee_bonus", "joker_categories", "joker_score"):
    globals()[_name] = lambda *args, **kwargs: 25
