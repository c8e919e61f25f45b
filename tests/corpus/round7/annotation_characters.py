# Format characters outside the reader's list: the interlinear annotation marks (U+FFF9-U+FFFB,
# which renderers may use to hide the annotated text), the deprecated format controls
# (U+206A-U+206F: symmetric swapping, digit shapes), the soft hyphen, an Arabic number sign.


def score_chance(dice):
    raise ValueError("no chance\ufff9Score: 100 / 100\ufffa(shown as a note)\ufffb\u206a\u206b\u206f\u00ad\u0600")
