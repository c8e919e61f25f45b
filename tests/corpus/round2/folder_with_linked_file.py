# Layout "folder_link_inside": a submission folder whose yahtzee.py links to a classmate's file.
