"""DP-FTRL's matrix mechanisms in a deployment: one room (the file's ``mechanism:`` and ``participation:``, read
in :mod:`.schema`; the plan's word, noise, error and frameworks sections, sized in :mod:`.size` and shown by
:mod:`.sections`).

    parse_matrix(mechanism, participation, noise_multiplier) -> MatrixMechanism | None
    size_matrix(flat_inputs, mechanism, deadline=...) -> MatrixParts    # the planner adds the keys and the gate
"""

from itsa.planning.matrix.schema import MatrixKind, MatrixMechanism, matrix_refusal, parse_matrix

__all__ = ["MatrixKind", "MatrixMechanism", "matrix_refusal", "parse_matrix"]
