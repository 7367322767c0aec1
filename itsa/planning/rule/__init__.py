"""The rule wing: the k-standard-deviations rule practitioners size with, and the rule beside a plan.

The rule itself, certified (:mod:`~itsa.planning.rule.heuristic`: its pick
of scale and noise for a word, and its own wrap risk bounded), and the rule
handed a plan's noise and scored beside the plan
(:mod:`~itsa.planning.rule.beside`), which the plan's sections print.
"""
