"""Searches for verified schemes: the group criterion, scalar and vector searches, shapes, repair and the gap search."""
