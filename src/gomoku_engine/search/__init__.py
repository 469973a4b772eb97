"""Game-tree search: jitted alpha-beta, the VCF/VCT threat solvers, lazy SMP, the genetic
algorithm, and the time manager and strength levels that set a search's limits.
"""
