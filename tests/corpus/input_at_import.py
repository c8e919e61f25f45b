# Appended to the reference: the game starts as soon as the file is imported
# (no `if __name__ == "__main__":` guard), so it asks for input while being loaded.
play_game()
