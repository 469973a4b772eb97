"""The evaluation's training pipeline: self-play games, labelling positions with an
engine's scores, and fitting the point values.
"""
