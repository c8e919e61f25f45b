# Layout "linked_folder": the submission folder itself is a link to a classmate's folder.
