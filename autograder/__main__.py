import sys

from .cli import end, main

code = main()
end(code, sys.argv[1:2] in (["grade"], ["grade-all"]))
