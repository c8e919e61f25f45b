# Honest: the reference itself (nothing appended).
