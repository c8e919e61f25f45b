# Appended to the reference: the file never finishes loading.
while True:
    pass
