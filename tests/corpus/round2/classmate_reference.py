# The classmate whose file link_to_classmate and folder_with_linked_file point at: the reference.
