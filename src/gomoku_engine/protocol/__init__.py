"""The Gomocup (pbrain) text protocol: the engine side (the command loop) and the manager
side (a client that drives another engine process).
"""
