"""Formatters: pure functions from a run's results to text."""
