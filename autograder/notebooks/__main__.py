"""`python -m autograder.notebooks [--check]`: write (or compare) every generated notebook."""

import sys

from .write import main

sys.exit(main())
