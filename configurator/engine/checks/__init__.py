"""The checks on one job against its cards, and the advice that would make it fit.
"""
