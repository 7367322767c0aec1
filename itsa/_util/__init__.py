"""Leaves every part of itsa uses: bitsets, files, YAML limits, extras, checks, time, progress, display."""
