"""Imported by grade-all's fork server (workers.WorkerPool.start): what a grading session imports,
imported once there, and the session configured and collected, before any worker is forked
(preloading.preload_session, preloading.prepare_session); and its exit made quick
(preloading.exit_quickly)."""

from .preloading import exit_quickly, preload_from_environment
from .tracing import trace

trace("forkserver-imported")        # (its phases: $AUTOGRADER_BATCH_TRACE, as the workers')
preload_from_environment()
exit_quickly()
trace("forkserver-prepared")
