"""``python -m itsa``: the same command line as ``itsa`` (the :mod:`itsa_cli` package)."""

from itsa_cli import main

if __name__ == "__main__":
    main(prog_name="itsa")
