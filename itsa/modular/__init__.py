"""Overflow margins, payload and the converse of layered modular sums, exactly."""
