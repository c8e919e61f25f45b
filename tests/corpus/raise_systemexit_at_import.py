# Appended to the reference: the file raises SystemExit while being loaded.
raise SystemExit("not today")
