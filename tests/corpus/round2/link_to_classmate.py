# Layout "link_classmate": the submitted file is a symbolic link to a classmate's file in the same
# class folder (a full-marks submission, classmate_reference).  This file's text is never read.
