"""Imported by grade-all's fork server (workers.WorkerPool.start): what a grading session imports,
imported once there, before any worker is forked (preloading.preload_session)."""

from .preloading import preload_from_environment

preload_from_environment()
