"""DP-FTRL's matrix mechanisms in a deployment: one room (the plan's word, noise, error and frameworks sections,
sized in :mod:`.size` and shown by :mod:`.sections`; the file's ``mechanism:`` and ``participation:`` are read
below the deployment's reader, in :mod:`itsa.planning.schedule`).

    size_matrix(flat_inputs, mechanism, deadline=...) -> MatrixParts    # the planner adds the keys, the gate, the pair
"""

from itsa.planning.matrix.size import MatrixParts, size_matrix

__all__ = ["MatrixParts", "size_matrix"]
