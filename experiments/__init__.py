"""Experiments that reproduce the kernel k-groups papers with kgroups_rs.

Run them from the repository root with ``python -m experiments.reproduce`` (see
``experiments/reproduce/__init__.py`` and ``RESULTS.md``).
"""
