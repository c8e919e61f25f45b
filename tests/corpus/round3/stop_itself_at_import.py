# Stops every process of its own at import (kill(-1, SIGSTOP): the request process and whatever
# else of its uid it may signal; the zygote, the pid 1 of its namespace, ignores it).  A stopped
# process uses no CPU: the request's CPU-time limit never comes, only its wall-clock backstop,
# and the stopped tasks stay in the sandbox's cgroup until they are killed.  A reused cgroup is
# given out only once no task is left in it (zz_classmate_after, graded after it, is graded
# normally).  The import never ends: nothing can be graded, 0.
import os as _os
import signal as _signal

_os.kill(-1, _signal.SIGSTOP)
_os.kill(_os.getpid(), _signal.SIGSTOP)
