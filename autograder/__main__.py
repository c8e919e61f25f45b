import gc
import sys

from .cli import main

code = main()
# Everything is written and closed: the interpreter's last collection over every object a verb
# loaded (matplotlib, pytest...) would cost ~0.1 s of CPU at exit for nothing.
gc.freeze()
sys.exit(code)
