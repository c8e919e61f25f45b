# Writes into its working folder and the folders above it, at import and in a method (the
# reference otherwise: full marks, and the kit's folders unchanged).
import os

_Base = YahtzeeGame
MARK = "planted by a submission"


def _plant(tag):
    for folder in (".", "..", "../.."):
        try:
            with open(os.path.join(folder, f"planted_{tag}.txt"), "w") as handle:
                handle.write(MARK)
        except OSError:
            pass


_plant("import")


class YahtzeeGame(_Base):
    def calculate_score(self):
        _plant("method")
        return super().calculate_score()
