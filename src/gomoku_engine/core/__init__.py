"""The game's primitives: constants, the padded board geometry, line patterns, renju fouls,
move notation, opening rules, errors, and the numba set-up every kernel uses.

Nothing here knows of evaluation, search or text; every other layer builds on it.
"""
