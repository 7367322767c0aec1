"""The tree and matrix mechanisms of DP-FTRL: correlated noise across rounds, accounted exactly.

    tree(*, max_participations, min_separation, rounds, noise_multiplier | epsilon, delta, restarts=None,
         per_epoch=None) -> TreeAccounting      # the exact worst case, rho exact, eps certified, eps_rdp as TF Privacy
    realized(log, *, max_participations, min_separation, rounds, noise_multiplier, delta, ...) -> RealizedAccounting
    read_log(path) -> ParticipationLog          # a participation log (CSV client,round or JSON {client: [rounds]})
    Forest.of(rounds, restarts=None)            # TF Privacy's layout of the rounds into complete binary trees
    worst_case(forest, max_participations, min_separation, per_segment=None) -> (s, pattern)
    toeplitz(coefficients | output_scale=, buf_decay=, *, rounds, max_participations, min_separation)
        -> ToeplitzMechanism      # banded Toeplitz or BLT: sensitivity (exact where its closed form is checked to
                                  # hold, else a certified upper bound) and its error beside the tree's

Examples
--------
>>> from itsa.privacy.matrix import Forest, worst_case
>>> worst_case(Forest.of(9), 3, 3)
(11, (0, 4, 8))
"""

from itsa.privacy.matrix._accounting import TF_PRIVACY_ORDERS, TreeAccounting, tree
from itsa.privacy.matrix._forest import Forest, Tree
from itsa.privacy.matrix._log import ParticipationLog, RealizedAccounting, read_log, realized
from itsa.privacy.matrix._toeplitz import (
    MAGNITUDE_BITS,
    ToeplitzMechanism,
    blt_coefficients,
    blt_inverse,
    toeplitz,
    tree_mean_error,
)
from itsa.privacy.matrix._worst import Schedule, worst_case

__all__ = ["tree", "TreeAccounting", "TF_PRIVACY_ORDERS", "Forest", "Tree", "Schedule", "worst_case",
           "ParticipationLog", "RealizedAccounting", "read_log", "realized",
           "toeplitz", "ToeplitzMechanism", "blt_coefficients", "blt_inverse", "tree_mean_error", "MAGNITUDE_BITS"]
