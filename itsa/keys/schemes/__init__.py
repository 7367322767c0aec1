"""Key schemes over F_q: the data model, exact linear algebra, the paper's constructions and the exact verifier."""
