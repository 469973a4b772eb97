"""Human play: the game a person plays against the engine, in a terminal or a browser.
"""
