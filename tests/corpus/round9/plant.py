# Round nine: the file a hostile classmate plants in another student's folder (or hands in under a
# name that collides with a classmate's).  Nothing of the assignment: stage 1 gives it 0.


def nothing():
    return None
