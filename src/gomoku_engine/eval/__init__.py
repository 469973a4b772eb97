"""The static evaluation, behind one interface: its tables, its incremental values and the
move-ordering scores the search, the threat solver and Swap2 read.
"""
