"""Helpers shared by the test files: one copy of each, imported as `helpers.<module>`."""
