"""The problem: the frozen Instance, its YAML form, the shipped examples and the paper's set quantities."""
