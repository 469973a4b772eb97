"""Engine-vs-engine games: the referee of one game, the match runner, the statistics
(Elo, LOS, SPRT) and the game records (PSQ, SGF).
"""
