"""``python -m experiments.reproduce``: run the experiments and write RESULTS.md."""

from .cli import main

main()
